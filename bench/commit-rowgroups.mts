// Where an import's COMMIT goes, by the target database's row group size (issue 13, commit latency): the steps of a
// pool (`--src`, e.g. one the CLI imported) appended into an empty `steps` inside one transaction, in batches as the
// page appends them, on one thread; prints the longest append, the COMMIT and the CHECKPOINT per row group size.
//   node --import tsx bench/commit-rowgroups.mts --src /tmp/rg/pool.duckdb [--sizes default,16384,4096] [--batch 2000]
import { DuckDBInstance } from '@duckdb/node-api';
import { rmSync, statSync } from 'node:fs';

const argv = process.argv.slice(2);
const opt = (k: string, d: string) => (argv.includes(`--${k}`) ? (argv[argv.indexOf(`--${k}`) + 1] as string) : d);
const SRC = opt('src', '/tmp/rg/pool.duckdb');
const SIZES = opt('sizes', 'default,16384,4096').split(',');
const BATCH = Number(opt('batch', '2000'));
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run('SET threads=1');
await c.run(`ATTACH '${SRC}' AS src (READ_ONLY)`);
const n = Number((await c.runAndReadAll('SELECT count(*) FROM src.steps')).getRows()[0]?.[0]);
await c.run(`CREATE TEMP TABLE src_rows AS SELECT row_number() OVER () AS rn, * FROM src.steps`);
for (const size of [...SIZES, ...SIZES]) {
  const path = `/tmp/rg/target-${size}.db`;
  rmSync(path, { force: true });
  rmSync(`${path}.wal`, { force: true });
  await c.run(`ATTACH '${path}' AS t ${size === 'default' ? '' : `(ROW_GROUP_SIZE ${size})`}`);
  await c.run('CREATE TABLE t.steps AS SELECT * FROM src.steps LIMIT 0');
  await c.run('CHECKPOINT t');
  await c.run('BEGIN');
  let longest = 0;
  let appends = 0;
  const t0 = performance.now();
  for (let at = 1; at <= n; at += BATCH) {
    const a = performance.now();
    await c.run(`INSERT INTO t.steps SELECT * EXCLUDE (rn) FROM src_rows WHERE rn BETWEEN ${at} AND ${at + BATCH - 1}`);
    longest = Math.max(longest, performance.now() - a);
    appends += performance.now() - a;
  }
  const b = performance.now();
  await c.run('COMMIT');
  const commit = performance.now() - b;
  const walBytes = (() => { try { return statSync(`${path}.wal`).size; } catch { return 0; } })();
  const d = performance.now();
  await c.run('CHECKPOINT t');
  const checkpoint = performance.now() - d;
  const rows = Number((await c.runAndReadAll('SELECT count(*) FROM t.steps')).getRows()[0]?.[0]);
  await c.run('DETACH t');
  console.log(JSON.stringify({ rowGroupSize: size, rows, appendsMs: Math.round(appends), longestAppendMs: Math.round(longest), commitMs: Math.round(commit), walMB: +(walBytes / 1e6).toFixed(1), checkpointMs: Math.round(checkpoint), fileMB: +(statSync(path).size / 1e6).toFixed(1), totalMs: Math.round(performance.now() - t0) }));
}
