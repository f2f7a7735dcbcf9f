/** How the CLI starts a worker thread on a TypeScript module (thread-entry.mjs registers the tsx loader there first). */
import { Worker, type WorkerOptions } from 'node:worker_threads';

export function tsWorker(entry: URL, opts: WorkerOptions & { workerData?: Record<string, unknown> }): Worker {
  return new Worker(new URL('./thread-entry.mjs', import.meta.url), { ...opts, workerData: { ...opts.workerData, entry: entry.href } });
}
