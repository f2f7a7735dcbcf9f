/**
 * Per-query time of every export layout (the 12 cases of test/unit/pool-port.test.ts's golden loop), on both engines,
 * for a few fixtures: median CPU ms (the process's, engine threads and workers included: the machine is shared) of N runs of datasetSql
 * per case, after one warm-up.
 *   node --import tsx bench/layout-sql.ts [fixture…]   (default: core/chat.jsonl and formats/tau2-bench-results.json)
 * LAYOUT_BENCH_PLAN=1: time EXPLAIN (binding and optimizing, no rows) instead. LAYOUT_BENCH_CASES=sft,dpo+all (default all), LAYOUT_BENCH_RUNS (default 5), LAYOUT_BENCH_ENGINES=native|wasm|both (default both).
 */
import { readFileSync } from 'node:fs';
import { NativePool } from '../src/cli/native-pool';
import { datasetSql, LAYOUTS, type LayoutOptions, resolveLayoutOptions } from '../src/export/layouts';
import { ingestFile } from '../src/ingest/pipeline';
import type { PoolPort } from '../src/pool/port';
import { startPool } from '../test/unit/helpers/page-workers';

const CASES: [string, LayoutOptions][] = [
  ...(Object.keys(LAYOUTS) as (keyof typeof LAYOUTS)[]).map((layout): [string, LayoutOptions] => [layout, { layout }]),
  ...(Object.keys(LAYOUTS) as (keyof typeof LAYOUTS)[]).map((layout): [string, LayoutOptions] => [`${layout}+all`, { layout, validOnly: false, trainableOnly: false }]),
  ['sft per step', { layout: 'sft', sftPer: 'step' }],
  ['steps redacted', { layout: 'steps', redact: true }],
];
const fixtures = process.argv.slice(2).length ? process.argv.slice(2) : ['core/chat.jsonl', 'formats/tau2-bench-results.json'];
const RUNS = Number(process.env.LAYOUT_BENCH_RUNS ?? 5);
const which = process.env.LAYOUT_BENCH_ENGINES ?? 'both';
const plan = !!process.env.LAYOUT_BENCH_PLAN;
const only = process.env.LAYOUT_BENCH_CASES?.split(',');
const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function bench(name: string, p: PoolPort) {
  for (const f of fixtures) {
    await p.exec(['steps', 'trajectory_stats', 'curation', 'import_errors', 'imports', 'token_counts'].map((t) => `DELETE FROM ${t}`).join(';\n'));
    await ingestFile(new File([readFileSync(`test/fixtures/${f}`)], f.split('/').pop() as string), p);
    const [{ n } = { n: 0 }] = await p.rows('SELECT count(*)::INTEGER AS n FROM steps');
    const line: string[] = [];
    let total = 0;
    for (const [c, o] of CASES) {
      if (only && !only.includes(c)) continue;
      const opts = await resolveLayoutOptions((sql) => p.rows(sql), o);
      const sql = `${plan ? 'EXPLAIN ' : ''}${datasetSql(opts)}`;
      await p.rows(sql);
      const t: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t0 = process.cpuUsage();
        await p.rows(sql);
        const d = process.cpuUsage(t0);
        t.push((d.user + d.system) / 1000);
      }
      const m = median(t);
      total += m;
      line.push(`${c} ${m.toFixed(1)}`);
    }
    console.log(`${name} ${f} (${n} steps): total ${total.toFixed(0)} ms | ${line.join(' | ')}`);
  }
}

if (which !== 'wasm') {
  const p = await NativePool.open(':memory:');
  await bench('native', p);
  await (p as unknown as { close(): Promise<void> }).close();
}
if (which !== 'native') {
  const p = await startPool('bench');
  await bench('wasm', p);
  p.terminate();
}
process.exit(0);
