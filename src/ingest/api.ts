/**
 * The ingest workers' protocol (workers/ingest.worker.ts hosts ingest-jobs.ts, workers/ingest-shard.worker.ts hosts a
 * shard reader of shards.ts): what importer.ts, on the page, and the ingest worker, for its shard readers, call.
 */
import type { ImportProgress, ImportReport } from '../contract/reports';
import type { RecordRun } from './run-records';
import type { ShardJob } from './shards';

export interface IngestJobOptions {
  format?: string;
  /** User mappings (JSON specs), compiled in the worker. */
  mappings?: unknown[];
  /** Parallel readers for a large JSON Lines file: false = one; a number caps them (default: one per core but one, at most 4). */
  shards?: boolean | number;
  /** Below this size a file is read by one reader (default pipeline SHARD_MIN_BYTES). */
  shardMinBytes?: number;
  /** The other files of the same import (formats that join across files read them). */
  siblings?: File[];
}

export interface IngestWorkerApi {
  /** The pool worker's API on `port` (PoolClient.port()), and where parquet-wasm's module is. */
  init(port: MessagePort, parquetWasmUrl: string): void;
  /** One file imported through the pipeline into the pool (its import transaction); `job` names it for `cancel`. */
  importFile(job: number, file: File, onProgress: ((p: ImportProgress) => void) | undefined, opts?: IngestJobOptions): Promise<ImportReport>;
  cancel(job: number): void;
}

export interface ShardWorkerApi {
  /** Read one shard (a line-aligned byte range) of a large JSON Lines file, handing its Arrow batches back (transferred). */
  run(job: ShardJob, onBatch: (bytes: Uint8Array) => Promise<void>, onProgress: (bytes: number, records: number, rows: number) => void): Promise<RecordRun>;
}
