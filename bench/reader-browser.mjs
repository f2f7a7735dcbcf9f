// The ingest reader stage by stage in a browser worker (headless Chromium, as users run it), beside Node's:
//   node --import tsx bench/reader-browser.mjs [file] [--reps 3] [--src bench/data/ref/src]
// Wall time of each pass in a dedicated worker (reader-browser-worker.ts over reader-stages-core.ts); a page has no
// CPU clock, so on a loaded machine read the ratios (the reader over its JSON.parse floor), not the milliseconds.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { build } from 'esbuild';
import { launch } from '../scripts/browser.mjs';
import { cpuSince, treeCpu } from './probe.mjs';
import { stageTable } from './reader-stages-core.ts';

const argv = process.argv.slice(2);
const path = argv.find((a, i) => !a.startsWith('--') && !argv[i - 1]?.startsWith('--')) ?? 'bench/data/chat-steps-100mb-s7.jsonl';
const reps = Number(argv[argv.indexOf('--reps') + 1]) || 3;
// --src DIR: the reader of another tree (e.g. `git archive <commit> src | tar -x -C bench/data/ref`), same passes
const src = argv.includes('--src') ? resolve(argv[argv.indexOf('--src') + 1]) : null;
const otherTree = {
  name: 'other-tree',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/src\// }, (a) => {
      if (!src || !a.importer.endsWith('reader-stages-core.ts')) return undefined;
      const path = resolve(src, `${a.path.slice('../src/'.length)}.ts`);
      // the Arrow encoding lived in ingest/ before it moved to record/
      return { path: existsSync(path) ? path : path.replace('/record/', '/ingest/') };
    });
  },
};
const worker = (await build({ entryPoints: ['bench/reader-browser-worker.ts'], bundle: true, format: 'iife', write: false, target: 'es2022', logLevel: 'error', plugins: [otherTree] })).outputFiles[0].text;
const html = '<!doctype html><input type="file" id="f"><script src="/worker.js"></script>';
// --main FILE.cpuprofile: run the passes on the page's main thread under the DevTools profiler instead of in a worker
const profileTo = argv.includes('--main') ? argv[argv.indexOf('--main') + 1] : null;
// --only K: run pass K alone (5: the whole reader), for a whole-process CPU comparison of two trees
const only = argv.includes('--only') ? Number(argv[argv.indexOf('--only') + 1]) : null;
const server = createServer((req, res) => {
  if (req.url === '/worker.js') return res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(worker);
  res.writeHead(200, { 'Content-Type': 'text/html' }).end(html);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const { context, close } = await launch();
try {
  const page = await context.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  await page.setInputFiles('#f', path);
  const load0 = loadavg()[0];
  // (the worker reads the file before the first pass: that is in the CPU figure of --only too)
  const cdp = profileTo ? await context.newCDPSession(page) : null;
  if (cdp) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
  }
  const cpu0 = treeCpu();
  const r = profileTo
    ? await page.evaluate((reps) => window.runStages(document.getElementById('f').files[0], reps), reps)
    : await page.evaluate(
    ({ reps, only }) =>
      new Promise((ok, fail) => {
        const w = new Worker('/worker.js');
        w.onmessage = (e) => ok(e.data);
        w.onerror = (e) => fail(new Error(e.message));
        w.postMessage({ file: document.getElementById('f').files[0], reps, only });
      }),
    { reps, only },
  );
  if (cdp) writeFileSync(profileTo, JSON.stringify((await cdp.send('Profiler.stop')).profile));
  console.log(`${path}, ${(readFileSync(path).length / 1e6).toFixed(0)} MB, ${reps} reps, Chromium worker, reader of ${src ?? 'this checkout'}, load ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)}`);
  if (only === null) console.log(stageTable(r.median, r.all, 'wall ms'));
  else console.log(`pass ${only} alone, wall ms: ${r.all[0].map((x) => x.toFixed(0)).join(' / ')}; CPU of the browser's processes ${(cpuSince(cpu0) / reps).toFixed(0)} ms a run`);
} finally {
  await close();
  server.close();
}
