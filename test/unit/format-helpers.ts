/** Fixture helpers of the format tests: the names they use, over helpers/formats.ts (the real reader, one run of a normalizer). */
import { readFileSync } from 'node:fs';
import type { SourceRecord } from '../../src/ingest/normalizer';
import { fixtureRecords, runNormalizer } from './helpers/formats';

export { ctx } from './helpers/formats';

export function fixture(name: string): string {
  return readFileSync(new URL(`../fixtures/formats/${name}`, import.meta.url), 'utf8');
}

/** A fixture as the importer's reader (readRecords) hands it over: one record a JSONL line, array element, SSE event or document. */
export const records: (name: string) => SourceRecord[] = fixtureRecords;

/** Run a normalizer over records (state, flush) and finalize the drafts into step records. */
export const run = runNormalizer;

export function sample(name: string): unknown[] {
  return records(name).slice(0, 20).map((r) => r.value);
}
