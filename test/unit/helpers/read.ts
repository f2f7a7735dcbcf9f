/**
 * Every fixture of test/fixtures/formats as the importer's real reader (readRecords) hands it over:
 * read once, at module load (top-level await), so the helpers that serve them stay synchronous.
 * Lines the reader rejects are kept too, for tests of what a normalizer does with them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { SourceRecord } from '../../../src/ingest/normalizer';
import { readRecords } from '../../../src/ingest/reader';

const DIR = new URL('../../fixtures/formats/', import.meta.url);

export interface ReadFixture {
  records: SourceRecord[];
  rejects: { line: number; reason: string }[];
}

async function readOne(bytes: Uint8Array): Promise<ReadFixture> {
  const out: ReadFixture = { records: [], rejects: [] };
  for await (const ev of readRecords(new Blob([bytes as Uint8Array<ArrayBuffer>]).stream())) {
    if (ev.kind === 'record') out.records.push(ev.record);
    else if (ev.kind === 'reject') out.rejects.push({ line: ev.line, reason: ev.reason });
  }
  return out;
}

const read = new Map<string, ReadFixture>();
for (const name of readdirSync(DIR)) {
  try {
    read.set(name, await readOne(readFileSync(new URL(name, DIR))));
  } catch {
    // a file the reader refuses (binary): a test that asks for it gets the error from readFixture
  }
}

/** A fixture of test/fixtures/formats read by readRecords. */
export function readFixture(name: string): ReadFixture {
  const r = read.get(name);
  if (!r) throw new Error(`fixture ${name}: missing, or the reader refused it`);
  return r;
}
