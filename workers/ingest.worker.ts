/// <reference lib="webworker" />
/** Ingest worker: streams a file, normalizes it and sends Arrow batches straight to the pool worker. */
import * as Comlink from 'comlink';
import initParquet, { readParquet } from 'parquet-wasm/esm';
import type { ImportProgress, ImportReport } from '../src/contract/reports';
import type { Normalizer } from '../src/ingest/normalizer';
import { parquetRecords } from '../src/ingest/parquet-records';
import { ingestFile } from '../src/ingest/pipeline';
import type { ShardPool } from '../src/ingest/shards';
import type { PoolApi } from '../src/pool/api';
import type { ShardWorkerApi } from './ingest-shard.worker';
import { CancelledJobs } from '../src/util/jobs';

let pool: Comlink.Remote<PoolApi> | null = null;
let parquetUrl = '';
let parquetReady: Promise<unknown> | null = null;
const cancelled = new CancelledJobs();

export interface IngestJobOptions {
  format?: string;
  /** User mappings (JSON specs), compiled here. */
  mappings?: unknown[];
  /** Parallel readers for a large JSON Lines file: false = one; a number caps them (default: one per core but one, at most 4). */
  shards?: boolean | number;
  /** Below this size a file is read by one reader (default pipeline SHARD_MIN_BYTES). */
  shardMinBytes?: number;
  /** The other files of the same import (formats that join across files read them). */
  siblings?: File[];
}

async function compileMappings(specs: unknown[] | undefined): Promise<Normalizer<unknown>[]> {
  if (!specs?.length) return [];
  const { compileMapping } = await import('../src/ingest/mapping/compile');
  return specs.map((s) => compileMapping(s) as Normalizer<unknown>);
}

/** Readers for the shards of a large JSON Lines file beyond the first (which this worker reads). */
const shardWorkers: Comlink.Remote<ShardWorkerApi>[] = [];
/**
 * One reader per core but one (the pool worker's inserts and commit need a core), at most 4. On 2
 * cores that is one: two readers there measured no faster and used ~180 MB more (docs/decisions/006).
 */
const SHARDS = Math.max(1, Math.min(4, ((self.navigator?.hardwareConcurrency ?? 1) || 1) - 1));

const shardPool: ShardPool = {
  count: SHARDS,
  run(k, job, onBatch, onProgress) {
    shardWorkers[k] ??= Comlink.wrap<ShardWorkerApi>(new Worker(new URL('./ingest-shard.worker.ts', import.meta.url), { type: 'module', name: `ingest-shard-${k}` }));
    return shardWorkers[k].run(job, Comlink.proxy(onBatch), Comlink.proxy(onProgress));
  },
};

const api = {
  init(port: MessagePort, parquetWasmUrl: string): void {
    pool = Comlink.wrap<PoolApi>(port);
    parquetUrl = parquetWasmUrl;
  },

  async importFile(job: number, file: File, onProgress: ((p: ImportProgress) => void) | undefined, opts: IngestJobOptions = {}): Promise<ImportReport> {
    if (!pool) throw new Error('ingest worker not initialised');
    const p = pool;
    const extra = await compileMappings(opts.mappings);
    try {
      return await ingestFile(file, {
        beginImport: (m) => p.beginImport(m),
        setImportSource: (id, sid) => p.setImportSource(id, sid),
        appendBatch: (id, bytes) => p.appendBatch(id, Comlink.transfer(bytes, [bytes.buffer])),
        resetImport: (id) => p.resetImport(id),
        commitImport: (id, info) => p.commitImport(id, info),
        abortImport: (id, reason, errors) => p.abortImport(id, reason, errors),
      }, {
        onProgress,
        isCancelled: () => cancelled.has(job),
        extra,
        format: opts.format,
        shards: opts.shards === false ? undefined : typeof opts.shards === 'number' ? { ...shardPool, count: opts.shards } : shardPool,
        shardMinBytes: opts.shardMinBytes,
        siblings: opts.siblings,
        readParquet: async (bytes) => {
          parquetReady ??= initParquet({ module_or_path: parquetUrl });
          await parquetReady;
          return parquetRecords(bytes, readParquet);
        },
      });
    } finally {
      cancelled.end(job);
    }
  },

  cancel(job: number): void {
    cancelled.cancel(job);
  },
};

export type IngestWorkerApi = typeof api;
Comlink.expose(api);
