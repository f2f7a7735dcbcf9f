// `node bench/coi.mjs [--runs 3] [--rows 80000] [--storage opfs,memory] [--builds eh,coi,coi2] [--out f.json]`:
// DuckDB-WASM's eh build against its threaded coi build (issue 13 item 4; docs/decisions/045-threads-coi.md) in
// headless Chromium on a cross-origin isolated page (COOP same-origin + COEP credentialless, as a service worker of ours
// would add). Each run is a fresh DuckDB worker (bench/coi/page.ts): instantiate, open, append step-like Arrow batches in
// one transaction, COMMIT, CHECKPOINT, scan all rows to Arrow, rollups over 1 M rows. The builds are interleaved (the
// order alternates per round) and the load average is recorded with every run: the machine is shared.
// Also asks the blocking API (the pool worker's) to instantiate the coi module. Not part of `npm test`.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { build } from 'vite';
import { launch } from '../scripts/browser.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const RUNS = Number(arg('runs', 3));
const ROWS = Number(arg('rows', 80_000));
const STORAGE = arg('storage', 'opfs').split(',');
const BUILDS = arg('builds', 'eh,coi,coi2').split(',');
const OUT = arg('out', null);
/** A run that has not answered by then is recorded as hung (with the stage it was in). */
const DEADLINE = Number(arg('deadline', 300)) * 1000;
const root = resolve(import.meta.dirname, 'coi');
const outDir = resolve(import.meta.dirname, '../.tmp/coi');

const t0 = Date.now();
await build({
  configFile: false,
  root,
  base: './',
  logLevel: 'error',
  resolve: { alias: { '@duckdb/duckdb-wasm/blocking': resolve(import.meta.dirname, '../node_modules/@duckdb/duckdb-wasm/dist/duckdb-browser-blocking.mjs') } },
  build: { outDir, emptyOutDir: true, target: 'es2022', assetsInlineLimit: 0 },
});
console.log(`built the page in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };
const isolate = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'credentialless' };
const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  const path = join(outDir, decodeURIComponent(url.pathname).replace(/^\/+/, '') || 'index.html');
  if (!path.startsWith(outDir) || !existsSync(path)) return res.writeHead(404).end();
  const headers = { 'Content-Type': types[extname(path)] ?? 'application/octet-stream', ...(url.searchParams.has('plain') ? {} : isolate) };
  res.writeHead(200, headers).end(readFileSync(path));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}/index.html`;

/** page.evaluate with a deadline: a build that hangs (no answer at all) is a result too. */
const within = (ms, p) => Promise.race([p, new Promise((_, no) => setTimeout(() => no(new Error(`no answer in ${ms / 1000} s`)), ms))]);
const { context, close } = await launch();
const results = [];
const seen = new Map();
try {
  const open = async (query = '') => {
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() !== 'error' && m.type() !== 'warning') return;
      const text = m.text().slice(0, 300);
      const n = (seen.get(text) ?? 0) + 1;
      seen.set(text, n);
      if (n === 1) console.log(`  [page ${m.type()}] ${text}`);
      else if (n === 2 || n === 1000) console.log(`  [page] (the message above again: ${n}×, not printed further)`);
    });
    await page.goto(base + query);
    await page.waitForFunction(() => window.coiBench);
    return page;
  };
  const plain = await open('?plain');
  console.log('page without COOP/COEP:', JSON.stringify(await plain.evaluate(() => window.coiBench.info())));
  await plain.close();
  const probe = await open();
  console.log('page with COOP/COEP:   ', JSON.stringify(await probe.evaluate(() => window.coiBench.info())));
  console.log('memory of each module:', JSON.stringify(await probe.evaluate(() => window.coiBench.memories())));
  const blocking = await within(120_000, probe.evaluate(() => window.coiBench.blockingCoi())).catch((e) => `hung: ${e.message}`);
  console.log("blocking API (the pool worker's) given duckdb-coi.wasm:", blocking);
  await probe.close();

  for (let round = 0; round < RUNS; round++) {
    const order = round % 2 ? [...BUILDS].reverse() : BUILDS;
    for (const storage of STORAGE) {
      for (const b of order) {
        const load = loadavg()[0];
        const page = await open();
        const r = await within(DEADLINE, page.evaluate((o) => window.coiBench.run(o), { build: b, storage, rows: ROWS, tag: `${b}-${storage}-${round}` })).catch(async (e) => ({
          build: b,
          storage,
          error: `${e.message}, in stage: ${await page.evaluate(() => window.coiStage).catch(() => '?')}`,
        }));
        await page.close();
        r.load = load;
        r.loadAfter = loadavg()[0];
        r.round = round;
        results.push(r);
        const f = (k) => (typeof r[k] === 'number' ? `${k} ${Math.round(r[k])}` : '');
        console.log(`round ${round + 1} ${b.padEnd(4)} ${storage.padEnd(6)} load ${load.toFixed(2)}→${r.loadAfter.toFixed(2)} threads ${r.threads ?? '?'}: ${['instantiate', 'open', 'append', 'commit', 'checkpoint', 'scan', 'rollupTable', 'rollups'].map(f).filter(Boolean).join(' · ')}${r.error ? ` ERROR ${r.error}` : ''} · rows ${r.check ?? '?'}${r.reopened ? ` · reopened ${r.reopened}` : ''}`);
      }
    }
  }
} finally {
  await close();
  server.close();
}

const KEYS = ['instantiate', 'open', 'append', 'commit', 'checkpoint', 'scan', 'rollupTable', 'rollup: summary', 'rollup: top 2,000 trajectories', 'rollup: per model', 'rollups', 'total'];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`\nmedians of ${RUNS} (ms; min–max), ${ROWS} rows:`);
for (const storage of STORAGE) {
  console.log(`\n| ${storage} | ${BUILDS.join(' | ')} |\n|---|${BUILDS.map(() => '---').join('|')}|`);
  for (const k of KEYS) {
    const cells = BUILDS.map((b) => {
      const xs = results.filter((r) => r.build === b && r.storage === storage && typeof r[k] === 'number').map((r) => r[k]);
      if (!xs.length) {
        const err = results.find((r) => r.build === b && r.storage === storage && r.error)?.error;
        return err ? `error` : '–';
      }
      return `${Math.round(median(xs))} (${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))})`;
    });
    console.log(`| ${k} | ${cells.join(' | ')} |`);
  }
  const loads = results.filter((r) => r.storage === storage).map((r) => r.load);
  console.log(`load average (1 min) at the runs' starts: ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)}`);
}
if (OUT) writeFileSync(OUT, `${JSON.stringify({ when: new Date().toISOString(), rows: ROWS, runs: RUNS, results }, null, 2)}\n`);
