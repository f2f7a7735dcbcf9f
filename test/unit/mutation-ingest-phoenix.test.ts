// Tests written from the survivors of a Stryker run over src/ingest/normalizers/phoenix.ts (docs/mutation/traces.md):
// OpenInference spans in the shapes Phoenix exports (flat dotted attributes, nested attributes, span events).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StepRecord } from '../../src/contract/step';
import { expandAttributes, phoenix } from '../../src/ingest/normalizers/phoenix';
import { runNormalizer } from './helpers/formats';

/** An LLM span as Phoenix's span export writes it (flat dotted attributes); `attrs` and `over` replace or add keys. */
function llmSpan(spanId: string, attrs: Record<string, unknown> = {}, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
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
    },
    ...over,
  };
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
