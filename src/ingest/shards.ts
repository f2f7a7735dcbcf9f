
import * as Comlink from 'comlink';
import { detectFormat } from './detect';
import type { Normalizer } from './normalizer';
import { NORMALIZERS } from './normalizers';
import { isGzip, isParquet, readRecords } from './reader';
import { CancelledError, forced, MAX_REJECTS, type RecordRun, type RunEnv, runRecords, SAMPLE } from './run-records';

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

/** Files smaller than this are read by one reader: a second would not pay for itself. */
const SHARD_MIN_BYTES = 48 << 20;

export interface ShardPlan {
  bounds: number[];
  normalizer: Normalizer<unknown>;
  confidence: number;
}

/**
 * Can this file be read in parallel shards, and where do they start? Only a UTF-8 JSON Lines file,
 * whose first lines all parse and whose format keeps no state across records (`parallel`).
 */
/** What planning reads of an import's options (pipeline.ts `IngestOptions`). */
export interface ShardPlanOptions {
  shards?: Pick<ShardPool, 'count'>;
  shardMinBytes?: number;
  format?: string;
}

export async function planShards(file: File, all: Normalizer<unknown>[], opts: ShardPlanOptions): Promise<ShardPlan | null> {
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
export async function runSharded(file: File, plan: ShardPlan, pool: ShardPool, env: Omit<RunEnv, 'fixed' | 'forcedFormat'>, onProgress: (bytes: number, records: number, rows: number) => void): Promise<RecordRun | null> {
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
    duplicates: runs.flatMap((r) => r.duplicates),
    formatsUsed: [...used],
    format: plan.normalizer.id,
    confidence: plan.confidence,
    sample: runs[0].sample,
    ownUids: [],
    linked: false,
    emptyPrompts: runs.reduce((a, r) => a + r.emptyPrompts, 0),
    naiveTimes: runs.reduce((a, r) => a + r.naiveTimes, 0),
    notUnderstood: false,
    noResponse: runs.flatMap((r) => r.noResponse),
    readWith: null,
  };
}

/**
 * What a shard worker serves (workers/ingest-shard.worker.ts; api.ts): one shard read for the ingest worker that started
 * it, its Arrow batches handed back to it (transferred; that worker appends them to the pool in its import's transaction).
 */
export const shardWorkerApi = {
  run(job: ShardJob, onBatch: (bytes: Uint8Array) => Promise<void>, onProgress: (bytes: number, records: number, rows: number) => void): Promise<RecordRun> {
    return runShard(job, (bytes) => onBatch(Comlink.transfer(bytes, [bytes.buffer])), onProgress);
  },
};
