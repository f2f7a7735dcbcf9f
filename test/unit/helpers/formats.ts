import { createFinalizeState, finalize } from '../../../src/ingest/finalize';
import type { Normalizer, SourceRecord } from '../../../src/ingest/normalizer';
import type { StepRecord } from '../../../src/contract/step';
import assert from 'node:assert/strict';
import { readFixture } from './read';

export const ctx = { sourceId: '0123456789abcdef0123456789abcdef', file: 'fixture' };

/** A fixture as the importer's reader (readRecords) hands it over: JSONL lines, JSON array elements or document, SSE events. */
export function fixtureRecords(name: string): SourceRecord[] {
  return readFixture(name).records;
}

/** Run a normalizer over records the way the importer does: normalize each, flush at the end, finalize everything. */
export function runNormalizer<S>(n: Normalizer<S>, records: readonly SourceRecord[]): StepRecord[] {
  const state = n.createState ? n.createState(ctx) : (undefined as S);
  const fin = createFinalizeState();
  const opts = { format: n.id, importId: 1 };
  const out: StepRecord[] = [];
  for (const r of records) out.push(...finalize(n.normalize(r, ctx, state), r, ctx, fin, opts));
  if (n.flush) {
    const end: SourceRecord = { value: null, line: (records.at(-1)?.line ?? 0) + 1, index: records.length };
    out.push(...finalize(n.flush(ctx, state), end, ctx, fin, opts));
  }
  return out;
}

export function runFixture<S>(n: Normalizer<S>, name: string): StepRecord[] {
  return runNormalizer(n, fixtureRecords(name));
}

/** One value through a normalizer as a single source record (normalize, then flush); it must make exactly one step. */
export function runOne<S>(n: Normalizer<S>, value: unknown): StepRecord {
  const state = n.createState?.(ctx) as S;
  const rec: SourceRecord = { value, line: 1, index: 0 };
  const out = [...finalize(n.normalize(rec, ctx, state), rec, ctx, createFinalizeState(), { format: n.id, importId: 1 })];
  if (n.flush) out.push(...finalize(n.flush(ctx, state), rec, ctx, createFinalizeState(), { format: n.id, importId: 1 }));
  assert.equal(out.length, 1, `${n.id} makes one step`);
  return out[0];
}
