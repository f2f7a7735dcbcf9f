/** Parallel readers for the CLI: the pipeline's ShardPool on worker threads (shard-thread.ts), one per core by default. */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { RecordRun, ShardPool } from '../ingest/pipeline';
import { tsWorker } from './loader';
import type { ShardIn, ShardOut } from './shard-thread';

export interface ThreadShardPool extends ShardPool {
  /** Threads started and not yet ended (a thread ends when its shard is read). */
  readonly live: number;
  close(): Promise<void>;
}

/** `paths`: where each File the pipeline is given lives on disk (a thread opens the file itself). */
export function threadShardPool(paths: Map<File, string>, count = Math.min(8, availableParallelism())): ThreadShardPool {
  const workers: (Worker | undefined)[] = [];
  return {
    count,
    get live() {
      return workers.filter(Boolean).length;
    },
    run(k, job, onBatch, onProgress) {
      const path = paths.get(job.file);
      if (!path) return Promise.reject(new Error(`no path for ${job.file.name}`));
      workers[k] ??= tsWorker(new URL('./shard-thread.ts', import.meta.url), {});
      const w = workers[k];
      return new Promise<RecordRun>((resolve, reject) => {
        const onMessage = async (m: ShardOut) => {
          if (m.type === 'batch') {
            try {
              await onBatch(m.bytes);
              w.postMessage({ type: 'ack' } satisfies ShardIn);
            } catch (e) {
              stop();
              reject(e);
            }
          } else if (m.type === 'progress') onProgress(m.bytes, m.records, m.rows);
          else if (m.type === 'done') {
            stop();
            // the thread's heap and Parquet staging memory go before the import commits (the commit's peak is
            // DuckDB's): a next file starts a thread of its own
            workers[k] = undefined;
            w.terminate().then(() => resolve(m.run as RecordRun), () => resolve(m.run as RecordRun));
          } else {
            stop();
            reject(new Error(m.message));
          }
        };
        const onError = (e: Error) => {
          stop();
          reject(e);
        };
        const stop = () => {
          w.off('message', onMessage);
          w.off('error', onError);
        };
        w.on('message', onMessage);
        w.on('error', onError);
        const { file: _file, ...rest } = job;
        w.postMessage({ type: 'run', job: rest, path } satisfies ShardIn);
      });
    },
    async close() {
      await Promise.all(workers.map((w) => w?.terminate()));
    },
  };
}
