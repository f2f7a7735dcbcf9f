// Runs the given node:test files in this one process (`node --import tsx --test-reporter=spec scripts/one-process.mjs
// <file>…`), each file's tests inside a suite named by its path, so a file's top-level before/after hooks stay its own.
// A node + tsx start per file cost ≈ 0.4 CPU-s, more than most unit files' tests (20 small files: 10.2 CPU-s one
// process each, 2.3 CPU-s in one). scripts/test.mjs keeps the files that change the process for the files after them
// (V8 flags, the app's workers in threads) apart, in a second process of their own (unit-2; one per file until issue
// 33: 84 → 67 CPU-s for the eight, three runs): `isolated` below says which.
import { readFileSync } from 'node:fs';
import { after, before, describe } from 'node:test';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';

/**
 * Whether a test file must run apart from the shared unit files: it sets V8 flags (they stay set for every file after
 * it: a golden snapshot made without JSON.parse source text failed after a file that turned it on), or starts the
 * app's workers in threads (test/unit/helpers/page-workers.ts sets such flags and ends its threads after the file).
 */
export function isolated(file) {
  return /setFlagsFromString|helpers\/page-workers/.test(readFileSync(file, 'utf8'));
}

/**
 * This process tree's CPU-seconds so far, from its cpuacct cgroup (cgroup v1), which must hold only this tree (e.g. a
 * cgroup made for the command, as the docs' measurements do); NaN where there is none. Unlike process.cpuUsage() it
 * counts the children too: Chromium's processes, a CLI started as a process.
 */
function cgroupCpu() {
  const path = readFileSync('/proc/self/cgroup', 'utf8').match(/^\d+:[^:]*\bcpuacct\b[^:]*:(.*)$/m)?.[1];
  for (const root of ['/sys/fs/cgroup/cpuacct', '/sys/fs/cgroup/cpu,cpuacct']) {
    try {
      return Number(readFileSync(`${root}${path}/cpuacct.usage`, 'utf8')) / 1e9;
    } catch {}
  }
  return Number.NaN;
}

/**
 * Each file's tests inside a suite named by its path. `around(file)` runs in that suite before the file is imported (a
 * hook it adds runs before the file's own) and may return a function run after the import (a hook added there runs
 * after the file's own). AW_CPU=1 prints each file's CPU-s (cgroupCpu) from before its own before hooks to after its
 * own after hooks (its import, which compiles its modules, is not in it: the first file to import a module pays for it).
 */
export function suitePerFile(files, around = () => undefined) {
  const timed = process.env.AW_CPU === '1';
  for (const file of files) {
    describe(file, async () => {
      let t0 = 0;
      if (timed) before(() => (t0 = cgroupCpu()));
      const afterImport = around(file);
      await import(pathToFileURL(file).href);
      afterImport?.();
      if (timed) after(() => console.log(`# cpu ${file}: ${(cgroupCpu() - t0).toFixed(1)} CPU-s`));
    });
  }
}

/**
 * A file that starts the app's workers in threads ends them after its tests (and after its own hooks, which may still
 * talk to them). test/unit/helpers/page-workers.ts's top-level `after` does that when the file is the process's
 * only one; here it is the hook of the first file that imported it, and the threads of the files after that one would
 * keep the process alive.
 */
function endWorkerThreads(file) {
  if (!/helpers\/page-workers/.test(readFileSync(file, 'utf8'))) return undefined;
  return () =>
    after(async () => {
      const { WebWorker } = await import(new URL('../test/unit/helpers/web-worker.ts', import.meta.url).href);
      await WebWorker.terminateAll();
    });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // WebAssembly on V8's baseline compiler only, for every unit file of the process from its start (as the browser
  // tests run, scripts/browser.mjs TEST_ARGS, and the app's workers in threads, helpers/web-worker.ts): TurboFan's
  // tier-up of DuckDB-WASM, parquet-wasm and the hashes compiled code that a test's short runs never won back. The
  // shared unit files, three pairs of runs: 107 / 118 / 111 → 105 / 103 / 89 CPU-s. Set here, not on the command line:
  // the CLI's worker threads take the parent's execArgv, and Worker refuses V8 flags there.
  setFlagsFromString('--liftoff-only');
  suitePerFile(process.argv.slice(2), endWorkerThreads);
}
