import { readFileSync } from 'node:fs';
import { createFinalizeState, finalize } from '../../src/ingest/finalize';
import type { Normalizer, SourceRecord } from '../../src/ingest/normalizer';
import type { StepRecord } from '../../src/contract/step';
import { readFixture } from './helpers/read';

export const ctx = { sourceId: '0123456789abcdef0123456789abcdef', file: 'fixture' };

export function fixture(name: string): string {
  return readFileSync(new URL(`../fixtures/formats/${name}`, import.meta.url), 'utf8');
}

/** A fixture as the importer's reader (readRecords) hands it over: one record a JSONL line, array element, SSE event or document. */
export function records(name: string): SourceRecord[] {
  return readFixture(name).records;
}

/** Run a normalizer over records (state, flush) and finalize the drafts into step records. */
export function run<S>(n: Normalizer<S>, recs: readonly SourceRecord[]): StepRecord[] {
  const st = createFinalizeState();
  const state = n.createState?.(ctx) as S;
  const out: StepRecord[] = [];
  for (const r of recs) out.push(...finalize(n.normalize(r, ctx, state), r, ctx, st, { format: n.id, importId: 1 }));
  const last = { value: null, line: 0, index: recs.length };
  if (n.flush) out.push(...finalize(n.flush(ctx, state), last, ctx, st, { format: n.id, importId: 1, keepRaw: false }));
  return out;
}

export function sample(name: string): unknown[] {
  return records(name).slice(0, 20).map((r) => r.value);
}
