/**
 * The OpenTelemetry GenAI normalizer (src/ingest/normalizers/otel.ts) on OTLP JSON as
 * collectors and SDK exporters write it: `resourceSpans` with typed attribute values, the current
 * semantic conventions (`gen_ai.input.messages` with parts, `gen_ai.system_instructions`,
 * `gen_ai.tool.definitions`), the per-message events of the older conventions (as span events and as
 * `resourceLogs` records joined by span id), and the pre-1.28 `gen_ai.prompt.N.*` attributes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { attributes, DETAILS_EVENT, otel } from '../../src/ingest/normalizers/otel';
import { runNormalizer } from './helpers/formats';

const rows = (...values: unknown[]) => runNormalizer(otel, values.map((value, index) => ({ value, line: index + 1, index })));
type Attr = { key: string; value: Record<string, unknown> };
const s = (key: string, v: string): Attr => ({ key, value: { stringValue: v } });
const i = (key: string, v: number): Attr => ({ key, value: { intValue: String(v) } });
const T0 = 1_733_216_400_000; // ms
const nano = (ms: number) => `${ms}000000`;

const span = (spanId: string, attrs: Attr[], extra: Record<string, unknown> = {}) => ({
  traceId: '5b8efff798038103d269b633813fc60c',
  spanId,
  parentSpanId: 'eee19b7ec3c1b174',
  name: 'chat gpt-4o',
  kind: 3,
  startTimeUnixNano: nano(T0),
  endTimeUnixNano: nano(T0 + 1200),
  attributes: attrs,
  status: {},
  ...extra,
});
const exportOf = (...spans: unknown[]) => ({
  resourceSpans: [{ resource: { attributes: [s('service.name', 'support-agent')] }, scopeSpans: [{ scope: { name: 'opentelemetry.instrumentation.openai' }, spans }] }],
});
const current = (extra: Attr[] = []): Attr[] => [
  s('gen_ai.operation.name', 'chat'),
  s('gen_ai.provider.name', 'openai'),
  s('gen_ai.request.model', 'gpt-4o'),
  s('gen_ai.response.model', 'gpt-4o-2024-08-06'),
  s('gen_ai.response.id', 'chatcmpl-1'),
  { key: 'gen_ai.request.temperature', value: { doubleValue: 0.2 } },
  i('gen_ai.usage.input_tokens', 42),
  i('gen_ai.usage.output_tokens', 7),
  s('gen_ai.system_instructions', JSON.stringify([{ type: 'text', content: 'You are terse.' }])),
  s('gen_ai.input.messages', JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] }])),
  s('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }], finish_reason: 'tool_call' }])),
  ...extra,
];

describe('otel: OTLP attribute values', () => {
  it('typed values become plain values; a flat object is kept as is', () => {
    const a = attributes([
      s('s', 'x'),
      i('i', 12),
      { key: 'd', value: { doubleValue: '1.5' } },
      { key: 'd2', value: { doubleValue: 2.5 } },
      { key: 'b', value: { boolValue: false } },
      { key: 'y', value: { bytesValue: 'AAE=' } },
      { key: 'arr', value: { arrayValue: { values: [{ stringValue: 'a' }, { intValue: 3 }] } } },
      { key: 'emptyArr', value: { arrayValue: {} } },
      { key: 'kv', value: { kvlistValue: { values: [s('k', 'v')] } } },
      { key: 'raw', value: 'plain' },
      { key: 'other', value: { foo: 1 } },
      { key: 5, value: { stringValue: 'ignored' } },
      'junk',
    ]);
    assert.deepEqual(a, { s: 'x', i: 12, d: 1.5, d2: 2.5, b: false, y: 'AAE=', arr: ['a', 3], emptyArr: [], kv: { k: 'v' }, raw: 'plain', other: { foo: 1 } });
    assert.deepEqual(attributes({ 'gen_ai.request.model': 'm' }), { 'gen_ai.request.model': 'm' });
    assert.deepEqual(attributes('x'), {});
  });
});

describe('otel: detection', () => {
  it('OTLP exports: 0.9 + 0.08 × share; bare spans: 0.7 × share; GenAI logs only count with GenAI events', () => {
    assert.equal(otel.detect([exportOf()]), 0.98);
    assert.ok(Math.abs(otel.detect([exportOf(), { x: 1 }]) - 0.94) < 1e-9);
    assert.equal(otel.detect([span('a', current())]), 0.7);
    assert.equal(otel.detect([span('a', current()), { x: 1 }]), 0.35);
    assert.equal(otel.detect([{ x: 1 }]), 0);
    assert.equal(otel.detect([{ traceId: 't', attributes: [] }]), 0, 'a span needs its start time');
    assert.equal(otel.detect([{ traceId: 5, attributes: [], startTimeUnixNano: '1' }]), 0);
    const logs = (eventName: string) => ({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ eventName, spanId: 'a', body: {} }] }] }] });
    assert.equal(otel.detect([logs('gen_ai.user.message')]), 0.98);
    assert.equal(otel.detect([logs('http.request')]), 0);
  });
});

describe('otel: spans with the current conventions', () => {
  it('messages with parts, tool calls, model, provider, usage, timing, metadata', () => {
    const [r] = rows(exportOf(span('s1', current([s('gen_ai.conversation.id', 'conv-9'), s('gen_ai.tool.definitions', JSON.stringify([{ type: 'function', name: 'get_weather', description: 'Weather', parameters: { type: 'object' } }]))]))));
    assert.deepEqual(r.messages.map((m) => [m.role, m.content]), [['system', 'You are terse.'], ['user', 'Weather in Paris?']]);
    assert.deepEqual(r.response?.tool_calls, [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }]);
    assert.equal(r.finish_reason, 'tool_calls', 'tool_call → tool_calls');
    assert.deepEqual([r.model, r.provider, r.agent, r.prompt_tokens, r.completion_tokens], ['gpt-4o-2024-08-06', 'openai', 'support-agent', 42, 7]);
    assert.deepEqual([r.started_at, r.ended_at, r.latency_ms, r.status, r.error], [T0, T0 + 1200, 1200, 'ok', null]);
    assert.equal(r.trajectory_uid, '5b8efff798038103d269b633813fc60c');
    assert.equal(JSON.parse(r.tools ?? '[]')[0].function.name, 'get_weather');
    assert.deepEqual(r.metadata, {
      tools_original: '[{"type":"function","name":"get_weather","description":"Weather","parameters":{"type":"object"}}]',
      span_name: 'chat gpt-4o', span_id: 's1', parent_span_id: 'eee19b7ec3c1b174', service_name: 'support-agent',
      'gen_ai.response.id': 'chatcmpl-1', 'gen_ai.request.temperature': '0.2', 'gen_ai.conversation.id': 'conv-9',
    });
  });

  it('parts: reasoning, text, media, tool responses; finish reasons from the attribute first', () => {
    const input = [
      { role: 'user', parts: [{ type: 'text', content: 'Look:' }, { type: 'blob', modality: 'image', mime_type: 'image/png', content: 'iVBOR' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'f', arguments: '{"a":1}' }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: 'sunny' }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c2', result: 'cloudy' }, { type: 'tool_call_response', id: 'c3', content: 'rain' }] },
      'plain user text',
      { role: 'user', content: 'openai-shaped' },
      { parts: [{ type: 'text', text: 'no role' }, 7] },
    ];
    const output = [{ role: 'assistant', parts: [{ type: 'reasoning', content: 'think 1' }, { type: 'reasoning', content: 'think 2' }, { type: 'text', content: 'Done.' }], finish_reason: 'stop' }];
    const [r] = rows(exportOf(span('s1', [s('gen_ai.operation.name', 'chat'), s('gen_ai.input.messages', JSON.stringify(input)), s('gen_ai.output.messages', JSON.stringify(output)), { key: 'gen_ai.response.finish_reasons', value: { arrayValue: { values: [{ stringValue: 'length' }] } } }])));
    assert.deepEqual(r.messages.map((m) => [m.role, m.content, m.tool_call_id ?? null]), [
      ['user', 'Look:\n[blob]', null],
      ['assistant', null, null],
      ['tool', 'sunny', 'c1'],
      ['tool', 'cloudy', 'c2'],
      ['tool', 'rain', 'c3'],
      ['user', 'plain user text', null],
      ['user', 'openai-shaped', null],
      ['user', 'no role', null],
    ]);
    assert.ok(r.messages[0].parts?.includes('image/png'), 'media kept in parts');
    assert.equal(r.messages[7].parts, undefined, 'text only: no parts');
    assert.equal(r.messages[1].tool_calls?.[0].function.arguments, '{"a":1}');
    assert.equal(r.response?.reasoning, 'think 1\nthink 2');
    assert.equal(r.response?.content, 'Done.');
    assert.equal(r.finish_reason, 'length');
    // finish reasons flattened to JSON text by the exporter: the first one (was the whole text '["stop"]')
    const [q] = rows(exportOf(span('s2', [s('gen_ai.operation.name', 'chat'), s('gen_ai.input.messages', '[]'), s('gen_ai.response.finish_reasons', '["stop"]')])));
    assert.deepEqual([q.response, q.finish_reason, q.messages], [null, 'stop', []]);
  });

  it('errors: status code 2 / STATUS_CODE_ERROR, error.type; the message from status, exception or type', () => {
    const err = (status: unknown, attrs: Attr[] = [], events: unknown[] = []) => rows(exportOf(span('s1', [s('gen_ai.operation.name', 'chat'), ...attrs], { status, events })))[0];
    const a = err({ code: 2, message: 'rate limited' });
    assert.deepEqual([a.status, a.error, a.finish_reason], ['error', 'rate limited', 'error']);
    const b = err({ code: 'STATUS_CODE_ERROR', message: '' }, [], [{ name: 'exception', attributes: [s('exception.message', 'Connection reset')] }]);
    assert.deepEqual([b.status, b.error], ['error', 'Connection reset']);
    const c = err({}, [s('error.type', 'timeout')]);
    assert.deepEqual([c.status, c.error], ['error', 'timeout']);
    const d = err({ code: 'ERROR' });
    assert.deepEqual([d.status, d.error], ['error', 'span status ERROR']);
    const e = err({ code: 1, message: 'fine' });
    assert.deepEqual([e.status, e.error, e.finish_reason], ['ok', null, null]);
    const f = err('bad status');
    assert.equal(f.status, 'ok');
  });

  it('only LLM spans are steps: operation chat / text_completion / generate_content, or model / prompt attributes', () => {
    const ops = ['chat', 'text_completion', 'completion', 'generate_content', 'embeddings', 'execute_tool', 'invoke_agent'];
    const r = rows(exportOf(...ops.map((op, k) => span(`op${k}`, [s('gen_ai.operation.name', op)], { startTimeUnixNano: nano(T0 + k) }))));
    assert.deepEqual(r.map((x) => x.metadata?.span_id), ['op0', 'op1', 'op2', 'op3']);
    for (const key of ['gen_ai.request.model', 'gen_ai.response.model', 'gen_ai.prompt.0.role', 'gen_ai.prompt.0.content']) {
      assert.equal(rows(exportOf(span('x', [s(key, 'v')]))).length, 1, key);
    }
    assert.equal(rows(exportOf(span('x', [s('http.method', 'POST')]))).length, 0);
  });
});

describe('otel: older conventions', () => {
  it('span events per message, the first choice as the response', () => {
    const events = [
      { name: 'gen_ai.system.message', attributes: [s('gen_ai.system', 'openai')], body: { kvlistValue: { values: [s('content', 'Be brief.')] } } },
      { name: 'gen_ai.user.message', attributes: [s('gen_ai.event.content', '{"content":"Hi"}')] },
      { name: 'gen_ai.assistant.message', attributes: [], body: { stringValue: JSON.stringify({ tool_calls: JSON.stringify([{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }]) }) } },
      { name: 'gen_ai.tool.message', attributes: [], body: { kvlistValue: { values: [s('content', 'result'), s('id', 'c1')] } } },
      { name: 'gen_ai.choice', attributes: [], body: { kvlistValue: { values: [s('finish_reason', 'stop'), s('message', '{"role":"assistant","content":"Hello!"}')] } } },
      { name: 'gen_ai.choice', attributes: [], body: { kvlistValue: { values: [s('message', '{"content":"second choice"}')] } } },
    ];
    const [r] = rows(exportOf(span('s1', [s('gen_ai.system', 'openai'), s('gen_ai.request.model', 'gpt-4o-mini')], { events })));
    assert.deepEqual(r.messages.map((m) => [m.role, m.content, m.tool_call_id ?? null]), [
      ['system', 'Be brief.', null],
      ['user', 'Hi', null],
      ['assistant', null, null],
      ['tool', 'result', 'c1'],
    ]);
    assert.equal(r.messages[2].tool_calls?.[0].id, 'c1');
    assert.deepEqual([r.response?.role, r.response?.content, r.finish_reason, r.provider, r.model], ['assistant', 'Hello!', 'stop', 'openai', 'gpt-4o-mini']);
  });

  it('pre-1.28 indexed attributes: prompts, completions with tool calls, functions as tools', () => {
    const attrs = [
      s('gen_ai.system', 'OpenAI'),
      s('gen_ai.request.model', 'gpt-3.5-turbo'),
      s('gen_ai.prompt.1.role', 'user'),
      s('gen_ai.prompt.1.content', 'second'),
      s('gen_ai.prompt.0.role', 'system'),
      s('gen_ai.prompt.0.content', 'first'),
      s('gen_ai.prompt.x.content', 'not indexed'),
      s('gen_ai.completion.0.role', 'assistant'),
      s('gen_ai.completion.0.finish_reason', 'tool_calls'),
      s('gen_ai.completion.0.tool_calls.1.id', 'call_b'),
      s('gen_ai.completion.0.tool_calls.1.name', 'g'),
      s('gen_ai.completion.0.tool_calls.1.arguments', '{}'),
      s('gen_ai.usage.prompt_tokens', '11'),
      i('gen_ai.usage.completion_tokens', 3),
      s('llm.request.functions.0.name', 'g'),
      s('llm.request.functions.0.parameters', '{"type":"object"}'),
    ];
    const [r] = rows(exportOf(span('s1', attrs)));
    assert.deepEqual(r.messages.map((m) => [m.role, m.content]), [['system', 'first'], ['user', 'second']]);
    assert.deepEqual(r.response?.tool_calls, [{ id: 'call_b', type: 'function', function: { name: 'g', arguments: '{}' } }]);
    assert.deepEqual([r.finish_reason, r.prompt_tokens, r.completion_tokens], ['tool_calls', 11, 3]);
    assert.deepEqual(JSON.parse(r.tools ?? 'null'), [{ type: 'function', function: { name: 'g', parameters: { type: 'object' } } }]);
    const [none] = rows(exportOf(span('s2', [s('gen_ai.request.model', 'm')])));
    assert.deepEqual([none.response, none.finish_reason, none.tools], [null, null, null]);
  });

  it('GenAI log records are joined to their span by id, also from another record; orphans become steps', () => {
    const logs = (records: unknown[]) => ({ resourceLogs: [{ resource: { attributes: [s('service.name', 'svc-logs')] }, scopeLogs: [{ logRecords: records }] }] });
    const r = rows(
      logs([
        { eventName: 'gen_ai.user.message', spanId: 's1', traceId: 't1', body: { kvlistValue: { values: [s('content', 'from a log')] } } },
        { attributes: [s('event.name', 'gen_ai.choice')], spanId: 's1', traceId: 't1', body: { kvlistValue: { values: [s('message', '{"content":"answer"}')] } } },
        { eventName: 'http.request', spanId: 's1' },
        'junk',
      ]),
      exportOf(span('s1', [s('gen_ai.request.model', 'm')], { traceId: 't1' })),
      logs([{ eventName: 'gen_ai.user.message', spanId: 'orphan', traceId: 't2', timeUnixNano: nano(T0 + 5000), body: { kvlistValue: { values: [s('content', 'lonely')] } } }]),
    );
    assert.equal(r.length, 2);
    const joined = r.find((x) => x.trajectory_uid === 't1');
    assert.deepEqual([joined?.messages[0].content, joined?.response?.content, joined?.source_line], ['from a log', 'answer', 2]);
    const orphan = r.find((x) => x.trajectory_uid === 't2');
    assert.deepEqual([orphan?.messages[0].content, orphan?.started_at, orphan?.metadata?.span_id, orphan?.metadata?.span_name, orphan?.agent, orphan?.source_line], ['lonely', T0 + 5000, 'orphan', 'gen_ai.user.message', 'svc-logs', 3]);
  });

  it('a details event carries the content; span attributes win over the event', () => {
    const details = { name: 'gen_ai.client.inference.operation.details', attributes: [s('gen_ai.request.model', 'event-model'), s('gen_ai.input.messages', JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'via event' }] }]))] };
    const [r] = rows(exportOf(span('s1', [s('gen_ai.operation.name', 'chat'), s('gen_ai.request.model', 'span-model')], { events: [details] })));
    assert.deepEqual([r.messages[0].content, r.model], ['via event', 'span-model']);
  });
});

describe('otel: records and traces', () => {
  it('steps of a trace in start order across records; spans without ids kept apart; bad records rejected', () => {
    const r = rows(
      exportOf(span('b', [s('gen_ai.request.model', 'm')], { startTimeUnixNano: nano(T0 + 100) })),
      exportOf(span('a', [s('gen_ai.request.model', 'm')])),
      span('', [s('gen_ai.request.model', 'm')], { traceId: 'bare' }),
      span('', [s('gen_ai.request.model', 'm')], { traceId: 'bare', startTimeUnixNano: nano(T0 + 1) }),
    );
    assert.deepEqual(r.map((x) => [x.trajectory_uid, x.metadata?.span_id ?? null, x.step_index]), [
      ['5b8efff798038103d269b633813fc60c', 'a', 0],
      ['5b8efff798038103d269b633813fc60c', 'b', 1],
      ['bare', '', 0],
      ['bare', '', 1],
    ]);
    assert.throws(() => rows({ x: 1 }), /no OTLP spans or logs here/);
    assert.deepEqual(rows({ resourceSpans: [] }), []);
    assert.deepEqual(rows({ resourceSpans: ['x', { scopeSpans: ['y', { spans: 'z' }] }, { instrumentationLibrarySpans: [{ spans: [span('old', [s('gen_ai.request.model', 'm')])] }] }] }).map((x) => x.metadata?.span_id), ['old']);
  });
});

describe('otel normalizer: parts, events, tools', () => {
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
      assert.deepEqual(JSON.parse(u.tools ?? 'null'), [{ type: 'function', function: { name: 'k', parameters: { type: 'object' }, strict: true } }], "strict is the function's, as the chat API nests it");
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
});
