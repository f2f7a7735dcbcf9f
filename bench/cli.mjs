// CLI side of the benchmark (issue 22): `agentworld import` of the bench file on native DuckDB against native
// read_json_auto of the same file (ratio), the CLI's peak RSS, and the file split in 8 shards imported by 2
// processes in parallel (--shard 0/2, 1/2) against 1 process. `node bench/cli.mjs [--sizes 100] [--runs 3]`
// runs it alone (`node --import tsx bench/cli.mjs …`); `npm run bench` runs it unless `--skip cli`.
import { execFile } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';

const run = promisify(execFile);
const MAIN = 'src/cli/main.ts';

/** One CLI run under GNU time: wall ms, peak RSS bytes (of the largest process), and the CLI's JSON report. */
async function timed(args) {
  const t0 = performance.now();
  const r = await run('/usr/bin/time', ['-f', '%M', process.execPath, '--import', 'tsx', MAIN, ...args], {
    env: { ...process.env, AGENTWORLD_MAIN: '1' },
    maxBuffer: 256 << 20,
  }).catch((e) => e);
  const ms = performance.now() - t0;
  const kb = Number(String(r.stderr).trim().split('\n').at(-1));
  if (r.code && r.code !== 1) throw new Error(`agentworld ${args.join(' ')} failed: ${r.stderr}`);
  return { ms, peakRss: kb * 1024, report: JSON.parse(r.stdout) };
}

/** The file's lines dealt round-robin into `n` files (a folder the shards list). */
async function split(file, dir, n) {
  if (existsSync(join(dir, `part-${n - 1}.jsonl`))) return dir;
  mkdirSync(dir, { recursive: true });
  const outs = Array.from({ length: n }, (_, k) => createWriteStream(join(dir, `part-${k}.jsonl`)));
  let i = 0;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY })) {
    if (!outs[i % n].write(`${line}\n`)) await new Promise((ok) => outs[i % n].once('drain', ok));
    i++;
  }
  await Promise.all(outs.map((o) => new Promise((ok) => o.end(ok))));
  return dir;
}

export async function cliBench(file, dataDir, runs, log = console.log) {
  const pool = join(dataDir, 'cli-bench.duckdb');
  const imports = [];
  for (let i = 0; i < runs; i++) {
    rmSync(pool, { force: true });
    rmSync(`${pool}.wal`, { force: true });
    const r = await timed(['import', file, '--pool', pool, '--json']);
    const rep = r.report.reports[0];
    imports.push({ ms: r.ms, importMs: rep.ms, peakRss: r.peakRss, rows: rep.rows, added: rep.added, status: rep.status, timings: rep.timings });
    log(`CLI import run ${i + 1}: ${(r.ms / 1000).toFixed(1)} s wall (pipeline ${(rep.ms / 1000).toFixed(1)} s), ${rep.added} steps, peak RSS ${(r.peakRss / 1e6).toFixed(0)} MB`);
  }
  const shardDir = await split(file, `${file}.8-shards`, 8);
  const pools = [0, 1].map((k) => join(dataDir, `cli-2p-${k}.duckdb`));
  for (const p of [join(dataDir, 'cli-1p.duckdb'), ...pools]) rmSync(p, { force: true });
  const oneRun = await timed(['import', shardDir, '--pool', join(dataDir, 'cli-1p.duckdb'), '--json']);
  const t0 = performance.now();
  const two = await Promise.all([0, 1].map((k) => timed(['import', shardDir, '--shard', `${k}/2`, '--pool', pools[k], '--json'])));
  const twoMs = performance.now() - t0;
  const added2 = two.reduce((n, r) => n + r.report.added, 0);
  log(`CLI 8 shards: 1 process ${(oneRun.ms / 1000).toFixed(1)} s (${oneRun.report.added} steps), 2 processes ${(twoMs / 1000).toFixed(1)} s (${added2} steps): speed-up ${(oneRun.ms / twoMs).toFixed(2)}x`);
  return { imports, shards: { files: 8, oneProcessMs: oneRun.ms, twoProcessesMs: twoMs, speedup: oneRun.ms / twoMs, steps1: oneRun.report.added, steps2: added2 } };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { dataPath, generate } = await import('./gen.mjs');
  const { nativeImportExport } = await import('./native.mjs');
  const argv = process.argv.slice(2);
  const opt = (k, d) => (argv.includes(`--${k}`) ? argv[argv.indexOf(`--${k}`) + 1] : d);
  const runs = Number(opt('runs', 3));
  const results = {};
  for (const mb of opt('sizes', '100').split(',').map(Number)) {
    mkdirSync('bench/data', { recursive: true });
    const file = dataPath('bench/data', mb, 7);
    generate(file, mb, 7);
    const native = [];
    for (let i = 0; i < runs; i++) native.push((await nativeImportExport(file, join('bench/data', `native-${mb}mb.parquet`))).importMs);
    native.sort((a, b) => a - b);
    const cli = await cliBench(file, 'bench/data', runs);
    const wall = cli.imports.map((x) => x.ms).sort((a, b) => a - b);
    const med = (xs) => xs[Math.floor(xs.length / 2)];
    results[mb] = { nativeMs: med(native), cliMs: med(wall), ratio: med(wall) / med(native), peakRss: Math.max(...cli.imports.map((x) => x.peakRss)), fileBytes: (await import('node:fs')).statSync(file).size, ...cli };
    console.log(`${mb} MB: CLI ${(med(wall) / 1000).toFixed(1)} s vs native read_json_auto ${(med(native) / 1000).toFixed(2)} s: ${(med(wall) / med(native)).toFixed(1)}x; peak RSS ${(results[mb].peakRss / 1e6).toFixed(0)} MB for a ${(results[mb].fileBytes / 1e6).toFixed(0)} MB file`);
  }
  console.log(JSON.stringify(results, null, 1));
}
