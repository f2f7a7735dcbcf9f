import assert from 'node:assert/strict';
import { test } from 'node:test';
import { calculate, findExpression } from '../../src/util/calculator';
import { reward } from '../../src/agents/reward';
import { streamAccumulator as streamAssembler, wireResponse as assembleJson } from '../../src/wire';
import { mockRespond } from '../../src/gateway/core/mock-upstream';
import { parseRoute } from '../../src/gateway/core/routes';
import { SseParser } from '../../src/wire/sse';

async function events(res: Response) {
  const p = new SseParser();
  const out = p.push(await res.text());
  return [...out, ...p.end()];
}

test('SSE parser: split chunks, CRLF, comments, multi-line data', () => {
  const p = new SseParser();
  assert.deepEqual(p.push('event: a\r\ndata: {"x"\r\n'), []);
  assert.deepEqual(p.push(':ping\r\ndata: :1}\r\n\r\ndata: b\ndata: c\n\n'), [{ event: 'a', data: '{"x"\n:1}' }, { event: null, data: 'b\nc' }]);
  assert.deepEqual(p.end(), []);
});

test('stream and JSON assembly agree for every API of the mock, with tool calls', async () => {
  for (const api of ['chat', 'messages', 'responses'] as const) {
    const tools = api === 'chat' ? [{ type: 'function', function: { name: 'calculator' } }] : [{ name: 'calculator' }];
    const body = api === 'responses' ? { model: 'mock', input: 'What is 6 * 7?', tools } : { model: 'mock', messages: [{ role: 'user', content: 'What is 6 * 7?' }], tools };
    const json = assembleJson(api, await (await mockRespond(api, body)).json());
    const asm = streamAssembler(api);
    for (const e of await events(await mockRespond(api, { ...body, stream: true }))) asm.push(e);
    const streamed = asm.result();
    assert.equal(json.message?.tool_calls?.[0].function.name, 'calculator', api);
    assert.deepEqual(JSON.parse(streamed.message!.tool_calls![0].function.arguments), { expression: '6 * 7' }, api);
    assert.equal(streamed.finish_reason, 'tool_calls', api);
    assert.equal(json.finish_reason, 'tool_calls', api);
  }
});

test('vLLM-style logprobs with token ids are kept', () => {
  const a = assembleJson('chat', { choices: [{ message: { role: 'assistant', content: 'hi there' }, logprobs: { content: [{ token: 'token_id:12', logprob: -0.5 }, { token: 'token_id:7', logprob: -0.25 }] }, finish_reason: 'stop' }], prompt_token_ids: [1, 2] });
  assert.deepEqual([a.response_ids, a.log_probs, a.prompt_ids], [[12, 7], [-0.5, -0.25], [1, 2]]);
});

test('routes: scoped, unscoped, lifecycle, and clear errors', () => {
  assert.deepEqual(parseRoute('gateway/v1/chat/completions', 'POST'), { type: 'api', api: 'chat', trajectory_uid: null, prompt_uid: null, path: 'chat/completions' });
  assert.deepEqual(parseRoute('gateway/t-1/math%2Fm1/v1/messages', 'POST'), { type: 'api', api: 'messages', trajectory_uid: 't-1', prompt_uid: 'math/m1', path: 'messages' });
  assert.equal(parseRoute('gateway/init_trajectory', 'POST').type, 'init');
  assert.equal(parseRoute('gateway/t/p/v1/complete_trajectory', 'POST').type, 'complete');
  const bad = parseRoute('gateway/v1/embeddings', 'POST');
  assert.ok(bad.type === 'unknown' && /no gateway route for v1\/embeddings/.test(bad.reason));
});

test('calculator and reward rules', () => {
  assert.equal(calculate('2^10 - 24'), 1000);
  assert.equal(calculate('(125 - 37) / 4'), 22);
  assert.throws(() => calculate('alert(1)'), /expected a number/);
  assert.equal(findExpression('Compute 3.5 * 4 + 0.25.'), '3.5 * 4 + 0.25');
  assert.equal(reward({ type: 'numeric', tolerance: 1e-6 }, 'The answer is 1,000.', '1000'), 1);
  assert.equal(reward({ type: 'numeric' }, 'The answer is 392.', '391'), 0);
  assert.equal(reward({ type: 'exact' }, ' Paris. ', 'paris'), 1);
  assert.equal(reward({ type: 'regex', pattern: 'answer is (\\w+)' }, 'the answer is 42', '42'), 1);
});

test('recorded provider SSE (usage chunk, [DONE], ping, heartbeats, CRLF, split multi-byte characters) assembles the same in any chunking', async () => {
  const { Tee } = await import('../../src/gateway/core/tee');
  const { readFileSync } = await import('node:fs');
  const { calls } = JSON.parse(readFileSync(new URL('../fixtures/formats/wire-same-call.json', import.meta.url), 'utf8')) as { calls: { api: 'chat' | 'responses' | 'messages'; response: unknown }[] };
  const streams = calls.filter((c) => typeof c.response === 'string') as { api: 'chat' | 'responses' | 'messages'; response: string }[];
  assert.equal(streams.length, 3);
  for (const c of streams) {
    const whole = new Tee(c.api, true);
    whole.push(new TextEncoder().encode(c.response));
    const expected = whole.result();
    assert.ok(expected.message?.tool_calls?.length, `${c.api}: tool call assembled`);
    assert.equal(expected.error, null, `${c.api}: no error`);
    // the same stream as proxies deliver it: CRLF line ends and `: keep-alive` heartbeats between events
    const variants = [c.response, c.response.replace(/\n/g, '\r\n'), c.response.replace(/\n\n/g, '\n\n: keep-alive\n\n'), `: OPENROUTER PROCESSING\n\n${c.response}`];
    for (const [v, text] of variants.entries()) {
      for (const size of [1, 2, 3, 5]) {
        const tee = new Tee(c.api, true);
        const bytes = new TextEncoder().encode(text);
        for (let i = 0; i < bytes.length; i += size) tee.push(bytes.slice(i, i + size));
        assert.deepEqual(tee.result(), expected, `${c.api} variant ${v}, ${size}-byte chunks`);
      }
    }
  }
});

test('the mock upstream is MSW handlers: served by setupServer to plain fetch, and resolved by getResponse (as in the service worker) with the same answer', async () => {
  const { setupServer } = await import('msw/node');
  const { MOCK_ORIGIN, mockFetch, mockUpstreamHandlers } = await import('../../src/gateway/core/mock-upstream');
  const server = setupServer(...mockUpstreamHandlers);
  server.listen({ onUnhandledRequest: 'error' });
  try {
    const body = JSON.stringify({ model: 'mock', messages: [{ role: 'user', content: 'What is 6 * 7?' }] });
    const viaServer = await (await fetch(`${MOCK_ORIGIN}/v1/chat/completions`, { method: 'POST', body })).json();
    const viaGetResponse = await (await mockFetch('chat', body)).json();
    assert.equal(viaServer.choices[0].message.content, 'The answer is 42.');
    assert.deepEqual(viaGetResponse, viaServer);
    const failing = await mockFetch('messages', JSON.stringify({ model: 'mock-500', messages: [] }));
    assert.equal(failing.status, 500);
    assert.equal((await failing.json()).error.type, 'api_error');
  } finally {
    server.close();
  }
});

test("the mock's slow stream stops when the caller aborts (the signal reaches the MSW handler)", async () => {
  const { mockFetch } = await import('../../src/gateway/core/mock-upstream');
  const ctl = new AbortController();
  const res = await mockFetch('chat', JSON.stringify({ model: 'mock-slow', stream: true, messages: [{ role: 'user', content: 'tell me a long story about numbers' }] }), ctl.signal);
  const reader = res.body!.getReader();
  await reader.read();
  ctl.abort();
  const t0 = Date.now();
  await assert.rejects(async () => {
    for (;;) if ((await reader.read()).done) throw new Error('the stream ran to its end after the abort');
  }, /abort/i);
  assert.ok(Date.now() - t0 < 1000);
});
