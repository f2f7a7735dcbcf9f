/**
 * How the CLI starts a worker thread on one of its modules. Run from the bundle (bin/agentworld.mjs builds the CLI and
 * its thread entries into .mjs files side by side), the thread's own .mjs; run as TypeScript (tests, tsx),
 * thread-entry.mjs registers the tsx loader in the thread first (Node 20 does not pass a parent's loader to workers).
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

const bundled = !/\.[cm]?ts$/.test(new URL(import.meta.url).pathname);

export function tsWorker(entry: URL, opts: WorkerOptions & { workerData?: Record<string, unknown> }): Worker {
  if (bundled) return new Worker(new URL(entry.href.replace(/\.ts$/, '.mjs')), opts);
  return new Worker(new URL('./thread-entry.mjs', import.meta.url), { ...opts, workerData: { ...opts.workerData, entry: entry.href } });
}
