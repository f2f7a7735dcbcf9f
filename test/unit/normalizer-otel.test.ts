import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { har } from '../../src/ingest/normalizers/har';
import { otel } from '../../src/ingest/normalizers/otel';
import { records, run, sample } from './format-helpers';

describe('otel normalizer', () => {
  it('detects OTLP JSON by resourceSpans', () => {
    assert.ok(otel.detect(sample('otlp-genai.json')) > 0.9);
    assert.ok(otel.detect(sample('otlp-genai-batches.jsonl')) > 0.9);
    assert.equal(otel.detect(sample('devtools-export.har')), 0);
    assert.equal(har.detect(sample('otlp-genai.json')), 0);
  });

  it('makes one step per LLM span, grouped by trace and ordered by start time', () => {
    const rows = run(otel, records('otlp-genai.json'));
    assert.equal(rows.length, 4, 'invoke_agent and execute_tool spans are not LLM calls');
    const t1 = rows.filter((r) => r.trajectory_uid === '5b8efff798038103d269b633813fc60c');
    assert.deepEqual(t1.map((r) => [r.step_index, r.metadata?.span_id]), [[0, 'c1c1c1c1c1c1c1c1'], [1, 'c2c2c2c2c2c2c2c2']]);
    assert.equal(t1[0].step_id, '5b8efff798038103d269b633813fc60c:0');
    assert.equal(t1[0].is_last, false);
    assert.equal(t1[1].is_last, null);
    assert.equal(t1[0].prompt_uid, t1[1].prompt_uid);
  });

  it('reads prompt and completion from span events', () => {
    const [s0, s1] = run(otel, records('otlp-genai.json'));
    assert.deepEqual(s0.messages.map((m) => m.role), ['system', 'user']);
    assert.deepEqual(s0.response?.tool_calls?.[0], { id: 'call_tr1', type: 'function', function: { name: 'search_trains', arguments: '{"from":"Bern","to":"Milan","day":"Fri"}' } });
    assert.equal(s0.finish_reason, 'tool_calls');
    assert.equal(s0.prompt_tokens, 150);
    assert.equal(s0.model, 'gpt-4.1-mini-2025-04-14');
    assert.equal(s0.provider, 'openai');
    assert.equal(s0.agent, 'trip-planner');
    assert.equal(Math.floor(s0.started_at ?? 0), 1764666000010);
    assert.equal(Math.round(s0.latency_ms ?? 0), 1800);
    assert.deepEqual(s1.messages.map((m) => m.role), ['system', 'user', 'assistant', 'tool']);
    assert.equal(s1.messages[3].tool_call_id, 'call_tr1');
    assert.equal(s1.messages[2].tool_calls?.[0].function.name, 'search_trains');
    assert.equal(s1.response?.content, 'The 07:34 EC arrives in Milan at 10:50 (CHF 89).');
    assert.equal(s1.metadata?.['gen_ai.request.temperature'], '0.2');
  });

  it('reads the older gen_ai.prompt.N attributes and error status', () => {
    const rows = run(otel, records('otlp-genai.json')).filter((r) => r.trajectory_uid === '0af7651916cd43dd8448eb211c80319c');
    assert.equal(rows.length, 2);
    assert.equal(rows[0].status, 'error');
    assert.match(rows[0].error ?? '', /429/);
    assert.equal(rows[0].response, null);
    assert.ok(rows[0].tools?.includes('lookup_invoice'));
    assert.equal(rows[1].status, 'ok');
    assert.equal(rows[1].response?.tool_calls?.[0].function.arguments, '{"id":"INV-2231"}');
    assert.equal(rows[1].response?.tool_calls?.[0].id, 'toolu_9');
    assert.equal(rows[1].prompt_tokens, 88);
    assert.equal(rows[1].messages[1].content, 'Why was I charged twice?');
    assert.ok(!rows[0].raw?.includes('SECRETSECRET'), 'header attributes are redacted in raw');
  });

  it('reads gen_ai.input.messages / output.messages JSON attributes', () => {
    const rows = run(otel, records('otlp-genai-batches.jsonl'));
    assert.equal(rows.length, 1, 'embeddings spans are skipped');
    const s = rows[0];
    assert.deepEqual(s.messages.map((m) => [m.role, m.content]), [['system', 'Be brief.'], ['user', 'Weather in Oslo?'], ['assistant', null], ['tool', '-3C, snow']]);
    assert.equal(s.messages[2].tool_calls?.[0].function.arguments, '{"city":"Oslo"}');
    assert.equal(s.messages[3].tool_call_id, 'w1');
    assert.equal(s.response?.content, 'Snowing, -3°C.');
    assert.equal(s.response?.reasoning, 'Report it.');
    assert.equal(s.finish_reason, 'stop');
    assert.equal(s.provider, 'gcp.gemini');
    assert.ok(s.tools?.includes('weather'));
  });
});
