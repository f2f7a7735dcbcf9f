/**
 * A fixture file through the real reader (readRecords), content detection over the first 20 records
 * (as pipeline.ts samples), the detected normalizer with its state and flush, and finalize: every
 * stage of an import except the pool. Use it for format tests so the reader's splitting is the real one.
 */
import { readFileSync } from 'node:fs';
import { detectFormat } from '../../../src/ingest/detect';
import { createFinalizeState, finalize } from '../../../src/ingest/finalize';
import type { SourceRecord } from '../../../src/ingest/normalizer';
import { readRecords } from '../../../src/ingest/reader';
import type { StepRecord } from '../../../src/contract/step';

export interface RealImport {
  format: string;
  confidence: number;
  steps: StepRecord[];
  rejected: { line: number; reason: string }[];
  warnings: string[];
}

export function fixtureBytes(name: string): Uint8Array {
  return readFileSync(new URL(`../../fixtures/formats/${name}`, import.meta.url));
}

export async function importBytes(bytes: Uint8Array, file = 'fixture', sourceId = '0123456789abcdef0123456789abcdef'): Promise<RealImport> {
  const ctx = { sourceId, file };
  const records: SourceRecord[] = [];
  const rejected: RealImport['rejected'] = [];
  const warnings: string[] = [];
  for await (const ev of readRecords(new Blob([bytes as BlobPart]).stream())) {
    if (ev.kind === 'record') records.push(ev.record);
    else if (ev.kind === 'reject') rejected.push({ line: ev.line, reason: ev.reason });
    else warnings.push(ev.message);
  }
  const d = detectFormat(records.slice(0, 20).map((r) => r.value));
  const n = d.normalizer;
  const state = n.createState?.(ctx);
  const fin = createFinalizeState();
  const opts = { format: n.id, importId: 1 };
  const steps: StepRecord[] = [];
  for (const r of records) {
    try {
      steps.push(...finalize(n.normalize(r, ctx, state), r, ctx, fin, opts));
    } catch (e) {
      rejected.push({ line: r.line, reason: e instanceof Error ? e.message : String(e) });
    }
  }
  if (n.flush) steps.push(...finalize(n.flush(ctx, state), { value: null, line: 0, index: records.length }, ctx, fin, opts));
  return { format: n.id, confidence: d.confidence, steps, rejected, warnings };
}

export function importFixture(name: string): Promise<RealImport> {
  return importBytes(fixtureBytes(name), name);
}
