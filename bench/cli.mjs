// CLI side of the benchmark (issue 22): `agentworld import` of the bench file on native DuckDB against native
// read_json_auto of the same file (ratio), the CLI's peak RSS, and the file split in 8 shards imported by 2
// processes in parallel (--shard 0/2, 1/2) against 1 process. `node bench/cli.mjs [--sizes 100] [--runs 3] [--memory-limit 128MB]
// [--out bench/results-cli.json]` writes its figures there and prints the previous run's (that file's) beside them;
// runs it alone (`node --import tsx bench/cli.mjs …`: the native side reads TypeScript); `npm run bench` runs it unless `--skip cli`. The CLI runs as users run it (bin/agentworld.mjs: the
// precompiled bundle), and each run prints where its time went (the report's timings: hashed, read, appended,
// committed) and the CPU time of the process tree (user + sys), which on a shared machine says more than wall time.
import { execFile } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';

const run = promisify(execFile);
const BIN = 'bin/agentworld.mjs';

/** One CLI run under GNU time: wall ms, peak RSS bytes (of the largest process), and the CLI's JSON report. */
async function timed(args) {
  const t0 = performance.now();
  const r = await run('/usr/bin/time', ['-f', '%M %U %S', process.execPath, BIN, ...args], { maxBuffer: 256 << 20 }).catch((e) => e);
  const ms = performance.now() - t0;
  const [kb, user, sys] = String(r.stderr).trim().split('\n').at(-1).split(' ').map(Number);
  if (r.code && r.code !== 1) throw new Error(`agentworld ${args.join(' ')} failed: ${r.stderr}`);
  return { ms, cpuMs: (user + sys) * 1000, peakRss: kb * 1024, report: JSON.parse(r.stdout) };
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

/** `extra`: more flags for each import run (e.g. `--memory-limit 128MB`). */
export async function cliBench(file, dataDir, runs, log = console.log, extra = []) {
  const pool = join(dataDir, 'cli-bench.duckdb');
  const imports = [];
  for (let i = 0; i < runs; i++) {
    rmSync(pool, { force: true });
    rmSync(`${pool}.wal`, { force: true });
    const load0 = loadavg()[0];
    const r = await timed(['import', file, '--pool', pool, '--json', ...extra]);
    const rep = r.report.reports[0];
    // the pool's bytes per input byte (decision 046: the storage version sets them)
    const poolBytes = statSync(pool).size;
    imports.push({ ms: r.ms, cpuMs: r.cpuMs, importMs: rep.ms, peakRss: r.peakRss, rows: rep.rows, added: rep.added, status: rep.status, shards: rep.shards, timings: rep.timings, poolBytes });
    const t = rep.timings ?? {};
    const s = (x) => (x == null ? '?' : (x / 1000).toFixed(1));
    // the commit's stages (decision 044: the staged batches' INSERT is its first), and the machine's load meanwhile
    const stages = Object.entries(t.commit ?? {}).map(([k, ms]) => `${k} ${s(ms)}`).join(', ');
    imports.at(-1).load = [load0, loadavg()[0]];
    log(
      `CLI import run ${i + 1}: ${(r.ms / 1000).toFixed(1)} s wall (pipeline ${(rep.ms / 1000).toFixed(1)} s: hashed ${s(t.hashed)}, read ${s(t.read)}, appended ${s(t.appended)}, committed ${s(t.committed)}${stages ? ` [commit: ${stages}]` : ''}; ${rep.shards ?? 1} reader(s)), ` +
        `${(r.cpuMs / 1000).toFixed(1)} CPU-s, ${rep.added} steps${rep.status === 'done' ? '' : ` (${rep.status}: ${String(rep.message).split('\n')[0]})`}, peak RSS ${(r.peakRss / 1e6).toFixed(0)} MB, ` +
        `pool ${(poolBytes / 1e6).toFixed(0)} MB, load ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)}`,
    );
  }
  const shardDir = await split(file, `${file}.8-shards`, 8);
  const pools = [0, 1].map((k) => join(dataDir, `cli-2p-${k}.duckdb`));
  for (const p of [join(dataDir, 'cli-1p.duckdb'), ...pools]) rmSync(p, { force: true });
  const load0 = loadavg()[0];
  const oneRun = await timed(['import', shardDir, '--pool', join(dataDir, 'cli-1p.duckdb'), '--json', ...extra]);
  const t0 = performance.now();
  const two = await Promise.all([0, 1].map((k) => timed(['import', shardDir, '--shard', `${k}/2`, '--pool', pools[k], '--json', ...extra])));
  const twoMs = performance.now() - t0;
  const added2 = two.reduce((n, r) => n + r.report.added, 0);
  const mb = (x) => `${(x / 1e6).toFixed(0)} MB`;
  log(
    `CLI 8 shards: 1 process ${(oneRun.ms / 1000).toFixed(1)} s (${oneRun.report.added} steps, peak RSS ${mb(oneRun.peakRss)}), 2 processes ${(twoMs / 1000).toFixed(1)} s ` +
      `(${added2} steps, peak RSS ${two.map((r) => mb(r.peakRss)).join(' + ')}): speed-up ${(oneRun.ms / twoMs).toFixed(2)}x, load ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)}`,
  );
  const shards = { files: 8, oneProcessMs: oneRun.ms, twoProcessesMs: twoMs, speedup: oneRun.ms / twoMs, steps1: oneRun.report.added, steps2: added2 };
  return { imports, shards: { ...shards, peakRss1: oneRun.peakRss, peakRss2: two.map((r) => r.peakRss), load: [load0, loadavg()[0]] } };
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
    const nativeCpu = [];
    const native1 = [];
    for (let i = 0; i < runs; i++) {
      // DuckDB's default threads, then threads=1 (the second baseline: one engine thread, no parallel JSON reader)
      const c0 = process.cpuUsage();
      native.push((await nativeImportExport(file, join('bench/data', `native-${mb}mb.parquet`))).importMs);
      const c = process.cpuUsage(c0);
      nativeCpu.push((c.user + c.system) / 1000);
      native1.push((await nativeImportExport(file, join('bench/data', `native-${mb}mb.parquet`), { threads: 1 })).importMs);
    }
    native.sort((a, b) => a - b);
    nativeCpu.sort((a, b) => a - b);
    native1.sort((a, b) => a - b);
    const load0 = loadavg()[0];
    const cli = await cliBench(file, 'bench/data', runs, console.log, opt('memory-limit') ? ['--memory-limit', opt('memory-limit')] : []);
    const wall = cli.imports.map((x) => x.ms).sort((a, b) => a - b);
    const med = (xs) => xs[Math.floor(xs.length / 2)];
    const cpu = cli.imports.map((x) => x.cpuMs).sort((a, b) => a - b);
    console.log(`${mb} MB CPU time: CLI ${(med(cpu) / 1000).toFixed(1)} s vs native (import + Parquet copy) ${(med(nativeCpu) / 1000).toFixed(1)} s`);
    const poolBytes = med(cli.imports.map((x) => x.poolBytes));
    results[mb] = { nativeMs: med(native), nativeCpuMs: med(nativeCpu), native1Ms: med(native1), cliMs: med(wall), cliCpuMs: med(cpu), ratio: med(wall) / med(native), ratio1: med(wall) / med(native1), peakRss: Math.max(...cli.imports.map((x) => x.peakRss)), fileBytes: statSync(file).size, poolBytes, load: [load0, loadavg()[0]], ...cli };
    console.log(`${mb} MB: CLI ${(med(wall) / 1000).toFixed(1)} s vs native read_json_auto ${(med(native) / 1000).toFixed(2)} s: ${(med(wall) / med(native)).toFixed(1)}x (threads=1: ${(med(native1) / 1000).toFixed(2)} s, ${(med(wall) / med(native1)).toFixed(1)}x); peak RSS ${(results[mb].peakRss / 1e6).toFixed(0)} MB for a ${(results[mb].fileBytes / 1e6).toFixed(0)} MB file`);
  }
  console.log(JSON.stringify(results, null, 1));
  const out = opt('out', 'bench/results-cli.json');
  const before = existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : null;
  if (before) for (const line of compare(results, before)) console.log(line);
  const commit = await run('git', ['rev-parse', '--short', 'HEAD']).then((r) => r.stdout.trim(), () => null);
  writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), commit, options: { runs, memoryLimit: opt('memory-limit') ?? null }, sizes: results }, null, 1)}\n`);
}

/** This run's figures beside the previous run's (the results file before it is overwritten). */
function compare(now, before) {
  const lines = [`now vs the previous run (${before.date}, ${before.commit ?? '?'}):`];
  const f = (x, d, k = 1000, u = 's') => (x == null ? '–' : `${(x / k).toFixed(d)} ${u}`);
  for (const [mb, r] of Object.entries(now)) {
    const b = before.sizes?.[mb];
    if (!b) continue;
    const pair = (label, x, y, d, k, u) => `${label} ${f(x, d, k, u)} (was ${f(y, d, k, u)})`;
    lines.push(
      `  ${mb} MB: ${pair('CLI wall', r.cliMs, b.cliMs, 1)}, ${pair('CPU', r.cliCpuMs, b.cliCpuMs, 1)}, ${pair('peak RSS', r.peakRss, b.peakRss, 0, 1e6, 'MB')}, ` +
        `${pair('pool', r.poolBytes, b.poolBytes, 0, 1e6, 'MB')}, ${pair('native wall', r.nativeMs, b.nativeMs, 2)}, ${pair('native threads=1', r.native1Ms, b.native1Ms, 2)}, ` +
        `8 shards 2 vs 1 process ${r.shards.speedup.toFixed(2)}x (was ${b.shards?.speedup?.toFixed(2) ?? '–'}x)`,
    );
  }
  return lines;
}
