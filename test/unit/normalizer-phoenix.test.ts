import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { langfuse } from '../../src/ingest/normalizers/langfuse';
import { otel } from '../../src/ingest/normalizers/otel';
import { phoenix } from '../../src/ingest/normalizers/phoenix';
import { records, run, sample } from './format-helpers';

describe('phoenix normalizer', () => {
  it('detects OpenInference spans, flat and nested', () => {
    assert.ok(phoenix.detect(sample('phoenix-spans.jsonl')) > 0.9);
    assert.ok(phoenix.detect(sample('phoenix-nested.json')) > 0.9);
    assert.equal(phoenix.detect(sample('otlp-genai.json')), 0);
    assert.equal(phoenix.detect(sample('langfuse-observations.jsonl')), 0);
    assert.equal(otel.detect(sample('phoenix-spans.jsonl')), 0);
    assert.equal(langfuse.detect(sample('phoenix-spans.jsonl')), 0);
  });

  it('orders LLM spans of a trace by start time even when the export is newest first', () => {
    const rows = run(phoenix, records('phoenix-spans.jsonl'));
    assert.equal(rows.length, 3, 'CHAIN and TOOL spans are not steps');
    const t = rows.filter((r) => r.trajectory_uid === '6c3fa8e0b1d24a11b1f0c0ffee000001');
    assert.deepEqual(t.map((r) => [r.step_id, r.metadata?.span_id]), [
      ['6c3fa8e0b1d24a11b1f0c0ffee000001:0', 'sp-llm-1'],
      ['6c3fa8e0b1d24a11b1f0c0ffee000001:1', 'sp-llm-2'],
    ]);
    assert.equal(t[0].source_line, 4);
    assert.equal(t[0].is_last, false);
  });

  it('rebuilds messages, multi-part content and tool calls from flat dotted attributes', () => {
    const [s0, s1] = run(phoenix, records('phoenix-spans.jsonl')).filter((r) => r.trajectory_uid === '6c3fa8e0b1d24a11b1f0c0ffee000001');
    assert.equal(s0.messages[1].content, 'Top 3 regions by revenue in Q3?\n[image]');
    assert.ok(s0.messages[1].parts?.includes('image_url'));
    assert.equal(s0.response?.tool_calls?.[0].id, 'call_sql1');
    assert.equal(s0.response?.tool_calls?.[0].function.name, 'run_sql');
    assert.equal(s0.finish_reason, 'tool_calls');
    assert.equal(s0.prompt_tokens, 412);
    assert.equal(s0.completion_tokens, 38);
    assert.equal(s0.model, 'gpt-4o-mini');
    assert.equal(s0.provider, 'openai');
    assert.ok(s0.tools?.includes('run_sql'));
    assert.equal(s0.metadata?.session_id, 'chat-991');
    assert.equal(s0.metadata?.tags, '["sql","beta"]');
    assert.equal(s0.latency_ms, 1250);
    assert.deepEqual(s1.messages.map((m) => m.role), ['system', 'user', 'assistant', 'tool']);
    assert.equal(s1.messages[3].tool_call_id, 'call_sql1');
    assert.equal(s1.response?.content, 'EMEA, APAC, then NA.');
  });

  it('falls back to input.value for messages and reports error spans', () => {
    const e = run(phoenix, records('phoenix-spans.jsonl')).find((r) => r.trajectory_uid === '6c3fa8e0b1d24a11b1f0c0ffee000002');
    assert.equal(e?.status, 'error');
    assert.equal(e?.error, 'APITimeoutError: Request timed out.');
    assert.deepEqual(e?.messages.map((m) => [m.role, m.content]), [['system', 'Translate to German.'], ['user', 'Good morning']]);
    assert.ok(!e?.raw?.includes('LEAKED'), 'api_key inside invocation parameters is redacted');
    assert.ok(!e?.metadata?.invocation_parameters?.includes('LEAKED'));
  });

  it('reads the nested attributes shape', () => {
    const rows = run(phoenix, records('phoenix-nested.json'));
    assert.equal(rows.length, 1);
    assert.equal(rows[0].trajectory_uid, 'nested-trace-1');
    assert.deepEqual(rows[0].messages.map((m) => m.content), ['Answer in one word.', 'Capital of Peru?']);
    assert.equal(rows[0].response?.content, 'Lima');
    assert.equal(rows[0].prompt_tokens, 17);
    assert.equal(rows[0].metadata?.session_id, 'web-3');
  });
});
