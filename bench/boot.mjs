// `node bench/boot.mjs [--runs 3] [--no-build] [--before <other dist dir>] [--chrome-args "<flags>"]` (also the `start` section of `npm run bench`): time from
// navigation to `workbench.ready`, split into the stages the app marks (`aw:boot:*` performance marks,
// src/main.ts; the pool worker's stages come back in PoolStatus.boot), and the CPU time the browser's
// processes spent on it. Three cases per run, each in a fresh browser profile:
//   cold      new profile, new pool (a first visit: nothing cached);
//   warm      the same profile and pool again (a returning user);
//   new pool  the same profile, another pool (what every e2e page and browser-test pool pays);
//   after use the same profile and pool after a session that worked (the demo data imported, queries run, then
//             15 s idle): V8 has optimized part of DuckDB by then, and Chromium keeps that code beside the module
//             in its HTTP cache (decision 051), as for a user coming back after using the workbench.
// Prints medians beside the previous run's (bench/results-boot.json), or beside another build booted in
// turn with this one (--before), and writes bench/results-boot.json.
import { execSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { launch } from '../scripts/browser.mjs';
import { serve } from '../scripts/serve.mjs';
import { cpuSince, pageHooks, treeCpu } from './probe.mjs';

const CASES = ['cold', 'warm', 'newPool', 'afterUse'];
const STAGES = [
  ['load', 'page and script load (navigation → boot())', (m) => m.start],
  ['worker', 'pool worker start (boot() → worker evaluated)', (m) => m['worker-workerReady'] - m.start],
  ['instantiate', 'DuckDB wasm fetch + compile + instantiate', (m) => m['worker-instantiated'] - m['worker-workerReady']],
  ['open', 'open the OPFS database', (m) => m['worker-opened'] - m['worker-instantiated']],
  ['schema', 'prepare the schema', (m) => m['worker-schema'] - m['worker-opened']],
  ['  probe', '  read pool_meta (and probes)', (m) => m['worker-probed'] - m['worker-opened']],
  ['  ddl', '  the DDL batch (new or changed schema)', (m) => (m['worker-ddl'] ? m['worker-ddl'] - m['worker-probed'] : 0)],
  ['recover', 'recovery, stats check, settings', (m) => m['worker-done'] - m['worker-schema']],
  ['page', 'page side after the pool (gateway, services, mount)', (m) => m.ready - m['worker-done']],
  ['  gateway', '  the gateway: service worker registered and answering', (m) => m.gateway - m['pool-ready']],
  ['  services', '  services, the demo list', (m) => m['demo-manifest'] - m.gateway],
  ['  mount', '  the first render of the app', (m) => m.mounted - m['demo-manifest']],
];

const median = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return null;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function openTimed(context, url, errors) {
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  await page.addInitScript(pageHooks);
  const cpu0 = treeCpu();
  await page.goto(url);
  await page.waitForFunction(() => window.__readyAt !== undefined, null, { timeout: 120_000 });
  const cpu = cpuSince(cpu0);
  const t = await page.evaluate(() => ({
    ready: window.__readyAt,
    marks: Object.fromEntries(performance.getEntriesByType('mark').filter((e) => e.name.startsWith('aw:boot:')).map((e) => [e.name.slice(8), e.startTime])),
  }));
  if (t.ready < 0) throw new Error('the workbench failed to start');
  const stages = Object.fromEntries(STAGES.map(([k, , f]) => [k, f({ ...t.marks, ready: t.ready })]));
  return { page, ready: t.ready, cpu, stages };
}

/** Boot the app at `baseUrl` `runs` times per case; returns medians and every run. */
export async function bootBench(baseUrl, { runs = 3, log = console.log, extraArgs = [] } = {}) {
  const all = Object.fromEntries(CASES.map((c) => [c, []]));
  const errors = [];
  for (let i = 0; i < runs; i++) {
    const b = await launch({ extraArgs });
    try {
      const pool = `boot-${Date.now().toString(36)}-${i}`;
      const sep = baseUrl.includes('?') ? '&' : '?';
      const cold = await openTimed(b.context, `${baseUrl}${sep}pool=${pool}`, errors);
      await cold.page.close();
      const warm = await openTimed(b.context, `${baseUrl}${sep}pool=${pool}`, errors);
      await warm.page.close();
      const fresh = await openTimed(b.context, `${baseUrl}${sep}pool=${pool}-2`, errors);
      await fresh.page.close();
      const session = await openTimed(b.context, `${baseUrl}${sep}pool=${pool}`, errors);
      await session.page.evaluate(async () => {
        await window.workbench.loadDemoData();
        for (let k = 0; k < 20; k++) await window.workbench.query('SELECT model, count(*) AS n, avg(len(messages)) AS m FROM steps GROUP BY ALL ORDER BY n DESC');
      });
      await session.page.waitForTimeout(15_000);
      await session.page.close();
      const used = await openTimed(b.context, `${baseUrl}${sep}pool=${pool}`, errors);
      await used.page.close();
      for (const [c, r] of [['cold', cold], ['warm', warm], ['newPool', fresh], ['afterUse', used]]) {
        all[c].push({ ready: r.ready, cpu: r.cpu, stages: r.stages });
        log(`boot run ${i + 1} ${c}: ready ${r.ready.toFixed(0)} ms, CPU ${r.cpu} ms, ${STAGES.map(([k]) => `${k} ${r.stages[k]?.toFixed(0)}`).join(', ')}`);
      }
    } finally {
      await b.close();
    }
  }
  if (errors.length) throw new Error(`page errors during the boot bench: ${errors.join('; ')}`);
  return { runs, summary: summarize(all), all };
}

/** Medians per case and stage of bootBench's runs (`all`). */
export function summarize(all) {
  return Object.fromEntries(
    CASES.map((c) => [
      c,
      {
        ready: median(all[c].map((r) => r.ready)),
        readyRange: [Math.min(...all[c].map((r) => r.ready)), Math.max(...all[c].map((r) => r.ready))],
        cpu: median(all[c].map((r) => r.cpu)),
        stages: Object.fromEntries(STAGES.map(([k]) => [k, median(all[c].map((r) => r.stages[k]))])),
      },
    ]),
  );
}

/** The table of `now` beside `before` (either's summary; before may be null). */
export function bootTable(now, before) {
  const f = (x) => (x == null ? '–' : `${Math.round(x)}`);
  const rows = [['', ...CASES.flatMap((c) => [`${c} ms`, 'before'])]];
  rows.push(['workbench.ready', ...CASES.flatMap((c) => [f(now[c].ready), f(before?.[c]?.ready)])]);
  for (const [k, what] of STAGES) rows.push([`  ${k}: ${what}`, ...CASES.flatMap((c) => [f(now[c].stages[k]), f(before?.[c]?.stages?.[k])])]);
  rows.push(['CPU time of the browser, ms', ...CASES.flatMap((c) => [f(now[c].cpu), f(before?.[c]?.cpu)])]);
  const w = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((x, i) => (i ? x.padStart(w[i]) : x.padEnd(w[i]))).join('  ')).join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const argv = process.argv.slice(2);
  const runs = Number(argv[argv.indexOf('--runs') + 1] || 3) || 3;
  const i = argv.indexOf('--chrome-args');
  // e.g. --chrome-args '--js-flags=--wasm-caching-threshold=1000' (an experiment: written to another file)
  const extraArgs = i >= 0 ? argv[i + 1].split(' ').filter(Boolean) : [];
  const out = extraArgs.length ? 'bench/results-boot-flags.json' : 'bench/results-boot.json';
  if (!argv.includes('--no-build')) execSync('npx vite build --mode test --logLevel warn', { stdio: 'inherit' });
  const before = existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : null;
  // --before <dir>: another build (e.g. the previous commit's dist/), booted in turn with this one in the
  // same minutes, so both columns see the same machine load
  const j = argv.indexOf('--before');
  const beforeDir = j >= 0 ? argv[j + 1] : null;
  const srv = await serve('dist', { base: '/workbench/' });
  const old = beforeDir ? await serve(beforeDir, { base: '/workbench/' }) : null;
  const load = loadavg()[0];
  try {
    const now = Object.fromEntries(CASES.map((c) => [c, []]));
    const then = Object.fromEntries(CASES.map((c) => [c, []]));
    for (let k = 0; k < runs; k++) {
      for (const [url, into, what] of [[srv.url, now, 'this build'], ...(old ? [[old.url, then, beforeDir]] : [])]) {
        const r = await bootBench(url, { runs: 1, extraArgs, log: (m) => console.log(`${what}: ${m}`) });
        for (const c of CASES) into[c].push(...r.all[c]);
      }
    }
    const summary = summarize(now);
    const previous = old ? { date: 'same run', dir: beforeDir, summary: summarize(then), all: then } : before ? { date: before.date, summary: before.summary } : null;
    const result = { date: new Date().toISOString(), extraArgs, loadAtStart: load, loadAtEnd: loadavg()[0], runs, summary, all: now, previous };
    console.log(`\nboot, median of ${runs} (load ${load.toFixed(1)} → ${result.loadAtEnd.toFixed(1)}); before: ${previous ? `${previous.dir ?? 'bench/results-boot.json'} (${previous.date})` : 'none'}`);
    console.log(bootTable(summary, previous?.summary));
    writeFileSync(out, `${JSON.stringify(result, null, 1)}\n`);
  } finally {
    await srv.close();
    await old?.close();
  }
}
