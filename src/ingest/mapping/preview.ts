/**
 * Live preview of a mapping on the first records of a sample file, in the page: the importer's
 * reader, the compiled mapping and finalize, bounded to a few records.
 */
import type { RejectedLine } from '../../contract/reports';
import { detectFormat } from '../detect';
import { createFinalizeState, finalize } from '../finalize';
import type { Normalizer, SourceRecord } from '../normalizer';
import { NORMALIZERS } from '../normalizers';
import { readRecords } from '../reader';
import type { StepRecord } from '../../contract/step';
import { compileMapping } from './compile';
import { parseMapping } from './store';

export const PREVIEW_RECORDS = 20;
/** A single record larger than this is not parsed on the main thread. */
const PREVIEW_MAX_CHARS = 32 << 20;

export interface SampleRecords {
  file: string;
  records: SourceRecord[];
  rejected: RejectedLine[];
  warnings: string[];
}

export interface RecordPreview {
  line: number;
  index: number;
  steps: StepRecord[];
  error: string | null;
}

export interface MappingPreview {
  /** Problems of the spec itself; when there are any, nothing else is computed. */
  problems: string[];
  /** The mapping's own detect() score on the sample. */
  score: number;
  /** What detection would choose among this mapping and the built-in formats. */
  winner: { id: string; confidence: number } | null;
  records: RecordPreview[];
}

/** The first `limit` records of a file, read exactly as the importer reads them; stops reading there. */
export async function readSample(file: Blob & { name?: string }, limit = PREVIEW_RECORDS): Promise<SampleRecords> {
  const out: SampleRecords = { file: file.name ?? 'sample', records: [], rejected: [], warnings: [] };
  try {
    for await (const ev of readRecords(file.stream(), { maxRecordChars: PREVIEW_MAX_CHARS })) {
      if (ev.kind === 'record') out.records.push(ev.record);
      else if (ev.kind === 'reject') out.rejected.push({ line: ev.line, reason: ev.reason });
      else out.warnings.push(ev.message);
      if (out.records.length >= limit || out.rejected.length >= limit) break;
    }
  } catch (e) {
    out.warnings.push(e instanceof Error ? e.message : String(e));
  }
  return out;
}

const PREVIEW_SOURCE = 'preview'.padEnd(64, '0');

/** Run a mapping (JSON text or value) over sample records; every record's steps or the reason it made none. */
export function previewMapping(input: unknown, sample: SampleRecords): MappingPreview {
  let n: Normalizer<unknown>;
  try {
    n = compileMapping(parseMapping(input).spec) as Normalizer<unknown>;
  } catch (e) {
    const problems = e && typeof e === 'object' && 'problems' in e && Array.isArray(e.problems) ? (e.problems as string[]) : [String(e)];
    return { problems, score: 0, winner: null, records: [] };
  }
  const values = sample.records.map((r) => r.value);
  const score = values.length ? n.detect(values) : 0;
  const d = values.length ? detectFormat(values, [n, ...NORMALIZERS]) : null;
  const ctx = { sourceId: PREVIEW_SOURCE, file: sample.file };
  const fin = createFinalizeState();
  const records = sample.records.map((r): RecordPreview => {
    try {
      const steps = finalize(n.normalize(r, ctx, undefined), r, ctx, fin, { format: n.id, importId: null, keepRaw: false });
      return { line: r.line, index: r.index, steps, error: steps.length ? null : 'no step made from this record' };
    } catch (e) {
      return { line: r.line, index: r.index, steps: [], error: e instanceof Error ? e.message : String(e) };
    }
  });
  return { problems: [], score, winner: d ? { id: d.normalizer.id, confidence: d.confidence } : null, records };
}
