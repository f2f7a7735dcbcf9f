// `node bench/virtual-lists.mjs [--rows 1000000] [--runs 5] [--out f.json]`: our two hand-written virtual lists
// (aw-table, aw-trajectory-list) against the same rows through @lit-labs/virtualizer (bench/virtual-lists/page.ts),
// each in a fresh page of headless Chromium at 1 M rows. Per list: time to first rows, frame times and long animation
// frames while scrolling (real wheel steps, a steady drag, a fling), jumps (to the end and back), DOM nodes and
// JS heap. Prints medians over the runs and ours/virtualizer ratios (measured in the same run, so load cancels out).
// Not part of `npm test`; needs @lit-labs/virtualizer in node_modules (the project does not depend on it, decision 041).
import { createServer } from 'node:http';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { loadavg } from 'node:os';
import { build } from 'vite';
import { launch } from '../scripts/browser.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const ROWS = Number(arg('rows', 1_000_000));
const RUNS = Number(arg('runs', 5));
const root = resolve(import.meta.dirname, 'virtual-lists');
const outDir = resolve(import.meta.dirname, '../.tmp/virtual-lists');

const t0 = Date.now();
await build({ configFile: false, root, base: './', logLevel: 'warn', build: { outDir, emptyOutDir: true, target: 'es2022' } });
console.log(`built the page in ${((Date.now() - t0) / 1000).toFixed(1)} s (production mode, minified)`);

const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
const server = createServer((req, res) => {
  const path = join(outDir, decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/+/, '') || 'index.html');
  if (!path.startsWith(outDir) || !existsSync(path)) return res.writeHead(404).end();
  res.writeHead(200, { 'Content-Type': types[extname(path)] ?? 'application/octet-stream' }).end(readFileSync(path));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}/index.html`;

const IMPLS = [
  ['table', 'aw-table', 'vl-table'],
  ['trajectories', 'aw-trajectory-list', 'vl-trajectories'],
];

async function measure(context, impl) {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  await page.goto(`${base}?impl=${impl}&rows=${ROWS}`);
  await page.waitForFunction(() => window.vbench);
  await cdp.send('HeapProfiler.collectGarbage');
  const heap0 = (await cdp.send('Runtime.getHeapUsage')).usedSize;
  const mount = await page.evaluate(() => window.vbench.mount());
  // real wheel input: 80 notches of 100 px with the pointer over the list
  const c = await page.evaluate(() => window.vbench.center());
  await page.mouse.move(c.x, c.y);
  await page.evaluate(() => window.vbench.startRecording());
  for (let i = 0; i < 80; i++) await page.mouse.wheel(0, 100);
  const wheel = await page.evaluate(() => window.vbench.stopRecording());
  await page.evaluate(() => window.vbench.reset());
  const drag = await page.evaluate(() => window.vbench.steady(40, 150));
  const fling = await page.evaluate(() => window.vbench.steady(3000, 60));
  const jumps = await page.evaluate(() => window.vbench.jumps());
  const nodes = await page.evaluate(() => window.vbench.nodes());
  await cdp.send('HeapProfiler.collectGarbage');
  const heap1 = (await cdp.send('Runtime.getHeapUsage')).usedSize;
  const metrics = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  await page.close();
  return { mount, wheel, drag, fling, jumps, nodes, heapMB: (heap1 - heap0) / 2 ** 20, domNodes: metrics.Nodes, layoutMs: metrics.LayoutDuration * 1000, scriptMs: metrics.ScriptDuration * 1000 };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const results = { rows: ROWS, runs: RUNS, load: [loadavg()], byImpl: {} };
const { context, close } = await launch();
try {
  for (let run = 0; run < RUNS; run++) {
    // alternate which implementation goes first, so neither always meets the warmer (or busier) machine
    for (const [, ours, theirs] of IMPLS) {
      const order = run % 2 ? [theirs, ours] : [ours, theirs];
      for (const impl of order) {
        const r = await measure(context, impl);
        (results.byImpl[impl] ??= []).push(r);
        console.log(`run ${run + 1} ${impl.padEnd(19)} first rows ${r.mount.firstRowsMs.toFixed(0)} ms · wheel p95 ${r.wheel.p95.toFixed(1)} ms · drag p95 ${r.drag.p95.toFixed(1)} ms blank ${r.drag.blank} · fling p95 ${r.fling.p95.toFixed(1)} ms blank ${r.fling.blank} · jump ${median(r.jumps.ms).toFixed(0)} ms end ${r.jumps.endReached} · ${r.nodes} nodes · ${r.heapMB.toFixed(1)} MB`);
      }
    }
    results.load.push(loadavg());
  }
} finally {
  await close();
  server.close();
}

const rowsOut = [];
const pick = {
  'first rows ms': (r) => r.mount.firstRowsMs,
  'wheel frame p50 ms': (r) => r.wheel.p50,
  'wheel frame p95 ms': (r) => r.wheel.p95,
  'wheel frames > 33 ms': (r) => r.wheel.over33,
  'wheel long frames': (r) => r.wheel.longFrames,
  'drag frame p95 ms': (r) => r.drag.p95,
  'drag blank frames /150': (r) => r.drag.blank,
  'drag long frames': (r) => r.drag.longFrames,
  'fling frame p95 ms': (r) => r.fling.p95,
  'fling blank frames /60': (r) => r.fling.blank,
  'fling blocking ms': (r) => r.fling.blockingMs,
  'jump to content ms (median of 15)': (r) => median(r.jumps.ms),
  'jump frames (max of 15)': (r) => Math.max(...r.jumps.framesToContent),
  'end reached': (r) => (r.jumps.endReached ? 1 : 0),
  'scroll height px': (r) => r.mount.scrollHeight,
  'shadow DOM elements': (r) => r.nodes,
  'JS heap after mount+scroll MB': (r) => r.heapMB,
  'layout ms total': (r) => r.layoutMs,
  'script ms total': (r) => r.scriptMs,
};
for (const [name, ours, theirs] of IMPLS) {
  console.log(`\n${name}: median of ${RUNS} runs, ${ROWS.toLocaleString('en-US')} rows   ${ours} | ${theirs} | ratio`);
  for (const [label, f] of Object.entries(pick)) {
    const a = median(results.byImpl[ours].map(f));
    const b = median(results.byImpl[theirs].map(f));
    const line = `  ${label.padEnd(34)} ${a.toFixed(1).padStart(10)} | ${b.toFixed(1).padStart(10)} | ${b ? (a / b).toFixed(2) : '-'}`;
    console.log(line);
    rowsOut.push({ list: name, label, ours: a, virtualizer: b });
  }
}
console.log(`\nload (1/5/15 min) at start and after each run: ${results.load.map((l) => l.map((x) => x.toFixed(2)).join('/')).join('  ')}`);
const out = arg('out');
if (out) writeFileSync(out, JSON.stringify({ ...results, medians: rowsOut }, null, 1));
