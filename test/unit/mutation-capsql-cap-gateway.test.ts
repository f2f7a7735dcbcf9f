/**
 * The gateway in node (src/gateway/core/capture.ts), the paths gateway-capture.test.ts leaves open: what is
 * forwarded (method, body, headers), the headers handed back, a body without a content type, links after an
 * empty history or an answer without an id, the key a history is matched by, and bodies that are no object.
 * Written to kill the mutants StrykerJS left.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Gateway, type GatewayEvent } from '../../src/gateway/core/capture';
import type { JournalEntry, TrajectoryState } from '../../src/gateway/core/journal';
import { defaultSettings, type GatewaySettings, type UpstreamConfig } from '../../src/gateway/core/upstream';
import { MemoryJournal } from './helpers/memory-journal';

const ORIGIN = 'https://workbench.example';
const KEY = 'sk-proj-capsqlTestKey0123456789abcdef';

function setup(opts: { settings?: GatewaySettings; fetch?: typeof fetch } = {}) {
  const mem = new MemoryJournal();
  const events: GatewayEvent[] = [];
  const gw = new Gateway('/wb/', { db: async () => mem.asDb(), settings: async () => opts.settings ?? defaultSettings(), notify: (e) => events.push(e), fetch: opts.fetch });
  const steps = () => (mem.all('journal') as JournalEntry[]).map((e) => e.step);
  const traj = (uid: string) => mem.all('trajectories').find((t) => (t as TrajectoryState).trajectory_uid === uid) as TrajectoryState | undefined;
  return { mem, events, gw, steps, traj };
}

async function send(gw: Gateway, path: string, body?: unknown, init: RequestInit = {}) {
  const req = new Request(`${ORIGIN}/wb/${path}`, { method: 'POST', ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }), ...init });
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
