/** The web-test-runner timings reporter (scripts/wtr-timings.mjs): per-file wall, CPU-s and boots, and the WTR_TIMINGS file. */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
// @ts-expect-error: a plain .mjs script without types
import { timingsFile, timingsReporter, treeCpuSeconds } from '../../scripts/wtr-timings.mjs';
import { scratchDir } from '../scratch.mjs';

interface Session {
  id: string;
  testFile: string;
  status: string;
  testResults?: { name: string; suites: unknown[]; tests: { name: string; duration?: number }[] };
}

/** Two files run one after the other; the first starts two pool workers, the second none. */
async function run(file?: string) {
  let cpu = 10;
  const written: string[] = [];
  const { reporter, middleware } = timingsReporter({ file, cpu: () => cpu, out: { write: (s: string) => written.push(s) } });
  const sessions = Object.assign(new EventEmitter(), { all: (): Session[] => [] });
  reporter.start({ sessions, startTime: Date.now() });
  const cwd = process.cwd();
  const a: Session = { id: 'a', testFile: join(cwd, 'test/browser/a.test.ts'), status: 'INITIALIZING' };
  const b: Session = { id: 'b', testFile: join(cwd, 'test/browser/b.test.ts'), status: 'INITIALIZING' };
  /** A request through the middleware, and the cache-control the server then sends (web-test-runner's cache middleware sets a year). */
  const request = async (path: string) => {
    const headers = new Map<string, string>();
    const ctx = { path, response: { set: (k: string, v: string) => headers.set(k, v) } };
    await middleware(ctx, async () => {});
    ctx.response.set('cache-control', 'public, max-age=31536000');
    return headers.get('cache-control');
  };
  sessions.emit('session-status-updated', a);
  assert.equal(await request('/workers/pool.worker.ts'), 'no-store', 'a boot is never served from the cache (it would not be counted)');
  assert.equal(await request('/workers/ingest.worker.ts'), 'public, max-age=31536000');
  await request('/workers/pool.worker.ts');
  await new Promise((r) => setTimeout(r, 30));
  cpu = 17.5;
  a.status = 'FINISHED';
  a.testResults = { name: '', suites: [], tests: [{ name: 'boots twice', duration: 25 }] };
  sessions.emit('session-status-updated', a);
  sessions.emit('session-status-updated', b);
  cpu = 18;
  b.status = 'FINISHED';
  b.testResults = { name: '', suites: [{ name: 'suite', suites: [], tests: [{ name: 'pure', duration: 4 }] }], tests: [] };
  sessions.emit('session-status-updated', b);
  await request('/workers/pool.worker.ts'); // after every file: counted for none
  reporter.stop({ sessions: [a, b] });
  return written.join('');
}

test('the summary lists each file slowest first with its CPU-seconds and pool boots', async () => {
  const printed = await run();
  assert.match(printed, /of 2, \d+ s summed, 8 CPU-s, 2 pool boots/);
  const rows = printed.split('\n').filter((l) => l.includes('test/browser/'));
  assert.equal(rows.length, 2);
  assert.match(rows[0], /^\s+\d+\.\d s\s+7\.5 CPU-s\s+2 boots\s+test\/browser\/a\.test\.ts$/);
  assert.match(rows[1], /^\s+\d+\.\d s\s+0\.5 CPU-s\s+0 boots\s+test\/browser\/b\.test\.ts$/);
});

test('WTR_TIMINGS=<file> writes every file and every test, and the summary still prints', async () => {
  const dir = scratchDir('wtr-timings-');
  const path = join(dir, 'timings.tsv');
  const printed = await run(path);
  assert.match(printed, /slowest browser test files/);
  const [files, tests] = readFileSync(path, 'utf8').trim().split('\n\n');
  assert.deepEqual(
    files.split('\n').map((l) => l.split('\t').slice(1)),
    [
      ['CPU s', 'boots', 'file'],
      ['7.5', '2', 'test/browser/a.test.ts'],
      ['0.5', '0', 'test/browser/b.test.ts'],
    ],
  );
  assert.match(files.split('\n')[1], /^0\.\d\t/);
  assert.deepEqual(tests.split('\n'), ['s\ttest', '0.0\ttest/browser/a.test.ts › boots twice', '0.0\ttest/browser/b.test.ts › suite › pure']);
});

test('WTR_TIMINGS=1 or true writes no file (it wrote one named 1)', () => {
  assert.equal(timingsFile('1'), undefined);
  assert.equal(timingsFile('TRUE'), undefined);
  assert.equal(timingsFile(''), undefined);
  assert.equal(timingsFile(undefined), undefined);
  assert.equal(timingsFile('/tmp/t.tsv'), '/tmp/t.tsv');
  assert.equal(timingsFile('10.tsv'), '10.tsv');
});

test('the process tree CPU counts a child that has ended', { skip: process.platform !== 'linux' }, async () => {
  const { execFileSync } = await import('node:child_process');
  const before = treeCpuSeconds();
  // a child that burns about 0.3 CPU-s and is reaped before the second reading
  execFileSync(process.execPath, ['-e', 'const t = process.cpuUsage(); while (process.cpuUsage(t).user < 300000);']);
  const after = treeCpuSeconds();
  assert.ok(after - before >= 0.25, `${before} → ${after}`);
});
