/// <reference lib="webworker" />
/**
 * Shard worker: reads one shard (a line-aligned byte range) of a large JSON Lines file for the ingest
 * worker, which started it, and hands its Arrow batches back to it (transferred; the ingest worker
 * appends them to the pool in its import's transaction). See pipeline.ts `runSharded`.
 */
import * as Comlink from 'comlink';
import type { RecordRun } from '../src/ingest/run-records';
import { runShard, type ShardJob } from '../src/ingest/shards';

const api = {
  run(job: ShardJob, onBatch: (bytes: Uint8Array) => Promise<void>, onProgress: (bytes: number, records: number, rows: number) => void): Promise<RecordRun> {
    return runShard(job, (bytes) => onBatch(Comlink.transfer(bytes, [bytes.buffer])), onProgress);
  },
};

export type ShardWorkerApi = typeof api;
Comlink.expose(api);
