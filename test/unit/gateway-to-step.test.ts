/**
 * A finished captured call → its journal step (src/gateway/core/to-step.ts), and the tee that records a forwarded
 * body (src/gateway/core/tee.ts): every field of the step for an OK JSON call, a stream, an upstream error and a
 * client cancel, in the shapes capture.ts builds. Written to kill the mutants StrykerJS left.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StepRecord } from '../../src/contract/step';
import { parseOr, Tee } from '../../src/gateway/core/tee';
import { type CallRecord, callToStep } from '../../src/gateway/core/to-step';
import type { WireResponse } from '../../src/wire';

const KEY = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';
const user = { role: 'user' as const, content: `my key is ${KEY}` };

function rec(over: Partial<CallRecord> = {}): CallRecord {
  return {
    trajectory_uid: 'gw-1', prompt_uid: 'p-1', step_index: 2, api: 'chat', provider: 'openai', upstream: 'real', stream: false,
    model: 'gpt-4o-mini', messages: [user], tools: null, request: { model: 'gpt-4o-mini', messages: [user] }, responseBody: null,
    assembled: null, http_status: null, error: null, aborted: false, started_at: 1000, ended_at: 1500, latency_ms: 500, ttft_ms: null, state: null,
    ...over,
  };
}

const wire = (over: Partial<WireResponse> = {}): WireResponse => ({
  id: 'chatcmpl-9', model: 'gpt-4o-mini-2024-07-18', message: { role: 'assistant', content: 'Hello' }, finish_reason: 'stop',
  prompt_tokens: 12, completion_tokens: 3, prompt_ids: [1, 2], response_ids: [3], log_probs: [-0.5], error: null, ...over,
});

const FIXED = { step_id: 'gw-1:2', trajectory_uid: 'gw-1', prompt_uid: 'p-1', step_index: 2, is_last: false, policy_version: null, provider: 'openai', tools: null, reward: null, started_at: 1000, ended_at: 1500, latency_ms: 500, source: 'capture', source_format: 'gateway', source_line: null, source_id: 'capture', import_id: null };

describe('callToStep', () => {
  it('an OK JSON call with trajectory state: every field', () => {
    const a = wire();
    const body = { id: 'chatcmpl-9', choices: [] };
    const s = callToStep(rec({ assembled: a, responseBody: body, http_status: 200, tools: '[{"name":"f"}]', ttft_ms: 7, state: { trajectory_uid: 'gw-1', prompt_uid: 'p-1', next_index: 3, channel: 'eval', agent: 'coder', upstream: null, metadata: { data_source: 'swe', task: 't1' }, created_at: 1, completed: null } }));
    const want: StepRecord = {
      ...FIXED, tools: '[{"name":"f"}]', channel: 'eval', agent: 'coder', data_source: 'swe', model: 'gpt-4o-mini-2024-07-18',
      messages: [{ role: 'user', content: 'my key is [redacted]' }], response: { role: 'assistant', content: 'Hello' }, response_text: 'Hello',
      finish_reason: 'stop', prompt_tokens: 12, completion_tokens: 3, prompt_ids: [1, 2], response_ids: [3], rollout_log_probs: [-0.5], ttft_ms: 7,
      status: 'ok', error: null, metadata: { data_source: 'swe', task: 't1', api: 'chat', upstream: 'real', stream: 'false', http_status: '200', response_id: 'chatcmpl-9' },
      raw: JSON.stringify({ api: 'chat', request: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'my key is [redacted]' }] }, response: body, http_status: 200, error: null }),
    };
    assert.deepEqual(s, want);
  });
  it('a stream: raw keeps the assembled message (redacted), not the body; no state: the defaults', () => {
    const a = wire({ id: null, model: null, message: { role: 'assistant', content: `echo ${KEY}` }, finish_reason: null, prompt_tokens: null, completion_tokens: null, prompt_ids: null, response_ids: null, log_probs: null });
    const s = callToStep(rec({ stream: true, assembled: a, responseBody: 'ignored', http_status: 200 }));
    assert.deepEqual([s.channel, s.agent, s.data_source, s.model, s.finish_reason, s.status], ['train', null, null, 'gpt-4o-mini', null, 'ok']);
    assert.deepEqual(s.metadata, { api: 'chat', upstream: 'real', stream: 'true', http_status: '200' });
    assert.deepEqual(s.response, { role: 'assistant', content: 'echo [redacted]' });
    assert.equal(s.response_text, 'echo [redacted]');
    assert.deepEqual(JSON.parse(s.raw!), { api: 'chat', request: JSON.parse(JSON.stringify(rec().request).replaceAll(KEY, '[redacted]')), response: { assembled: { ...a, message: { role: 'assistant', content: 'echo [redacted]' } } }, http_status: 200, error: null });
    // a stream that never assembled anything records no response
    const none = callToStep(rec({ stream: true }));
    assert.deepEqual([JSON.parse(none.raw!).response, none.response, none.response_text, none.metadata], [null, null, null, { api: 'chat', upstream: 'real', stream: 'true' }]);
  });
  it('an upstream error: status error, finish_reason error, the error text, the body in raw', () => {
    const s = callToStep(rec({ http_status: 429, error: 'HTTP 429: rate limited', responseBody: { error: { message: 'rate limited' } } }));
    assert.deepEqual([s.status, s.finish_reason, s.error, s.response, s.response_text], ['error', 'error', 'HTTP 429: rate limited', null, null]);
    assert.equal(s.metadata?.http_status, '429');
    assert.equal(s.metadata?.aborted, undefined);
    assert.deepEqual(JSON.parse(s.raw!).response, { error: { message: 'rate limited' } });
    // an answer with an error is still an error step with the error's finish reason
    const e = callToStep(rec({ assembled: wire({ finish_reason: 'stop' }), error: 'upstream error: overloaded' }));
    assert.deepEqual([e.status, e.finish_reason, e.response_text], ['error', 'error', 'Hello']);
  });
  it('a client cancel: cancelled by client (with the error after it when there is one), aborted in metadata', () => {
    const s = callToStep(rec({ aborted: true, assembled: wire({ message: { role: 'assistant', content: 'Hel' }, finish_reason: null }) }));
    assert.deepEqual([s.status, s.finish_reason, s.error, s.response_text, s.metadata?.aborted], ['error', 'error', 'cancelled by client', 'Hel', 'true']);
    assert.equal(callToStep(rec({ aborted: true, error: 'stream broke' })).error, 'cancelled by client: stream broke');
  });
  it('an assembled answer without a message: no response; a message with only tool calls: its text is the call', () => {
    const s = callToStep(rec({ assembled: wire({ message: null }) }));
    assert.deepEqual([s.response, s.response_text, s.metadata?.response_id], [null, null, 'chatcmpl-9']);
    const t = callToStep(rec({ assembled: wire({ message: { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] } }) }));
    assert.equal(t.response_text, 'f({})');
  });
});

describe('Tee', () => {
  const chatChunk = (delta: object, finish: string | null = null) => `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}`;
  it('a stream whose last event has no blank line after it is still assembled (the parser is ended)', () => {
    const tee = new Tee('chat', true);
    tee.push(new TextEncoder().encode(`${chatChunk({ role: 'assistant', content: 'Hi' })}\n\n${chatChunk({ content: ' there' }, 'stop')}`));
    const r = tee.result();
    assert.deepEqual([r.message?.content, r.finish_reason], ['Hi there', 'stop']);
    assert.equal(tee.body(), null);
  });
  it('a stream cut inside a character: the decoder flush (U+FFFD) reaches the parser, the broken last event is not read as whole', () => {
    const tee = new Tee('chat', true);
    const bytes = new TextEncoder().encode(`${chatChunk({ role: 'assistant', content: 'Hi' })}\n\n${chatChunk({ content: ' there' })}数`);
    tee.push(bytes.slice(0, bytes.length - 1));
    assert.equal(tee.result().message?.content, 'Hi');
  });
  it('a JSON body: the text pieces are joined before parsing; text that is no JSON stays text', () => {
    const tee = new Tee('chat', false);
    const body = '{"id":"c2","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}';
    tee.push(new TextEncoder().encode(body.slice(0, 10)));
    tee.push(new TextEncoder().encode(body.slice(10)));
    assert.deepEqual(tee.body(), JSON.parse(body));
    assert.deepEqual([tee.result().message?.content, tee.result().id], ['ok', 'c2']);
    const text = new Tee('chat', false);
    text.push(new TextEncoder().encode('upstream says no'));
    assert.equal(text.body(), 'upstream says no');
    assert.equal(parseOr('[1'), '[1');
    assert.deepEqual(parseOr('[1]'), [1]);
  });
});
