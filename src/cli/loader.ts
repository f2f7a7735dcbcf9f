/**
 * How the CLI starts a worker thread on one of its modules. Run from the bundle (bin/agentworld.mjs builds the CLI and
 * its thread entries into .mjs files side by side), the thread's own .mjs. Run as TypeScript (tests, tsx): the thread
 * entry of that same bundle too, built first if src/ is newer (bin/cli-bundle.mjs) — a thread under tsx paid ≈ 0.35
 * CPU-s for the loader alone, and the unit tests start dozens. AGENTWORLD_CLI_TSX=1 keeps TypeScript in the threads:
 * thread-entry.mjs registers the tsx loader in the thread first (Node 20 does not pass a parent's loader to workers).
 */
import { createRequire } from 'node:module';
import { Worker, type WorkerOptions } from 'node:worker_threads';

const bundled = !/\.[cm]?ts$/.test(new URL(import.meta.url).pathname);

/** bin/cli-bundle.mjs's bundleSync, loaded by a path esbuild does not follow (the bundle never needs it). */
function bundleDir(): string {
  const helper = new URL('../../bin/cli-bundle.mjs', import.meta.url).pathname;
  return (createRequire(import.meta.url)(helper) as { bundleSync: () => string }).bundleSync();
}

export function tsWorker(entry: URL, opts: WorkerOptions & { workerData?: Record<string, unknown> }): Worker {
  if (bundled) return new Worker(new URL(entry.href.replace(/\.ts$/, '.mjs')), opts);
  if (process.env.AGENTWORLD_CLI_TSX !== '1') return new Worker(`${bundleDir()}/${entry.pathname.split('/').pop()?.replace(/\.ts$/, '.mjs')}`, opts);
  return new Worker(new URL('./thread-entry.mjs', import.meta.url), { ...opts, workerData: { ...opts.workerData, entry: entry.href } });
}
