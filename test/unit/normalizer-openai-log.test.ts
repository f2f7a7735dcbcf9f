/**
 * The OpenAI Chat Completions log normalizer (src/ingest/normalizers/openai-log.ts) and
 * the logger fields it shares (log-fields.ts): the wrappers loggers write (`request`/`response`, `input`/
 * `output`, bare completions, `{body}` envelopes, recorded chunk streams and SSE text), their detection
 * scores against the Anthropic reader, and the timing, error and metadata fields of the step.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TrajectoryDraft } from '../../src/contract/step';
import type { SourceRecord } from '../../src/ingest/normalizer';
import { errorText, timingOf } from '../../src/ingest/normalizers/log-fields';
import { openaiLog, type OpenAiLogState } from '../../src/ingest/normalizers/openai-log';
import { ctx, fixtureRecords, runNormalizer } from './helpers/formats';

const rows = (...values: unknown[]) => runNormalizer(openaiLog, values.map((value, index) => ({ value, line: index + 1, index })));
const one = (value: unknown) => {
  const r = rows(value);
  assert.equal(r.length, 1);
  return r[0];
};
const score = (v: unknown) => openaiLog.detect([v]);
const drafts = (state: OpenAiLogState, value: unknown, line = 1): TrajectoryDraft[] =>
  openaiLog.normalize({ value, line, index: line - 1 } as SourceRecord, ctx, state) as TrajectoryDraft[];

const user = { role: 'user', content: 'Name a prime.' };
const request = { model: 'gpt-4o-mini', messages: [user] };
const completion = (extra: Record<string, unknown> = {}) => ({
  id: 'chatcmpl-A1',
  object: 'chat.completion',
  created: 1764669600,
  model: 'gpt-4o-mini-2024-07-18',
  system_fingerprint: 'fp_44709d6fcb',
  choices: [{ index: 0, message: { role: 'assistant', content: '7' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 11, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } },
  ...extra,
});
const chunk = (id: string, delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) => ({
  id,
  object: 'chat.completion.chunk',
  created: 1764669600,
  model: 'gpt-4o-mini',
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...extra,
});
const usageChunk = (id: string) => ({ id, object: 'chat.completion.chunk', model: 'gpt-4o-mini', choices: [], usage: { prompt_tokens: 8, completion_tokens: 2 } });
const sse = (...events: unknown[]) => `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`;
const rateLimit = { error: { message: 'Rate limit reached for gpt-4o-mini', type: 'requests', code: 'rate_limit_exceeded' } };

describe('log-fields: timing and error text', () => {
  it('reads the start, end and latency from the first name present', () => {
    const t0 = Date.parse('2026-12-02T10:00:00Z');
    assert.deepEqual(timingOf({ started_at: t0, ended_at: t0 + 500 }), { started_at: t0, ended_at: t0 + 500, latency_ms: 500 });
    assert.equal(timingOf({ start_time: t0 }).started_at, t0);
    assert.equal(timingOf({ timestamp: t0 }).started_at, t0);
    assert.equal(timingOf({ request_time: t0 }).started_at, t0);
    assert.equal(timingOf({}, t0 / 1000).started_at, t0, 'the fallback (a response `created`, in seconds)');
    assert.equal(timingOf({ started_at: t0, timestamp: 1 }).started_at, t0);
    assert.equal(timingOf({ end_time: t0 }).ended_at, t0);
    assert.equal(timingOf({ completed_at: t0 }).ended_at, t0);
    assert.equal(timingOf({ ended_at: t0, completed_at: 1 }).ended_at, t0);
    for (const k of ['latency_ms', 'duration_ms', 'elapsed_ms', 'response_time_ms', 'latency']) assert.equal(timingOf({ [k]: 42 }).latency_ms, 42, k);
    for (const k of ['latency_s', 'duration', 'response_time']) assert.equal(timingOf({ [k]: 1.5 }).latency_ms, 1500, k);
    assert.equal(timingOf({ latency_ms: 7, latency_s: 9 }).latency_ms, 7);
    assert.equal(timingOf({ latency_ms: 7, started_at: t0, ended_at: t0 + 900 }).latency_ms, 7);
    assert.equal(timingOf({ latency_s: 2, started_at: t0, ended_at: t0 + 900 }).latency_ms, 2000);
    assert.equal(timingOf({ started_at: t0, ended_at: t0 }).latency_ms, 0);
    assert.equal(timingOf({ started_at: t0, ended_at: t0 - 1 }).latency_ms, null, 'an end before the start');
    assert.equal(timingOf({ started_at: t0 }).latency_ms, null);
    assert.equal(timingOf({ ended_at: t0 }).latency_ms, null);
    assert.equal(timingOf({ started_at: 0 }).latency_ms, null, 'a start at the epoch and no end');
  });

  it('writes API errors as one line: code or type before the message, unless it is "error" or already there', () => {
    assert.equal(errorText(rateLimit), 'rate_limit_exceeded: Rate limit reached for gpt-4o-mini');
    assert.equal(errorText({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }), 'overloaded_error: Overloaded');
    assert.equal(errorText({ error: { type: 'error', message: 'Something broke' } }), 'Something broke');
    assert.equal(errorText({ error: { code: 'bad', message: 'bad request body' } }), 'bad request body');
    assert.equal(errorText({ message: 'plain' }), 'plain');
    assert.equal(errorText(JSON.stringify(rateLimit)), 'rate_limit_exceeded: Rate limit reached for gpt-4o-mini');
    assert.equal(errorText({ error: { code: 'x' } }), 'x: {"code":"x"}');
    assert.equal(errorText('HTTP 502'), 'HTTP 502');
    assert.equal(errorText(42), '42');
    assert.equal(errorText(null), 'unknown error');
  });
});

describe('openai-log: detection', () => {
  it('scores request/response logs, bare completions and chunk streams', () => {
    assert.equal(score({ request, response: completion() }), 0.95);
    assert.equal(score({ response: completion() }), 0.85, 'a response without its request');
    assert.equal(score({ input: request, output: completion() }), 0.95);
    assert.equal(score({ input: [user], output: completion() }), 0.95);
    assert.equal(score({ input: JSON.stringify(request), output: null }), 0.4);
    assert.equal(score(completion({ messages: [user] })), 0.95);
    assert.equal(score(completion()), 0.85);
    assert.equal(score(chunk('c', { content: 'x' })), 0.95);
    assert.equal(score({ choices: [{ index: 0, delta: { content: 'x' } }] }), 0.95, 'a chunk without its object name');
    assert.equal(score({ data: JSON.stringify(chunk('c', { content: 'x' })) }), 0.9, 'an SSE event object');
    assert.equal(score({ data: '{"object":"chat.completion.chunk"}', id: 1 }), 0.9);
    assert.equal(score({ data: '{"object":"response"}', id: 1 }), 0);
    assert.equal(score({ data: 5, id: 1 }), 0);
    assert.equal(score(sse(chunk('c', { content: 'x' }))), 0.95);
    assert.equal(score('data: {"type":"message_start"}\n\n'), 0);
    assert.equal(score('chat.completion.chunk but no SSE'), 0);
    assert.equal(openaiLog.detect(['[DONE]']), 0, 'a [DONE] line has no opinion');
    assert.equal(openaiLog.detect([' [DONE] ', chunk('c', { content: 'x' })]), 0.95);
    assert.equal(score(42), 0);
    assert.equal(score({ hello: 'world' }), 0);
  });

  it('scores a response that is SSE text by whether it carries choices', () => {
    assert.equal(score({ request, response: sse(chunk('c', { content: 'x' })) }), 0.95);
    assert.equal(score({ request, response: 'data: {"type":"message_start"}\n\n' }), 0);
    assert.equal(score({ request, response: 'choices' }), 0);
    assert.equal(score({ request, response: { status_code: 200, body: sse(chunk('c', { content: 'x' })) } }), 0.95, 'SSE text in a {body} envelope');
  });

  it('scores errors and missing responses low, and nothing with Anthropic cues', () => {
    assert.equal(score({ request, response: rateLimit }), 0.6);
    assert.equal(score({ request, response: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }), 0.3);
    assert.equal(score({ request }), 0.4);
    assert.equal(score({ request, response: null }), 0.4);
    assert.equal(score({ request, response: { ok: true } }), 0);
    assert.equal(score({ request: { model: 'x' }, response: null }), 0, 'a request without messages');
    assert.equal(score({ request: { ...request, system: 'Be brief.' } }), 0);
    assert.equal(score({ request: { ...request, system: [{ type: 'text', text: 'Be brief.' }] } }), 0);
    assert.equal(score({ request: { ...request, anthropic_version: 'bedrock-2023-05-31' } }), 0);
    assert.equal(score({ request: { ...request, type: 'message' } }), 0);
    assert.equal(score({ request: { ...request, stop_reason: null } }), 0);
    assert.equal(score({ request, response: { stop_reason: 'end_turn', error: { message: 'x' } } }), 0);
    assert.equal(score({ request, response: { content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }], error: { message: 'x' } } }), 0);
    assert.equal(score({ request, response: { content: [{ type: 'text', text: 'x' }], error: { message: 'x' } } }), 0.6);
    assert.equal(score({ request, response: { content: [{ type: 'text', text: 'x' }, { type: 'tool_use', id: 't', name: 'f', input: {} }], error: { message: 'x' } } }), 0);
    assert.equal(score({ request, response: { content: ['x', { type: 5 }], error: { message: 'x' } } }), 0.6);
    assert.equal(score({ request, response: { content: 'text', error: { message: 'x' } } }), 0.6);
  });

  it('reads a request wrapped in a {body} envelope, but not one that has messages or choices itself', () => {
    assert.equal(score({ request: { url: '/v1/chat/completions', body: JSON.stringify(request) } }), 0.4);
    assert.equal(score({ request: { body: 5 } }), 0);
    assert.equal(score({ request: { ...request, body: '{"x":1}' } }), 0.4);
    assert.equal(score({ request, response: { status: 200, body: completion() } }), 0.95);
    assert.equal(score({ request, response: { body: completion(), choices: 'none' } }), 0);
  });
});

describe('openai-log: logged calls', () => {
  it('reads a full request/response log into one step with usage details, ids and metadata', () => {
    const s = one({
      request: { ...request, temperature: 0.2, user: 'u-1', stream: false, stream_options: null, headers: { a: 1 }, body: 'x', prompt: 'p', functions: [], tools: [] },
      response: completion({ usage: { prompt_tokens: 11, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 4 }, completion_tokens_details: { reasoning_tokens: 2 } } }),
      trace_id: 'tr-9',
      agent: 'shop-bot',
      data_source: 'prod',
      reward: 0.5,
      status_code: 200,
    });
    assert.equal(s.model, 'gpt-4o-mini-2024-07-18');
    assert.equal(s.provider, 'openai');
    assert.equal(s.agent, 'shop-bot');
    assert.equal(s.data_source, 'prod');
    assert.equal(s.reward, 0.5);
    assert.equal(s.status, 'ok');
    assert.equal(s.error, null);
    assert.equal(s.finish_reason, 'stop');
    assert.equal(s.response?.content, '7');
    assert.deepEqual([s.prompt_tokens, s.completion_tokens], [11, 1]);
    assert.deepEqual(s.metadata, {
      temperature: '0.2',
      trace_id: 'tr-9',
      cached_tokens: '4',
      reasoning_tokens: '2',
      response_id: 'chatcmpl-A1',
      system_fingerprint: 'fp_44709d6fcb',
    });
    assert.equal(s.started_at, 1764669600000, 'the response’s created time when the log has none');
    assert.equal(s.source_line, 1);
  });

  it('keeps none of its own fields in metadata', () => {
    const outer: Record<string, unknown> = { request, response: completion({ id: 5, system_fingerprint: null, usage: undefined }) };
    const own = ['input', 'output', 'messages', 'choices', 'usage', 'model', 'tools', 'functions', 'id', 'object', 'created', 'system_fingerprint', 'data_source', 'agent', 'reward', 'status', 'headers', 'stream_chunks'];
    for (const k of own) outer[k] ??= 1;
    outer.usage = {};
    outer.error = null;
    outer.status_code = 200;
    for (const k of ['latency_ms', 'duration_ms', 'elapsed_ms', 'response_time_ms', 'latency', 'latency_s', 'duration', 'response_time', 'started_at', 'start_time', 'ended_at', 'end_time', 'completed_at', 'timestamp', 'request_time']) outer[k] = 1;
    const s = one(outer);
    assert.equal(s.metadata, null);
  });

  it('reads input/output traces and bare completions, with the request from the record when it has messages', () => {
    assert.equal(one({ input: request, output: completion() }).messages[0].content, 'Name a prime.');
    assert.equal(one({ input: JSON.stringify([user]), output: JSON.stringify(completion()) }).messages[0].content, 'Name a prime.', 'input as the message list');
    assert.equal(one({ input: [user], output: completion() }).messages[0].content, 'Name a prime.');
    assert.equal(one({ input: 'hello', output: completion() }).messages.length, 0);
    const bare = one(completion({ messages: [user] }));
    assert.equal(bare.messages[0].content, 'Name a prime.');
    assert.equal(one(completion()).messages.length, 0);
    const flat = one({ ...request, response: completion() });
    assert.equal(flat.messages[0].content, 'Name a prime.', 'a request/response record whose request is the record itself');
    assert.equal(one({ response: completion() }).messages.length, 0);
  });

  it('rejects records that are no chat log, and chunks of another API', () => {
    assert.throws(() => rows({ hello: 'world' }), { message: 'not an OpenAI chat log record: expected request/response, messages+choices or a chat.completion.chunk' });
    assert.throws(() => rows({ input: [user], output: { text: 'x' } }), /not an OpenAI chat log record/);
    assert.throws(() => rows(42), { message: 'unexpected number record in an OpenAI chat log' });
    assert.throws(() => rows('plain words'), { message: 'unexpected string record in an OpenAI chat log' });
  });

  it('marks errors from the response, an Anthropic-style error body, the outer record or the HTTP status', () => {
    const e1 = one({ request, response: rateLimit });
    assert.equal(e1.status, 'error');
    assert.equal(e1.error, 'rate_limit_exceeded: Rate limit reached for gpt-4o-mini');
    assert.equal(e1.finish_reason, 'error');
    assert.equal(e1.response, null);
    assert.equal(one({ request, response: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }).error, 'overloaded_error: Overloaded');
    assert.equal(one({ request, response: null, error: 'upstream timeout' }).error, 'upstream timeout');
    const http = one({ request, response: completion(), status_code: 503 });
    assert.equal(http.status, 'error');
    assert.equal(http.error, 'HTTP 503');
    assert.equal(http.finish_reason, 'error');
    assert.equal(one({ request, response: completion({ status_code: '500' }) }).error, 'HTTP 500');
    assert.equal(one({ request, response: completion(), status_code: 399 }).status, 'ok');
    assert.equal(one({ request, response: completion(), status_code: 400 }).status, 'error');
    assert.equal(one({ request, response: completion({ error: null }) }).status, 'ok');
    const none = one({ request });
    assert.equal(none.status, 'ok');
    assert.equal(none.finish_reason, null);
  });

  it('notes a naive time of the record (no zone) in metadata', () => {
    for (const k of ['started_at', 'start_time', 'timestamp', 'request_time', 'ended_at', 'end_time', 'completed_at']) {
      const s = one({ request, response: completion({ usage: undefined, system_fingerprint: undefined, id: undefined }), [k]: '2026-12-02 10:00:00' });
      assert.equal(Object.keys(s.metadata ?? {}).length, 1, k);
    }
    assert.equal(one({ request, response: completion({ usage: undefined, system_fingerprint: undefined, id: undefined }), started_at: '2026-12-02T10:00:00Z' }).metadata, null);
  });

  it('unwraps a {body} envelope only around an object or text', () => {
    assert.equal(one({ request, response: { status_code: 200, body: 5, id: 'chatcmpl-env' } }).metadata?.response_id, 'chatcmpl-env');
    assert.equal(one({ request, response: { status_code: 200, body: JSON.stringify(completion()) } }).response?.content, '7');
  });

  it('takes usage from the record when the response has none, and input/output token names', () => {
    const s = one({ request, response: completion({ usage: undefined }), usage: { input_tokens: 30, output_tokens: 4 } });
    assert.deepEqual([s.prompt_tokens, s.completion_tokens], [30, 4]);
    assert.equal(one({ request, response: completion({ usage: 'n/a' }) }).prompt_tokens, null);
  });

  it('takes the model from the response, else the request, else the record', () => {
    assert.equal(one({ request, response: completion({ model: undefined }) }).model, 'gpt-4o-mini');
    assert.equal(one({ request: { messages: [user] }, response: completion({ model: undefined }), model: 'outer-model' }).model, 'outer-model');
  });

  it('makes one trajectory per object choice, each with its finish reason', () => {
    const r = rows({
      request,
      response: completion({
        choices: [{ index: 0, message: { role: 'assistant', content: '2' }, finish_reason: 'stop' }, 'junk', { index: 1, message: { role: 'assistant', content: '3' }, finish_reason: 'length' }],
      }),
    });
    assert.deepEqual(r.map((s) => [s.response?.content, s.finish_reason]), [
      ['2', 'stop'],
      ['3', 'length'],
    ]);
    const failed = rows({ request, response: completion(), status_code: 500 });
    assert.equal(failed[0].finish_reason, 'error');
  });
});

describe('openai-log: chunk streams', () => {
  it('assembles a stream at its [DONE] line, with the stream’s usage and raw', () => {
    const r = rows(
      { data: JSON.stringify(chunk('s1', { role: 'assistant', content: 'Hel' })) },
      chunk('s1', { content: 'lo' }, 'stop', { system_fingerprint: 'fp_1' }),
      { ...usageChunk('s1'), usage: { prompt_tokens: 8, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 3 } } },
      '[DONE]',
    );
    assert.equal(r.length, 1, 'the usage-only chunk ends the stream; [DONE] finds nothing left');
    assert.equal(r[0].response?.content, 'Hello');
    assert.equal(r[0].finish_reason, 'stop');
    assert.deepEqual([r[0].prompt_tokens, r[0].completion_tokens], [8, 2]);
    assert.equal(r[0].metadata?.cached_tokens, '3');
    assert.equal(r[0].metadata?.system_fingerprint, 'fp_1');
    assert.equal(r[0].source_line, 1);
    assert.equal(JSON.parse(r[0].raw ?? '{}').choices[0].message.content, 'Hello');
  });

  it('ends the open stream at [DONE] and keeps chunks without id in the last stream', () => {
    const state = openaiLog.createState?.(ctx) as OpenAiLogState;
    assert.deepEqual(drafts(state, chunk('s2', { role: 'assistant', content: 'a' })), []);
    assert.deepEqual(drafts(state, { object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'b' }, finish_reason: 'stop' }] }, 2), []);
    assert.equal(state.last, 's2');
    const out = drafts(state, 'data: [DONE]', 3);
    assert.equal(out.length, 1);
    assert.equal(out[0].steps[0].response?.content, 'ab');
    assert.equal(state.last, null);
    assert.equal(state.streams.size, 0);
    assert.deepEqual(drafts(state, '[DONE]', 4), [], 'no open stream');
  });

  it('does not end a stream at a chunk that carries usage beside its choices', () => {
    const state = openaiLog.createState?.(ctx) as OpenAiLogState;
    drafts(state, chunk('u', { role: 'assistant', content: 'Done' }));
    assert.deepEqual(drafts(state, chunk('u', {}, 'stop', { usage: { prompt_tokens: 5, completion_tokens: 1 } }), 2), []);
    const out = drafts(state, '[DONE]', 3);
    assert.equal(out[0].steps[0].prompt_tokens, 5);
    assert.deepEqual(drafts(state, { ...usageChunk('v'), usage: 'n/a' }, 4), [], 'usage that is no object does not end it');
  });

  it('forgets a stream once it ended: a chunk without id then starts a new one', () => {
    const state = openaiLog.createState?.(ctx) as OpenAiLogState;
    drafts(state, chunk('a', { role: 'assistant', content: 'A' }));
    drafts(state, chunk('b', { role: 'assistant', content: 'B' }), 2);
    assert.equal(state.last, 'b');
    const ended = drafts(state, usageChunk('b'), 3);
    assert.equal(ended[0].steps[0].response?.content, 'B');
    assert.equal(state.last, null);
    assert.deepEqual(drafts(state, { object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: 'C' }, finish_reason: null }] }, 4), []);
    assert.deepEqual([...state.streams.keys()], ['a', '']);
    const rest = openaiLog.flush?.(ctx, state) as TrajectoryDraft[];
    assert.deepEqual(rest.map((d) => d.steps[0].response?.content), ['A', 'C']);
  });

  it('attaches an error-only record to the open stream and ends it', () => {
    const r = rows(chunk('s3', { role: 'assistant', content: 'Part' }), { error: { message: 'stream interrupted', code: 'server_error' } });
    assert.equal(r.length, 1);
    assert.equal(r[0].status, 'error');
    assert.equal(r[0].error, 'server_error: stream interrupted');
    assert.equal(r[0].response?.content, 'Part');
    assert.throws(() => rows({ error: { message: 'no stream open' } }), /not an OpenAI chat log record/);
    const st = openaiLog.createState?.(ctx) as OpenAiLogState;
    st.last = 'gone';
    assert.deepEqual(drafts(st, { error: { message: 'x' } }), [], 'an error after its stream ended');
    assert.throws(() => drafts(st, { error: { message: 'x' }, extra: 1 }), /not an OpenAI chat log record/);
  });

  it('emits streams still open at the end of the file', () => {
    const r = rows(chunk('x1', { role: 'assistant', content: 'one' }), chunk('x2', { role: 'assistant', content: 'two' }));
    assert.deepEqual(r.map((s) => s.response?.content), ['one', 'two']);
  });

  it('reads one record holding a whole SSE stream, and its error event', () => {
    const s = one(sse(chunk('w', { role: 'assistant', content: 'Wh' }), chunk('w', { content: 'ole' }, 'stop'), usageChunk('w')));
    assert.equal(s.response?.content, 'Whole');
    assert.equal(s.prompt_tokens, 8);
    assert.equal(s.source_line, 1);
    const failed = one({ request, response: sse(chunk('w', { role: 'assistant', content: 'Wh' }), { error: { message: 'cut off' } }) });
    assert.equal(failed.error, 'cut off');
    assert.equal(failed.response?.content, 'Wh');
    const onlyError = one({ request, response: `data: ${JSON.stringify({ error: { message: 'denied' } })}\n\n` });
    assert.equal(onlyError.error, 'denied');
    const nothing = one({ request, response: 'data: {"type":"ping"}\n\n' });
    assert.equal(nothing.status, 'ok');
    assert.equal(nothing.response, null);
    const anonymous = one(`data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'No' }, finish_reason: null }] })}\n\ndata: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: ' id' }, finish_reason: 'stop' }] })}\n\n`);
    assert.equal(anonymous.response?.content, 'No id');
    assert.equal(anonymous.metadata?.response_id, '', 'chunks without id: the stream has none');
    const single = rows(`data: ${JSON.stringify(chunk('one', { role: 'assistant', content: 'Single' }))}\n\n`);
    assert.equal(single.length, 1, 'one chunk in a string record: a stream that flush ends');
    assert.equal(single[0].response?.content, 'Single');
  });
});

describe('openai-log normalizer', () => {
  it('emits a still-open stream at flush and accepts one record holding the whole SSE text', () => {
    const recs = fixtureRecords('openai-log-stream.sse').filter((r) => r.value !== '[DONE]');
    assert.equal(runNormalizer(openaiLog, recs)[0]?.response_text, 'The answer is 42.');
    const text = recs.map((r) => `data: ${JSON.stringify(r.value)}\n\n`).join('');
    const rows = runNormalizer(openaiLog, [{ value: text, line: 1, index: 0 }]);
    assert.equal(rows[0]?.response_text, 'The answer is 42.');
  });

  it('does not claim plain chat rows or Anthropic logs', () => {
    assert.equal(openaiLog.detect([{ messages: [{ role: 'user', content: 'hi' }] }]), 0);
    assert.equal(openaiLog.detect([{ request: { model: 'claude', system: 'x', messages: [] }, response: { type: 'message', content: [] } }]), 0);
  });
});
