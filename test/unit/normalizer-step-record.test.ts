import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stepRecord } from '../../src/ingest/normalizers/step-record';
import type { StepRecord } from '../../src/contract/step';
import { ctx, fixtureRecords, runNormalizer } from './helpers/formats';

const REDERIVED = new Set(['source', 'source_id', 'import_id', 'source_trajectory_id']);

function comparable(r: StepRecord): Record<string, unknown> {
  return Object.fromEntries(Object.entries(r).filter(([k]) => !REDERIVED.has(k)));
}

describe('step-record normalizer', () => {
  it('round-trips an exported JSONL exactly (ids, is_last, tokens, raw)', () => {
    const recs = fixtureRecords('step-records.jsonl');
    const rows = runNormalizer(stepRecord, recs);
    assert.equal(rows.length, recs.length);
    rows.forEach((r, i) => {
      const original = recs[i].value as StepRecord;
      assert.deepEqual(comparable(r), comparable(original), `row ${i}`);
      assert.equal(r.source_id, ctx.sourceId);
      // an export from before source_trajectory_id: the trajectory id is the source's own
      assert.equal(r.source_trajectory_id, original.source_trajectory_id ?? original.trajectory_uid);
    });
    const kept = runNormalizer(stepRecord, [{ ...recs[0], value: { ...(recs[0].value as object), trajectory_uid: 'run@0123456789ab', source_trajectory_id: 'run' } }]);
    assert.equal(kept[0].source_trajectory_id, 'run', 'a trajectory kept apart keeps its own id through export and re-import');
    assert.deepEqual(
      rows.map((r) => [r.step_id, r.is_last]),
      [
        ['0123456789ab-0:0', false],
        ['0123456789ab-0:1', false],
        ['0123456789ab-0:2', true],
        ['0123456789ab-3:0', true],
      ],
    );
    assert.deepEqual(rows[0].prompt_ids, [101, 2023, 2003]);
    assert.equal(rows[2].reward, 1);
  });

  it('reads Parquet-decoded rows: map as entries, ISO timestamps, typed arrays', () => {
    const base = fixtureRecords('step-records.jsonl')[0].value as StepRecord;
    const row = {
      ...base,
      metadata: [
        { key: 'input_tokens', value: '12' },
        { key: 'thinking', value: '{"type":"enabled"}' },
      ],
      started_at: '2026-12-02 09:00:00',
      prompt_ids: Int32Array.from([1, 2, 3]),
      messages: base.messages.map((m) => ({ role: m.role, content: m.content, reasoning: null, name: null, tool_call_id: null, tool_calls: null, parts: m.parts ?? null })),
    };
    const [r] = runNormalizer(stepRecord, [{ value: row, line: 1, index: 0 }]);
    assert.deepEqual(r.metadata, { input_tokens: '12', thinking: '{"type":"enabled"}' });
    assert.equal(r.started_at, Date.parse('2026-12-02T09:00:00Z'));
    assert.deepEqual(r.prompt_ids, [1, 2, 3]);
    assert.equal(r.messages[0].reasoning, null);
    assert.equal(r.step_id, base.step_id);
    assert.equal(r.trajectory_uid, base.trajectory_uid);
  });

  it('detects step records above plain chat rows', () => {
    assert.ok(stepRecord.detect(fixtureRecords('step-records.jsonl').map((r) => r.value)) > 0.95);
    assert.equal(stepRecord.detect([{ messages: [{ role: 'user', content: 'x' }] }]), 0);
  });
});
