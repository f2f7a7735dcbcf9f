// Runs the given e2e files in this one process (`node --test-reporter=spec scripts/e2e-one-process.mjs <file>…`), each
// file's tests inside a suite named by its path (scripts/one-process.mjs), and the files with the default Chromium
// flags in one shared browser, each on its own origin (test/e2e/harness.mjs). A node + playwright-core start is
// ≈ 1.2 CPU-s and a Chromium launch ≈ 1 per file when each file runs alone.
// AW_E2E_CPU=1: print each file's CPU-s, read from this process's cpuacct cgroup (cgroup v1; e.g. under /tmp/cgcpu.sh,
// whose cgroup holds only this process tree, Chromium included).
import { readFileSync } from 'node:fs';
import { after, before } from 'node:test';
import { suitePerFile } from './one-process.mjs';

process.env.AW_E2E_SHARED = '1';
const { closeSharedBrowser } = await import('../test/e2e/harness.mjs');

const cpu = () => {
  const path = readFileSync('/proc/self/cgroup', 'utf8').match(/^\d+:[^:]*\bcpuacct\b[^:]*:(.*)$/m)?.[1];
  for (const root of ['/sys/fs/cgroup/cpuacct', '/sys/fs/cgroup/cpu,cpuacct']) {
    try {
      return Number(readFileSync(`${root}${path}/cpuacct.usage`, 'utf8')) / 1e9;
    } catch {}
  }
  return Number.NaN;
};
const timed = process.env.AW_E2E_CPU === '1';

// the file's CPU from before its own before hooks to after its own after hooks
suitePerFile(process.argv.slice(2), (file) => {
  if (!timed) return undefined;
  let t0 = 0;
  before(() => (t0 = cpu()));
  return () => after(() => console.log(`# cpu ${file}: ${(cpu() - t0).toFixed(1)} CPU-s`));
});
after(() => closeSharedBrowser());
