// web-test-runner reporter: per test file, its wall time (from its session starting to finishing), the CPU-seconds
// the runner's process tree spent meanwhile (the dev server, esbuild, Chromium and its renderers; with
// `concurrency: 1` that is the file's own cost) and how many pool workers (DuckDB-WASM boots) it started. Printed
// slowest first when the run stops; web-test-runner prints no per-file times of its own. docs/testing.md keeps the
// table. `WTR_TIMINGS=<file>` also writes every file's and every test's figures there (tab-separated); `WTR_TIMINGS=1` writes none.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';

/** A pool worker's script request: one DuckDB-WASM boot (the app's pool or a test's `startPool`). */
const BOOT = /^\/workers\/pool\.worker\.ts$/;

/**
 * CPU-seconds of this process and every descendant, alive or reaped (a reaped child's time is in its parent's
 * cutime/cstime). Linux /proc only; null elsewhere. Clock ticks are 100 a second on Linux.
 */
export function treeCpuSeconds(root = process.pid) {
  let entries;
  try {
    entries = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  const parent = new Map();
  const ticks = new Map();
  for (const pid of entries) {
    let stat;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // the command name is in parentheses and may hold spaces: fields count from the last ')'
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    parent.set(Number(pid), Number(f[1]));
    ticks.set(Number(pid), Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]));
  }
  let sum = 0;
  for (const [pid, t] of ticks) {
    for (let p = pid; p > 1; p = parent.get(p) ?? 0) {
      if (p === root) {
        sum += t;
        break;
      }
    }
  }
  return sum / 100;
}

/**
 * Where WTR_TIMINGS asks the figures to be written: `1` or `true` ask for none (the summary prints anyway; a file named
 * `1` was once committed from `WTR_TIMINGS=1`).
 */
export function timingsFile(value) {
  return value && !/^(1|true)$/i.test(value) ? value : undefined;
}

/**
 * The reporter, and a dev-server middleware that counts boots: both go into web-test-runner.config.mjs.
 * `cpu` is injectable for the reporter's own test.
 */
export function timingsReporter({ top = 12, file = timingsFile(process.env.WTR_TIMINGS), cpu = treeCpuSeconds, out = process.stdout } = {}) {
  /** session id → { file, t, cpu } while it runs */
  const started = new Map();
  /** test file → { secs, cpu, boots } once finished */
  const took = new Map();
  let running = null;
  const boots = new Map();
  const middleware = async (ctx, next) => {
    if (BOOT.test(ctx.path)) {
      if (running) boots.set(running, (boots.get(running) ?? 0) + 1);
      // web-test-runner's own cache middleware (outside this one) marks every file cacheable for a year: the browser
      // would take the script from its cache and later boots would never reach the server to be counted
      const set = ctx.response.set.bind(ctx.response);
      ctx.response.set = (field, value) => set(field, typeof field === 'string' && field.toLowerCase() === 'cache-control' ? 'no-store' : value);
    }
    await next();
  };
  const begin = (s, t) => {
    started.set(s.id, { file: s.testFile, t, cpu: cpu() });
    running = s.testFile;
  };
  const reporter = {
    start({ sessions, startTime }) {
      // the reporter starts after the runner: the first files may already be under way
      for (const s of sessions.all()) if (s.status !== 'SCHEDULED') begin(s, startTime > 0 ? startTime : Date.now());
      sessions.on('session-status-updated', (s) => {
        if (s.status !== 'FINISHED' && !started.has(s.id)) begin(s, Date.now());
        if (s.status === 'FINISHED' && started.has(s.id)) {
          const { file: f, t, cpu: c0 } = started.get(s.id);
          const c1 = cpu();
          took.set(relative(process.cwd(), f), { secs: (Date.now() - t) / 1000, cpu: c0 === null || c1 === null ? null : c1 - c0, boots: boots.get(f) ?? 0 });
          if (running === f) running = null;
        }
      });
    },
    stop({ sessions = [] } = {}) {
      const rows = [...took].sort((a, b) => b[1].secs - a[1].secs);
      // the tests themselves (mocha's own durations; before() hooks are not in them)
      const tests = [];
      const walk = (f, suite, path) => {
        for (const t of suite?.tests ?? []) tests.push({ secs: (t.duration ?? 0) / 1000, name: `${f} › ${[...path, t.name].join(' › ')}` });
        for (const s of suite?.suites ?? []) walk(f, s, [...path, s.name]);
      };
      for (const s of sessions) walk(relative(process.cwd(), s.testFile), s.testResults, []);
      tests.sort((a, b) => b.secs - a.secs);
      const cpuText = (c) => (c === null ? '-' : c.toFixed(1));
      if (file) {
        const fileLines = rows.map(([f, r]) => `${r.secs.toFixed(1)}\t${cpuText(r.cpu)}\t${r.boots}\t${f}`);
        const testLines = tests.map((t) => `${t.secs.toFixed(1)}\t${t.name}`);
        writeFileSync(file, `wall s\tCPU s\tboots\tfile\n${fileLines.join('\n')}\n\ns\ttest\n${testLines.join('\n')}\n`);
      }
      if (rows.length === 0) return;
      const total = rows.reduce((a, [, r]) => a + r.secs, 0);
      const totalCpu = rows.every(([, r]) => r.cpu !== null) ? `, ${rows.reduce((a, [, r]) => a + r.cpu, 0).toFixed(0)} CPU-s` : '';
      const totalBoots = rows.reduce((a, [, r]) => a + r.boots, 0);
      out.write(`\nslowest browser test files (of ${rows.length}, ${total.toFixed(0)} s summed${totalCpu}, ${totalBoots} pool boots):\n`);
      for (const [f, r] of rows.slice(0, top)) out.write(`  ${r.secs.toFixed(1).padStart(6)} s  ${cpuText(r.cpu).padStart(6)} CPU-s  ${String(r.boots).padStart(2)} boots  ${f}\n`);
    },
  };
  return { reporter, middleware };
}
