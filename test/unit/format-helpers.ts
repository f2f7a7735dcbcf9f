import { readFileSync } from 'node:fs';
import { createFinalizeState, finalize } from '../../src/ingest/finalize';
import type { Normalizer, SourceRecord } from '../../src/ingest/normalizer';
import type { StepRecord } from '../../src/ingest/step';

export const ctx = { sourceId: '0123456789abcdef0123456789abcdef', file: 'fixture' };

export function fixture(name: string): string {
  return readFileSync(new URL(`../fixtures/formats/${name}`, import.meta.url), 'utf8');
}

/** A fixture as the reader would hand it over: JSONL → one record a line, anything else → one record. */
export function records(name: string): SourceRecord[] {
  const text = fixture(name);
  if (/\.jsonl$/.test(name)) {
    const out: SourceRecord[] = [];
    text.split('\n').forEach((l, i) => {
      if (l.trim()) out.push({ value: JSON.parse(l), line: i + 1, index: out.length });
    });
    return out;
  }
  const v = JSON.parse(text);
  // The reader splits a top-level JSON array into one record per element.
  if (Array.isArray(v)) return v.map((value, index) => ({ value, line: index + 2, index }));
  return [{ value: v, line: 1, index: 0 }];
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
