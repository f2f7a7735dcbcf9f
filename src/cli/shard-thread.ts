/**
 * A reader thread for the CLI: reads one shard of a large JSON Lines file with the page's runShard
 * (src/ingest/pipeline.ts) and hands its batches to the main thread as Parquet (stage.ts), one at a time (each waits for
 * the main thread's ack, so a slow pool holds the reader back instead of queueing batches in memory).
 */
import { parentPort } from 'node:worker_threads';
import '../util/arrow-bool-fix';
import { runShard, type ShardJob } from '../ingest/pipeline';
import { fileOf } from './files';
import { ipcToParquet } from './stage';

export type ShardIn = { type: 'run'; job: Omit<ShardJob, 'file'>; path: string } | { type: 'ack' };
export type ShardOut =
  | { type: 'batch'; bytes: Uint8Array }
  | { type: 'progress'; bytes: number; records: number; rows: number }
  | { type: 'done'; run: unknown }
  | { type: 'error'; message: string };

const port = parentPort!;
let acked: (() => void) | null = null;
const post = (m: ShardOut, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

port.on('message', async (m: ShardIn) => {
  if (m.type === 'ack') {
    acked?.();
    return;
  }
  try {
    const file = await fileOf(m.path);
    const run = await runShard(
      { ...m.job, file },
      (ipc) => {
        // converted here, in parallel with the other readers, rather than on the one DuckDB thread
        const bytes = ipcToParquet(ipc);
        return new Promise<void>((resolve) => {
          acked = resolve;
          post({ type: 'batch', bytes }, [bytes.buffer as ArrayBuffer]);
        });
      },
      (bytes, records, rows) => post({ type: 'progress', bytes, records, rows }),
    );
    post({ type: 'done', run });
  } catch (e) {
    post({ type: 'error', message: e instanceof Error ? e.message : String(e) });
  }
});
