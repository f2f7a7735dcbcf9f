// web-test-runner reporter: wall time per test file (from its session starting to finish), printed slowest first
// when the run stops. web-test-runner prints no per-file times of its own; docs/testing.md keeps the table.
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';

export function timingsReporter({ top = 12, file = process.env.WTR_TIMINGS } = {}) {
  const started = new Map();
  const took = new Map();
  return {
    start({ sessions, startTime }) {
      // the reporter starts after the runner: the first files may already be under way
      for (const s of sessions.all()) if (s.status !== 'SCHEDULED') started.set(s.id, { file: s.testFile, t: startTime > 0 ? startTime : Date.now() });
      sessions.on('session-status-updated', (s) => {
        if (s.status !== 'FINISHED' && !started.has(s.id)) started.set(s.id, { file: s.testFile, t: Date.now() });
        if (s.status === 'FINISHED' && started.has(s.id)) {
          const { file: f, t } = started.get(s.id);
          took.set(relative(process.cwd(), f), (Date.now() - t) / 1000);
        }
      });
    },
    stop({ sessions = [] } = {}) {
      const rows = [...took].sort((a, b) => b[1] - a[1]);
      // the tests themselves (mocha's own durations; before() hooks are not in them)
      const tests = [];
      const walk = (f, suite, path) => {
        for (const t of suite?.tests ?? []) tests.push([(t.duration ?? 0) / 1000, `${f} › ${[...path, t.name].join(' › ')}`]);
        for (const s of suite?.suites ?? []) walk(f, s, [...path, s.name]);
      };
      for (const s of sessions) walk(relative(process.cwd(), s.testFile), s.testResults, []);
      tests.sort((a, b) => b[0] - a[0]);
      const lines = (list) => list.map(([secs, f]) => `${secs.toFixed(1)}\t${f}`).join('\n');
      if (file) writeFileSync(file, `${lines(rows)}\n\n${lines(tests)}\n`);
      if (rows.length === 0) return;
      const total = rows.reduce((a, [, s]) => a + s, 0);
      process.stdout.write(`\nslowest browser test files (of ${rows.length}, ${total.toFixed(0)} s summed):\n`);
      for (const [f, s] of rows.slice(0, top)) process.stdout.write(`  ${s.toFixed(1).padStart(6)} s  ${f}\n`);
    },
  };
}
