/**
 * The gateway proper (src/gateway/core/capture.ts) in node: the service worker's fetch handler fed real
 * `Request`s, the journal in memory (helpers/memory-journal.ts), the upstream either the built-in mock or a
 * scripted `fetch`. What an agent sees (status, body, headers) and what lands in the journal (the step, its
 * trajectory and prompt, the chain links a follow-up call finds). The browser test
 * (test/browser/gateway-*.test.ts) keeps the service-worker wiring; this file the logic.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StepRecord } from '../../src/contract/step';
import { Gateway, type GatewayEvent } from '../../src/gateway/core/capture';
import { RECORD_LIMIT } from '../../src/gateway/core/tee';
import type { JournalEntry, TrajectoryState } from '../../src/gateway/core/journal';
import { defaultSettings, type GatewaySettings, type UpstreamConfig } from '../../src/gateway/core/upstream';
import { promptUid } from '../../src/record/prompt-uid';
import { MemoryJournal } from './helpers/memory-journal';

const ORIGIN = 'https://workbench.example';
const BASE = '/wb/';
const KEY = 'sk-proj-gatewayTestKey0123456789abcdef';

function setup(opts: { settings?: GatewaySettings; fetch?: typeof fetch; recordLimit?: number } = {}) {
  const mem = new MemoryJournal();
  const events: GatewayEvent[] = [];
  const gw = new Gateway(BASE, { db: async () => mem.asDb(), settings: async () => opts.settings ?? defaultSettings(), notify: (e) => events.push(e), fetch: opts.fetch, recordLimit: opts.recordLimit });
  const steps = () => (mem.all('journal') as JournalEntry[]).map((e) => e.step);
  const traj = (uid: string) => mem.all('trajectories').find((t) => (t as TrajectoryState).trajectory_uid === uid) as TrajectoryState | undefined;
  return { mem, events, gw, steps, traj };
}

async function send(gw: Gateway, path: string, body?: unknown, init: RequestInit = {}) {
  const req = new Request(`${ORIGIN}${BASE}${path}`, { method: 'POST', ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }), ...init });
  const h = gw.handle(req);
  const res = await h.response;
  const text = await res.text();
  await h.done;
  return { res, text, json: () => JSON.parse(text) };
}

function upstream(over: Partial<UpstreamConfig> = {}): GatewaySettings {
  const u: UpstreamConfig = { id: 'real', name: 'Real', kind: 'openai', baseUrl: 'https://llm.example/v1', key: KEY, remember: false, models: ['*'], ...over };
  return { upstreams: [u], defaultUpstream: u.id };
}

const u = (content: string) => ({ role: 'user', content });
const chatJson = (content: string, extra: Record<string, unknown> = {}) => ({
  id: 'chatcmpl-1', object: 'chat.completion', created: 1767225600, model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content, ...extra }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
});

describe('gateway capture', () => {
  it('init_trajectory: ids from the body or generated, defaults stored, a base_url under the scope', async () => {
    const { gw, traj } = setup();
    const r = await send(gw, 'gateway/init_trajectory', { trajectory_uid: 'run 1/a', prompt_uid: 'p:7', channel: 'eval', agent: 'bot', metadata: { task: 'x', n: 3 } });
    assert.equal(r.res.status, 200);
    assert.equal(r.res.headers.get('content-type'), 'application/json');
    assert.deepEqual(r.json(), { trajectory_uid: 'run 1/a', prompt_uid: 'p:7', base_url: `${ORIGIN}/wb/gateway/run%201%2Fa/p%3A7/v1` });
    const t = traj('run 1/a')!;
    assert.deepEqual([t.prompt_uid, t.channel, t.agent, t.upstream, t.metadata], ['p:7', 'eval', 'bot', null, { task: 'x', n: '3' }]);
    const g = (await send(gw, 'gateway/init_trajectory', 'not json')).json();
    assert.match(g.trajectory_uid, /^t-[0-9a-f]{20}$/);
    assert.equal(g.prompt_uid, 'auto');
    const t2 = traj(g.trajectory_uid)!;
    assert.deepEqual([t2.channel, t2.agent, t2.metadata], ['train', null, null]);
  });

  it('a scoped chat call to the mock: the agent gets the answer, the journal the step, the page the events', async () => {
    const { gw, steps, events } = setup();
    const body = { model: 'mock', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Say hi' }] };
    const r = await send(gw, 'gateway/traj-1/p-1/v1/chat/completions', body, { headers: { 'content-type': 'application/json' } });
    assert.equal(r.res.status, 200);
    const answer = r.json().choices[0].message.content;
    assert.ok(answer);
    const [s] = steps();
    assert.equal(s.step_id, 'traj-1:0');
    assert.deepEqual([s.trajectory_uid, s.prompt_uid, s.step_index, s.status, s.error], ['traj-1', 'p-1', 0, 'ok', null]);
    assert.equal(s.response?.content, answer);
    assert.deepEqual(s.messages.map((m) => m.content), ['Be brief.', 'Say hi']);
    assert.equal(s.metadata?.http_status, '200');
    assert.equal(s.channel, 'train');
    assert.ok(s.latency_ms !== null && s.started_at !== null && s.ended_at !== null && Math.abs(s.latency_ms - (s.ended_at - s.started_at)) < 20, `latency ${s.latency_ms}`);
    assert.equal(s.ttft_ms, null, 'no time to first token for a JSON answer');
    assert.deepEqual(events.map((e) => e.type), ['call-start', 'call-end', 'journal']);
    assert.deepEqual(events[0], { type: 'call-start', id: 'traj-1:0', trajectory_uid: 'traj-1', api: 'chat', model: 'mock' });
    const end = events[1] as Extract<GatewayEvent, { type: 'call-end' }>;
    assert.deepEqual([end.id, end.status, end.error], ['traj-1:0', 'ok', null]);
    assert.ok((end.latency_ms ?? -1) >= 0);
    assert.deepEqual(events[2], { type: 'journal', step_ids: ['traj-1:0'] });
    // the next call in the same trajectory is step 1
    await send(gw, 'gateway/traj-1/p-1/v1/chat/completions', body);
    assert.deepEqual(steps().map((x) => x.step_id), ['traj-1:0', 'traj-1:1']);
  });

  it('unscoped chat calls: a growing history joins the trajectory of the call whose answer it repeats; the prompt id is the first user turn', async () => {
    const { gw, steps } = setup();
    const sys = { role: 'system', content: 'You are terse.' };
    const u1 = { role: 'user', content: 'What is 2+2?' };
    const r1 = await send(gw, 'gateway/v1/chat/completions', { model: 'mock', messages: [sys, u1] });
    const a1 = r1.json().choices[0].message;
    const u2 = { role: 'user', content: 'And 3+3?' };
    await send(gw, 'gateway/v1/chat/completions', { model: 'mock', messages: [sys, u1, { role: 'assistant', content: ` ${a1.content} ` }, u2] });
    // an unrelated conversation starts its own trajectory
    await send(gw, 'gateway/v1/chat/completions', { model: 'mock', messages: [sys, { role: 'user', content: 'Other task' }] });
    // a history whose assistant turn was never answered by the gateway does not join anything
    await send(gw, 'gateway/v1/chat/completions', { model: 'mock', messages: [sys, u1, { role: 'assistant', content: 'I made this up' }, u2] });
    const [s0, s1, s2, s3] = steps();
    assert.match(s0.trajectory_uid, /^gw-[0-9a-f]{20}$/);
    assert.deepEqual([s1.trajectory_uid, s1.step_index], [s0.trajectory_uid, 1], 'the follow-up joins the first call');
    assert.equal(s0.prompt_uid, promptUid([sys, u1] as StepRecord['messages']));
    assert.equal(s1.prompt_uid, s0.prompt_uid, 'one prompt: the second user turn does not change it');
    assert.notEqual(s2.trajectory_uid, s0.trajectory_uid);
    assert.notEqual(s2.prompt_uid, s0.prompt_uid);
    assert.notEqual(s3.trajectory_uid, s0.trajectory_uid);
    assert.equal(s3.step_index, 0);
  });

  it('a history with tool calls links by the call and its arguments, whatever their JSON spacing', async () => {
    const calls = [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }];
    let n = 0;
    const fetchUp: typeof fetch = async () => {
      n++;
      const msg = n === 1 ? chatJson('', { content: null, tool_calls: calls }) : chatJson('Sunny.');
      return new Response(JSON.stringify(msg), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const { gw, steps } = setup({ settings: upstream({}), fetch: fetchUp });
    const u = { role: 'user', content: 'Weather in Paris?' };
    await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [u] });
    const echoed = { role: 'assistant', content: null, tool_calls: [{ ...calls[0], function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] };
    await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [u, echoed, { role: 'tool', tool_call_id: 'call_1', content: '18C sunny' }] });
    const other = { ...echoed, tool_calls: [{ ...calls[0], function: { name: 'get_weather', arguments: '{"city":"Rome"}' } }] };
    await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [u, other, { role: 'tool', tool_call_id: 'call_1', content: '20C' }] });
    const [s0, s1, s2] = steps();
    assert.equal(s1.trajectory_uid, s0.trajectory_uid);
    assert.notEqual(s2.trajectory_uid, s0.trajectory_uid, 'other arguments: another trajectory');
  });

  it('the same answer in another conversation does not join it: the link is on the whole history', async () => {
    const fetchUp: typeof fetch = async () => new Response(JSON.stringify(chatJson('Done.')), { status: 200, headers: { 'content-type': 'application/json' } });
    const { gw, steps } = setup({ settings: upstream({}), fetch: fetchUp });
    await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [u('Rename the file')] });
    await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [u('Delete the branch'), { role: 'assistant', content: 'Done.' }, u('Thanks')] });
    await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [u('Rename the file'), { role: 'assistant', content: 'Done.' }, u('Thanks')] });
    const [s0, s1, s2] = steps();
    assert.notEqual(s1.trajectory_uid, s0.trajectory_uid);
    assert.equal(s2.trajectory_uid, s0.trajectory_uid);
  });

  it('Responses API: previous_response_id prepends the linked context and joins its trajectory', async () => {
    const { gw, steps } = setup();
    const r1 = await send(gw, 'gateway/v1/responses', { model: 'mock', instructions: 'Be helpful.', input: 'Plan a trip' });
    const id = r1.json().id;
    assert.ok(id);
    await send(gw, 'gateway/v1/responses', { model: 'mock', previous_response_id: id, input: [{ role: 'user', content: 'Shorter please' }] });
    await send(gw, 'gateway/v1/responses', { model: 'mock', previous_response_id: 'resp_unknown', input: 'Hello' });
    const [s0, s1, s2] = steps();
    assert.equal(s1.trajectory_uid, s0.trajectory_uid);
    assert.equal(s1.step_index, 1);
    assert.deepEqual(s1.messages.map((m) => m.role), ['system', 'user', 'assistant', 'user']);
    assert.equal(s1.messages[2].content, s0.response?.content);
    assert.equal(s1.prompt_uid, s0.prompt_uid);
    assert.notEqual(s2.trajectory_uid, s0.trajectory_uid);
    assert.deepEqual(s2.messages.map((m) => m.content), ['Hello']);
  });

  it('a streamed chat answer in small network chunks: the agent gets the bytes untouched, the step the text and a time to first token', async () => {
    const deltas = ['数据', '工厂', ' ok'];
    const base = { id: 'chatcmpl-2', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini' };
    const sse = `${deltas.map((d) => `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: d }, finish_reason: null }] })}\n\n`).join('')}data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;
    const bytes = new TextEncoder().encode(sse);
    let sent: RequestInit | undefined;
    const fetchUp: typeof fetch = async (_u, init) => {
      sent = init;
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          for (let i = 0; i < bytes.length; i += 2) c.enqueue(bytes.slice(i, i + 2));
          c.close();
        },
      });
      return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream', 'content-length': String(bytes.length), 'content-encoding': 'identity', 'x-request-id': 'req_1' } });
    };
    const { gw, steps } = setup({ settings: upstream({}), fetch: fetchUp });
    const r = await send(gw, 'gateway/t-s/p-s/v1/chat/completions', { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] }, { headers: { authorization: 'Bearer agent-own-token', 'x-aw-call-id': 'c1' } });
    assert.equal(r.text, sse);
    assert.equal(r.res.headers.get('content-length'), null);
    assert.equal(r.res.headers.get('content-encoding'), null);
    assert.equal(r.res.headers.get('x-request-id'), 'req_1');
    assert.equal(new Headers(sent?.headers).get('authorization'), `Bearer ${KEY}`);
    const [s] = steps();
    assert.equal(s.response?.content, '数据工厂 ok');
    assert.equal(s.finish_reason, 'stop');
    assert.equal(s.status, 'ok');
    assert.ok(typeof s.ttft_ms === 'number' && s.ttft_ms >= 0);
    assert.ok(!JSON.stringify(s).includes(KEY));
    assert.equal(gw.abort('c1'), false, 'a finished call is no longer in flight');
  });

  it('a stream that ends with an error event is recorded as an error step', async () => {
    const sse = 'event: response.created\ndata: {"type":"response.created","response":{"id":"resp_e","status":"in_progress"}}\n\nevent: error\ndata: {"type":"error","code":"server_error","message":"The server had an error"}\n\n';
    const fetchUp: typeof fetch = async () => new Response(sse, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    const { gw, steps, mem } = setup({ settings: upstream({}), fetch: fetchUp });
    await send(gw, 'gateway/v1/responses', { model: 'gpt-4o-mini', stream: true, input: 'hi' });
    const [s] = steps();
    assert.equal(s.status, 'error');
    assert.match(s.error ?? '', /^upstream stream error: .*The server had an error/);
    assert.equal(mem.all('links').length, 0, 'a failed call is no link for a follow-up');
  });

  it('upstream errors: the agent gets the upstream status and body (a configured key scrubbed), the step the error', async () => {
    const errBody = JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}`, type: 'invalid_request_error', code: 'invalid_api_key' } });
    const fetchUp: typeof fetch = async () => new Response(errBody, { status: 401, statusText: 'Unauthorized', headers: { 'content-type': 'application/json' } });
    const other: UpstreamConfig = { id: 'other', name: 'Other', kind: 'openai', baseUrl: 'https://other.example/v1', key: 'sk-other-0123456789abcdefghij', remember: false, models: [] };
    const two = upstream({});
    two.upstreams.push(other);
    const { gw, steps, events } = setup({ settings: two, fetch: fetchUp });
    const r = await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.res.status, 401);
    assert.equal(r.res.statusText, 'Unauthorized');
    assert.ok(!r.text.includes(KEY));
    assert.match(r.text, /Incorrect API key provided/);
    const [s] = steps();
    assert.equal(s.status, 'error');
    assert.match(s.error ?? '', /401/);
    assert.ok(!JSON.stringify(s).includes(KEY));
    assert.equal(s.metadata?.http_status, '401');
    const end = events.find((e) => e.type === 'call-end') as Extract<GatewayEvent, { type: 'call-end' }>;
    assert.equal(end.status, 'error');
    // an error body without the key is handed on as is
    const plain = '{"error":{"message":"Rate limit reached"}}';
    const g2 = setup({ settings: upstream({}), fetch: async () => new Response(plain, { status: 429 }) });
    assert.equal((await send(g2.gw, 'gateway/v1/chat/completions', { model: 'x', messages: [] })).text, plain);
  });

  it('an upstream that echoes the key base64-, base64url- or hex-encoded: no encoding of it reaches the journal, nor the agent in an error body', async () => {
    const enc = (e: BufferEncoding) => Buffer.from(`Bearer ${KEY}`).toString(e);
    const echo = `auth was ${enc('base64')} / ${enc('base64url')} / ${enc('hex')}`;
    const ok = setup({ settings: upstream({}), fetch: async () => Response.json(chatJson(echo)) });
    await send(ok.gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [u('echo my headers')] });
    const stored = JSON.stringify(ok.steps());
    const bad = setup({ settings: upstream({}), fetch: async () => Response.json({ error: { message: echo } }, { status: 401 }) });
    const agentSaw = (await send(bad.gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [] })).text;
    for (const text of [stored, JSON.stringify(bad.steps()), agentSaw]) {
      assert.match(text, /auth was .*\[redacted\]/);
      for (const e of ['base64', 'base64url', 'hex'] as const) {
        // past "Bearer " (7 bytes: at most 14 characters of any of the three), short of the last bits
        assert.ok(!text.includes(enc(e).slice(16, -4)), `${e} of the key in ${text.slice(0, 300)}`);
      }
    }
  });

  it('the mock scripted 500, and a 200 JSON body that carries an error', async () => {
    const { gw, steps } = setup();
    const r = await send(gw, 'gateway/v1/messages', { model: 'mock-500', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.res.status, 500);
    assert.equal(steps()[0].status, 'error');
    const failed = { id: 'resp_f', object: 'response', status: 'failed', error: { code: 'server_error', message: 'boom' }, output: [] };
    const g2 = setup({ settings: upstream({}), fetch: async () => new Response(JSON.stringify(failed), { status: 200, headers: { 'content-type': 'application/json' } }) });
    await send(g2.gw, 'gateway/v1/responses', { model: 'gpt-4o-mini', input: 'hi' });
    const [s] = g2.steps();
    assert.equal(s.status, 'error');
    assert.equal(s.error, 'upstream stream error: boom', 'a body is always read through the tee');
  });

  it('an unreachable upstream is a 502 naming CORS; a timeout a 504; a body that breaks a 502', async () => {
    const { gw, steps } = setup({ settings: upstream({}), fetch: async () => Promise.reject(new TypeError('Failed to fetch')) });
    const r = await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.res.status, 502);
    assert.equal(r.json().error.type, 'gateway_upstream_unreachable');
    assert.match(r.json().error.message, /Could not reach https:\/\/llm\.example\/v1 from https:\/\/workbench\.example/);
    assert.equal(r.json().error.source, 'agentworld-gateway');
    assert.match(steps()[0].error ?? '', /CORS/);

    // an upstream that never answers: the upstream's own timeoutMs ends the call (a real timer, as the app's setting
    // does; was test/e2e/upstream-faults.test.mjs's hanging upstream, a page boot of its own)
    // (Node's AbortSignal.timeout does not keep the event loop alive: the hanging call holds a timer of its own)
    const hang: typeof fetch = (_u, init) =>
      new Promise((_ok, fail) => {
        const alive = setTimeout(() => fail(new Error('the timeout never fired')), 10_000);
        init!.signal!.addEventListener('abort', () => {
          clearTimeout(alive);
          fail(init!.signal!.reason);
        });
      });
    const t = setup({ settings: upstream({ timeoutMs: 150 }), fetch: hang });
    const rt = await send(t.gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [] });
    assert.equal(rt.res.status, 504);
    assert.equal(rt.json().error.type, 'gateway_upstream_timeout');
    assert.equal(t.steps()[0].status, 'error');
    assert.equal(t.steps()[0].error, 'upstream Real timed out after 150 ms');

    const broken = new ReadableStream({
      pull(c) {
        c.error(new Error('connection reset'));
      },
    });
    const b = setup({ settings: upstream({}), fetch: async () => new Response(broken, { status: 500 }) });
    const rb = await send(b.gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [] });
    assert.equal(rb.res.status, 502);
    assert.equal(rb.json().error.type, 'gateway_upstream_broken');
    assert.equal(b.steps()[0].error, 'upstream body broke: connection reset');
  });

  it('a 100 MB answer (control characters: JSON-escaped they would pass the longest string V8 can hold) reaches the agent whole and is recorded cut, as an error step naming the limit', async () => {
    const total = 100 * 1024 * 1024;
    const chunk = new Uint8Array(1024 * 1024).fill(1);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent >= total) return c.close();
        sent += chunk.length;
        c.enqueue(chunk.slice());
      },
    });
    const { gw, steps, events } = setup({ settings: upstream({}), fetch: async () => new Response(body, { status: 200, headers: { 'content-type': 'application/json' } }) });
    const h = gw.handle(new Request(`${ORIGIN}${BASE}gateway/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'gpt-4o-mini', messages: [u('a lot, please')] }) }));
    const res = await h.response;
    let got = 0;
    for await (const part of res.body!) got += part.length;
    await h.done;
    assert.equal(got, total, 'the agent gets every byte');
    const [s] = steps();
    assert.ok(s, 'the call is recorded');
    assert.equal(s.status, 'error');
    assert.equal(s.error, `response too large to record: the upstream sent 100.0 MB, the gateway records at most ${RECORD_LIMIT / 1048576}.0 MB of a response; the agent received all of it, the step keeps the first ${RECORD_LIMIT / 1048576}.0 MB`);
    assert.deepEqual([s.metadata?.response_bytes, s.metadata?.response_cut], [String(total), 'true']);
    assert.deepEqual(s.messages.map((m) => m.content), ['a lot, please']);
    const kept = JSON.parse(s.raw ?? '{}').response as string;
    assert.equal(kept.length, RECORD_LIMIT);
    assert.equal(kept, '\u0001'.repeat(RECORD_LIMIT));
    const end = events.find((e) => e.type === 'call-end') as Extract<GatewayEvent, { type: 'call-end' }>;
    assert.equal(end.status, 'error');
  });

  it('a stream past the limit keeps the message up to the limit; an error body past it is handed on whole and recorded cut; below the limit nothing is cut', async () => {
    const ev = (d: string) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: d }, finish_reason: null }] })}\n\n`;
    const sse = Array.from({ length: 40 }, (_, i) => ev(`part${i} `)).join('');
    const limit = 1000;
    const st = setup({ settings: upstream({}), recordLimit: limit, fetch: async () => new Response(sse, { status: 200, headers: { 'content-type': 'text/event-stream' } }) });
    const r = await send(st.gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', stream: true, messages: [u('go')] });
    assert.equal(r.text, sse);
    const [s] = st.steps();
    assert.equal(s.status, 'error');
    assert.match(s.error ?? '', /^response too large to record: the upstream sent 0\.0 MB, the gateway records at most 0\.0 MB/);
    assert.equal(s.metadata?.response_bytes, String(sse.length));
    const whole = Math.floor(limit / ev('part0 ').length);
    assert.ok(s.response?.content?.startsWith(Array.from({ length: whole }, (_, i) => `part${i} `).join('')), s.response?.content ?? '');
    assert.ok(!s.response?.content?.includes(`part${whole + 1} `));

    const errBody = JSON.stringify({ error: { message: `overloaded ${'x'.repeat(3000)}` } });
    const e = setup({ settings: upstream({}), recordLimit: limit, fetch: async () => new Response(errBody, { status: 503 }) });
    const re = await send(e.gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [u('go')] });
    assert.equal(re.text, errBody, 'the agent gets the whole error body');
    const [se] = e.steps();
    assert.match(se.error ?? '', /^upstream HTTP 503: .*; response too large to record/);
    assert.equal(JSON.parse(se.raw ?? '{}').response, errBody.slice(0, limit));
    assert.equal(se.metadata?.response_cut, 'true');

    const small = setup({ settings: upstream({}), recordLimit: sse.length, fetch: async () => new Response(sse, { status: 200, headers: { 'content-type': 'text/event-stream' } }) });
    await send(small.gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', stream: true, messages: [u('go')] });
    assert.equal(small.steps()[0].status, 'ok');
    assert.equal(small.steps()[0].metadata?.response_cut, undefined);
  });

  it('a step the journal cannot take is recorded as an error step without its bodies, and the page is told', async () => {
    const { gw, mem, steps, events } = setup();
    const journal = mem.stores.get('journal')!;
    const put = journal.put.bind(journal);
    journal.put = async (v: Record<string, unknown>) => {
      if (JSON.stringify(v).includes('too big for this journal')) throw new DOMException('The serialized value is too large', 'DataError');
      return put(v);
    };
    const r = await send(gw, 'gateway/v1/chat/completions', { model: 'mock', messages: [u('too big for this journal')] });
    assert.equal(r.res.status, 200);
    const [s] = steps();
    assert.equal(s.status, 'error');
    assert.equal(s.error, 'the gateway could not record this call whole (DataError: The serialized value is too large); the agent got the upstream\'s answer; the step keeps no request or response');
    assert.deepEqual(s.messages, []);
    assert.equal(s.response, null);
    const told = events.find((e) => e.type === 'record-error') as Extract<GatewayEvent, { type: 'record-error' }>;
    assert.equal(told?.message, s.error);
    assert.ok(events.some((e) => e.type === 'journal'));
  });

  it('a stream that breaks midway: the agent sees the error, the step keeps the text so far', async () => {
    const chunk = `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'partial' }, finish_reason: null }] })}\n\n`;
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (!sent) {
          sent = true;
          c.enqueue(new TextEncoder().encode(chunk));
        } else c.error(new Error('socket hang up'));
      },
    });
    const { gw, steps } = setup({ settings: upstream({}), fetch: async () => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }) });
    const h = gw.handle(new Request(`${ORIGIN}${BASE}gateway/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [] }) }));
    const res = await h.response;
    await assert.rejects(res.text(), /socket hang up/);
    await h.done;
    const [s] = steps();
    assert.equal(s.status, 'error');
    assert.equal(s.error, 'upstream stream broke: socket hang up');
    assert.equal(s.response?.content, 'partial');
  });

  it('a client cancel by call id aborts the upstream stream and records the step as cancelled', async () => {
    let upstreamCancelled: unknown = null;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'Once upon' }, finish_reason: null }] })}\n\n`));
      },
      cancel(reason) {
        upstreamCancelled = reason;
      },
    });
    const { gw, steps, mem } = setup({ settings: upstream({}), fetch: async () => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }) });
    const h = gw.handle(new Request(`${ORIGIN}${BASE}gateway/v1/chat/completions`, { method: 'POST', headers: { 'x-aw-call-id': 'call-9' }, body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [] }) }));
    const res = await h.response;
    const reader = res.body!.getReader();
    const first = await reader.read();
    assert.match(new TextDecoder().decode(first.value), /Once upon/);
    assert.equal(gw.abort('call-9'), true);
    assert.equal(gw.abort('nope'), false);
    await h.done;
    assert.equal(upstreamCancelled, 'cancelled by client');
    const [s] = steps();
    assert.equal(s.status, 'error');
    assert.equal(s.error, 'cancelled by client');
    assert.equal(s.metadata?.aborted, 'true');
    assert.equal(s.response?.content, 'Once upon');
    assert.equal(mem.all('links').length, 0, 'a cancelled answer is no link for a follow-up');
  });

  it('an abort relayed before the call registers its id (the relay beat the fetch event) still cancels the call', async () => {
    // the abort travels on a BroadcastChannel, the call as a fetch event: under load the abort can arrive first
    const seenAborted: boolean[] = [];
    const fetchUp: typeof fetch = async (_u, init) => {
      seenAborted.push(!!init?.signal?.aborted);
      if (init?.signal?.aborted) throw new DOMException('aborted', 'AbortError');
      return new Response(JSON.stringify(chatJson('late answer')), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const { gw, steps } = setup({ settings: upstream({}), fetch: fetchUp });
    assert.equal(gw.abort('early-1'), false, 'nothing in flight yet: remembered, not applied');
    const r = await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [u('hi')] }, { headers: { 'x-aw-call-id': 'early-1' } });
    assert.deepEqual(seenAborted, [true], 'the upstream request starts already aborted');
    assert.equal(r.res.status, 499);
    assert.equal(steps()[0].error, 'cancelled by client');
    // the remembered abort is used up: another call is not touched by it, even one reusing the id
    const again = await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [u('hi again')] }, { headers: { 'x-aw-call-id': 'early-1' } });
    assert.equal(again.res.status, 200);
    const plain = await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [u('no id')] });
    assert.equal(plain.res.status, 200);
  });

  it('an abort that arrives while the gateway is still preparing the call (before the upstream fetch) cancels it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((ok) => (release = ok));
    let asked!: () => void;
    const settingsAsked = new Promise<void>((ok) => (asked = ok));
    const mem = new MemoryJournal();
    const seenAborted: boolean[] = [];
    const gw = new Gateway(BASE, {
      db: async () => mem.asDb(),
      // the worker may wait up to 400 ms for an open page to send the keys: a wide window for an early abort
      settings: async () => {
        asked();
        await gate;
        return upstream({});
      },
      notify: () => {},
      fetch: async (_u, init) => {
        seenAborted.push(!!init?.signal?.aborted);
        if (init?.signal?.aborted) throw new DOMException('aborted', 'AbortError');
        return new Response(JSON.stringify(chatJson('late answer')), { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    const h = gw.handle(new Request(`${ORIGIN}${BASE}gateway/v1/chat/completions`, { method: 'POST', headers: { 'x-aw-call-id': 'mid-1' }, body: JSON.stringify({ model: 'gpt-4o-mini', messages: [u('hi')] }) }));
    await settingsAsked;
    gw.abort('mid-1');
    release();
    const res = await h.response;
    await res.text();
    await h.done;
    assert.deepEqual(seenAborted, [true], 'the upstream request starts already aborted');
    assert.equal(res.status, 499);
  });

  it('the agent dropping the body cancels the upstream and records a cancelled step', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    const { gw, steps, events, mem } = setup({ settings: upstream({}), fetch: async () => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }) });
    const h = gw.handle(new Request(`${ORIGIN}${BASE}gateway/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [] }) }));
    const res = await h.response;
    await res.body!.cancel('agent gone');
    await h.done;
    assert.equal(cancelled, true);
    assert.equal(steps()[0].error, 'cancelled by client');
    assert.deepEqual(events.map((e) => e.type), ['call-start', 'call-end', 'journal'], 'the call ends once, though both the cancel and the abort it causes settle it');
    assert.equal((mem.all('journal') as JournalEntry[])[0].rev, 1, 'written once');
  });

  it('a request already aborted is a 499 and a cancelled step', async () => {
    const ac = new AbortController();
    ac.abort();
    const fetchUp: typeof fetch = async (_u, init) => {
      if (init?.signal?.aborted) throw new DOMException('aborted', 'AbortError');
      return new Response('{}');
    };
    const { gw, steps } = setup({ settings: upstream({}), fetch: fetchUp });
    const h = gw.handle(new Request(`${ORIGIN}${BASE}gateway/v1/chat/completions`, { method: 'POST', body: '{"model":"m","messages":[]}', signal: ac.signal }));
    const res = await h.response;
    assert.equal(res.status, 499);
    assert.deepEqual((await res.json()).error, { type: 'gateway_cancelled', message: 'cancelled by client', source: 'agentworld-gateway' });
    await h.done;
    assert.equal(steps()[0].error, 'cancelled by client');
  });

  it('forwarding rules: an Anthropic upstream only takes messages; an upstream without a base URL is refused; the Anthropic path gets /v1', async () => {
    const urls: string[] = [];
    const fetchUp: typeof fetch = async (u, init) => {
      urls.push(String(u));
      assert.equal(new Headers(init?.headers).get('x-api-key'), KEY);
      return new Response(JSON.stringify({ id: 'msg_1', type: 'message', role: 'assistant', model: 'claude', content: [{ type: 'text', text: 'Hi!' }], stop_reason: 'end_turn', usage: { input_tokens: 5, output_tokens: 2 } }), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const a = setup({ settings: upstream({ kind: 'anthropic', baseUrl: 'https://api.anthropic.com' }), fetch: fetchUp });
    const r = await send(a.gw, 'gateway/v1/chat/completions', { model: 'claude', messages: [] });
    assert.equal(r.res.status, 400);
    assert.equal(r.json().error.type, 'gateway_upstream_mismatch');
    const ok = await send(a.gw, 'gateway/v1/messages', { model: 'claude', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(ok.res.status, 200);
    assert.deepEqual(urls, ['https://api.anthropic.com/v1/messages']);
    assert.equal(a.steps()[1].response?.content, 'Hi!');
    const n = setup({ settings: upstream({ baseUrl: '' }), fetch: fetchUp });
    const rn = await send(n.gw, 'gateway/v1/chat/completions', { model: 'gpt', messages: [] });
    assert.equal(rn.res.status, 400);
    assert.equal(rn.json().error.type, 'gateway_upstream_unset');
  });

  it('register and complete: metadata, channel and agent stored; the reward lands on the last step', async () => {
    const { gw, steps, traj, events } = setup();
    const reg = await send(gw, 'gateway/tr/pr/v1/register_trajectory', { channel: 'eval', agent: 'a1', metadata: { split: 'dev' } });
    assert.deepEqual(reg.json(), { ok: true, trajectory_uid: 'tr', channel: 'eval' });
    assert.deepEqual([traj('tr')?.agent, traj('tr')?.metadata, traj('tr')?.prompt_uid], ['a1', { split: 'dev' }, 'pr']);
    await send(gw, 'gateway/tr/pr/v1/register_trajectory', {});
    assert.deepEqual([traj('tr')?.channel, traj('tr')?.agent, traj('tr')?.metadata], ['eval', 'a1', { split: 'dev' }], 'an empty register keeps what was set');
    await send(gw, 'gateway/tr/pr/v1/chat/completions', { model: 'mock', messages: [{ role: 'user', content: 'go' }] });
    await send(gw, 'gateway/tr/pr/v1/chat/completions', { model: 'mock', messages: [{ role: 'user', content: 'again' }] });
    events.length = 0;
    const c = await send(gw, 'gateway/tr/pr/v1/complete_trajectory', { reward: 0.75 });
    assert.deepEqual(c.json(), { ok: true, trajectory_uid: 'tr', steps: 2, reward: 0.75 });
    assert.deepEqual(events, [{ type: 'journal', step_ids: ['tr:1'] }]);
    const s = steps();
    assert.equal(s[1].reward, 0.75);
    assert.equal(s[1].is_last, true);
    assert.equal(s[0].is_last, false);
    assert.equal(s[0].channel, 'eval');
    // completing a trajectory without steps touches nothing
    events.length = 0;
    const e = await send(gw, 'gateway/empty/p/v1/complete_trajectory', { reward: 'high' });
    assert.deepEqual(e.json(), { ok: true, trajectory_uid: 'empty', steps: 0, reward: null });
    assert.deepEqual(events, []);
  });

  it('the auto prompt: a trajectory initialised without a prompt id takes the first call\'s prompt', async () => {
    const { gw, steps, traj } = setup();
    const { trajectory_uid } = (await send(gw, 'gateway/init_trajectory', { trajectory_uid: 'ta' })).json();
    const msgs = [{ role: 'user', content: 'Write a haiku' }];
    await send(gw, `gateway/${trajectory_uid}/auto/v1/chat/completions`, { model: 'mock', messages: msgs });
    const want = promptUid(msgs as StepRecord['messages']);
    assert.equal(steps()[0].prompt_uid, want);
    assert.equal(traj('ta')?.prompt_uid, want);
  });

  it('a blank prompt is a group of its own trajectory, as on import: two blank conversations share no GRPO group', async () => {
    const { gw, steps } = setup();
    const blank = [{ role: 'system', content: ' ' }, { role: 'user', content: '' }];
    await send(gw, 'gateway/v1/chat/completions', { model: 'mock', messages: blank });
    await send(gw, 'gateway/v1/chat/completions', { model: 'mock', messages: blank });
    const [a, b] = steps();
    assert.notEqual(a.trajectory_uid, b.trajectory_uid);
    assert.equal(a.prompt_uid, promptUid(blank as StepRecord['messages'], a.trajectory_uid));
    assert.match(a.prompt_uid, /^p-empty-/);
    assert.notEqual(a.prompt_uid, b.prompt_uid);
  });

  it('models, OPTIONS, unknown routes and ownership', async () => {
    const { gw } = setup();
    const m = await send(gw, 'gateway/v1/models', undefined, { method: 'GET' });
    assert.deepEqual(m.json().data.map((x: { id: string }) => x.id), ['mock', 'mock-slow', 'mock-500']);
    const urls: string[] = [];
    const real = setup({ settings: upstream({}), fetch: async (u) => {
        urls.push(String(u));
        return new Response('{"object":"list","data":[{"id":"llama"}]}');
      },
    });
    assert.equal((await send(real.gw, 'gateway/v1/models', undefined, { method: 'GET' })).json().data[0].id, 'llama');
    assert.deepEqual(urls, ['https://llm.example/v1/models']);
    const o = await send(gw, 'gateway/v1/chat/completions', undefined, { method: 'OPTIONS' });
    assert.equal(o.res.status, 204);
    const u = await send(gw, 'gateway/v1/embeddings', {});
    assert.equal(u.res.status, 404);
    assert.equal(u.json().error.type, 'gateway_route_not_found');
    assert.match(u.json().error.message, /^POST \/wb\/gateway\/v1\/embeddings: no gateway route/);
    assert.equal(gw.owns(new URL(`${ORIGIN}/wb/gateway/v1/models`)), true);
    assert.equal(gw.owns(new URL(`${ORIGIN}/wb/gateway`)), true);
    assert.equal(gw.owns(new URL(`${ORIGIN}/wb/gatewayx`)), false);
    assert.equal(gw.owns(new URL(`${ORIGIN}/wb/app`)), false);
  });

  it('upstream choice: the x-aw-upstream header, else the one init_trajectory named, else by model', async () => {
    const urls: string[] = [];
    const fetchUp: typeof fetch = async (u) => {
      urls.push(String(u));
      return new Response(JSON.stringify(chatJson('ok')), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const a: UpstreamConfig = { id: 'a', name: 'A', kind: 'openai', baseUrl: 'https://a.example/v1', key: null, remember: false, models: ['gpt-*'] };
    const b: UpstreamConfig = { ...a, id: 'b', name: 'B', baseUrl: 'https://b.example/v1', models: ['llama*'] };
    const { gw, steps } = setup({ settings: { upstreams: [a, b], defaultUpstream: 'a' }, fetch: fetchUp });
    const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] };
    await send(gw, 'gateway/v1/chat/completions', body);
    await send(gw, 'gateway/v1/chat/completions', body, { headers: { 'x-aw-upstream': 'b' } });
    await send(gw, 'gateway/init_trajectory', { trajectory_uid: 'tb', upstream: 'b' });
    await send(gw, 'gateway/tb/auto/v1/chat/completions', body);
    assert.deepEqual(urls, ['https://a.example/v1/chat/completions', 'https://b.example/v1/chat/completions', 'https://b.example/v1/chat/completions']);
    assert.deepEqual(steps().map((s) => s.metadata?.upstream), ['a', 'b', 'b']);
  });

  it('a scoped call that continues a response of another trajectory stays in its own; a cancelled call is no link', async () => {
    const { gw, steps, mem } = setup();
    const id = (await send(gw, 'gateway/v1/responses', { model: 'mock', input: 'Plan a trip' })).json().id;
    await send(gw, 'gateway/mine/p/v1/responses', { model: 'mock', previous_response_id: id, input: 'Shorter' });
    const [s0, s1] = steps();
    assert.equal(s1.trajectory_uid, 'mine');
    assert.equal(s1.prompt_uid, 'p');
    assert.equal(s1.messages.length, 3, 'the linked context is still prepended');
    assert.notEqual(s0.trajectory_uid, 'mine');
    assert.equal(mem.all('links').length, 2);
  });

  it('an OK answer without a body is an error step; and a timeout without a configured limit', async () => {
    const { gw, steps } = setup({ settings: upstream({}), fetch: async () => new Response(null, { status: 200 }) });
    const r = await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.res.status, 200);
    const [s] = steps();
    assert.deepEqual([s.status, s.error, s.response], ['error', 'upstream error: upstream answered with a body that is not a JSON object', null]);
    const t = setup({ settings: upstream({}), fetch: async () => Promise.reject(new DOMException('timed out', 'TimeoutError')) });
    await send(t.gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [] });
    assert.equal(t.steps()[0].error, 'upstream Real timed out after 600000 ms');
  });

  it('a request body that is not JSON is forwarded as sent and recorded as text', async () => {
    let got: unknown = null;
    const { gw, steps } = setup({ settings: upstream({}), fetch: async (_u, init) => {
        got = init?.body;
        return new Response('{"error":{"message":"bad json"}}', { status: 400 });
      },
    });
    await send(gw, 'gateway/v1/chat/completions', '{"model": broken');
    assert.equal(got, '{"model": broken');
    assert.equal(steps()[0].status, 'error');
    assert.match(steps()[0].raw ?? '', /broken/);
  });

  it('a journal write that fails after the answer: the agent still gets it, done settles (the worker may stop), and the page is told', async () => {
    const { gw, mem, events } = setup();
    const journal = mem.stores.get('journal')!;
    journal.put = async () => Promise.reject(new DOMException('disk full', 'QuotaExceededError'));
    const errors: unknown[] = [];
    const log = console.error;
    console.error = (...a: unknown[]) => errors.push(a);
    try {
      const r = await send(gw, 'gateway/v1/chat/completions', { model: 'mock', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(r.res.status, 200);
    } finally {
      console.error = log;
    }
    assert.equal(errors.length, 1);
    assert.match(String((errors[0] as unknown[])[0]), /journal write failed/);
    const told = events.filter((e) => e.type === 'record-error').map((e) => (e as Extract<GatewayEvent, { type: 'record-error' }>).message);
    assert.deepEqual(told, [
      'the gateway could not record this call whole (QuotaExceededError: disk full); the agent got the upstream\'s answer; the step keeps no request or response',
      'the gateway could not record a call (QuotaExceededError: disk full): it is not in the journal',
    ]);
  });

  it('a scoped call keeps its trajectory even when its history repeats another trajectory\'s answer', async () => {
    const { gw, steps } = setup();
    const q = u('What is 2+2?');
    const a1 = (await send(gw, 'gateway/v1/chat/completions', { model: 'mock', messages: [q] })).json().choices[0].message;
    await send(gw, 'gateway/mine/p/v1/chat/completions', { model: 'mock', messages: [q, { role: 'assistant', content: a1.content }, u('And 3+3?')] });
    assert.equal(steps()[1].trajectory_uid, 'mine');
  });

  it('an aborted request signal (the agent gave up) cancels the stream; a DOMException that is no timeout is unreachable, not 504', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('data: {"choices":[{"index":0,"delta":{"content":"Once"}}]}\n\n'));
      },
    });
    const { gw, steps } = setup({ settings: upstream({}), fetch: async () => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }) });
    const ac = new AbortController();
    const h = gw.handle(new Request(`${ORIGIN}${BASE}gateway/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [] }), signal: ac.signal }));
    const res = await h.response;
    await res.body!.getReader().read();
    ac.abort();
    await h.done;
    assert.equal(steps()[0].error, 'cancelled by client');
    const n = setup({ settings: upstream({}), fetch: async () => Promise.reject(new DOMException('network changed', 'NetworkError')) });
    const r = await send(n.gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [] });
    assert.equal(r.res.status, 502);
    assert.equal(r.json().error.type, 'gateway_upstream_unreachable');
  });

  it('a chat stream that errors after some text is no link for a follow-up', async () => {
    const sse = 'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Part"},"finish_reason":null}]}\n\ndata: {"error":{"message":"overloaded","type":"server_error"}}\n\n';
    const { gw, steps, mem } = setup({ settings: upstream({}), fetch: async () => new Response(sse, { status: 200, headers: { 'content-type': 'text/event-stream' } }) });
    await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', stream: true, messages: [u('hi')] });
    assert.equal(steps()[0].status, 'error');
    assert.equal(steps()[0].response?.content, 'Part');
    assert.equal(mem.all('links').length, 0);
  });

  it('a journal that fails: the agent gets a 500 naming the gateway, and done still settles', async () => {
    const gw = new Gateway(BASE, { db: async () => Promise.reject(new Error('quota exceeded')), settings: async () => defaultSettings(), notify: () => {} });
    const h = gw.handle(new Request(`${ORIGIN}${BASE}gateway/v1/chat/completions`, { method: 'POST', body: '{"model":"mock","messages":[]}' }));
    const res = await h.response;
    assert.equal(res.status, 500);
    const e = (await res.json()).error;
    assert.equal(e.type, 'gateway_internal_error');
    assert.match(e.message, /^The gateway failed: quota exceeded\./);
    await h.done;
  });
});

const chat = (message: Record<string, unknown>, id: string | null = 'chatcmpl-1') => ({
  ...(id ? { id } : {}), object: 'chat.completion', model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'stop' }],
});
const jsonRes = (body: unknown, init: ResponseInit = {}) => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' }, ...init });

describe('gateway capture: forwarding', () => {
  it('a call is forwarded as a POST of the exact body, with the upstream key, under a cancel signal', async () => {
    const seen: RequestInit[] = [];
    const { gw } = setup({ settings: upstream(), fetch: async (_u, init) => {
        seen.push(init!);
        return jsonRes(chat({ content: 'ok' }));
      },
    });
    const text = '{"model":"gpt-4o-mini",  "messages":[{"role":"user","content":"hi"}]}';
    await send(gw, 'gateway/v1/chat/completions', text);
    assert.equal(seen[0].method, 'POST');
    assert.equal(seen[0].body, text);
    assert.equal(new Headers(seen[0].headers).get('authorization'), `Bearer ${KEY}`);
    assert.ok(seen[0].signal instanceof AbortSignal);
    assert.equal(seen[0].signal.aborted, false);
  });
  it('models: a real upstream is asked with its key; the header picks the upstream; the mock lists its three models', async () => {
    const seen: [string, Headers][] = [];
    const other: UpstreamConfig = { id: 'other', name: 'Other', kind: 'openai', baseUrl: 'https://other.example/v1', key: 'sk-other-0123456789abcdefghij', remember: false, models: [] };
    const s = upstream();
    s.upstreams.push(other);
    const { gw } = setup({ settings: s, fetch: async (u, init) => {
        seen.push([String(u), new Headers(init?.headers)]);
        return new Response('{"data":[]}');
      },
    });
    await send(gw, 'gateway/v1/models', undefined, { method: 'GET', headers: { 'x-aw-upstream': 'other' } });
    assert.equal(seen[0][0], 'https://other.example/v1/models');
    assert.equal(seen[0][1].get('authorization'), 'Bearer sk-other-0123456789abcdefghij');
    const m = await send(setup().gw, 'gateway/v1/models', undefined, { method: 'GET' });
    assert.equal(m.res.headers.get('content-type'), 'application/json');
    assert.deepEqual(m.json(), { object: 'list', data: ['mock', 'mock-slow', 'mock-500'].map((id) => ({ id, object: 'model', owned_by: 'agentworld' })) });
  });
  it('the headers handed back drop content-encoding and content-length (the body is re-streamed), keep the rest and the status text', async () => {
    const body = JSON.stringify(chat({ content: 'ok' }));
    const headers = { 'content-type': 'application/json', 'content-encoding': 'identity', 'content-length': String(body.length), 'x-request-id': 'req-7' };
    const ok = setup({ settings: upstream(), fetch: async () => new Response(body, { status: 200, statusText: 'Fine', headers }) });
    const r = await send(ok.gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [] });
    assert.deepEqual([r.res.status, r.res.statusText, r.res.headers.get('content-encoding'), r.res.headers.get('content-length'), r.res.headers.get('x-request-id')], [200, 'Fine', null, null, 'req-7']);
    assert.equal(r.text, body);
    const bad = setup({ settings: upstream(), fetch: async () => new Response('{"error":{"message":"no"}}', { status: 400, headers }) });
    const rb = await send(bad.gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [] });
    assert.deepEqual([rb.res.status, rb.res.headers.get('content-encoding'), rb.res.headers.get('content-length'), rb.res.headers.get('x-request-id')], [400, null, null, 'req-7']);
  });
  it('a JSON body without a content type is read as JSON, not as a stream', async () => {
    const { gw, steps } = setup({ settings: upstream(), fetch: async () => new Response(new TextEncoder().encode(JSON.stringify(chat({ content: 'plain' })))) });
    const r = await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.res.headers.get('content-type'), null);
    const [s] = steps();
    assert.deepEqual([s.status, s.response?.content, s.ttft_ms], ['ok', 'plain', null]);
  });
});

describe('gateway capture: links', () => {
  it('a call with an empty history is still a link: a follow-up that starts with its answer joins it', async () => {
    const { gw, steps } = setup({ settings: upstream(), fetch: async () => jsonRes(chat({ content: 'Hello from nowhere.' })) });
    await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [] });
    await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'assistant', content: 'Hello from nowhere.' }, { role: 'user', content: 'Go on' }] });
    const [s0, s1] = steps();
    assert.deepEqual([s1.trajectory_uid, s1.step_index], [s0.trajectory_uid, 1]);
  });
  it('a text answer that reads like a tool call is not that tool call: content and calls are kept apart in the key', async () => {
    let n = 0;
    const { gw, steps } = setup({ settings: upstream(), fetch: async () => jsonRes(n++ === 0 ? chat({ content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] }) : chat({ content: 'x' })) });
    const user = { role: 'user', content: 'Do it' };
    await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [user] });
    await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [user, { role: 'assistant', content: 'f:{}' }, { role: 'user', content: 'ok' }] });
    await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [user, { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{ }' } }] }, { role: 'tool', tool_call_id: 'c1', content: 'done' }] });
    const [s0, s1, s2] = steps();
    assert.notEqual(s1.trajectory_uid, s0.trajectory_uid);
    assert.equal(s2.trajectory_uid, s0.trajectory_uid);
  });
  it('two tool calls link only in their order and with their own arguments', async () => {
    const calls = [
      { id: 'a', type: 'function', function: { name: 'f', arguments: '{"x":1}' } },
      { id: 'b', type: 'function', function: { name: 'g', arguments: '{"y":2}' } },
    ];
    const { gw, steps } = setup({ settings: upstream(), fetch: async () => jsonRes(chat({ content: null, tool_calls: calls })) });
    const user = { role: 'user', content: 'Both' };
    await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [user] });
    const next = (tc: unknown[]) => send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [user, { role: 'assistant', content: null, tool_calls: tc }, { role: 'tool', tool_call_id: 'a', content: '1' }] });
    await next(calls);
    await next([{ ...calls[0], function: { name: 'f', arguments: '{"x":1}g:{"y":2}' } }]);
    const [s0, s1, s2] = steps();
    assert.equal(s1.trajectory_uid, s0.trajectory_uid);
    assert.notEqual(s2.trajectory_uid, s0.trajectory_uid);
  });
  it('a tool result links by its call id: the same text for another call id is another history', async () => {
    const { gw, steps } = setup({ settings: upstream(), fetch: async () => jsonRes(chat({ content: 'Done.' })) });
    const user = { role: 'user', content: 'Run f' };
    const call = { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] };
    // the tool call came from elsewhere: the first gateway call already carries it and its result
    await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [user, call, { role: 'tool', tool_call_id: 'c1', content: 'ok' }] });
    const after = (id: string) => [user, call, { role: 'tool', tool_call_id: id, content: 'ok' }, { role: 'assistant', content: 'Done.' }, { role: 'user', content: 'Again' }];
    await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: after('c1') });
    await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: after('c2') });
    const [s0, s1, s2] = steps();
    assert.deepEqual([s1.trajectory_uid, s1.step_index], [s0.trajectory_uid, 1]);
    assert.notEqual(s2.trajectory_uid, s0.trajectory_uid);
  });
  it('a Responses answer without an id leaves no link', async () => {
    const answer = { object: 'response', status: 'completed', model: 'gpt-4o-mini', output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hi' }] }] };
    const { gw, mem, steps } = setup({ settings: upstream(), fetch: async () => jsonRes(answer) });
    await send(gw, 'gateway/v1/responses', { model: 'gpt-4o-mini', input: 'Hello' });
    assert.equal(steps()[0].response?.content, 'Hi');
    assert.deepEqual(mem.all('links'), []);
  });
});

describe('gateway capture: what the capture run left', () => {
  it('tool-call arguments that are no JSON link only by their exact text', async () => {
    const call = (args: string) => ({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'sh', arguments: args } }] });
    const { gw, steps } = setup({ settings: upstream(), fetch: async () => jsonRes(chat(call('ls -la'))) });
    const user = { role: 'user', content: 'List' };
    await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [user] });
    const next = (args: string) => send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [user, call(args), { role: 'tool', tool_call_id: 'c1', content: 'a b' }] });
    await next('rm -rf /');
    await next('ls -la');
    const [s0, s1, s2] = steps();
    assert.notEqual(s1.trajectory_uid, s0.trajectory_uid);
    assert.equal(s2.trajectory_uid, s0.trajectory_uid);
  });
  it('an echoed tool-call turn with content "" instead of null still joins', async () => {
    const calls = [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }];
    const { gw, steps } = setup({ settings: upstream(), fetch: async () => jsonRes(chat({ content: null, tool_calls: calls })) });
    const user = { role: 'user', content: 'Go' };
    await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [user] });
    await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', messages: [user, { role: 'assistant', content: '', tool_calls: calls }, { role: 'tool', tool_call_id: 'c1', content: 'ok' }] });
    const [s0, s1] = steps();
    assert.equal(s1.trajectory_uid, s0.trajectory_uid);
  });
  it('a scoped call under another prompt id does not change the prompt the trajectory was initialised with', async () => {
    const { gw, traj, steps } = setup();
    await send(gw, 'gateway/init_trajectory', { trajectory_uid: 'tx', prompt_uid: 'p1' });
    await send(gw, 'gateway/tx/p2/v1/chat/completions', { model: 'mock', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(steps()[0].prompt_uid, 'p2');
    assert.equal(traj('tx')?.prompt_uid, 'p1');
  });
  it('time to first token is the first chunk of a stream, not the last', async () => {
    const enc = new TextEncoder();
    const ev = (delta: object, finish: string | null = null) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const fetchUp: typeof fetch = async () => {
      let n = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(c) {
          n++;
          if (n === 1) c.enqueue(enc.encode(ev({ role: 'assistant', content: 'a' })));
          else if (n === 2) {
            await new Promise((r) => setTimeout(r, 150));
            c.enqueue(enc.encode(`${ev({ content: 'b' }, 'stop')}data: [DONE]\n\n`));
          } else c.close();
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    };
    const { gw, steps } = setup({ settings: upstream(), fetch: fetchUp });
    await send(gw, 'gateway/v1/chat/completions', { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const [s] = steps();
    assert.equal(s.response?.content, 'ab');
    assert.ok(s.ttft_ms !== null && s.latency_ms !== null && s.ttft_ms >= 0 && s.ttft_ms + 100 <= s.latency_ms, `ttft ${s.ttft_ms}, latency ${s.latency_ms}`);
  });
  it('refusals name the upstream and what to do', async () => {
    const a = setup({ settings: upstream({ kind: 'anthropic', baseUrl: 'https://api.anthropic.com', name: 'Claude' }) });
    const r = await send(a.gw, 'gateway/v1/chat/completions', { model: 'claude', messages: [] });
    assert.equal(r.json().error.message, 'Upstream "Claude" speaks Anthropic messages; call …/v1/messages, or pick an OpenAI-compatible upstream for chat/completions.');
    const n = setup({ settings: upstream({ baseUrl: '', name: 'Empty' }) });
    const rn = await send(n.gw, 'gateway/v1/chat/completions', { model: 'gpt', messages: [] });
    assert.equal(rn.json().error.message, 'Upstream "Empty" has no base URL; set it in the Gateway panel.');
  });
});

describe('gateway capture: bodies that are no object', () => {
  it('init_trajectory with a JSON null or an array body generates the ids', async () => {
    const { gw } = setup();
    for (const body of ['null', '[1, 2]']) {
      const r = await send(gw, 'gateway/init_trajectory', body);
      assert.equal(r.res.status, 200, body);
      assert.match(r.json().trajectory_uid, /^t-[0-9a-f]{20}$/);
    }
  });
  it('register with a body that is no object keeps the defaults; complete with null keeps no reward', async () => {
    const { gw, traj } = setup();
    const r = await send(gw, 'gateway/tr/pr/v1/register_trajectory', 'null');
    assert.deepEqual(r.json(), { ok: true, trajectory_uid: 'tr', channel: 'train' });
    assert.deepEqual([traj('tr')?.agent, traj('tr')?.metadata], [null, null]);
    assert.deepEqual((await send(gw, 'gateway/tr/pr/v1/complete_trajectory', 'null')).json(), { ok: true, trajectory_uid: 'tr', steps: 0, reward: null });
  });
});
