import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { langfuse } from '../../src/ingest/normalizers/langfuse';
import { otel } from '../../src/ingest/normalizers/otel';
import { records, run, sample } from './format-helpers';

describe('langfuse normalizer', () => {
  it('detects trace exports and observation dumps', () => {
    assert.ok(langfuse.detect(sample('langfuse-trace.json')) > 0.9);
    assert.ok(langfuse.detect(sample('langfuse-observations.jsonl')) > 0.9);
    assert.equal(langfuse.detect(sample('otlp-genai.json')), 0);
    assert.equal(otel.detect(sample('langfuse-trace.json')), 0);
  });

  it('makes GENERATION observations steps of the trace, in time order', () => {
    const rows = run(langfuse, records('langfuse-trace.json'));
    assert.equal(rows.length, 2, 'SPAN and TOOL observations are not steps');
    assert.deepEqual(rows.map((r) => r.step_id), ['tr-7f3a2c:0', 'tr-7f3a2c:1']);
    assert.equal(rows[0].response?.tool_calls?.[0].function.name, 'calculator');
    assert.equal(rows[0].prompt_tokens, 98);
    assert.equal(rows[0].is_last, false);
    assert.equal(rows[1].is_last, null);
    assert.equal(rows[0].prompt_uid, rows[1].prompt_uid);
  });

  it('unwraps input nested as JSON strings several levels deep', () => {
    const s = run(langfuse, records('langfuse-trace.json'))[1];
    assert.deepEqual(s.messages.map((m) => m.role), ['system', 'user', 'assistant', 'tool']);
    assert.equal(s.messages[3].tool_call_id, 'call_c1');
    assert.ok(s.tools?.includes('calculator'));
    assert.equal(s.response?.content, '17.5% of 2,340 is **409.5**.');
    assert.equal(s.completion_tokens, 14);
    assert.equal(s.ttft_ms, 300);
    assert.equal(s.latency_ms, 800);
  });

  it('puts the numeric trace score on the last step; session and tags in metadata', () => {
    const rows = run(langfuse, records('langfuse-trace.json'));
    assert.equal(rows[0].reward, null);
    assert.equal(rows[1].reward, 1);
    assert.equal(rows[1].metadata?.session_id, 'sess-aa1');
    assert.equal(rows[1].metadata?.tags, '["gsm-style","prod"]');
    assert.equal(rows[1].metadata?.promptName, 'mathbot-system');
    assert.equal(rows[1].agent, 'mathbot');
    assert.equal(rows[1].data_source, 'gsm8k-mini');
  });

  it('groups separate observation and score records by trace at the end of the file', () => {
    const rows = run(langfuse, records('langfuse-observations.jsonl'));
    assert.equal(rows.length, 3);
    const b = rows.filter((r) => r.trajectory_uid === 'tr-b');
    assert.deepEqual(b.map((r) => r.step_index), [0, 1]);
    assert.equal(b[0].messages[0].content, 'You are a shell agent.');
    assert.equal(b[0].response?.tool_calls?.[0].function.arguments, '{"cmd":"ls"}');
    assert.deepEqual(b[1].messages.map((m) => m.role), ['system', 'user', 'assistant', 'tool']);
    assert.equal(b[1].response?.content, 'README.md and src.');
    assert.equal(b[1].reward, 0.5);
    assert.equal(b[1].source_line, 3);
    assert.ok(b[1].raw?.includes('o-b2'), 'flushed steps keep their own raw');
    const a = rows.find((r) => r.trajectory_uid === 'tr-a');
    assert.equal(a?.status, 'error');
    assert.match(a?.error ?? '', /context_length_exceeded/);
    assert.equal(a?.response, null);
  });
});
