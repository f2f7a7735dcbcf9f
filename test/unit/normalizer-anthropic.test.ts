/**
 * The Anthropic Messages log normalizer (src/ingest/normalizers/anthropic.ts): the
 * record shapes real loggers write (request/response pairs, `input`/`output` traces, bare messages,
 * recorded SSE streams, error bodies, HTTP status codes) with their detection scores, which decide ties
 * against the Langfuse and OpenAI readers, and the fields of the step each one becomes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { anthropic } from '../../src/ingest/normalizers/anthropic';
import { fixtureRecords, runNormalizer } from './helpers/formats';

const rows = (...values: unknown[]) => runNormalizer(anthropic, values.map((value, index) => ({ value, line: index + 1, index })));
const one = (value: unknown) => {
  const r = rows(value);
  assert.equal(r.length, 1);
  return r[0];
};
const score = (...values: unknown[]) => anthropic.detect(values);

const user = { role: 'user', content: 'What is 2+2?' };
const message = (extra: Record<string, unknown> = {}) => ({
  id: 'msg_01',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5-20250929',
  content: [{ type: 'text', text: '4' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 12, output_tokens: 3 },
  ...extra,
});
const overloaded = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
const sse = (events: unknown[]) => events.map((e) => `event: ${(e as { type: string }).type}\ndata: ${JSON.stringify(e)}\n\n`).join('');
const streamEvents = (id: string, text: string) => [
  { type: 'message_start', message: { id, type: 'message', role: 'assistant', model: 'claude-haiku-4-5', content: [], stop_reason: null, usage: { input_tokens: 9, output_tokens: 1 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } },
  { type: 'message_stop' },
];

describe('anthropic normalizer: detection scores', () => {
  it('a request/response pair or a bare message: 0.95; a bare message needs type message or stop_reason with content blocks', () => {
    assert.equal(score({ request: { model: 'claude', messages: [user] }, response: message() }), 0.95);
    assert.equal(score(message()), 0.95);
    assert.equal(score({ stop_reason: 'end_turn', content: [{ type: 'text', text: 'x' }] }), 0.95);
    assert.equal(score({ stop_reason: 'end_turn', content: 'x' }), 0);
    assert.equal(score({ content: [{ type: 'text', text: 'x' }] }), 0);
  });

  it('stream events: 0.95 each; ping has no say; an error event needs its error object', () => {
    assert.equal(score({ type: 'message_start', message: { id: 'm' } }), 0.95);
    assert.equal(score({ type: 'ping' }), 0);
    assert.equal(score({ type: 'ping' }, { type: 'message_stop' }), 0.95);
    assert.equal(score({ type: 'error', error: { type: 'overloaded_error' } }), 0.95);
    assert.equal(score({ type: 'error', error: 'overloaded' }), 0);
    assert.equal(score({ type: 'response.created' }), 0);
  });

  it('SSE text: 0.95 when it holds Anthropic events, 0 for OpenAI chunks', () => {
    assert.equal(score(sse(streamEvents('m1', 'hi'))), 0.95);
    assert.equal(score('data: {"object":"chat.completion.chunk","choices":[]}\n\ndata: {"object":"chat.completion.chunk","choices":[]}\n\n'), 0);
    assert.equal(score('hello'), 0);
    assert.equal(score(42), 0);
  });

  it('a recorded SSE body as the response: 0.95 with message_start, else 0', () => {
    assert.equal(score({ request: { messages: [user] }, response: sse(streamEvents('m1', 'hi')) }), 0.95);
    assert.equal(score({ request: { messages: [user] }, response: 'event: ping\ndata: {"type":"ping"}\n\n' }), 0);
    assert.equal(score({ request: { messages: [user] }, response: 'plain text' }), 0);
  });

  it('a request alone: 0.92 with an Anthropic cue (version, beta, system, blocks, input_schema tools), else 0', () => {
    const cues: Record<string, unknown>[] = [
      { anthropic_version: '2023-06-01' },
      { anthropic_beta: ['tools-2024'] },
      { messages: [user], system: 'Be brief.' },
      { messages: [user], system: [{ type: 'text', text: 'Be brief.' }] },
      { messages: [user], tools: [{ name: 'calc', input_schema: { type: 'object' } }] },
    ];
    for (const b of ['tool_use', 'tool_result', 'thinking', 'redacted_thinking']) cues.push({ messages: [user, { role: 'assistant', content: [{ type: b }] }] });
    cues.push({ messages: JSON.stringify([user, { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }] }]) });
    for (const c of cues) assert.equal(score(c), 0.92, JSON.stringify(c));
    const none: Record<string, unknown>[] = [
      { messages: [user] },
      { messages: [user], system: 5 },
      { messages: [user, { role: 'assistant', content: [{ type: 'text', text: 'x' }] }] },
      { messages: [user, 'x', { role: 'assistant', content: 'tool_use' }] },
      { messages: [user], tools: [{ type: 'function', function: { name: 'calc' } }] },
      { messages: [user], tools: 'calc' },
      { system: 'Be brief.', messages: 'not a list' },
    ];
    for (const c of none) assert.equal(score(c), 0, JSON.stringify(c));
    // a request with a cue and an error response: the cue wins
    assert.equal(score({ request: { messages: [user], system: 'x' }, response: overloaded }), 0.92);
  });

  it('an error body: 0.7 with a request, 0.5 alone', () => {
    assert.equal(score({ request: { messages: [user] }, response: overloaded }), 0.7);
    assert.equal(score({ response: overloaded }), 0.5);
    // a bare error body is also a stream's error event
    assert.equal(score(overloaded), 0.95);
    assert.equal(score({ response: { type: 'error', error: 'x' } }), 0);
  });

  it('input/output traces (Langfuse-style generations) with a message, an error or text output', () => {
    assert.equal(score({ input: { messages: [user] }, output: message() }), 0.95);
    assert.equal(score({ input: JSON.stringify({ messages: [user] }), output: JSON.stringify(message()) }), 0.95);
    assert.equal(score({ input: { messages: [user] }, output: overloaded }), 0.7);
    assert.equal(score({ input: { messages: [user] }, output: sse(streamEvents('m1', 'hi')) }), 0.95);
    assert.equal(score({ input: { prompt: 'x' }, output: message() }), 0);
    assert.equal(score({ input: { messages: [user] }, output: { text: 'x' } }), 0);
  });
});

describe('anthropic normalizer: steps', () => {
  it('a request/response pair: messages, response, usage with cache tokens, ids, metadata split from own fields', () => {
    const r = one({
      request: { model: 'claude-sonnet-4-5', max_tokens: 1024, temperature: 0.2, system: 'Be brief.', messages: [user], stream: false },
      response: message({ stop_sequence: '###', usage: { input_tokens: 12, cache_creation_input_tokens: 100, cache_read_input_tokens: 7, output_tokens: 3 } }),
      status_code: 200, agent: 'calc-agent', data_source: 'gsm8k', reward: 1, user_id: 'u-9', latency_ms: 850,
    });
    assert.deepEqual(r.messages.map((m) => [m.role, m.content]), [['system', 'Be brief.'], ['user', 'What is 2+2?']]);
    assert.equal(r.response?.content, '4');
    assert.equal(r.response_text, '4');
    assert.equal(r.model, 'claude-sonnet-4-5-20250929');
    assert.equal(r.provider, 'anthropic');
    assert.deepEqual([r.agent, r.data_source, r.reward, r.status, r.error, r.finish_reason], ['calc-agent', 'gsm8k', 1, 'ok', null, 'stop']);
    assert.deepEqual([r.prompt_tokens, r.completion_tokens], [119, 3]);
    assert.equal(r.latency_ms, 850);
    assert.equal(r.source_line, 1);
    assert.deepEqual(r.metadata, {
      max_tokens: '1024', temperature: '0.2', user_id: 'u-9',
      input_tokens: '12', cache_creation_input_tokens: '100', cache_read_input_tokens: '7',
      response_id: 'msg_01', stop_reason: 'end_turn', stop_sequence: '###',
    });
  });

  it('no usage: no prompt tokens; a partial usage counts what is there; a request-only record has no response', () => {
    const r = one({ request: { messages: [user], system: 'x' }, response: message({ usage: undefined, id: 5, stop_reason: null }) });
    assert.deepEqual([r.prompt_tokens, r.completion_tokens], [null, null]);
    assert.equal(r.metadata, null);
    const p = one({ request: { messages: [user] }, response: message({ usage: { cache_read_input_tokens: 40, output_tokens: 2 } }) });
    assert.equal(p.prompt_tokens, 40);
    assert.deepEqual(p.metadata, { cache_read_input_tokens: '40', response_id: 'msg_01', stop_reason: 'end_turn' });
    const q = one({ messages: [user], system: 'x', model: 'claude-opus-4-1', anthropic_version: '2023-06-01' });
    assert.equal(q.response, null);
    assert.equal(q.model, 'claude-opus-4-1');
    // the record is the request: its messages and system are not repeated in metadata (they were)
    assert.deepEqual(q.metadata, { anthropic_version: '2023-06-01' });
  });

  it('the model falls back from the response to the request to the record', () => {
    assert.equal(one({ request: { messages: [user], model: 'req-model' }, response: message({ model: undefined }) }).model, 'req-model');
    assert.equal(one({ request: { messages: [user] }, response: message({ model: undefined }), model: 'outer-model' }).model, 'outer-model');
  });

  it('a request with the body wrapped (proxy logs: {headers, body}) and a JSON-string request', () => {
    const r = one({ request: { headers: { 'anthropic-version': '2023-06-01' }, body: { messages: [user], system: 'S' } }, response: { body: message() } });
    assert.deepEqual(r.messages.map((m) => m.role), ['system', 'user']);
    assert.equal(r.response_text, '4');
    const s = one({ request: JSON.stringify({ messages: [user] }), response: JSON.stringify(message()) });
    assert.equal(s.messages[0].content, 'What is 2+2?');
    assert.equal(s.response_text, '4');
    // a record with messages at top level and a response: the record is the request
    const t = one({ messages: [user], system: 'Top', response: message(), session: 's1' });
    assert.deepEqual(t.messages.map((m) => m.content), ['Top', 'What is 2+2?']);
    assert.deepEqual(t.metadata, { session: 's1', input_tokens: '12', response_id: 'msg_01', stop_reason: 'end_turn' });
    // a body that is itself a request with messages stays the request
    const u = one({ request: { messages: [user], body: { messages: [{ role: 'user', content: 'inner' }] } }, response: message() });
    assert.equal(u.messages[0].content, 'What is 2+2?');
  });

  it('errors: an error body, an error beside the response, HTTP status ≥ 400 alone (399 is not)', () => {
    const e = one({ request: { messages: [user] }, response: overloaded, status_code: 529 });
    assert.deepEqual([e.status, e.finish_reason, e.error, e.response], ['error', 'error', 'overloaded_error: Overloaded', null]);
    const beside = one({ request: { messages: [user] }, response: message(), error: { type: 'api_error', message: 'upstream reset' } });
    assert.deepEqual([beside.status, beside.error], ['error', 'api_error: upstream reset']);
    const inner = one({ request: { messages: [user] }, response: { ...message(), error: 'cut off' } });
    assert.deepEqual([inner.status, inner.error], ['error', 'cut off']);
    const http = one({ request: { messages: [user], system: 'x' }, response: null, status_code: 400 });
    assert.deepEqual([http.status, http.error, http.finish_reason], ['error', 'HTTP 400', 'error']);
    const ok = one({ request: { messages: [user] }, response: message(), status_code: '399' });
    assert.deepEqual([ok.status, ok.error, ok.finish_reason], ['ok', null, 'stop']);
    assert.equal(one({ request: { messages: [user] }, response: message(), error: null }).status, 'ok');
  });

  it('tool results that failed are counted; the original Anthropic tools are kept', () => {
    const r = one({
      request: {
        messages: [
          user,
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'calc', input: { x: 1 } }, { type: 'tool_use', id: 't2', name: 'calc', input: { x: 2 } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'boom', is_error: true }, { type: 'tool_result', tool_use_id: 't2', content: '[error] not really', is_error: false }] },
        ],
        tools: [{ name: 'calc', input_schema: { type: 'object' } }],
      },
      response: message(),
    });
    assert.equal(r.metadata?.tool_result_errors, '1', 'text that only looks like an error is no error');
    assert.ok(JSON.parse(r.metadata?.tools_original ?? 'null')[0].input_schema);
    assert.equal(JSON.parse(r.tools ?? '[]')[0].function.name, 'calc');
    const none = one({ request: { messages: [user] }, response: message() });
    assert.equal(none.metadata?.tool_result_errors, undefined);
    assert.equal(none.metadata?.tools_original, undefined);
  });

  it('a response with content blocks but no message type is still the response', () => {
    const r = one({ request: { messages: [user], system: 'x' }, response: { content: [{ type: 'text', text: 'bare' }] } });
    assert.equal(r.response_text, 'bare');
    const s = one({ request: { messages: [user], system: 'x' }, response: { content: 'not blocks' } });
    assert.equal(s.response, null);
  });

  it('records that are not Anthropic are rejected with a reason; [DONE] is skipped', () => {
    assert.throws(() => rows({ foo: 1 }), /not an Anthropic Messages log record: expected request\/response, a message object or stream events/);
    assert.throws(() => rows(7), /unexpected number record in an Anthropic log/);
    assert.throws(() => rows('data: {"object":"chat.completion.chunk"}\n\ndata: {"object":"x"}\n\n'), /SSE text holds no Anthropic message events/);
    assert.deepEqual(rows('[DONE]'), []);
  });
});

describe('anthropic normalizer: streams', () => {
  it('one event per record: a new message_start closes the open stream; flush closes the last', () => {
    const r = rows(...streamEvents('m1', 'first').slice(0, 4), ...streamEvents('m2', 'second').slice(0, 3));
    assert.equal(r.length, 2);
    assert.deepEqual(r.map((x) => x.response_text), ['first', 'second']);
    assert.deepEqual(r.map((x) => x.source_line), [1, 5]);
    assert.deepEqual(r.map((x) => x.metadata?.response_id), ['m1', 'm2']);
    assert.ok(r[0].raw?.includes('"first"'));
    const done = rows(...streamEvents('m3', 'whole'));
    assert.equal(done.length, 1);
    assert.equal(done[0].finish_reason, 'stop');
    assert.deepEqual([done[0].prompt_tokens, done[0].completion_tokens], [9, 5]);
  });

  it('an error event mid-stream: the step is an error and keeps the partial text in raw', () => {
    const r = rows(...streamEvents('m4', 'Partial').slice(0, 3), overloaded);
    assert.equal(r.length, 1);
    assert.deepEqual([r[0].status, r[0].error, r[0].finish_reason], ['error', 'overloaded_error: Overloaded', 'error']);
    assert.ok(r[0].raw?.includes('Partial'));
  });

  it('a whole SSE capture as one string is one step at that line; a response SSE body is assembled too', () => {
    const r = runNormalizer(anthropic, [{ value: sse(streamEvents('m5', 'from sse')), line: 7, index: 0 }]);
    assert.equal(r.length, 1);
    assert.deepEqual([r[0].response_text, r[0].source_line, r[0].metadata?.response_id], ['from sse', 7, 'm5']);
    const body = one({ request: { messages: [user] }, response: sse(streamEvents('m6', 'from body')) });
    assert.deepEqual([body.response_text, body.metadata?.response_id], ['from body', 'm6']);
    const empty = one({ request: { messages: [user], system: 'x' }, response: 'event: ping\ndata: {"type":"ping"}\n\n' });
    assert.equal(empty.response?.content ?? null, null);
    assert.equal(empty.response?.tool_calls, undefined);
  });
});

describe('anthropic normalizer', () => {
  it('reassembles thinking with its signature from a raw SSE file and from one SSE string', () => {
    const recs = fixtureRecords('anthropic-stream.sse');
    for (const rows of [runNormalizer(anthropic, recs), runNormalizer(anthropic, [{ value: `event: x\n${recs.map((r) => `data: ${JSON.stringify(r.value)}\n\n`).join('')}`, line: 1, index: 0 }])]) {
      assert.equal(rows.length, 1);
      assert.equal(rows[0].response?.reasoning, '27 is 3^3, so the cube root is 3.');
      assert.ok(rows[0].response?.parts?.includes('EqQBCgIYAhIM1gbcDa9GJwZA2b3h'));
      assert.equal(rows[0].response_text, 'The cube root of 27 is 3.');
      assert.equal(rows[0].prompt_tokens, 2056);
    }
  });

  it('does not claim OpenAI chat rows', () => {
    assert.equal(anthropic.detect([{ messages: [{ role: 'user', content: 'hi' }] }]), 0);
  });
});
