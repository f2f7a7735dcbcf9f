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

let built: string | undefined;

/**
 * bin/cli-bundle.mjs's bundleSync, loaded by a path esbuild does not follow (the bundle never needs it): once per
 * process, not per thread (its freshness check walks src/, ≈ 8 ms, and a test file starts dozens of threads).
 */
function bundleDir(): string {
  if (built) return built;
  const helper = new URL('../../bin/cli-bundle.mjs', import.meta.url).pathname;
  built = (createRequire(import.meta.url)(helper) as { bundleSync: () => string }).bundleSync();
  return built;
}

/** The parent's node flags but tsx's (a worker inherits them: tsx would load in the thread for nothing, ≈ 0.1 CPU-s). */
function withoutTsx(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (['--import', '--loader', '--require', '-r'].includes(a) && /\btsx\b/.test(args[i + 1] ?? '')) i++;
    else if (!/^--(import|loader|require)=.*\btsx\b/.test(a)) out.push(a);
  }
  return out;
}

export function tsWorker(entry: URL, opts: WorkerOptions & { workerData?: Record<string, unknown> }): Worker {
  if (bundled) return new Worker(new URL(entry.href.replace(/\.ts$/, '.mjs')), opts);
  if (process.env.AGENTWORLD_CLI_TSX !== '1') {
    return new Worker(`${bundleDir()}/${entry.pathname.split('/').pop()?.replace(/\.ts$/, '.mjs')}`, { execArgv: withoutTsx(process.execArgv), ...opts });
  }
  return new Worker(new URL('./thread-entry.mjs', import.meta.url), { ...opts, workerData: { ...opts.workerData, entry: entry.href } });
}
