/**
 * One file → step records in the pool: hash, read, detect, normalize, finalize, Arrow batches,
 * appends inside the import's transaction, atomic commit. Runs in the ingest worker; the sink is the pool API over a port.
 */
import { createSHA256 } from 'hash-wasm';
import type { ImportProgress, ImportReport, ImportTimings, RejectedLine } from '../contract/reports';
import { type CommitDedupe, describeDedupe } from '../pool/import-commit';
import type { ImportCommit, ImportMeta } from '../pool/pool-core';
import { detectFormat } from './detect';
import { evalZipEvents, isZip } from './eval-zip';
import { createFinalizeState, EMPTY_PROMPT_PREFIX, finalize, type FinalizeState } from './finalize';
import type { NormalizeContext, Normalizer, SourceRecord } from './normalizer';
import { NORMALIZERS } from './normalizers';
import { generic } from './normalizers/generic';
import { isGzip, isParquet, type ReadEvent, ReadError, readRecords } from './reader';
import type { StepRecord } from '../contract/step';
import { stepsToIPC } from './step-arrow';

export interface IngestSink {
  beginImport(meta: ImportMeta): Promise<number>;
  setImportSource(id: number, sourceId: string): Promise<void>;
  appendBatch(id: number, bytes: Uint8Array): Promise<void>;
  /** Drop every row appended so far and keep the import open (a sharded read fell back to one reader). */
  resetImport?(id: number): Promise<void>;
  commitImport(id: number, info: ImportCommit): Promise<{ rowsAdded: number; stages?: Record<string, number>; room?: { bytes: number; limit: number } } & Partial<CommitDedupe>>;
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
  /** Read large JSON Lines files in parallel: shard k ≥ 1 runs through `run` (in another worker). */
  shards?: ShardPool;
  /** Files smaller than this are read by one reader (default 48 MiB; tests set it low). */
  shardMinBytes?: number;
  /** The other files of the same import, for formats that join records across files (`Normalizer.companions`). */
  siblings?: readonly File[];
}

/** A shard of a JSON Lines file: bytes [start, end), both at line boundaries. */
export interface ShardJob {
  file: File;
  start: number;
  end: number;
  /** Normalizer id (a built-in one that keeps no state across records). */
  format: string;
  sourceId: string;
  importId: number;
  batchRows?: number;
  batchBytes?: number;
}

export interface ShardPool {
  /** How many readers to use at most, this one included. */
  count: number;
  run(k: number, job: ShardJob, onBatch: (bytes: Uint8Array) => Promise<void>, onProgress: (bytes: number, records: number, rows: number) => void): Promise<RecordRun>;
}

/** What reading one stream of records made (the whole file, or one shard of it). */
export interface RecordRun {
  records: number;
  rowsMade: number;
  rejected: RejectedLine[];
  moreRejects: number;
  warnings: string[];
  skipped: number[];
  formatsUsed: [string, number][];
  format: string;
  confidence: number;
  sample: SourceRecord[];
  /** Trajectory ids the source gave (a trajectory split across shards would be numbered wrong). */
  ownUids: string[];
  /** A draft asked for history linking (which needs every earlier record). */
  linked: boolean;
  /** Trajectories with a blank prompt (each got a `p-empty-` prompt_uid of its own). */
  emptyPrompts: number;
  /** Steps whose timestamps had no zone in the source. */
  naiveTimes: number;
  /** For a shard: the lines and records counted before it, as it numbered its own. */
  offset?: { lines: number; records: number };
}

const SAMPLE = 20;
/**
 * Formats whose trajectory id is a distributed-trace id (random, globally unique): the same id in two
 * export files is the same trace, so its new spans join the stored trajectory (docs/decisions/011).
 */
export const TRACE_ID_FORMATS = ['otel', 'phoenix', 'langfuse'];
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


interface RunEnv {
  ctx: NormalizeContext;
  all: Normalizer<unknown>[];
  importId: number;
  /** Skip detection: this normalizer reads every record. */
  fixed?: { normalizer: Normalizer<unknown>; confidence: number };
  forcedFormat?: string;
  emitBatch: (bytes: Uint8Array) => Promise<void>;
  isCancelled?: () => boolean;
  /** Called after every record (callers throttle by bytes read). */
  onCount?: (records: number, rows: number) => void;
  batchRows?: number;
  batchBytes?: number;
  /** Where rejects, warnings and the chosen format go as they happen, so a run that fails still reports them. */
  log?: RunLog;
  siblings?: readonly File[];
}

/** What a run has found so far. */
interface RunLog {
  rejected: RejectedLine[];
  warnings: string[];
  format: string;
  confidence: number;
}

const newLog = (): RunLog => ({ rejected: [], warnings: [], format: 'unknown', confidence: 0 });

/** Detect (from the first records), normalize, finalize and batch one stream of records. */
async function runRecords(source: AsyncIterable<ReadEvent>, env: RunEnv): Promise<RecordRun> {
  const { ctx, all } = env;
  const log = env.log ?? newLog();
  const { rejected, warnings } = log;
  let moreRejects = 0;
  const reject = (line: number, reason: string) => {
    if (rejected.length < MAX_REJECTS) rejected.push({ line, reason });
    else moreRejects++;
  };
  let records = 0;
  let rowsMade = 0;
  const states = new Map<Normalizer<unknown>, unknown>();
  const stateOf = (n: Normalizer<unknown>) => {
    if (!states.has(n)) states.set(n, n.createState ? n.createState(ctx) : undefined);
    return states.get(n);
  };
  const fin: FinalizeState = createFinalizeState();
  let chosen: Normalizer<unknown> | null = env.fixed?.normalizer ?? null;
  if (env.fixed) {
    log.format = env.fixed.normalizer.id;
    log.confidence = env.fixed.confidence;
  }
  const sample: SourceRecord[] = [];
  let batch: StepRecord[] = [];
  let batchSize = 0;
  const batchRows = env.batchRows ?? 4000;
  const batchBytes = env.batchBytes ?? 16 << 20;
  const formatsUsed = new Map<string, number>();
  const skipped: number[] = [];

  const flushBatch = async () => {
    if (!batch.length) return;
    const bytes = stepsToIPC(batch);
    batch = [];
    batchSize = 0;
    await env.emitBatch(bytes);
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
    return finalize(drafts, rec, ctx, fin, { format: n.id, importId: env.importId });
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

  const choose = async () => {
    const d = env.forcedFormat ? forced(env.forcedFormat, all) : detectFormat(sample.map((s) => s.value), all);
    chosen = d.normalizer;
    log.format = chosen.id;
    log.confidence = d.confidence;
    if (chosen.companions && env.siblings?.length) ctx.companions = await readCompanions(chosen, env.siblings, env.isCancelled);
    for (const s of sample) await handle(s);
  };

  for await (const ev of source) {
    if (env.isCancelled?.()) throw new CancelledError();
    if (ev.kind === 'reject') reject(ev.line, ev.reason);
    else if (ev.kind === 'warning') warnings.push(ev.message);
    else if (!chosen) {
      sample.push(ev.record);
      if (sample.length >= SAMPLE) await choose();
    } else {
      if (sample.length < SAMPLE) sample.push(ev.record);
      await handle(ev.record);
    }
    env.onCount?.(records, rowsMade);
  }
  if (!chosen && sample.length) await choose();
  for (const [n, st] of states) {
    if (n.flush) {
      const drafts = n.flush(ctx, st);
      if (drafts.length) await emit(finalize(drafts, { value: null, line: 0, index: records }, ctx, fin, { format: n.id, importId: env.importId, keepRaw: false }));
    }
  }
  for (const [n, st] of states) if (n.notes) warnings.push(...n.notes(st));
  if (env.isCancelled?.()) throw new CancelledError();
  await flushBatch();
  env.onCount?.(records, rowsMade);
  return {
    records, rowsMade, rejected, moreRejects, warnings, skipped, formatsUsed: [...formatsUsed], format: log.format, confidence: log.confidence, sample,
    ownUids: [...fin.own], linked: fin.linked, emptyPrompts: fin.emptyPrompts, naiveTimes: fin.naiveTimes,
  };
}

/** The sibling files a joining format claims (by their first records), each read whole. Parquet and unreadable files are passed over. */
async function readCompanions(n: Normalizer<unknown>, siblings: readonly File[], isCancelled?: () => boolean): Promise<{ file: string; records: unknown[] }[]> {
  const out: { file: string; records: unknown[] }[] = [];
  for (const file of siblings) {
    if (isParquet(new Uint8Array(await file.slice(0, 4).arrayBuffer()))) continue;
    const records: unknown[] = [];
    let accepted = false;
    try {
      for await (const ev of readRecords(file.stream())) {
        if (isCancelled?.()) throw new CancelledError();
        if (ev.kind !== 'record') continue;
        records.push(ev.record.value);
        if (!accepted && records.length >= SAMPLE) {
          if (!n.companions!.accepts(records)) break;
          accepted = true;
        }
      }
    } catch (e) {
      if (e instanceof CancelledError) throw e;
      continue; // the sibling's own import reports what is wrong with it
    }
    if (accepted || (records.length < SAMPLE && records.length && n.companions!.accepts(records))) out.push({ file: file.name, records });
  }
  return out;
}

/** Files smaller than this are read by one reader: a second would not pay for itself. */
const SHARD_MIN_BYTES = 48 << 20;

interface ShardPlan {
  bounds: number[];
  normalizer: Normalizer<unknown>;
  confidence: number;
}

/**
 * Can this file be read in parallel shards, and where do they start? Only a UTF-8 JSON Lines file,
 * whose first lines all parse and whose format keeps no state across records (`parallel`).
 */
async function planShards(file: File, all: Normalizer<unknown>[], opts: IngestOptions): Promise<ShardPlan | null> {
  const min = opts.shardMinBytes ?? SHARD_MIN_BYTES;
  const count = Math.min(opts.shards?.count ?? 1, Math.floor((2 * file.size) / Math.max(1, min)));
  if (count < 2 || file.size < min) return null;
  const headBytes = new Uint8Array(await file.slice(0, 1 << 20).arrayBuffer());
  if (isGzip(headBytes) || isParquet(headBytes)) return null;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(headBytes.subarray(0, headBytes.lastIndexOf(10) + 1));
  } catch {
    return null; // not UTF-8 (or a character cut at 1 MB with no newline before it)
  }
  const lines = text.replace(/^\uFEFF/, '').split('\n').filter((l) => l.trim());
  if (!lines.length || !lines[0].trimStart().startsWith('{')) return null;
  const sample: unknown[] = [];
  for (const line of lines.slice(0, SAMPLE)) {
    try {
      sample.push(JSON.parse(line));
    } catch {
      return null; // the one reader reports it, with the numbering it owns
    }
  }
  const d = opts.format ? forced(opts.format, all) : detectFormat(sample, all);
  if (!d.normalizer.parallel || !NORMALIZERS.includes(d.normalizer)) return null;
  const bounds = [0];
  for (let k = 1; k < count; k++) {
    const at = Math.floor((file.size * k) / count);
    const probe = new Uint8Array(await file.slice(at, at + (4 << 20)).arrayBuffer());
    const nl = probe.indexOf(10);
    if (nl < 0) return null;
    const b = at + nl + 1;
    if (b <= bounds[bounds.length - 1] || b >= file.size) return null;
    bounds.push(b);
  }
  bounds.push(file.size);
  return { bounds, normalizer: d.normalizer, confidence: d.confidence };
}

/** Lines and non-blank lines in bytes [0, end) of a file (a shard numbers its lines and records after them). */
async function countLines(file: Blob, end: number): Promise<{ lines: number; records: number }> {
  let lines = 0;
  let records = 0;
  let blank = true;
  const reader = file.slice(0, end).stream().getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    for (let i = 0; i < value.length; i++) {
      const b = value[i];
      if (b === 10) {
        lines++;
        if (!blank) records++;
        blank = true;
      } else if (blank && b !== 32 && b !== 9 && b !== 13) blank = false;
    }
  }
  if (!blank) records++;
  return { lines, records };
}

/** Run one shard ≥ 1 of a planned file (in a shard worker): number after what precedes it, read, batch. */
export async function runShard(job: ShardJob, onBatch: (bytes: Uint8Array) => Promise<void>, onProgress?: (bytes: number, records: number, rows: number) => void): Promise<RecordRun> {
  const normalizer = NORMALIZERS.find((n) => n.id === job.format);
  if (!normalizer) throw new Error(`unknown format "${job.format}"`);
  const offset = await countLines(job.file, job.start);
  let bytes = 0;
  let reported = -1;
  const source = readRecords(job.file.slice(job.start, job.end).stream(), { shard: offset, onBytes: (n) => (bytes = n) });
  const run = await runRecords(source, {
    ctx: { sourceId: job.sourceId, file: job.file.name },
    all: NORMALIZERS,
    importId: job.importId,
    fixed: { normalizer, confidence: 1 },
    emitBatch: onBatch,
    onCount: (records, rows) => {
      // each report is a message to the ingest worker: one per MiB read
      if (bytes - reported < 1 << 20) return;
      reported = bytes;
      onProgress?.(bytes, records, rows);
    },
    batchRows: job.batchRows,
    batchBytes: job.batchBytes,
  });
  return { ...run, sample: [], offset };
}

/**
 * Read a planned file in parallel shards. Returns null when the shards' numbering does not agree
 * with reading the file in one go (a line before a shard did not parse, one trajectory spans two
 * shards, a record needed another format): the caller then reads it again with one reader.
 */
async function runSharded(file: File, plan: ShardPlan, pool: ShardPool, env: Omit<RunEnv, 'fixed' | 'forcedFormat'>, onProgress: (bytes: number, records: number, rows: number) => void): Promise<RecordRun | null> {
  const n = plan.bounds.length - 1;
  const seen = Array.from({ length: n }, () => ({ bytes: 0, records: 0, rows: 0 }));
  const report = (k: number, bytes: number, records: number, rows: number) => {
    seen[k] = { bytes, records, rows };
    onProgress(
      seen.reduce((a, x) => a + x.bytes, 0),
      seen.reduce((a, x) => a + x.records, 0),
      seen.reduce((a, x) => a + x.rows, 0),
    );
  };
  let stop: unknown = null;
  const guarded = async (bytes: Uint8Array) => {
    if (stop) throw stop;
    if (env.isCancelled?.()) throw (stop = new CancelledError());
    await env.emitBatch(bytes);
  };
  let bytes0 = 0;
  const first = runRecords(readRecords(file.slice(0, plan.bounds[1]).stream(), { onBytes: (b) => (bytes0 = b) }), {
    ...env,
    fixed: { normalizer: plan.normalizer, confidence: plan.confidence },
    emitBatch: guarded,
    onCount: (records, rows) => report(0, bytes0, records, rows),
  });
  const rest = plan.bounds.slice(1, -1).map((start, i) =>
    pool.run(i + 1, { file, start, end: plan.bounds[i + 2], format: plan.normalizer.id, sourceId: env.ctx.sourceId, importId: env.importId, batchRows: env.batchRows, batchBytes: env.batchBytes }, guarded, (b, r, rows) =>
      report(i + 1, b, r, rows),
    ),
  );
  const settled = await Promise.allSettled([first, ...rest]);
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) {
    stop ??= (failed as PromiseRejectedResult).reason;
    throw (failed as PromiseRejectedResult).reason;
  }
  const runs = settled.map((r) => (r as PromiseFulfilledResult<RecordRun>).value);
  // does the numbering agree with one reader's?
  let before = 0;
  const owners = new Set<string>();
  for (const [k, r] of runs.entries()) {
    if (k > 0 && r.offset?.records !== before) return null;
    before += r.records;
    if (r.linked || r.formatsUsed.some(([id]) => id !== plan.normalizer.id)) return null;
    for (const u of r.ownUids) {
      if (owners.has(u)) return null; // a shard's own ids are a set: a repeat is another shard's
      owners.add(u);
    }
  }
  const rejected = runs.flatMap((r) => r.rejected);
  const used = new Map<string, number>();
  for (const r of runs) for (const [id, c] of r.formatsUsed) used.set(id, (used.get(id) ?? 0) + c);
  return {
    records: before,
    rowsMade: runs.reduce((a, r) => a + r.rowsMade, 0),
    rejected: rejected.slice(0, MAX_REJECTS),
    moreRejects: runs.reduce((a, r) => a + r.moreRejects, 0) + Math.max(0, rejected.length - MAX_REJECTS),
    warnings: [...new Set(runs.flatMap((r) => r.warnings))],
    skipped: runs.flatMap((r) => r.skipped),
    formatsUsed: [...used],
    format: plan.normalizer.id,
    confidence: plan.confidence,
    sample: runs[0].sample,
    ownUids: [],
    linked: false,
    emptyPrompts: runs.reduce((a, r) => a + r.emptyPrompts, 0),
    naiveTimes: runs.reduce((a, r) => a + r.naiveTimes, 0),
  };
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
      run = await runRecords(evalZipEvents(new Uint8Array(await file.arrayBuffer())), inMemory);
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
    if (format === generic.id) {
      message = `Format not recognized: kept ${records} record(s) as generic rows (raw JSON and top-level keys in metadata). Keys seen: ${keysSeen(run.sample)}. Write a mapping to import them as steps.`;
    }
    if (run.emptyPrompts) {
      warnings.push(`${run.emptyPrompts} trajectory(ies) have a blank prompt (no system or first user text): each got a prompt_uid of its own starting with '${EMPTY_PROMPT_PREFIX}', so they form no GRPO group with unrelated ones`);
    }
    if (run.naiveTimes) {
      warnings.push(`${run.naiveTimes} step(s) have timestamps without a time zone in the source: kept as written and stored as UTC, not shifted (metadata.time_zone says so on each)`);
    }
    if (run.moreRejects) warnings.push(`${run.moreRejects} more rejected line(s) not listed`);
    const skipped = run.skipped;
    if (skipped.length) {
      const shown = skipped.slice(0, 10).join(', ');
      warnings.push(`${skipped.length} record(s) held no LLM call and made no step (line${skipped.length > 1 ? 's' : ''} ${shown}${skipped.length > 10 ? ', …' : ''})`);
    }
    if (rowsMade === 0) {
      // nothing to keep: the import fails with the reason, and the pool keeps its rejects
      const why = nothingKept(records, run, warnings, format);
      await sink.abortImport(id, why, rejected);
      return report('failed', { format, confidence, records, rows: 0, message: why, importId: id, warnings, shards });
    }
    progress({ bytesRead: file.size, records, rows: rowsMade, phase: 'committing' });
    const commit = await sink.commitImport(id, { format, confidence, records, rowsMade, errors: rejected, message: message ?? (warnings.join('; ') || null), joinFormats: TRACE_ID_FORMATS });
    const rowsAdded = commit.rowsAdded;
    mark('committed');
    if (commit.stages) timings.commit = commit.stages;
    progress({ bytesRead: file.size, records, rows: rowsMade, phase: 'done' });
    const dedupe: CommitDedupe = { alreadyInPool: commit.alreadyInPool ?? 0, collisions: commit.collisions ?? [], repeats: commit.repeats ?? [] };
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
  return `Nothing was imported: ${records} record(s) read as ${format}, but none made a step${held || bad ? ` — ${[held, bad].filter(Boolean).join(', ')}` : ''}.`;
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
