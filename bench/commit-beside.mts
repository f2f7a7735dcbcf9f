// What an import built beside the pool would cost the pool (issue 34 item 1), natively, one thread, storage v1.4.0:
// the steps of a pool the CLI imported (`--src`) go into a fresh pool file
//   today:  appended in batches inside one transaction, then COMMIT (the page's import);
//   beside: built in a file of its own (a second engine: appends, COMMIT, CHECKPOINT), then ATTACHed READ_ONLY by the
//           pool and copied in with one INSERT … SELECT and COMMIT — the pool's share is the copy and the commit.
// Each pool file is made with the given row group size; the longest statement the pool runs is what a query waits for.
//   node --import tsx bench/commit-beside.mts --src /tmp/beside/pool.duckdb [--engine native|wasm] [--sizes default,16384,8192] [--batch 4000]
import { rmSync, statSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';

const argv = process.argv.slice(2);
const opt = (k: string, d: string) => (argv.includes(`--${k}`) ? (argv[argv.indexOf(`--${k}`) + 1] as string) : d);
const SRC = opt('src', '/tmp/beside/pool.duckdb');
const SIZES = opt('sizes', 'default,16384,8192').split(',');
const BATCH = Number(opt('batch', '4000'));
const DIR = opt('dir', '/tmp/beside');
const ENGINE = opt('engine', 'native');
/** One connection of either engine: native DuckDB (one thread) or the page's DuckDB-WASM (its Node build, files on disk). */
async function connect(): Promise<{ run(sql: string): Promise<unknown>; runAndReadAll(sql: string): Promise<{ getRows(): unknown[][] }> }> {
  if (ENGINE === 'native') {
    const db = await DuckDBInstance.create(':memory:', { threads: '1', storage_compatibility_version: 'v1.4.0' });
    return db.connect();
  }
  const { createRequire } = await import('node:module');
  const require = createRequire(import.meta.url);
  const duck = require('@duckdb/duckdb-wasm/dist/duckdb-node-blocking.cjs');
  const wasm = require.resolve('@duckdb/duckdb-wasm/dist/duckdb-eh.wasm');
  const { existsSync, statSync: stat } = await import('node:fs');
  const present = (f: string) => existsSync(f) && stat(f).size > 0; // an empty file is one the runtime made: missing
  // the Node runtime answers "no such file" to every existence check: answer from the disk, so ATTACH opens them
  // (and its open "if it exists" never opens one it has no descriptor for yet)
  const node = duck.NODE_RUNTIME;
  const runtime = {
    ...node,
    ...(process.env.TRACE_FILES ? { truncateFile: (mod: unknown, id: number, n: number) => { console.error('truncate', node.resolveFileInfo(mod, id)?.dataUrl, n); return node.truncateFile(mod, id, n); }, closeFile: (mod: unknown, id: number) => { console.error('close', node.resolveFileInfo(mod, id)?.dataUrl); return node.closeFile(mod, id); } } : {}),
    checkFile: (mod: unknown, ptr: number, len: number) => present(duck.readString(mod, ptr, len)),
    openFile: (mod: unknown, id: number, flags: number) => {
      const info = node.resolveFileInfo(mod, id);
      if (process.env.TRACE_FILES) console.error('open', info?.dataUrl, flags);
      if (flags & 128) {
        // a probe: a missing or empty file (an empty WAL: decision 049) is missing; one with bytes opens
        if (!info || !present(info.dataUrl)) return 0;
        return node.openFile(mod, id, flags & ~128);
      }
      return node.openFile(mod, id, flags);
    },
  };
  const w = await duck.createDuckDB({ mvp: { mainModule: wasm, mainWorker: '' }, eh: { mainModule: wasm, mainWorker: '' } }, new duck.ConsoleLogger(duck.LogLevel.ERROR), runtime);
  await w.instantiate(() => {});
  w.open({});
  const conn = w.connect();
  conn.query("SET storage_compatibility_version = 'v1.4.0'");
  return {
    run: async (sql) => conn.query(sql),
    runAndReadAll: async (sql) => ({ getRows: () => conn.query(sql).toArray().map((row: { toArray(): unknown[] }) => Object.values(row.toJSON ? row.toJSON() : row)) }),
  };
}
const c = await connect();
await c.run(`ATTACH '${SRC}' AS src (READ_ONLY)`);
await c.run(`CREATE TEMP TABLE src_rows AS SELECT row_number() OVER () AS rn, * FROM src.steps`);
const n = Number((await c.runAndReadAll('SELECT count(*) FROM src_rows')).getRows()[0]?.[0]);

const fresh = async (name: string, size: string, iter: number) => {
  const path = `${DIR}/${name}-${iter}.db`;
  rmSync(path, { force: true });
  rmSync(`${path}.wal`, { force: true });
  await c.run(`ATTACH '${path}' AS ${name} ${size === 'default' ? '' : `(ROW_GROUP_SIZE ${size})`}`);
  await c.run(`CREATE TABLE ${name}.steps AS SELECT * FROM src.steps LIMIT 0`);
  await c.run(`CHECKPOINT ${name}`);
  return path;
};
const timed = async (sql: string) => {
  const t = performance.now();
  await c.run(sql);
  return performance.now() - t;
};
/** Appends in batches inside one transaction, then COMMIT: [total appends, longest append, commit]. */
const appendAll = async (into: string) => {
  await c.run('BEGIN');
  let total = 0;
  let longest = 0;
  for (let at = 1; at <= n; at += BATCH) {
    const ms = await timed(`INSERT INTO ${into}.steps SELECT * EXCLUDE (rn) FROM src_rows WHERE rn BETWEEN ${at} AND ${at + BATCH - 1}`);
    total += ms;
    longest = Math.max(longest, ms);
  }
  return { appends: total, longestAppend: longest, commit: await timed('COMMIT') };
};
const r = (x: number) => Math.round(x);

for (const [iter, size] of [...SIZES, ...SIZES].entries()) {
  // new names each round: duckdb-wasm keeps a detached file locked
  // today: the pool appends and commits
  const todayPath = await fresh('today', size, iter);
  const today = await appendAll('today');
  const todayCheckpoint = await timed('CHECKPOINT today');
  await c.run('DETACH today');

  // beside: a second engine builds the import's file (any row group size: its own), the pool copies it in
  const impPath = await fresh('imp', 'default', iter);
  const built = await appendAll('imp');
  const impCheckpoint = await timed('CHECKPOINT imp');
  // duckdb-wasm keeps the file locked after DETACH: the wasm run reads the import's file as its builder left it
  // attached (a page's second engine is another instance; the pool would attach it READ_ONLY)
  let attach = 0;
  if (ENGINE === 'native') await c.run('DETACH imp');
  const poolPath = await fresh('pool', size, iter);
  if (ENGINE === 'native') attach = await timed(`ATTACH '${impPath}' AS imp (READ_ONLY)`);
  await c.run('BEGIN');
  const copy = await timed('INSERT INTO pool.steps SELECT * FROM imp.steps');
  const commit = await timed('COMMIT');
  const poolCheckpoint = await timed('CHECKPOINT pool');
  // attached: the import's file stays attached and the pool's steps becomes a view over its table and the import's,
  // in one transaction (the import's trajectory stats, one row per trajectory, made by its engine, copied in)
  const statsBuilt = await timed(`CREATE TABLE imp.stats AS SELECT trajectory_uid, count(*) AS n_steps, max(step_index) AS last_index, any_value(model) AS model, sum(reward) AS reward FROM imp.steps GROUP BY ALL`);
  const segPath = await fresh('seg', size, iter);
  await c.run(`CREATE TABLE seg.stats AS SELECT * FROM imp.stats LIMIT 0`);
  await c.run('BEGIN');
  const swap = await timed(`ALTER TABLE seg.steps RENAME TO steps_base`);
  const view = await timed(`CREATE VIEW seg.steps AS SELECT * FROM seg.steps_base UNION ALL SELECT * FROM imp.steps`);
  const stats = await timed(`INSERT INTO seg.stats SELECT * FROM imp.stats`);
  const segCommit = await timed('COMMIT');
  // a query over the view against the same over the copied table
  const q = (db: string) => `SELECT model, count(*) AS n, count(DISTINCT trajectory_uid) AS t, avg(reward) AS r, max(length(response_text)) AS l FROM ${db}.steps GROUP BY ALL`;
  const viewQuery = Math.min(await timed(q('seg')), await timed(q('seg')));
  const tableQuery = Math.min(await timed(q('pool')), await timed(q('pool')));
  await c.run('DETACH seg');
  await c.run('DETACH imp');
  await c.run('DETACH pool');
  console.log(JSON.stringify({
    engine: ENGINE, rowGroupSize: size, rows: n,
    today: { appendsMs: r(today.appends), longestAppendMs: r(today.longestAppend), commitMs: r(today.commit), checkpointMs: r(todayCheckpoint), fileMB: +(statSync(todayPath).size / 1e6).toFixed(1) },
    beside: {
      secondEngine: { appendsMs: r(built.appends), commitMs: r(built.commit), checkpointMs: r(impCheckpoint), fileMB: +(statSync(impPath).size / 1e6).toFixed(1) },
      pool: { attachMs: r(attach), copyMs: r(copy), commitMs: r(commit), checkpointMs: r(poolCheckpoint), fileMB: +(statSync(poolPath).size / 1e6).toFixed(1) },
    },
    attached: {
      secondEngine: { statsMs: r(statsBuilt) },
      pool: { renameMs: r(swap), viewMs: r(view), statsMs: r(stats), commitMs: r(segCommit), fileMB: +(statSync(segPath).size / 1e6).toFixed(1) },
      queryOverViewMs: r(viewQuery), sameOverTableMs: r(tableQuery),
    },
  }));
}
