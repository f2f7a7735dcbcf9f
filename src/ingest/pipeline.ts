/**
 * One file → step records in the pool: hash, read, detect, normalize, finalize, Arrow batches,
 * appends inside the import's transaction, atomic commit. Runs in the ingest worker; the sink is the pool API over a port.
 */
import { createSHA256 } from 'hash-wasm';
import type { ImportProgress, ImportReport, ImportTimings, RejectedLine } from '../contract/reports';
import { type CommitDedupe, describeDedupe, duplicateSteps } from '../pool/import-commit';
import type { CommitResult, ImportCommit, PoolImport } from '../pool/port';
import { evalZipEvents, isZip } from './eval-zip';
import { EMPTY_PROMPT_PREFIX } from '../record/prompt-uid';
import type { NormalizeContext, Normalizer, SourceRecord } from './normalizer';
import { NORMALIZERS } from './normalizers';
import { generic } from './normalizers/generic';
import { isGzip, isParquet, type ReadEvent, ReadError, readRecords } from './reader';
import { CancelledError, newLog, type RecordRun, runRecords } from './run-records';
import { planShards, runSharded, type ShardPool } from './shards';

// the CLI's shard threads import these from here
export type { RecordRun } from './run-records';
export { runShard, type ShardJob, type ShardPool } from './shards';

/**
 * Where an import's rows go: the pool port's import transaction (src/pool/port.ts). A memory sink (tests, benches)
 * may leave out the reset and the dedupe's figures.
 */
export type IngestSink = Omit<PoolImport, 'resetImport' | 'commitImport'> &
  Partial<Pick<PoolImport, 'resetImport'>> & {
    commitImport(id: number, info: ImportCommit): Promise<Pick<CommitResult, 'rowsAdded'> & Partial<CommitResult>>;
  };

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
  /** Read large JSON Lines files in parallel: shard k ≥ 1 runs through `run` (in another worker). */
  shards?: ShardPool;
  /** Files smaller than this are read by one reader (default 48 MiB; tests set it low). */
  shardMinBytes?: number;
  /** The other files of the same import, for formats that join records across files (`Normalizer.companions`). */
  siblings?: readonly File[];
}

/**
 * Formats whose trajectory id is a distributed-trace id (random, globally unique): the same id in two
 * export files is the same trace, so its new spans join the stored trajectory (docs/decisions/011).
 */
export const TRACE_ID_FORMATS = ['otel', 'phoenix', 'langfuse'];
const QUOTA = /quota|QuotaExceeded|no space left|disk full/i;
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

export async function ingestFile(file: File, sink: IngestSink, opts: IngestOptions = {}): Promise<ImportReport> {
  const t0 = performance.now();
  // what the read found so far; a run that fails still reports it (and the pool records the rejects)
  let log = newLog();
  const timings: ImportTimings = { hashed: null, read: null, appended: null, committed: null, waitedForPool: 0 };
  const mark = (k: Exclude<keyof ImportTimings, 'waitedForPool' | 'commit'>) => (timings[k] = Math.round(performance.now() - t0));
  const report = (status: ImportReport['status'], extra: Partial<ImportReport>): ImportReport => ({
    file: file.name,
    records: 0,
    rows: 0,
    added: 0,
    rejected: log.rejected,
    warnings: log.warnings,
    format: log.format,
    confidence: log.confidence,
    status,
    message: null,
    importId: null,
    bytes: file.size,
    ms: Math.round(performance.now() - t0),
    timings: { ...timings, waitedForPool: Math.round(timings.waitedForPool) },
    ...extra,
  });
  const progress = (p: Omit<ImportProgress, 'file' | 'bytesTotal'>) => opts.onProgress?.({ file: file.name, bytesTotal: file.size, ...p });

  const id = await sink.beginImport({ file: file.name, sourceId: '', bytes: file.size });
  let records = 0;
  let rowsMade = 0;
  let shards = 1;
  try {
    const sourceId = await sha256(file, (n) => {
      if (opts.isCancelled?.()) throw new CancelledError();
      progress({ bytesRead: Math.min(n, file.size), records: 0, rows: 0, phase: 'hashing' });
    });
    mark('hashed');
    await sink.setImportSource(id, sourceId);
    const ctx: NormalizeContext = { sourceId, file: file.name };
    const all = [...(opts.extra ?? []), ...NORMALIZERS];
    // every reader hands its batches here; at most one append per reader waits behind the pool
    let inflight: Promise<void> = Promise.resolve();
    const emitBatch = async (bytes: Uint8Array) => {
      const prev = inflight;
      inflight = prev.then(() => sink.appendBatch(id, bytes));
      // a failed append surfaces through the `await prev` of the next batch or the final `await inflight`;
      // the link chained after it must not also count as an unhandled rejection
      inflight.catch(() => {});
      const waitFrom = performance.now();
      await prev;
      timings.waitedForPool += performance.now() - waitFrom;
    };
    const env = { ctx, all, importId: id, emitBatch, isCancelled: opts.isCancelled, batchRows: opts.batchRows, batchBytes: opts.batchBytes, siblings: opts.siblings };
    let lastProgress = 0;
    const reading = (bytesRead: number, r: number, rows: number) => {
      records = r;
      rowsMade = rows;
      if (bytesRead - lastProgress > 1 << 20) {
        lastProgress = bytesRead;
        progress({ bytesRead, records: r, rows, phase: 'reading' });
      }
    };

    let run: RecordRun | null = null;
    // files read whole into memory (Parquet rows, the members of a .eval archive) count records, not bytes
    const inMemory = {
      ...env,
      forcedFormat: opts.format,
      log,
      onCount: (r: number, rows: number) => {
        records = r;
        rowsMade = rows;
      },
    };
    const head = new Uint8Array(await file.slice(0, 4).arrayBuffer());
    if (isParquet(head)) {
      if (!opts.readParquet) throw new ReadError('Parquet files cannot be read here');
      const rows = await opts.readParquet(new Uint8Array(await file.arrayBuffer()));
      const source = (async function* () {
        for await (const record of rows) yield { kind: 'record', record } as ReadEvent;
      })();
      run = await runRecords(source, inMemory);
    } else if (isZip(head)) {
      // an Inspect AI .eval archive: its JSON members are the records
      run = await runRecords(evalZipEvents(new Uint8Array(await file.arrayBuffer()), { file: file.name }), inMemory);
    } else {
      const plan = opts.shards ? await planShards(file, all, opts) : null;
      if (plan && opts.shards) {
        run = await runSharded(file, plan, opts.shards, env, reading);
        if (run) shards = plan.bounds.length - 1;
        else {
          // the shards disagreed with one reader's numbering: start again with one reader
          await inflight;
          if (!sink.resetImport) throw new Error('the pool cannot restart an import');
          await sink.resetImport(id);
          lastProgress = 0;
        }
      }
      if (!run) {
        let bytesRead = 0;
        const source = readRecords(file.stream(), { onBytes: (n) => (bytesRead = n) });
        log = newLog();
        run = await runRecords(source, { ...env, forcedFormat: opts.format, log, onCount: (r, rows) => reading(bytesRead, r, rows) });
      }
    }
    records = run.records;
    rowsMade = run.rowsMade;
    const { format, confidence, rejected } = run;
    const warnings = [...run.warnings];
    log = { rejected, warnings, format, confidence };
    mark('read');
    await inflight;
    mark('appended');
    let message: string | null = null;
    if (run.formatsUsed.length > 1) {
      const parts = run.formatsUsed.map(([k, v]) => `${k} (${v})`).join(', ');
      warnings.push(`mixed formats in one file: ${parts}`);
    }
    let notUnderstood: ImportReport['notUnderstood'];
    if (run.notUnderstood) {
      const fields = fieldsSeen(run.sample);
      notUnderstood = { fields };
      message = `Not understood: ${records} record(s) with the shape of no format the workbench reads, so nothing was kept (fields seen: ${fields.join(', ') || '(none)'}). Write a mapping for this file (Formats tab), or import it as generic rows to keep the records as they are.`;
    } else if (format === generic.id) {
      message = `Kept ${records} record(s) as generic rows, as asked (raw JSON and top-level keys in metadata). Write a mapping to import them as steps.`;
    }
    if (run.emptyPrompts) {
      warnings.push(`${run.emptyPrompts} trajectory(ies) have a blank prompt (no system or first user text): each got a prompt_uid of its own starting with '${EMPTY_PROMPT_PREFIX}', so they form no GRPO group with unrelated ones`);
    }
    if (run.naiveTimes) {
      warnings.push(`${run.naiveTimes} step(s) have timestamps without a time zone in the source: kept as written and stored as UTC, not shifted (metadata.time_zone says so on each)`);
    }
    if (run.moreRejects) warnings.push(`${run.moreRejects} more rejected line(s) not listed`);
    if (run.noResponse.length) {
      const lines = [...new Set(run.noResponse)];
      warnings.push(`${run.noResponse.length} step(s) had no response (neither an answer nor a failed call) and were not kept (line${lines.length > 1 ? 's' : ''} ${lines.slice(0, 10).join(', ')}${lines.length > 10 ? ', …' : ''})`);
    }
    if (run.duplicates.length) {
      const shown = run.duplicates.slice(0, 5).map(([l, of]) => `${l} = ${of}`).join(', ');
      warnings.push(`${run.duplicates.length} record(s) repeat an earlier line of this file exactly (line ${shown}${run.duplicates.length > 5 ? ', …' : ''}): duplicates, read once`);
    }
    const skipped = run.skipped;
    if (skipped.length) {
      const shown = skipped.slice(0, 10).join(', ');
      warnings.push(`${skipped.length} record(s) held no LLM call and made no step (line${skipped.length > 1 ? 's' : ''} ${shown}${skipped.length > 10 ? ', …' : ''})`);
    }
    if (rowsMade === 0 && run.readWith && !rejected.length) {
      // read by another file of this import (a companion): recorded, not a failure
      const why = [`Read with ${run.readWith}`, ...warnings].join('; ');
      await sink.commitImport(id, { format, confidence, records, rowsMade: 0, errors: rejected, message: why, joinFormats: TRACE_ID_FORMATS });
      mark('committed');
      progress({ bytesRead: file.size, records, rows: 0, phase: 'done' });
      return report('done', { format, confidence, records, rows: 0, added: 0, message: why, importId: id, warnings, shards, readWith: run.readWith });
    }
    if (rowsMade === 0) {
      // nothing to keep: the import fails with the reason, and the pool keeps its rejects
      const why = message && notUnderstood ? message : nothingKept(records, run, warnings, format);
      await sink.abortImport(id, why, rejected);
      return report('failed', { format, confidence, records, rows: 0, message: why, importId: id, warnings, shards, ...(notUnderstood ? { notUnderstood } : {}) });
    }
    progress({ bytesRead: file.size, records, rows: rowsMade, phase: 'committing' });
    const commit = await sink.commitImport(id, { format, confidence, records, rowsMade, errors: rejected, message: message ?? (warnings.join('; ') || null), joinFormats: TRACE_ID_FORMATS });
    const rowsAdded = commit.rowsAdded;
    mark('committed');
    if (commit.stages) timings.commit = commit.stages;
    progress({ bytesRead: file.size, records, rows: rowsMade, phase: 'done' });
    const dedupe: CommitDedupe = { alreadyInPool: commit.alreadyInPool ?? 0, collisions: commit.collisions ?? [], repeats: commit.repeats ?? [], duplicates: commit.duplicates ?? 0 };
    if (dedupe.duplicates) warnings.push(duplicateSteps(dedupe.duplicates));
    // collisions and steps already stored are fields of the report (and sentences in imports.message)
    if (!rowsAdded) message = describeDedupe(dedupe, rowsAdded)[0] ?? null;
    log = { ...log, rejected: [...rejected, ...dedupe.repeats] };
    return report(rowsAdded ? 'done' : 'unchanged', {
      format, confidence, records, rows: rowsMade, added: rowsAdded, message, importId: id, warnings, shards,
      alreadyInPool: dedupe.alreadyInPool, collisions: dedupe.collisions, ...(commit.room ? { poolRoom: commit.room } : {}),
    });
  } catch (e) {
    const cancelled = e instanceof CancelledError;
    const text = e instanceof Error ? e.message : String(e);
    const why = cancelled
      ? text
      : QUOTA.test(text)
        ? quotaMessage(text, await storageEstimate())
        : `${e instanceof ReadError ? '' : 'Import failed: '}${text}`;
    await abortQuietly(sink, id, why, log.rejected);
    return report(cancelled ? 'cancelled' : 'failed', { records, rows: rowsMade, message: why, importId: id, shards });
  }
}

/** What the browser grants this site and uses of it (undefined where the Storage API is missing). */
async function storageEstimate(): Promise<StorageEstimate | undefined> {
  try {
    return await globalThis.navigator?.storage?.estimate();
  } catch {
    return undefined;
  }
}

const gb = (n: number) => (n >= 1e9 ? `${(n / 1e9).toFixed(2)} GB` : `${(n / 1e6).toFixed(1)} MB`);

/** The storage-full message: names the quota and the room left when the browser tells them. */
export function quotaMessage(text: string, est: StorageEstimate | undefined): string {
  const room =
    est?.quota !== undefined && est.usage !== undefined
      ? ` The browser gives this site ${gb(est.quota)} of storage; ${gb(est.usage)} is in use, ${gb(Math.max(0, est.quota - est.usage))} left.`
      : '';
  return `The browser's storage quota is exhausted, so nothing of this import was kept (${text}).${room} Free space — clear the pool or delete old data — or allow this site more storage, then import again.`;
}

async function abortQuietly(sink: IngestSink, id: number, why: string, rejected: RejectedLine[]): Promise<void> {
  try {
    await sink.abortImport(id, why, rejected);
  } catch {
    // the pool itself failed; the import stays 'running' and is rolled back at the next start
  }
}

/** Why a file made no step, in words: the import then fails with this message (a "done" always kept something). */
function nothingKept(records: number, run: RecordRun, warnings: string[], format: string): string {
  const first = run.rejected[0];
  const rejects = run.rejected.length + run.moreRejects;
  if (records === 0 && rejects) {
    return `Nothing was imported: none of the ${rejects} record(s) in the file could be read (first: line ${first.line}: ${first.reason}).`;
  }
  if (records === 0) return `Nothing was imported: ${warnings.find((w) => /empty|whitespace/.test(w)) ?? 'the file holds no records'}.`;
  const held = run.skipped.length ? `${run.skipped.length} held no LLM call` : '';
  const bad = rejects ? `${rejects} were rejected (first: line ${first.line}: ${first.reason})` : '';
  const empty = run.noResponse.length ? `${run.noResponse.length} step(s) had no response` : '';
  // what the format itself said about the file (a UI log whose calls are in another file, a file of no calls)
  const notes = run.warnings.filter((w) => !/^\d+ record\(s\) held no LLM call/.test(w));
  const said = notes.length ? ` ${notes.map((n) => n[0].toUpperCase() + n.slice(1)).join('; ')}.` : '';
  return `Nothing was imported: ${records} record(s) read as ${format}, but none made a step${held || bad || empty ? ` — ${[held, bad, empty].filter(Boolean).join(', ')}` : ''}.${said}`;
}

/** The top-level keys of the first records (what a mapping would read), or what the records are when not objects. */
function fieldsSeen(sample: SourceRecord[]): string[] {
  const keys = new Map<string, number>();
  for (const s of sample) {
    if (s.value && typeof s.value === 'object' && !Array.isArray(s.value)) for (const k of Object.keys(s.value)) keys.set(k, (keys.get(k) ?? 0) + 1);
    else keys.set(Array.isArray(s.value) ? '[array]' : typeof s.value, 1);
  }
  return [...keys.keys()].slice(0, 15);
}
