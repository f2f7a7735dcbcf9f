// Tests written from the survivors of a Stryker run over src/ingest/normalizers/phoenix.ts (docs/mutation/traces.md):
// OpenInference spans in the shapes Phoenix exports (flat dotted attributes, nested attributes, span events).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StepRecord } from '../../src/contract/step';
import { expandAttributes, phoenix } from '../../src/ingest/normalizers/phoenix';
import { runNormalizer } from './helpers/formats';

/** An LLM span as Phoenix's span export writes it (flat dotted attributes); `attrs` and `over` replace or add keys (an undefined attribute is removed). */
function llmSpan(spanId: string, attrs: Record<string, unknown> = {}, over: Record<string, unknown> = {}): Record<string, unknown> {
  const span = {
    name: 'ChatCompletion',
    context: { trace_id: 'trace-a', span_id: spanId },
    span_kind: 'LLM',
    parent_id: null,
    start_time: '2026-11-29T16:20:01.000Z',
    end_time: '2026-11-29T16:20:02.500Z',
    status_code: 'OK',
    status_message: '',
    events: [],
    attributes: {
      'openinference.span.kind': 'LLM',
      'llm.input_messages.0.message.role': 'user',
      'llm.input_messages.0.message.content': 'Top region?',
      'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.content': 'EMEA.',
      'llm.model_name': 'gpt-4o-mini',
      ...attrs,
    } as Record<string, unknown>,
    ...over,
  };
  for (const [k, v] of Object.entries(span.attributes)) if (v === undefined) delete span.attributes[k];
  return span;
}

/** Spans through the normalizer as one file, one record per line. */
function rows(...spans: unknown[]): StepRecord[] {
  return runNormalizer(phoenix, spans.map((value, index) => ({ value, line: index + 1, index })));
}

describe('phoenix: survivors of the first Stryker run', () => {
  it('the format id and label the import report names', () => {
    assert.deepEqual([phoenix.id, phoenix.label], ['phoenix', 'Arize Phoenix / OpenInference spans']);
  });

  it('an array mixing objects and scalars is expanded by index; message lists as JSON text, with a null entry', () => {
    assert.deepEqual(expandAttributes({ mixed: [{ a: 1 }, 'x'] }), { mixed: { 0: { a: 1 }, 1: 'x' } });
    const [r] = rows(llmSpan('sp-1', { 'llm.input_messages.0.message.role': undefined, 'llm.input_messages.0.message.content': undefined, llm: { input_messages: JSON.stringify([{ message: { role: 'user', content: 'as text' } }, null]) } }));
    assert.deepEqual(r.messages.map((m) => [m.role, m.content]), [['user', 'as text'], ['user', null]]);
  });

  it('indexed lists keep only index keys (not "1x" or "x1")', () => {
    const [r] = rows(llmSpan('sp-1', { 'llm.input_messages.1x.message.content': 'not an index', 'llm.input_messages.x1.message.content': 'nor this' }));
    assert.deepEqual(r.messages.map((m) => m.content), ['Top region?']);
  });

  it('content wins over contents; a message without calls has no tool_calls key; a system output is still the assistant\'s', () => {
    const [r] = rows(
      llmSpan('sp-1', {
        'llm.input_messages.0.message.contents.0.message_content.type': 'text',
        'llm.input_messages.0.message.contents.0.message_content.text': 'other',
        'llm.output_messages.0.message.role': 'system',
      }),
    );
    assert.equal(r.messages[0].content, 'Top region?');
    assert.equal(Object.hasOwn(r.messages[0], 'tool_calls'), false);
    assert.equal(r.response?.role, 'assistant');
  });

  it('zone-less camelCase times are noted too', () => {
    const [r] = rows(llmSpan('sp-1', {}, { start_time: undefined, end_time: undefined, startTime: '2026-11-29T16:20:01' }));
    assert.equal(r.metadata?.time_zone, 'none in source: timestamps kept as written, stored as UTC');
    const [e] = rows(llmSpan('sp-1', {}, { start_time: undefined, end_time: undefined, endTime: '2026-11-29T16:20:01' }));
    assert.equal(e.metadata?.time_zone, 'none in source: timestamps kept as written, stored as UTC');
  });
});

describe('phoenix: error spans', () => {
  const failed = (events: unknown, status_message = '') =>
    rows(llmSpan('sp-err', {}, { status_code: 'ERROR', status_message, events }))[0];

  it('an ERROR span without a status message takes the exception event\'s message, flat dotted or nested', () => {
    const flat = failed([{ name: 'exception', timestamp: '2026-11-29T17:00:30+00:00', attributes: { 'exception.type': 'openai.APITimeoutError', 'exception.message': 'Request timed out.' } }]);
    assert.deepEqual([flat.status, flat.error, flat.finish_reason], ['error', 'Request timed out.', 'error']);
    const nested = failed([{ name: 'exception', attributes: { exception: { type: 'KeyError', message: "'region'" } } }]);
    assert.equal(nested.error, "'region'");
  });
});

describe('phoenix: detection', () => {
  it('0.75 + 0.2 × the share of spans; what counts as a span', () => {
    assert.equal(phoenix.detect([llmSpan('a')]), 0.95);
    assert.ok(Math.abs(phoenix.detect([llmSpan('a'), { x: 1 }]) - 0.85) < 1e-9);
    assert.equal(phoenix.detect([{ x: 1 }, 'text', null]), 0);
    // an id and an upper-case kind, without attributes
    assert.equal(phoenix.detect([{ context: { trace_id: 't' }, span_kind: 'CHAIN' }]), 0.95);
    assert.equal(phoenix.detect([{ trace_id: 't', spanKind: 'LLM' }]), 0.95);
    assert.equal(phoenix.detect([{ traceId: 't', span_kind: 'llm' }]), 0, 'a lower-case kind is no OpenInference kind');
    assert.equal(phoenix.detect([{ span_kind: 'LLM' }]), 0, 'no trace id');
    assert.equal(phoenix.detect([{ 'context.trace_id': 't', span_kind: 'LLM' }]), 0.95, 'a dataframe column');
    // attributes that name OpenInference
    assert.equal(phoenix.detect([{ attributes: { 'openinference.span.kind': 'LLM' } }]), 0.95);
    assert.equal(phoenix.detect([{ attributes: { openinference: { span: { kind: 'LLM' } } } }]), 0.95);
    assert.equal(phoenix.detect([{ attributes: { 'llm.input_messages.0.message.role': 'user' } }]), 0.95);
    assert.equal(phoenix.detect([{ attributes: { 'llm.model_name': 'm' } }]), 0);
    assert.equal(phoenix.detect([{ attributes: 'openinference' }]), 0);
    assert.equal(phoenix.detect([{ 'attributes.openinference.span.kind': 'LLM' }]), 0.95, 'flattened dataframe columns');
  });
});

describe('phoenix: records and traces', () => {
  it('one span a line, a {spans} or {data} document; only LLM spans; steps in start order per trace; no trace id → no uid', () => {
    const later = llmSpan('late', {}, { start_time: '2026-11-29T16:20:05.000Z', end_time: '2026-11-29T16:20:06.000Z' });
    const tool = llmSpan('tool', { 'openinference.span.kind': 'TOOL' }, { span_kind: 'TOOL' });
    const other = llmSpan('other', {}, { context: { trace_id: 'trace-b', span_id: 'other' } });
    const noTrace = llmSpan('none', {}, { context: { span_id: 'none' } });
    const r = rows(later, { spans: [tool, 'junk', llmSpan('early')] }, { data: [other, noTrace] });
    assert.deepEqual(r.map((x) => [x.trajectory_uid, x.metadata?.span_id, x.step_index, x.source_line]), [
      ['trace-a', 'early', 0, 2],
      ['trace-a', 'late', 1, 1],
      ['trace-b', 'other', 0, 3],
      ['0123456789ab-3-2', 'none', 0, 3],
    ]);
  });

  it('the span kind: openinference.span.kind first, then span_kind / spanKind, any case', () => {
    const kinds = (span: Record<string, unknown>) => rows(span).length;
    assert.equal(kinds(llmSpan('a', { 'openinference.span.kind': 'llm' }, { span_kind: 'CHAIN' })), 1);
    assert.equal(kinds(llmSpan('a', { 'openinference.span.kind': 'CHAIN' }, { span_kind: 'LLM' })), 0);
    assert.equal(kinds(llmSpan('a', { 'openinference.span.kind': undefined }, { span_kind: 'llm' })), 1);
    assert.equal(kinds(llmSpan('a', { 'openinference.span.kind': undefined }, { span_kind: undefined, spanKind: 'LLM' })), 1);
    assert.equal(kinds(llmSpan('a', { 'openinference.span.kind': undefined }, { span_kind: undefined })), 0);
  });

  it('trace ids from context, trace_id, traceId or the context.trace_id column', () => {
    const uid = (over: Record<string, unknown>) => rows(llmSpan('a', {}, { context: undefined, ...over }))[0].trajectory_uid;
    assert.equal(uid({ trace_id: 't1' }), 't1');
    assert.equal(uid({ traceId: 't2' }), 't2');
    assert.equal(uid({ 'context.trace_id': 't3', 'context.span_id': 's3' }), 't3');
  });

  it('a record that is no span is rejected; one inside a list of spans is skipped', () => {
    assert.throws(() => rows({ name: 'x', attributes: {} }), /not an OpenInference span/);
    assert.deepEqual(rows({ spans: [{ name: 'x' }, { name: 'y' }] }), []);
  });

  it('flat columns (attributes.x) and a nested attributes object are read together', () => {
    const [r] = rows({
      name: 'llm',
      'context.trace_id': 'tr',
      span_kind: 'LLM',
      'attributes.llm.model_name': 'from-column',
      'attributes.llm.input_messages': [{ 'message.role': 'user', 'message.content': 'Hi' }],
      attributes: { llm: { provider: 'openai' } },
    });
    assert.deepEqual([r.model, r.provider, r.messages.map((m) => m.content)], ['from-column', 'openai', ['Hi']]);
  });
});

describe('phoenix: the step', () => {
  it('metadata: span name and ids, session, user, invocation parameters, metadata, tags; empty values left out', () => {
    const [r] = rows(
      llmSpan(
        'sp-1',
        {
          'session.id': 'sess-1',
          'user.id': 'user-1',
          'llm.invocation_parameters': '{"temperature": 0}',
          metadata: '{"run": 3}',
          'tag.tags': ['a', 'b'],
        },
        { parent_id: 'sp-chain' },
      ),
    );
    assert.deepEqual(r.metadata, {
      span_name: 'ChatCompletion',
      span_id: 'sp-1',
      parent_id: 'sp-chain',
      session_id: 'sess-1',
      user_id: 'user-1',
      invocation_parameters: '{"temperature":0}',
      metadata: '{"run":3}',
      tags: '["a","b"]',
    });
    const [q] = rows(llmSpan('x', { 'session.id': '' }, { name: '', context: { trace_id: 't' }, span_id: 'camel-less', parentId: 'p2' }));
    assert.deepEqual(q.metadata, { span_id: 'camel-less', parent_id: 'p2' });
    const [c] = rows(llmSpan('x', {}, { context: { trace_id: 't' }, spanId: 'camel' }));
    assert.equal(c.metadata?.span_id, 'camel');
  });

  it('tool calls with ids and arguments; a call without a function name is dropped; tool results keep their id and name', () => {
    const [r] = rows(
      llmSpan('sp-1', {
        'llm.input_messages.1.message.role': 'tool',
        'llm.input_messages.1.message.tool_call_id': 'call_1',
        'llm.input_messages.1.message.name': 'run_sql',
        'llm.input_messages.1.message.content': '42',
        'llm.output_messages.0.message.content': undefined,
        'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'call_2',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'run_sql',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"q": 1}',
        'llm.output_messages.0.message.tool_calls.1.tool_call.id': 'call_3',
        'llm.output_messages.0.message.tool_calls.1.tool_call.function.arguments': '{}',
        'llm.output_messages.0.message.tool_calls.2.tool_call.id': 'call_4',
      }),
    );
    assert.deepEqual([r.messages[1].role, r.messages[1].tool_call_id, r.messages[1].name, r.messages[1].content], ['tool', 'call_1', 'run_sql', '42']);
    assert.deepEqual(r.response?.tool_calls, [{ id: 'call_2', type: 'function', function: { name: 'run_sql', arguments: '{"q":1}' } }]);
    assert.equal(r.finish_reason, 'tool_calls');
    assert.equal(Object.hasOwn(r.messages[0], 'tool_call_id'), false);
    assert.equal(Object.hasOwn(r.messages[0], 'name'), false);
  });

  it('multi-part contents: text parts joined, an image kept in parts; text only → no parts', () => {
    const [r] = rows(
      llmSpan('sp-1', {
        'llm.input_messages.0.message.content': undefined,
        'llm.input_messages.0.message.contents.0.message_content.type': 'text',
        'llm.input_messages.0.message.contents.0.message_content.text': 'Look:',
        'llm.input_messages.0.message.contents.1.message_content.type': 'image',
        'llm.input_messages.0.message.contents.1.message_content.image.image.url': 'https://x/y.png',
        'llm.input_messages.1.message.role': 'user',
        'llm.input_messages.1.message.contents.0.message_content.type': 'text',
        'llm.input_messages.1.message.contents.0.message_content.text': 'plain',
        'llm.input_messages.1.message.contents.1.message_content.type': 'text',
        'llm.input_messages.1.message.contents.1.message_content.text': 'more',
      }),
    );
    assert.equal(r.messages[0].content, 'Look:\n[image]');
    assert.deepEqual(JSON.parse(r.messages[0].parts ?? 'null'), [{ type: 'text', text: 'Look:' }, { type: 'image_url', image_url: { url: 'https://x/y.png' } }]);
    assert.equal(r.messages[1].content, 'plain\nmore');
    assert.equal(r.messages[1].parts, undefined);
  });

  it('tools from llm.tools (json_schema), tokens, model, provider or system, latency, finish stop / none', () => {
    const schema = { type: 'function', function: { name: 'run_sql', parameters: { type: 'object' } } };
    const [r] = rows(
      llmSpan('sp-1', {
        'llm.tools.0.tool.json_schema': JSON.stringify(schema),
        'llm.token_count.prompt': 12,
        'llm.token_count.completion': 3,
        'llm.system': 'anthropic',
      }),
    );
    assert.deepEqual(JSON.parse(r.tools ?? 'null'), [schema]);
    assert.deepEqual([r.prompt_tokens, r.completion_tokens, r.model, r.provider], [12, 3, 'gpt-4o-mini', 'anthropic']);
    assert.deepEqual([r.started_at, r.ended_at, r.latency_ms, r.finish_reason, r.status, r.error], [Date.parse('2026-11-29T16:20:01Z'), Date.parse('2026-11-29T16:20:02.5Z'), 1500, 'stop', 'ok', null]);
    assert.equal(r.metadata?.tools_original, undefined, 'OpenAI-shaped tools need no original');
    const [p] = rows(llmSpan('sp-2', { 'llm.provider': 'openai', 'llm.system': 'anthropic' }, { end_time: undefined }));
    assert.deepEqual([p.provider, p.latency_ms, p.ended_at], ['openai', null, null]);
    const [n] = rows(llmSpan('sp-3', { 'llm.output_messages.0.message.role': undefined, 'llm.output_messages.0.message.content': undefined }, { start_time: undefined }));
    assert.deepEqual([n.response, n.finish_reason, n.latency_ms], [null, null, null]);
  });

  it('input.value / output.value when there are no OpenInference messages', () => {
    const [r] = rows(
      llmSpan('sp-1', {
        'llm.input_messages.0.message.role': undefined,
        'llm.input_messages.0.message.content': undefined,
        'llm.output_messages.0.message.role': undefined,
        'llm.output_messages.0.message.content': undefined,
        'input.value': JSON.stringify({ messages: [{ role: 'user', content: 'Hola' }] }),
        'output.value': JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'Hi' } }] }),
      }),
    );
    assert.deepEqual([r.messages.map((m) => m.content), r.response?.content], [['Hola'], 'Hi']);
  });

  it('an error status in any of its spellings; the message from status_message, status.message, the exception, or a default', () => {
    const st = (over: Record<string, unknown>) => {
      const [r] = rows(llmSpan('e', {}, { status_code: undefined, status_message: undefined, ...over }));
      return [r.status, r.error, r.finish_reason];
    };
    assert.deepEqual(st({ status_code: 'error', status_message: 'boom' }), ['error', 'boom', 'error']);
    assert.deepEqual(st({ status_code: 2 }), ['error', 'span status ERROR', 'error']);
    assert.deepEqual(st({ status: { status_code: 'STATUS_CODE_ERROR', message: 'bad gateway' } }), ['error', 'bad gateway', 'error']);
    assert.deepEqual(st({ status: { code: 'ERROR' } }), ['error', 'span status ERROR', 'error']);
    assert.deepEqual(st({ status: { code: 'OK', message: 'fine' } }), ['ok', null, 'stop']);
    assert.deepEqual(st({ status_code: 'UNSET' }), ['ok', null, 'stop']);
    assert.deepEqual(st({ status_code: 'ERROR', events: [{ name: 'log', attributes: { 'exception.message': 'not this' } }] }), ['error', 'span status ERROR', 'error']);
    assert.deepEqual(st({ status_code: 'ERROR', events: 'none' }), ['error', 'span status ERROR', 'error']);
    assert.deepEqual(st({ status_code: 'ERROR', events: [null, { name: 'exception', attributes: { message: 'bare' } }] }), ['error', 'bare', 'error']);
  });

  it('expandAttributes: nested objects merge with flat keys of the same prefix; scalar arrays stay arrays', () => {
    assert.deepEqual(expandAttributes({ 'a.b': 1, a: { c: 2 }, 'a.d.e': 3, list: [1, 2] }), { a: { b: 1, c: 2, d: { e: 3 } }, list: [1, 2] });
    assert.deepEqual(expandAttributes({ a: { c: 2 }, 'a.b': 1 }), { a: { c: 2, b: 1 } });
    assert.deepEqual(expandAttributes({ 'x.y': 1, x: 'flat' }), { x: 'flat' });
    assert.deepEqual(expandAttributes({ nested: [[1]] }), { nested: { 0: [1] } });
    assert.deepEqual(expandAttributes('x'), {});
  });
});

describe('phoenix: more shapes', () => {
  it('eleven messages stay in index order (10 after 9)', () => {
    const attrs: Record<string, unknown> = {};
    for (let k = 10; k >= 0; k--) {
      attrs[`llm.input_messages.${k}.message.role`] = k % 2 ? 'assistant' : 'user';
      attrs[`llm.input_messages.${k}.message.content`] = `m${k}`;
    }
    const [r] = rows(llmSpan('sp-1', attrs));
    assert.deepEqual(r.messages.map((m) => m.content), ['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8', 'm9', 'm10']);
  });

  it('an input message without a role is the user\'s', () => {
    const [r] = rows(llmSpan('sp-1', { 'llm.input_messages.0.message.role': undefined }));
    assert.deepEqual(r.messages.map((m) => [m.role, m.content]), [['user', 'Top region?']]);
  });

  it('Anthropic-shaped tools in llm.tools: converted for tools, the original kept in metadata; plain schemas without a tool wrapper', () => {
    const anthropicTool = { name: 'run_sql', description: 'Run SQL', input_schema: { type: 'object' } };
    const [r] = rows(llmSpan('sp-1', { 'llm.tools.0.tool.json_schema': JSON.stringify(anthropicTool) }));
    assert.equal(JSON.parse(r.tools ?? 'null')[0].function.name, 'run_sql');
    assert.deepEqual(JSON.parse(r.metadata?.tools_original ?? 'null'), [anthropicTool]);
    const [q] = rows(llmSpan('sp-2', { llm: { tools: [anthropicTool] } }));
    assert.deepEqual(JSON.parse(q.metadata?.tools_original ?? 'null'), [anthropicTool]);
    assert.equal(JSON.parse(q.tools ?? 'null')[0].function.name, 'run_sql');
  });

  it('other openinference attributes beside no span kind; a null entry in a list of spans is skipped', () => {
    assert.equal(rows(llmSpan('sp-1', { 'openinference.span.kind': undefined, 'openinference.version': '1' }, { span_kind: 'LLM' })).length, 1);
    assert.equal(rows({ spans: [null, llmSpan('sp-2')] }).length, 1);
  });

  it('a text part without text is empty text', () => {
    const [r] = rows(llmSpan('sp-1', { 'llm.input_messages.0.message.content': undefined, 'llm.input_messages.0.message.contents.0.message_content.type': 'text' }));
    assert.equal(r.messages[0].content, '');
  });
});
