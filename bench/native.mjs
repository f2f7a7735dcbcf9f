// Native DuckDB (@duckdb/node-api) side of the benchmark: the same file, the same queries.
import { rmSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';
import { DDL, growStepsSql, ROLLUPS, trajectoryStatsSql } from './rollups.mjs';

const q = (s) => `'${s.replaceAll("'", "''")}'`;

async function fresh(threads) {
  const db = await DuckDBInstance.create(':memory:', threads ? { threads: String(threads) } : {});
  const conn = await db.connect();
  return { db, conn, close: () => { conn.closeSync?.(); db.closeSync?.(); } };
}

async function scalar(conn, sql) {
  const r = await conn.runAndReadAll(sql);
  return Number(r.getRows()[0][0]);
}

/**
 * read_json_auto into a table, then zstd Parquet of that table; one run. `threads`: DuckDB's default (every core)
 * unless given; the bench also runs it at 1, the engine limit of the page's single-threaded DuckDB-WASM.
 */
export async function nativeImportExport(file, outParquet, { threads } = {}) {
  const { conn, close } = await fresh(threads);
  try {
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 25);
    let t0 = performance.now();
    await conn.run(`CREATE TABLE t AS SELECT * FROM read_json_auto(${q(file)})`);
    const importMs = performance.now() - t0;
    clearInterval(timer);
    peak = Math.max(peak, process.memoryUsage().rss);
    const rows = await scalar(conn, 'SELECT count(*) FROM t');
    rmSync(outParquet, { force: true });
    t0 = performance.now();
    await conn.run(`COPY t TO ${q(outParquet)} (FORMAT parquet, COMPRESSION zstd)`);
    const exportMs = performance.now() - t0;
    const [[n]] = (await conn.runAndReadAll(`SELECT current_setting('threads')`)).getRows();
    return { importMs, exportMs, rows, peakRssDelta: peak - rss0, threads: Number(n) };
  } finally {
    close();
  }
}

/** zstd Parquet of the workbench's own `steps` rows (read back from its export): the like-for-like export. */
export async function nativeStepsExport(wbParquet, outParquet, runs) {
  const { conn, close } = await fresh();
  try {
    await conn.run(`CREATE TABLE steps AS SELECT * FROM read_parquet(${q(wbParquet)})`);
    const rows = await scalar(conn, 'SELECT count(*) FROM steps');
    const ms = [];
    for (let i = 0; i < runs; i++) {
      rmSync(outParquet, { force: true });
      const t0 = performance.now();
      await conn.run(`COPY steps TO ${q(outParquet)} (FORMAT parquet, COMPRESSION zstd)`);
      ms.push(performance.now() - t0);
    }
    return { rows, ms };
  } finally {
    close();
  }
}

/** The rollups over the same 1 M-step table the workbench builds (from the same exported steps). */
export async function nativeRollups(wbParquet, rows, runs) {
  const { conn, close } = await fresh();
  try {
    for (const d of DDL) await conn.run(d);
    await conn.run(`INSERT INTO steps SELECT * REPLACE (map_from_entries(metadata) AS metadata) FROM read_parquet(${q(wbParquet)})`);
    const have = Number(await scalar(conn, 'SELECT count(*) FROM steps'));
    const cols = (await conn.runAndReadAll(`SELECT column_name FROM information_schema.columns WHERE table_name = 'steps' ORDER BY ordinal_position`)).getRows().map((r) => String(r[0]));
    const t0 = performance.now();
    await conn.run(growStepsSql(cols, rows, have));
    await conn.run(`INSERT INTO trajectory_stats ${trajectoryStatsSql(null)}`);
    const buildMs = performance.now() - t0;
    const n = await scalar(conn, 'SELECT count(*) FROM steps');
    const out = {};
    for (const [name, sql] of Object.entries(ROLLUPS)) {
      const ms = [];
      let result = 0;
      for (let i = 0; i < runs + 1; i++) {
        const t0 = performance.now();
        const r = await conn.runAndReadAll(sql);
        const dt = performance.now() - t0;
        result = r.getRows().length;
        if (i > 0) ms.push(dt); // the first run warms the same caches the browser's warm-up run does
      }
      out[name] = { ms, resultRows: result };
    }
    return { rows: n, buildMs, queries: out };
  } finally {
    close();
  }
}
