/**
 * The ingest worker's calls (workers/ingest.worker.ts hosts them; the protocol is api.ts): a file streamed through the
 * pipeline, its Arrow batches sent straight to the pool worker inside the import's transaction, a large JSON Lines
 * file read by shard readers in workers of their own.
 */
import * as Comlink from 'comlink';
import initParquet, { readParquet } from 'parquet-wasm/esm';
import type { ImportProgress, ImportReport } from '../contract/reports';
import type { PoolApi } from '../pool/api';
import { CancelledJobs } from '../util/jobs';
import type { IngestJobOptions, IngestWorkerApi, ShardWorkerApi } from './api';
import type { Normalizer } from './normalizer';
import { parquetRecords } from './parquet-records';
import { ingestFile } from './pipeline';
import type { ShardPool } from './shards';

async function compileMappings(specs: unknown[] | undefined): Promise<Normalizer<unknown>[]> {
  if (!specs?.length) return [];
  const { compileMapping } = await import('./mapping/compile');
  return specs.map((s) => compileMapping(s) as Normalizer<unknown>);
}

/**
 * One reader per core but one (the pool worker's inserts and commit need a core), at most 4. On 2
 * cores that is one: two readers there measured no faster and used ~180 MB more (docs/decisions/006).
 */
const SHARDS = Math.max(1, Math.min(4, ((self.navigator?.hardwareConcurrency ?? 1) || 1) - 1));

/** A new ingest worker's API; `shardWorker(k)` starts the worker of shard reader k (the host's: its URL is the bundler's). */
export function createIngestWorkerApi(shardWorker: (k: number) => Worker): IngestWorkerApi {
  let pool: Comlink.Remote<PoolApi> | null = null;
  let parquetUrl = '';
  let parquetReady: Promise<unknown> | null = null;
  const cancelled = new CancelledJobs();
  /** Readers for the shards of a large JSON Lines file beyond the first (which this worker reads). */
  const shardWorkers: Comlink.Remote<ShardWorkerApi>[] = [];
  const shardPool: ShardPool = {
    count: SHARDS,
    run(k, job, onBatch, onProgress) {
      shardWorkers[k] ??= Comlink.wrap<ShardWorkerApi>(shardWorker(k));
      return shardWorkers[k].run(job, Comlink.proxy(onBatch), Comlink.proxy(onProgress));
    },
  };
  const api: IngestWorkerApi = {
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
  return api;
}
