/**
 * One file → step records in the pool: hash, read, detect, normalize, finalize, Arrow batches,
 * appends inside the import's transaction, atomic commit. Runs in the ingest worker; the sink is the pool API over a port.
 */
import { createSHA256 } from 'hash-wasm';
import type { ImportProgress, ImportReport, ImportTimings, RejectedLine } from '../app/services';
import type { ImportCommit, ImportMeta } from '../pool/pool-core';
import { detectFormat } from './detect';
import { createFinalizeState, finalize, type FinalizeState } from './finalize';
import type { NormalizeContext, Normalizer, SourceRecord } from './normalizer';
import { NORMALIZERS } from './normalizers';
import { generic } from './normalizers/generic';
import { isGzip, isParquet, type ReadEvent, ReadError, readRecords } from './reader';
import type { StepRecord } from './step';
import { stepsToIPC } from './step-arrow';

export interface IngestSink {
  beginImport(meta: ImportMeta): Promise<number>;
  setImportSource(id: number, sourceId: string): Promise<void>;
  appendBatch(id: number, bytes: Uint8Array): Promise<void>;
  commitImport(id: number, info: ImportCommit): Promise<{ rowsAdded: number }>;
  abortImport(id: number, reason: string, errors?: RejectedLine[]): Promise<void>;
}

export interface IngestOptions {
  onProgress?: (p: ImportProgress) => void;
  isCancelled?: () => boolean;
  /** Reads a Parquet file's rows as records (parquet-wasm lives in the worker). */
  readParquet?: (bytes: Uint8Array) => Promise<AsyncIterable<SourceRecord>>;
  /** Extra normalizers (user mappings) tried alongside the built-in ones. */
  extra?: Normalizer<unknown>[];
  /** Force a format id instead of detecting. */
  format?: string;
  batchRows?: number;
  batchBytes?: number;
}

const SAMPLE = 20;
const QUOTA = /quota|QuotaExceeded|no space left|disk full/i;
const MAX_REJECTS = 10_000;

export class CancelledError extends Error {
  constructor() {
    super('The import was cancelled; nothing of it was kept.');
    this.name = 'CancelledError';
  }
}

/** Files up to this size are hashed in one call to the platform's SHA-256 (hardware-accelerated; ~10x hash-wasm's streaming hash). */
const ONE_SHOT_HASH = 256 << 20;

const hex = (b: ArrayBuffer) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');

async function sha256(file: Blob, onBytes: (n: number) => void): Promise<string> {
  const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  const gz = isGzip(head);
  if (!gz && file.size <= ONE_SHOT_HASH && globalThis.crypto?.subtle) {
    onBytes(0);
    const digest = await crypto.subtle.digest('SHA-256', await file.arrayBuffer());
    onBytes(file.size);
    return hex(digest);
  }
  const h = await createSHA256();
  h.init();
  let stream: ReadableStream<Uint8Array> = file.stream();
  if (gz) stream = stream.pipeThrough(new DecompressionStream('gzip') as unknown as ReadableWritablePair<Uint8Array, Uint8Array>);
  const reader = stream.getReader();
  let n = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      h.update(value);
      n += value.length;
      onBytes(n);
    }
  } catch (e) {
    if (e instanceof CancelledError) throw e;
    // a corrupt gzip: hash what decompressed; the reader reports the corruption
  }
  return h.digest('hex');
}

function approxSize(s: StepRecord): number {
  let n = 200 + (s.raw?.length ?? 0) + (s.response_text?.length ?? 0) * 2;
  for (const m of s.messages) n += 40 + (m.content?.length ?? 0);
  return n;
}

export async function ingestFile(file: File, sink: IngestSink, opts: IngestOptions = {}): Promise<ImportReport> {
  const t0 = performance.now();
  const rejected: RejectedLine[] = [];
  let moreRejects = 0;
  const warnings: string[] = [];
  const timings: ImportTimings = { hashed: null, read: null, appended: null, committed: null, waitedForPool: 0 };
  const mark = (k: Exclude<keyof ImportTimings, 'waitedForPool'>) => (timings[k] = Math.round(performance.now() - t0));
  const report = (status: ImportReport['status'], extra: Partial<ImportReport>): ImportReport => ({
    file: file.name,
    format: 'unknown',
    confidence: 0,
    records: 0,
    rows: 0,
    added: 0,
    rejected,
    warnings,
    status,
    message: null,
    importId: null,
    bytes: file.size,
    ms: Math.round(performance.now() - t0),
    timings: { ...timings, waitedForPool: Math.round(timings.waitedForPool) },
    ...extra,
  });
  const progress = (p: Omit<ImportProgress, 'file' | 'bytesTotal'>) => opts.onProgress?.({ file: file.name, bytesTotal: file.size, ...p });
  const reject = (line: number, reason: string) => {
    if (rejected.length < MAX_REJECTS) rejected.push({ line, reason });
    else moreRejects++;
  };

  const id = await sink.beginImport({ file: file.name, sourceId: '', bytes: file.size });
  let records = 0;
  let rowsMade = 0;
  let format = 'unknown';
  let confidence = 0;
  let message: string | null = null;
  try {
    const sourceId = await sha256(file, (n) => {
      if (opts.isCancelled?.()) throw new CancelledError();
      progress({ bytesRead: Math.min(n, file.size), records: 0, rows: 0, phase: 'hashing' });
    });
    mark('hashed');
    await sink.setImportSource(id, sourceId);
    const ctx: NormalizeContext = { sourceId, file: file.name };
    const head = new Uint8Array(await file.slice(0, 4).arrayBuffer());
    let source: AsyncIterable<ReadEvent>;
    if (isParquet(head)) {
      if (!opts.readParquet) throw new ReadError('Parquet files cannot be read here');
      const rows = await opts.readParquet(new Uint8Array(await file.arrayBuffer()));
      source = (async function* () {
        for await (const record of rows) yield { kind: 'record', record } as ReadEvent;
      })();
    } else {
      let bytesRead = 0;
      source = readRecords(file.stream(), { onBytes: (n) => (bytesRead = n) });
      const inner = source;
      source = (async function* () {
        let last = 0;
        for await (const ev of inner) {
          if (bytesRead - last > 1 << 20) {
            last = bytesRead;
            progress({ bytesRead, records, rows: rowsMade, phase: 'reading' });
          }
          yield ev;
        }
      })();
    }

    const all = [...(opts.extra ?? []), ...NORMALIZERS];
    const states = new Map<Normalizer<unknown>, unknown>();
    const stateOf = (n: Normalizer<unknown>) => {
      if (!states.has(n)) states.set(n, n.createState ? n.createState(ctx) : undefined);
      return states.get(n);
    };
    const fin: FinalizeState = createFinalizeState();
    let chosen: Normalizer<unknown> | null = null;
    const sample: SourceRecord[] = [];
    let batch: StepRecord[] = [];
    let batchSize = 0;
    const batchRows = opts.batchRows ?? 4000;
    const batchBytes = opts.batchBytes ?? 16 << 20;
    let inflight: Promise<void> = Promise.resolve();
    const formatsUsed = new Map<string, number>();
    const skipped: number[] = [];

    const flushBatch = async () => {
      if (!batch.length) return;
      const bytes = stepsToIPC(batch);
      batch = [];
      batchSize = 0;
      const waitFrom = performance.now();
      await inflight;
      timings.waitedForPool += performance.now() - waitFrom;
      inflight = sink.appendBatch(id, bytes);
    };

    const emit = async (rows: StepRecord[]) => {
      for (const r of rows) {
        batch.push(r);
        batchSize += approxSize(r);
      }
      rowsMade += rows.length;
      if (batch.length >= batchRows || batchSize >= batchBytes) await flushBatch();
    };

    const normalizeWith = (n: Normalizer<unknown>, rec: SourceRecord): StepRecord[] => {
      const drafts = n.normalize(rec, ctx, stateOf(n));
      if (!drafts.length) return [];
      formatsUsed.set(n.id, (formatsUsed.get(n.id) ?? 0) + 1);
      return finalize(drafts, rec, ctx, fin, { format: n.id, importId: id });
    };

    const handle = async (rec: SourceRecord) => {
      records++;
      const n = chosen!;
      let rows: StepRecord[] | null = null;
      let why: string | null = null;
      try {
        rows = normalizeWith(n, rec);
        // a stateful normalizer buffers records and emits at flush; others found no LLM call here
        if (rows.length === 0 && !n.flush && n.id !== generic.id) rows = null;
      } catch (e) {
        why = e instanceof Error ? e.message : String(e);
      }
      if (rows === null) {
        // mixed files: another format may claim this record
        const other = detectFormat([rec.value], all);
        if (other.normalizer !== n && other.normalizer.id !== generic.id && other.confidence >= 0.5) {
          try {
            rows = normalizeWith(other.normalizer, rec);
            why = null;
          } catch (e) {
            why = e instanceof Error ? e.message : String(e);
          }
        }
      }
      if (why) {
        reject(rec.line, `${n.label}: ${why}`);
        return;
      }
      if (rows === null || rows.length === 0) {
        if (!n.flush) skipped.push(rec.line);
        return;
      }
      await emit(rows);
    };

    for await (const ev of source) {
      if (opts.isCancelled?.()) throw new CancelledError();
      if (ev.kind === 'reject') reject(ev.line, ev.reason);
      else if (ev.kind === 'warning') warnings.push(ev.message);
      else if (!chosen) {
        sample.push(ev.record);
        if (sample.length >= SAMPLE) {
          const d = opts.format ? forced(opts.format, all) : detectFormat(sample.map((s) => s.value), all);
          chosen = d.normalizer;
          format = chosen.id;
          confidence = d.confidence;
          for (const s of sample) await handle(s);
        }
      } else await handle(ev.record);
    }
    if (!chosen && sample.length) {
      const d = opts.format ? forced(opts.format, all) : detectFormat(sample.map((s) => s.value), all);
      chosen = d.normalizer;
      format = chosen.id;
      confidence = d.confidence;
      for (const s of sample) await handle(s);
    }
    for (const [n, st] of states) {
      if (n.flush) {
        const drafts = n.flush(ctx, st);
        if (drafts.length) await emit(finalize(drafts, { value: null, line: 0, index: records }, ctx, fin, { format: n.id, importId: id, keepRaw: false }));
      }
    }
    if (opts.isCancelled?.()) throw new CancelledError();
    mark('read');
    await flushBatch();
    await inflight;
    mark('appended');
    if (formatsUsed.size > 1) {
      const parts = [...formatsUsed].map(([k, v]) => `${k} (${v})`).join(', ');
      warnings.push(`mixed formats in one file: ${parts}`);
    }
    if (chosen?.id === generic.id) {
      message = `Format not recognized: kept ${records} record(s) as generic rows (raw JSON and top-level keys in metadata). Keys seen: ${keysSeen(sample)}. Write a mapping to import them as steps.`;
    }
    if (moreRejects) warnings.push(`${moreRejects} more rejected line(s) not listed`);
    if (skipped.length) {
      const shown = skipped.slice(0, 10).join(', ');
      warnings.push(`${skipped.length} record(s) held no LLM call and made no step (line${skipped.length > 1 ? 's' : ''} ${shown}${skipped.length > 10 ? ', …' : ''})`);
    }
    progress({ bytesRead: file.size, records, rows: rowsMade, phase: 'committing' });
    const { rowsAdded } = await sink.commitImport(id, { format, confidence, records, rowsMade, errors: rejected, message: message ?? (warnings.join('; ') || null) });
    mark('committed');
    progress({ bytesRead: file.size, records, rows: rowsMade, phase: 'done' });
    return report('done', { format, confidence, records, rows: rowsMade, added: rowsAdded, message, importId: id });
  } catch (e) {
    const cancelled = e instanceof CancelledError;
    const text = e instanceof Error ? e.message : String(e);
    const why = cancelled
      ? text
      : QUOTA.test(text)
        ? `The browser's storage quota is exhausted, so nothing of this import was kept (${text}). Free space — clear the pool or delete old data — or allow this site more storage, then import again.`
        : `${e instanceof ReadError ? '' : 'Import failed: '}${text}`;
    await abortQuietly(sink, id, why, rejected);
    return report(cancelled ? 'cancelled' : 'failed', { format, confidence, records, rows: rowsMade, message: why, importId: id });
  }
}

async function abortQuietly(sink: IngestSink, id: number, why: string, rejected: RejectedLine[]): Promise<void> {
  try {
    await sink.abortImport(id, why, rejected);
  } catch {
    // the pool itself failed; the import stays 'running' and is rolled back at the next start
  }
}

function forced(id: string, all: Normalizer<unknown>[]): { normalizer: Normalizer<unknown>; confidence: number } {
  const n = all.find((x) => x.id === id) ?? (id === generic.id ? (generic as Normalizer<unknown>) : null);
  if (!n) throw new ReadError(`unknown format "${id}"`);
  return { normalizer: n, confidence: 1 };
}

function keysSeen(sample: SourceRecord[]): string {
  const keys = new Map<string, number>();
  for (const s of sample) {
    if (s.value && typeof s.value === 'object' && !Array.isArray(s.value)) for (const k of Object.keys(s.value)) keys.set(k, (keys.get(k) ?? 0) + 1);
    else keys.set(Array.isArray(s.value) ? '[array]' : typeof s.value, 1);
  }
  return [...keys.keys()].slice(0, 15).join(', ') || '(none)';
}
