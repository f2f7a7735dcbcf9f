/**
 * More mutation tests for the OpenTelemetry GenAI normalizer (src/ingest/normalizers/otel.ts), beside
 * test/unit/mutation-ingest-otel.test.ts: the edges of parts messages, event bodies, tool definitions,
 * metadata, log records and detection, on OTLP JSON as exporters write it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DETAILS_EVENT, otel } from '../../src/ingest/normalizers/otel';
import { runNormalizer } from './helpers/formats';

const rows = (...values: unknown[]) => runNormalizer(otel, values.map((value, index) => ({ value, line: index + 1, index })));
type Attr = { key: string; value: Record<string, unknown> };
const s = (key: string, v: string): Attr => ({ key, value: { stringValue: v } });
const T0 = 1_733_216_400_000;
const nano = (ms: number) => `${ms}000000`;
const span = (spanId: string, attrs: Attr[], extra: Record<string, unknown> = {}) => ({
  traceId: 'trace-1',
  spanId,
  parentSpanId: '',
  name: 'chat gpt-4o',
  startTimeUnixNano: nano(T0),
  endTimeUnixNano: nano(T0 + 500),
  attributes: attrs,
  status: {},
  ...extra,
});
const exportOf = (...spans: unknown[]) => ({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans }] }] });
const chat = (...extra: Attr[]) => [s('gen_ai.operation.name', 'chat'), ...extra];
const one = (attrs: Attr[], extra: Record<string, unknown> = {}) => {
  const r = rows(exportOf(span('s1', attrs, extra)));
  assert.equal(r.length, 1);
  return r[0];
};
const json = (v: unknown) => JSON.stringify(v);

describe('otel: parts messages', () => {
  it('a message with no parts is an empty message of its role; a tool-call part without a name has an empty name', () => {
    const r = one(chat(s('gen_ai.input.messages', json([{ role: 'user', parts: [] }, { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', arguments: '{}' }] }]))));
    assert.deepEqual(r.messages.map((m) => [m.role, m.content]), [['user', null], ['assistant', null]]);
    assert.deepEqual(r.messages[1].tool_calls, [{ id: 'c1', type: 'function', function: { name: '', arguments: '{}' } }]);
  });

  it('text beside tool results: the text message first, then one tool message per result', () => {
    const r = one(chat(s('gen_ai.input.messages', json([{ role: 'tool', parts: [{ type: 'text', content: 'note' }, { type: 'tool_call_response', id: 'c1', response: 'ok' }] }]))));
    assert.deepEqual(r.messages.map((m) => [m.role, m.content, m.tool_call_id ?? null]), [['tool', 'note', null], ['tool', 'ok', 'c1']]);
  });

  it('only reasoning: the message is kept with it; a reasoning part without content adds an empty line', () => {
    const r = one(chat(s('gen_ai.input.messages', '[]'), s('gen_ai.output.messages', json([{ role: 'assistant', parts: [{ type: 'reasoning', content: 'a' }, { type: 'reasoning' }] }]))));
    assert.deepEqual([r.response?.reasoning, r.response?.content, r.finish_reason], ['a\n', null, null]);
    const q = one(chat(s('gen_ai.input.messages', json([{ role: 'assistant', parts: [{ type: 'reasoning', content: 'why' }, { type: 'tool_call_response', id: 'x', response: 'r' }] }]))));
    assert.deepEqual(q.messages.map((m) => [m.role, m.reasoning ?? null]), [['assistant', 'why'], ['tool', null]]);
  });

  it('system instructions: none without the attribute; the first output message only, if it is an object', () => {
    const r = one(chat(s('gen_ai.input.messages', json([{ role: 'user', parts: [{ type: 'text', content: 'Hi' }] }])), s('gen_ai.output.messages', json(['not a message', { role: 'assistant', parts: [] }]))));
    assert.deepEqual([r.messages.length, r.response, r.finish_reason], [1, null, null]);
    const q = one(chat(s('gen_ai.input.messages', '[]'), s('gen_ai.output.messages', json([{ role: 'model', parts: [{ type: 'text', content: 'A' }], finish_reason: 'stop' }, { role: 'assistant', parts: [{ type: 'text', content: 'B' }] }]))));
    assert.deepEqual([q.response?.role, q.response?.content, q.finish_reason], ['model', 'A', 'stop']);
  });
});

describe('otel: events', () => {
  it('an event body from the event.content attribute or a body attribute; message and tool_calls given as JSON text', () => {
    const events = [
      { name: 'gen_ai.user.message', attributes: [s('body', json({ content: 'from body attr' }))] },
      { name: 'gen_ai.tool.message', attributes: [s('id', 'c9'), s('content', 'tool out')] },
      { name: 'gen_ai.tool.message', attributes: [s('id', 'c8'), s('tool_call_id', 'c7'), s('content', 'keeps its own id')] },
      { name: 'gen_ai.assistant.message', attributes: [s('role', 'model'), s('content', json([{ type: 'text', text: 'parts' }]))] },
      { name: 'gen_ai.choice', attributes: [s('message', json({ content: 'flat choice', tool_calls: json([{ id: 't1', type: 'function', function: { name: 'f', arguments: '{}' } }]) })), s('finish_reason', 'tool_calls')] },
    ];
    const r = one([s('gen_ai.request.model', 'm')], { events });
    assert.deepEqual(r.messages.map((m) => [m.role, m.content, m.tool_call_id ?? null]), [
      ['user', 'from body attr', null],
      ['tool', 'tool out', 'c9'],
      ['tool', 'keeps its own id', 'c7'],
      ['model', 'parts', null],
    ]);
    assert.deepEqual([r.response?.role, r.response?.content, r.response?.tool_calls?.[0].id, r.finish_reason], ['assistant', 'flat choice', 't1', 'tool_calls']);
  });

  it('a choice without a message object is the message itself; a user event without an id keeps none', () => {
    const r = one([s('gen_ai.request.model', 'm')], { events: [{ name: 'gen_ai.choice', body: { kvlistValue: { values: [s('content', 'bare'), s('finish_reason', 'length')] } } }, { name: 'other.event' }, { name: 5 }] });
    assert.deepEqual([r.messages, r.response?.content, r.finish_reason], [[], 'bare', 'length']);
    const q = one([s('gen_ai.request.model', 'm')], { events: [{ name: 'gen_ai.user.message', attributes: [s('id', 'u1'), s('content', 'hi')] }] });
    assert.equal(q.messages[0].tool_call_id, undefined, 'an id on a non-tool message is no tool_call_id');
  });

  it('the details event: a span event or a log record with the content attributes', () => {
    const logs = { resourceLogs: [{ resource: { attributes: [s('service.name', 'svc')] }, instrumentationLibraryLogs: [{ logRecords: [{ eventName: DETAILS_EVENT, spanId: 's9', traceId: 't9', attributes: [s('gen_ai.request.model', 'logged'), s('gen_ai.input.messages', json([{ role: 'user', parts: [{ type: 'text', content: 'via log' }] }]))] }] }, 'junk', { logRecords: 'none' }] }, 'junk'] };
    const [r] = rows(logs);
    assert.deepEqual([r.trajectory_uid, r.model, r.messages[0].content, r.agent, r.metadata?.span_id, r.started_at], ['t9', 'logged', 'via log', 'svc', 's9', null]);
  });

  it('orphan log events without span ids stay apart; their start is the first event time', () => {
    const log = (content: string, t?: string) => ({ eventName: 'gen_ai.user.message', traceId: 'tr', ...(t ? { timeUnixNano: t } : {}), body: { kvlistValue: { values: [s('content', content)] } } });
    const r = rows({ resourceLogs: [{ scopeLogs: [{ logRecords: [log('one', nano(T0 + 9)), log('two', nano(T0 + 1))] }] }] });
    assert.deepEqual(r.map((x) => [x.messages[0].content, x.started_at, x.metadata?.span_id ?? null]), [['two', T0 + 1, null], ['one', T0 + 9, null]]);
  });
});

describe('otel: tools and metadata', () => {
  it('tool definitions: flat ones nested under function, chat-shaped ones as they are, llm.tools, or indexed functions', () => {
    const defs = [
      { type: 'function', name: 'a', parameters: { type: 'object' } },
      { name: 'b', description: 'B tool' },
      { type: 'function', function: { name: 'c', parameters: {} } },
      { name: 'd' },
      { name: 7, parameters: {} },
    ];
    const r = one(chat(s('gen_ai.tool.definitions', json(defs))));
    assert.deepEqual(JSON.parse(r.tools ?? 'null'), [
      { type: 'function', function: { name: 'a', parameters: { type: 'object' } } },
      { type: 'function', function: { name: 'b', description: 'B tool' } },
      { type: 'function', function: { name: 'c', parameters: {} } },
      { name: 'd' },
      { name: 7, parameters: {} },
    ]);
    assert.equal(r.metadata?.tools_original, json(defs));
    const chatShaped = [{ type: 'function', function: { name: 'c', parameters: {} } }];
    const q = one(chat(s('llm.tools', json(chatShaped))));
    assert.deepEqual([JSON.parse(q.tools ?? 'null'), q.metadata?.tools_original], [chatShaped, undefined]);
    const e = one(chat(s('gen_ai.tool.definitions', '[]'), s('llm.request.functions.0.name', 'g')));
    assert.deepEqual(JSON.parse(e.tools ?? 'null'), [{ type: 'function', function: { name: 'g' } }]);
    const u = one(chat(s('gen_ai.tool.definitions', json([{ type: 'function', name: 'k', parameters: '{"type":"object"}', strict: true }]))));
    assert.deepEqual(JSON.parse(u.tools ?? 'null'), [{ type: 'function', function: { name: 'k', parameters: { type: 'object' } }, strict: true }]);
  });

  it('metadata: request settings but not the model, conversation and response ids; no parent for a root span; the agent name', () => {
    const r = one(chat(s('gen_ai.request.model', 'gpt-4o'), s('gen_ai.request.max_tokens', '100'), s('gen_ai.response.model', 'gpt-4o-x'), s('gen_ai.response.finish_reasons', 'stop'), s('gen_ai.agent.name', 'planner'), s('gen_ai.system', 'openai')));
    assert.deepEqual(r.metadata, { span_name: 'chat gpt-4o', span_id: 's1', 'gen_ai.request.max_tokens': '100' });
    assert.deepEqual([r.agent, r.provider, r.model, r.finish_reason], ['planner', 'openai', 'gpt-4o-x', 'stop']);
    const p = one(chat(s('gen_ai.provider.name', 'aws.bedrock'), s('gen_ai.system', 'openai')), { parentSpanId: 'p1', name: undefined, spanId: undefined });
    assert.deepEqual([p.provider, p.metadata?.parent_span_id, p.metadata?.span_name, p.metadata?.span_id], ['aws.bedrock', 'p1', undefined, undefined]);
  });

  it('an error status with an empty message takes the exception event, then error.type; an exception alone is no error', () => {
    const a = one(chat(s('error.type', 'RateLimitError')), { status: { code: 2, message: '' }, events: [{ name: 'exception', attributes: [s('exception.type', 'X')] }] });
    assert.deepEqual([a.status, a.error], ['error', 'RateLimitError']);
    const b = one(chat(), { status: { code: 'STATUS_CODE_OK' }, events: [{ name: 'exception', attributes: [s('exception.message', 'handled')] }] });
    assert.deepEqual([b.status, b.error, b.finish_reason], ['ok', null, null]);
    const c = one(chat(s('gen_ai.response.finish_reasons', 'length')), { status: { code: 2 } });
    assert.deepEqual([c.status, c.finish_reason], ['error', 'length']);
  });

  it('a span without times has no start, end or latency', () => {
    const r = one(chat(), { startTimeUnixNano: undefined, endTimeUnixNano: undefined });
    assert.deepEqual([r.started_at, r.ended_at, r.latency_ms], [null, null, null]);
  });
});

describe('otel: detection and records', () => {
  it('an export of logs only counts when it holds GenAI events; a bare span needs a string trace id', () => {
    const logs = (records: unknown[]) => ({ resourceLogs: [{ scopeLogs: [{ logRecords: records }] }] });
    assert.equal(otel.detect([logs([{ attributes: [s('event.name', 'gen_ai.choice')] }])]), 0.98);
    assert.equal(otel.detect([logs([{ eventName: DETAILS_EVENT }])]), 0.98);
    assert.equal(otel.detect([logs([{ eventName: '' }])]), 0);
    assert.equal(otel.detect([{ resourceLogs: 'x' }]), 0);
    assert.equal(otel.detect([{ resourceSpans: 'x' }]), 0);
    assert.equal(otel.detect(['x']), 0);
    assert.deepEqual(rows(logs([{ eventName: 'http.request' }])), [], 'an export of other logs is no error, and no step');
  });

  it('a span record in a JSON array (no resourceSpans) keeps its own trace', () => {
    const r = rows(span('x1', chat(), { traceId: 'bare-trace' }));
    assert.deepEqual(r.map((x) => [x.trajectory_uid, x.metadata?.span_id]), [['bare-trace', 'x1']]);
  });

  it('an empty operation name falls back to the model attributes', () => {
    assert.equal(rows(exportOf(span('x', [s('gen_ai.operation.name', ''), s('gen_ai.request.model', 'm')]))).length, 1);
  });

  it('spans and log events without a trace id: one trajectory with an id of its own', () => {
    const r = rows(exportOf(span('x', chat(), { traceId: undefined })), { resourceLogs: [{ scopeLogs: [{ logRecords: [{ eventName: 'gen_ai.user.message', spanId: 'lone', body: { stringValue: 'hi' } }] }] }] });
    assert.equal(r.length, 2);
    for (const x of r) assert.match(x.trajectory_uid, /^0123456789ab-/);
    assert.deepEqual(r.map((x) => [x.trajectory_uid, x.step_index]), [[r[0].trajectory_uid, 0], [r[0].trajectory_uid, 1]]);
  });
});

