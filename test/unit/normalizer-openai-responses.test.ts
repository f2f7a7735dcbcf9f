/**
 * The OpenAI Responses normalizer (src/ingest/normalizers/openai-responses.ts): bare
 * response objects, `{request, response}` logs (response as JSON or SSE text), streamed event lines,
 * `previous_response_id` chains, usage details, failures and timing, as the API and its loggers write them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TrajectoryDraft } from '../../src/contract/step';
import type { SourceRecord } from '../../src/ingest/normalizer';
import { openaiResponses, type ResponsesState } from '../../src/ingest/normalizers/openai-responses';
import { ctx, } from './helpers/formats';

const fresh = () => openaiResponses.createState?.(ctx) as ResponsesState;
const drafts = (value: unknown, state = fresh()): TrajectoryDraft[] => openaiResponses.normalize({ value, line: 1, index: 0 } as SourceRecord, ctx, state) as TrajectoryDraft[];
const step = (value: unknown, state = fresh()) => {
  const d = drafts(value, state);
  assert.equal(d.length, 1);
  assert.equal(d[0].link, true);
  return { ...d[0].steps[0], uid: d[0].trajectory_uid };
};
const score = (...v: unknown[]) => openaiResponses.detect(v);

const text = (t: string) => ({ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: t, annotations: [] }] });
const response = (extra: Record<string, unknown> = {}) => ({
  id: 'resp_01',
  object: 'response',
  created_at: 1764669600,
  status: 'completed',
  model: 'gpt-4.1-2025-04-14',
  output: [text('Paris.')],
  usage: { input_tokens: 21, output_tokens: 2, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
  ...extra,
});
const request = (extra: Record<string, unknown> = {}) => ({ model: 'gpt-4.1', input: 'Capital of France?', ...extra });

describe('openai-responses: detection', () => {
  it('scores response objects, logs and stream events', () => {
    assert.equal(score(response()), 0.95);
    assert.equal(score({ id: 'resp_x', output: [] }), 0.95, 'no object name: an id starting resp and an output list');
    assert.equal(score({ id: 'chatcmpl_x', output: [] }), 0);
    assert.equal(score({ id: 5, output: [] }), 0);
    assert.equal(score({ id: 'resp_x', output: 'x' }), 0);
    assert.equal(score({ request: request(), response: response() }), 0.95);
    assert.equal(score({ request: request(), response: null }), 0.6, 'a request whose answer is missing');
    assert.equal(score({ request: JSON.stringify(request()) }), 0.6);
    assert.equal(score({ request: { model: 'x', messages: [] }, response: { choices: [] } }), 0);
    assert.equal(score({ response: response() }), 0.95);
    assert.equal(score({ type: 'response.output_text.delta', delta: 'P' }), 0.9);
    assert.equal(score({ type: 'response.completed', response: response() }), 0.9);
    assert.equal(score({ type: 'message' }), 0);
    assert.equal(score('resp'), 0);
    assert.equal(score({ hello: 1 }), 0);
  });
});

describe('openai-responses: records', () => {
  it('reads a bare response object: output, model, usage details, reasoning, timing', () => {
    const s = step(
      response({
        reasoning: { effort: 'low', summary: null },
        usage: { input_tokens: 21, output_tokens: 9, input_tokens_details: { cached_tokens: 5 }, output_tokens_details: { reasoning_tokens: 7 } },
        completed_at: 1764669602,
        instructions: 'Answer in one word.',
        tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} } }],
      }),
    );
    assert.equal(s.uid, 'resp_01');
    assert.equal(s.response?.content, 'Paris.');
    assert.equal(s.model, 'gpt-4.1-2025-04-14');
    assert.equal(s.provider, 'openai');
    assert.deepEqual(s.messages, [{ role: 'system', content: 'Answer in one word.' }]);
    assert.deepEqual([s.prompt_tokens, s.completion_tokens], [21, 9]);
    assert.deepEqual(s.metadata, {
      response_id: 'resp_01',
      reasoning: '{"effort":"low","summary":null}',
      cached_tokens: '5',
      reasoning_tokens: '7',
      tools_original: '[{"type":"function","name":"lookup","parameters":{"type":"object","properties":{}}}]',
    });
    assert.equal(s.started_at, 1764669600000);
    assert.equal(s.ended_at, 1764669602000);
    assert.equal(s.latency_ms, 2000);
    assert.equal(s.finish_reason, 'stop');
    assert.equal(s.status, 'ok');
    assert.equal(s.error, null);
    assert.equal(JSON.parse(s.tools ?? '[]')[0].function.name, 'lookup', 'flat Responses tools in the chat shape');
  });

  it('reads a request/response log: request fields win, the record’s extras are metadata', () => {
    const s = step({
      request: request({ instructions: 'Be terse.', temperature: 0.1, store: true, stream: false, headers: {}, body: 'x', previous_response_id: null, tools: [] }),
      response: JSON.stringify(response({ usage: { prompt_tokens: 3, completion_tokens: 1 } })),
      trace_id: 't-1',
      agent: 'geo-bot',
      data_source: 'staging',
      reward: 1,
      headers: { a: 1 },
      status_code: 200,
      latency_ms: 640,
      started_at: '2026-12-02T10:00:00Z',
    });
    assert.deepEqual(s.messages, [
      { role: 'system', content: 'Be terse.' },
      { role: 'user', content: 'Capital of France?' },
    ]);
    assert.deepEqual(s.metadata, { temperature: '0.1', store: 'true', trace_id: 't-1', response_id: 'resp_01' });
    assert.equal(s.agent, 'geo-bot');
    assert.equal(s.data_source, 'staging');
    assert.equal(s.reward, 1);
    assert.equal(s.latency_ms, 640);
    assert.equal(s.started_at, Date.parse('2026-12-02T10:00:00Z'));
    assert.deepEqual([s.prompt_tokens, s.completion_tokens], [3, 1]);
  });

  it('takes the model from the response, then the request, then the record', () => {
    assert.equal(step({ request: request(), response: response({ model: undefined }) }).model, 'gpt-4.1');
    assert.equal(step({ request: { input: 'x' }, response: response({ model: undefined }), model: 'outer' }).model, 'outer');
  });

  it('reads the final response of an SSE transcript, and a request whose answer is missing', () => {
    const ev = (type: string, r: unknown) => `event: ${type}\ndata: ${JSON.stringify({ type, response: r })}\n\n`;
    const sse = `${ev('response.created', response({ status: 'in_progress', output: [] }))}event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"Par"}\n\n${ev('response.completed', response())}`;
    assert.equal(step({ request: request(), response: sse }).response?.content, 'Paris.');
    const cut = `${ev('response.created', response({ id: 'resp_cut', status: 'in_progress', output: [] }))}`;
    assert.equal(step({ request: request(), response: cut }).metadata?.response_id, 'resp_cut');
    const noResponse = step({ request: request(), response: 'event: ping\ndata: {"type":"ping"}\n\n' });
    assert.equal(noResponse.response, null);
    assert.equal(noResponse.uid, null);
    assert.equal(noResponse.finish_reason, null);
    assert.equal(step({ request: request(), response: 'plain text' }).response, null);
    assert.equal(step({ request: request() }).messages?.[0].content, 'Capital of France?');
  });

  it('rejects what is no Responses record', () => {
    assert.throws(() => drafts(42), { message: 'expected a Responses API object or a {request, response} record' });
    assert.throws(() => drafts({ hello: 1 }), { message: 'not a Responses API record: expected object "response" with "output", or request "input"' });
    assert.throws(() => drafts({ request: { messages: [] }, response: { choices: [] } }), /not a Responses API record/);
    assert.throws(() => drafts({ type: 'response.completed', response: { id: 'chat' } }), /not a Responses API record/);
    assert.throws(() => drafts({ type: 'response.completed' }), /not a Responses API record/);
  });

  it('skips stream events other than the done events, and reads the done events', () => {
    assert.deepEqual(drafts({ type: 'response.output_text.delta', delta: 'x' }), []);
    assert.deepEqual(drafts({ type: 'response.created', response: response({ status: 'in_progress' }) }), []);
    assert.equal(step({ type: 'response.completed', response: response() }).response?.content, 'Paris.');
    const failed = step({ type: 'response.failed', response: response({ status: 'failed', output: [], error: { code: 'server_error', message: 'The model failed' } }) });
    assert.equal(failed.status, 'error');
    assert.equal(failed.error, 'server_error: The model failed');
    assert.equal(failed.finish_reason, 'error');
    const incomplete = step({ type: 'response.incomplete', response: response({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }) });
    assert.equal(incomplete.finish_reason, 'length');
    assert.equal(incomplete.status, 'ok');
  });

  it('marks an HTTP failure with the record’s error or the status', () => {
    const e = step({ request: request(), response: null, status_code: 429, error: { message: 'Rate limit', code: 'rate_limit_exceeded' } });
    assert.equal(e.status, 'error');
    assert.equal(e.error, 'rate_limit_exceeded: Rate limit');
    assert.equal(e.finish_reason, 'error');
    assert.equal(step({ request: request(), response: null, status_code: 500 }).error, 'HTTP 500');
    assert.equal(step({ request: request(), response: null, status_code: 400 }).status, 'error');
    assert.equal(step({ request: request(), response: null, status_code: 399 }).status, 'ok');
    assert.equal(step({ request: request(), response: response(), status_code: '503' }).error, 'HTTP 503');
  });

  it('keeps none of its own fields in metadata', () => {
    const outer: Record<string, unknown> = { request: request({ tools: [], headers: {}, body: '', stream: true, previous_response_id: undefined }), response: response({ usage: undefined }) };
    for (const k of ['model', 'agent', 'data_source', 'reward', 'headers', 'status_code', 'latency_ms', 'duration_ms', 'elapsed_ms', 'response_time_ms', 'latency', 'latency_s', 'duration', 'response_time', 'started_at', 'start_time', 'ended_at', 'end_time', 'completed_at', 'timestamp', 'request_time'])
      outer[k] = 1;
    outer.status_code = 200;
    const s = step(outer);
    assert.deepEqual(s.metadata, { response_id: 'resp_01' });
    assert.equal(step({ request: request(), response: null }).metadata, null);
  });

  it('notes naive times of the record', () => {
    const s = step({ request: request(), response: response(), started_at: '2026-12-02 10:00:00' });
    assert.equal(Object.keys(s.metadata ?? {}).length, 4, 'response_id, the two usage details and the note');
    assert.equal(Object.keys(step({ request: request(), response: response(), started_at: '2026-12-02T10:00:00Z' }).metadata ?? {}).length, 3);
  });

  it('computes latency from the response’s own times only when the record has none', () => {
    const s = step({ request: request(), response: response({ completed_at: 1764669601 }), started_at: '2026-12-02T10:00:00Z', ended_at: '2026-12-02T10:00:03Z' });
    assert.equal(s.latency_ms, 3000);
    assert.equal(s.ended_at, Date.parse('2026-12-02T10:00:03Z'));
    const own = step({ request: request(), response: response({ completed_at: 1764669601 }), latency_ms: 5 });
    assert.equal(own.latency_ms, 5);
    assert.equal(step(response({ completed_at: undefined })).latency_ms, null);
    assert.equal(step(response({ created_at: undefined, completed_at: 1764669601 })).latency_ms, null);
  });
});

describe('openai-responses: previous_response_id chains', () => {
  it('joins a chain into one trajectory named after its first response, with the history carried', () => {
    const state = fresh();
    const first = step({ request: request(), response: response({ id: 'resp_A' }) }, state);
    assert.equal(first.uid, 'resp_A');
    const second = step({ request: { model: 'gpt-4.1', input: 'And Germany?', previous_response_id: 'resp_A' }, response: response({ id: 'resp_B', output: [text('Berlin.')] }) }, state);
    assert.equal(second.uid, 'resp_A');
    assert.deepEqual(second.messages?.map((m) => m.content), ['Capital of France?', 'Paris.', 'And Germany?']);
    assert.equal(second.metadata?.previous_response_id, 'resp_A');
    const third = step({ request: { input: 'And Spain?', previous_response_id: 'resp_B' }, response: response({ id: 'resp_C', output: [text('Madrid.')] }) }, state);
    assert.equal(third.uid, 'resp_A');
    assert.equal(third.messages?.length, 5);
    assert.equal(state.chains.get('resp_C')?.root, 'resp_A');
  });

  it('names a chain whose first response is not in the file after the id it continues', () => {
    const state = fresh();
    const s = step(response({ id: 'resp_Y', previous_response_id: 'resp_X' }), state);
    assert.equal(s.uid, 'resp_X');
    assert.deepEqual(state.chains.get('resp_Y'), { root: 'resp_X', history: [{ role: 'assistant', content: 'Paris.' }] });
  });

  it('keeps the history without an answer when the response made none', () => {
    const state = fresh();
    step({ request: request(), response: response({ id: 'resp_E', output: [] }) }, state);
    assert.deepEqual(state.chains.get('resp_E'), { root: 'resp_E', history: [{ role: 'user', content: 'Capital of France?' }] });
    const next = step({ request: { input: 'Again?', previous_response_id: 'resp_E' }, response: response({ id: 'resp_F' }) }, state);
    assert.deepEqual(next.messages?.map((m) => m.content), ['Capital of France?', 'Again?']);
    step({ request: request() }, state);
    assert.equal(state.chains.size, 2, 'a response without id starts no chain');
  });
});
