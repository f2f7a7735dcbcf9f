import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StepRecord } from '../../src/contract/step';
import { langfuse } from '../../src/ingest/normalizers/langfuse';
import { langfuseBlob } from '../../src/ingest/normalizers/langfuse-blob';
import { otel } from '../../src/ingest/normalizers/otel';
import { phoenix } from '../../src/ingest/normalizers/phoenix';
import { buildTimeline, type TimelineStepInput } from '../../src/views/inspector/timeline';
import { PARENT_KEYS, SPAN_KEYS } from '../../src/views/inspector/queries';
import { records, run } from './format-helpers';

/** What stepTimings (views/inspector/queries.ts) reads from a step record (the same keys, in the same order). */
function input(s: StepRecord): TimelineStepInput {
  const m = (s.metadata ?? {}) as Record<string, string>;
  const pick = (keys: readonly string[]) => keys.map((k) => m[k]).find((v) => v !== undefined) ?? null;
  return {
    step_index: s.step_index, started_ms: s.started_at ? Date.parse(String(s.started_at)) : null, ended_ms: s.ended_at ? Date.parse(String(s.ended_at)) : null,
    latency_ms: s.latency_ms ?? null, span_id: pick(SPAN_KEYS), parent_id: pick(PARENT_KEYS), span_name: m.span_name ?? null, model: s.model ?? null,
    prompt_tokens: s.prompt_tokens ?? null, completion_tokens: s.completion_tokens ?? null, status: s.status ?? null, tool_calls: s.response?.tool_calls ?? [],
  };
}

const step = (i: number, extra: Partial<TimelineStepInput> = {}): TimelineStepInput => ({
  step_index: i, started_ms: null, ended_ms: null, latency_ms: null, span_id: null, parent_id: null, span_name: null, model: null,
  prompt_tokens: null, completion_tokens: null, status: 'ok', tool_calls: [], ...extra,
});

describe('inspector timeline', () => {
  it('finds the parent span of steps from OTel, Phoenix and Langfuse exports (the metadata keys the normalizers write)', () => {
    const cases: [string, StepRecord[]][] = [
      ['phoenix', run(phoenix, records('phoenix-spans.jsonl'))],
      ['otel', run(otel, records('otlp-genai.json'))],
      ['langfuse', run(langfuse, records('langfuse-trace.json'))],
      ['langfuse-blob', run(langfuseBlob, records('langfuse-blob-observations.jsonl'))],
    ];
    for (const [name, steps] of cases) {
      assert.ok(steps.length, name);
      const inputs = steps.map(input);
      assert.ok(inputs.some((s) => s.parent_id !== null), `${name}: some step has a parent span`);
      assert.ok(inputs.every((s) => s.span_id !== null), `${name}: every step has its own span id`);
      const uids = [...new Set(steps.map((s) => s.trajectory_uid))];
      for (const group of uids.map((u) => steps.filter((s) => s.trajectory_uid === u))) {
        const t = buildTimeline(group.map(input));
        assert.equal(t.rows.filter((r) => r.kind === 'step').length, group.length, `${name}: every step once`);
        if (group.some((s) => input(s).parent_id)) assert.ok(t.spans);
      }
    }
  });

  it('nests a step under the step whose span is its parent, groups steps under a parent span that is not a step, tool calls as children', () => {
    const call = { id: 'call_AbC', type: 'function' as const, function: { name: 'get_Weather', arguments: '{}' } };
    const t = buildTimeline([
      step(0, { span_id: 'a', parent_id: 'agent-1', started_ms: 1000, latency_ms: 500, tool_calls: [call] }),
      step(1, { span_id: 'b', parent_id: 'a', started_ms: 1600, latency_ms: 200 }),
      step(2, { span_id: 'c', parent_id: 'agent-1', started_ms: 2000, latency_ms: 1000 }),
      step(3, { span_id: 'd', started_ms: 3500, latency_ms: 100 }),
    ]);
    assert.deepEqual(t.rows.map((r) => `${r.depth}:${r.kind}:${r.kind === 'span' ? r.span_id : r.kind === 'tool' ? r.label : r.step}`), [
      '0:span:agent-1', '1:step:0', '2:tool:get_Weather', '2:step:1', '1:step:2', '0:step:3',
    ]);
    const s1 = t.rows.find((r) => r.kind === 'step' && r.step === 1);
    assert.equal(s1?.kind === 'step' && s1.start, 600);
    assert.equal(t.total, 2600);
    assert.equal(t.estimated, false);
  });

  it('without start times lays steps end to end by latency and says so; tokens and cost add up; a parent cycle shows each step once', () => {
    const t = buildTimeline([
      step(0, { latency_ms: 300, model: 'gpt-4o-mini', prompt_tokens: 1000, completion_tokens: 100 }),
      step(1, { latency_ms: 700, model: 'llama-3.1-8b', prompt_tokens: 10, completion_tokens: null }),
      step(2, { latency_ms: null, model: 'gpt-4o-mini', prompt_tokens: null, completion_tokens: null }),
    ]);
    assert.equal(t.estimated, true);
    assert.deepEqual(t.rows.map((r) => (r.kind === 'step' ? r.start : null)), [0, 300, null]);
    assert.equal(t.total, 1000);
    assert.deepEqual(t.tokens, { prompt: 1010, completion: 100 });
    assert.ok(Math.abs((t.cost ?? 0) - (1000 * 0.15 + 100 * 0.6) / 1e6) < 1e-15);
    assert.equal(t.unpriced, 1);
    const cyc = buildTimeline([step(0, { span_id: 'a', parent_id: 'b' }), step(1, { span_id: 'b', parent_id: 'a' })]);
    assert.deepEqual(cyc.rows.map((r) => (r.kind === 'step' ? r.step : -1)).sort(), [0, 1]);
    const none = buildTimeline([step(0)]);
    assert.equal(none.total, null);
    assert.equal(none.cost, null);
  });

  it('200,000 steps under one span, and a chain of 200,000 each the parent of the next, are laid out in order (Math.min(...xs) and recursion overflowed the stack; copied child lists made it quadratic)', () => {
    const flat = buildTimeline(Array.from({ length: 200_000 }, (_, i) => step(i, { started_ms: 1_000 + i, ended_ms: 1_002 + i, span_id: `s${i}`, parent_id: 'root' })));
    assert.equal(flat.total, 200_001);
    assert.equal(flat.rows.filter((r) => r.kind === 'step').length, 200_000);
    const chain = buildTimeline(Array.from({ length: 200_000 }, (_, i) => step(i, { latency_ms: 1, span_id: `s${i}`, parent_id: i ? `s${i - 1}` : null })));
    const rows = chain.rows.filter((r) => r.kind === 'step');
    assert.equal(rows.length, 200_000);
    assert.deepEqual([rows[0]?.depth, rows[1]?.depth, rows.at(-1)?.depth], [0, 1, 199_999]);
  });
});
