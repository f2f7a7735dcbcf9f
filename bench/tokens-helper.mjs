// `node bench/tokens-helper.mjs [--mb 3] [--runs 3] [--no-build] [--cores]`: what BYTES_PER_HELPER (src/tokenizer/count-plan.ts)
// is derived from, in headless Chromium with the app's own flags (the bench's: no --liftoff-only) on a test build:
//   load   — a new tokenizer worker made ready with the bundled Qwen3 profile (worker start, the 11 MB tokenizer.json
//            fetched and parsed): what a helper costs before it counts anything; CPU-ms of the whole browser (a cpuacct
//            cgroup of this process and its children) and wall ms, one fresh page per run
//   count  — one worker (navigator.hardwareConcurrency forced to 1) counting a generated multi-turn file and the demo
//            data: content bytes (CONTENT_BYTES_SQL, the measure the service decides on) per second of wall and of CPU;
//            --cores: the generated file counted again with the page's own choice of workers
import { execSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { launch } from '../scripts/browser.mjs';
import { dataPath, generate } from './gen.mjs';
import { pageHooks, serveCached, stageFile, importStaged } from './probe.mjs';

const argv = process.argv.slice(2);
const opt = (k, d) => (argv.includes(`--${k}`) ? argv[argv.indexOf(`--${k}`) + 1] : d);
const MB = Number(opt('mb', 3));
const RUNS = Number(opt('runs', 3));
// the expression of src/tokenizer/count-plan.ts (read from it, so the bench measures what the service sums)
const src = readFileSync('src/tokenizer/count-plan.ts', 'utf8');
const CONTENT_BYTES_SQL = JSON.parse(`"${/const CONTENT_BYTES_SQL =\s*'([^']+)'/.exec(src)?.[1] ?? ''}"`);
if (!CONTENT_BYTES_SQL) throw new Error('CONTENT_BYTES_SQL not found in count-plan.ts');

if (!argv.includes('--no-build')) execSync('npx vite build --mode test', { stdio: ['ignore', 'ignore', 'inherit'] });
const cg = `/sys/fs/cgroup/cpuacct/tokhelp-bench-${process.pid}`;
mkdirSync(cg, { recursive: true });
writeFileSync(`${cg}/cgroup.procs`, String(process.pid));
const cpuMs = () => Number(readFileSync(`${cg}/cpuacct.usage`, 'utf8')) / 1e6;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const file = generate(dataPath('/tmp', MB, 7), MB, 7).path;
const server = await serveCached('dist');
let seq = 0;
// a browser of its own per page: a stored profile (IndexedDB) would be restored by the next page's boot
let browser = null;
async function page({ oneCore = false } = {}) {
  await browser?.close();
  browser = await launch();
  const p = await browser.context.newPage();
  await p.addInitScript(pageHooks);
  if (oneCore) await p.addInitScript(() => Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => 1 }));
  await p.goto(`${server.url}?pool=tokhelp-${Date.now().toString(36)}-${seq++}`);
  await p.waitForFunction(() => window.__readyAt !== undefined, null, { timeout: 120_000 });
  await p.waitForTimeout(1500); // the boot's own work settles
  return p;
}
const idleCpu = async (p, ms = 1000) => {
  const c0 = cpuMs();
  await p.waitForTimeout(ms);
  return (cpuMs() - c0) / ms;
};

try {
  const loads = [];
  for (let i = 0; i < RUNS; i++) {
    const p = await page();
    const idle = await idleCpu(p);
    const c0 = cpuMs();
    const wall = await p.evaluate(async () => {
      const t0 = performance.now();
      await window.workbench.setTokenizer({ bundled: 'qwen3' });
      return performance.now() - t0;
    });
    const cpu = cpuMs() - c0 - idle * wall;
    loads.push({ wall: Math.round(wall), cpu: Math.round(cpu) });
    await p.evaluate(() => window.workbench.tokenCounts());
    await p.close();
  }
  console.log(`load of the bundled Qwen3 profile in a new worker (ms): ${loads.map((l) => `${l.wall} wall / ${l.cpu} CPU`).join(', ')}; median ${median(loads.map((l) => l.wall))} wall, ${median(loads.map((l) => l.cpu))} CPU`);

  // the data imported before a profile is set (nothing counts it yet), then the profile, then one timed count
  const count = async (what, load, oneCore = true) => {
    const p = await page({ oneCore });
    await load(p);
    const [{ steps, bytes }] = await p.evaluate((sql) => window.workbench.query(`SELECT count(*)::INTEGER AS steps, sum(${sql})::BIGINT AS bytes FROM steps`), CONTENT_BYTES_SQL);
    const idle = await idleCpu(p, 500);
    // the count starts as the profile is set (its schedule(0) timer, taken over by tokenCounts at once)
    await p.evaluate(async () => {
      await window.workbench.setTokenizer({ bundled: 'qwen3' });
      const t0 = performance.now();
      window.__counted = window.workbench.tokenCounts().then((r) => ({ ms: performance.now() - t0, counted: r?.counted, workers: r?.workers }));
    });
    const c0 = cpuMs();
    const r = await p.evaluate(() => window.__counted);
    const cpu = cpuMs() - c0 - idle * r.ms;
    console.log(`${what}: ${steps} steps, ${(bytes / 1e6).toFixed(2)} MB of content, ${r.counted} counted by ${r.workers} worker(s) in ${r.ms.toFixed(0)} ms wall / ${cpu.toFixed(0)} ms CPU: ${(bytes / r.ms / 1e3).toFixed(2)} MB/s of wall, ${(bytes / cpu / 1e3).toFixed(2)} MB/s of CPU`);
    await p.close();
  };
  for (let i = 0; i < RUNS; i++) {
    await count('demo data', (p) => p.evaluate(() => window.workbench.loadDemoData()));
    await count(`${MB} MB generated file`, async (p) => {
      await stageFile(p, file);
      await importStaged(p);
    });
    // the page's own choice of workers (count-plan.ts) on the same file: more than one when it is over the threshold
    if (argv.includes('--cores')) {
      await count(`${MB} MB generated file, every core`, async (p) => {
        await stageFile(p, file);
        await importStaged(p);
      }, false);
    }
  }
} finally {
  await browser?.close();
  await server.close();
  writeFileSync(`/sys/fs/cgroup/cpuacct/cgroup.procs`, String(process.pid));
  rmdirSync(cg);
}
