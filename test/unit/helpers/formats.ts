import { readFileSync } from 'node:fs';
import { createFinalizeState, finalize } from '../../../src/ingest/finalize';
import type { Normalizer, SourceRecord } from '../../../src/ingest/normalizer';
import { parseSseText, sseData } from '../../../src/ingest/sse';
import type { StepRecord } from '../../../src/ingest/step';

export const ctx = { sourceId: '0123456789abcdef0123456789abcdef', file: 'fixture' };

/** A fixture as the reader hands it over: JSONL lines (unparseable ones as text), JSON array elements or document, SSE events. */
export function fixtureRecords(name: string): SourceRecord[] {
  const text = readFileSync(new URL(`../../fixtures/formats/${name}`, import.meta.url), 'utf8');
  if (name.endsWith('.sse')) return parseSseText(text).map((e, index) => ({ value: sseData(e), line: index + 1, index }));
  if (name.endsWith('.json')) {
    const doc: unknown = JSON.parse(text);
    const values = Array.isArray(doc) ? doc : [doc];
    return values.map((value, index) => ({ value, line: 1, index }));
  }
  const out: SourceRecord[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = line;
    }
    out.push({ value, line: i + 1, index: out.length });
  });
  return out;
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
