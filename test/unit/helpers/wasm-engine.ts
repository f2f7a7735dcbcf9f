/**
 * DuckDB-WASM's Node build in this process (the engine and version the page runs, blocking bindings, in memory): for
 * tests of the pool's own SQL modules that take duckdb-wasm's bindings or connection (read-only.ts, migrations.ts).
 * The app's workers in worker threads: page-workers.ts.
 */
import type { DuckDBBindings, DuckDBConnection } from '@duckdb/duckdb-wasm/blocking';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const duck = require('@duckdb/duckdb-wasm/dist/duckdb-node-blocking.cjs');
const wasm = require.resolve('@duckdb/duckdb-wasm/dist/duckdb-eh.wasm');

export async function wasmEngine(): Promise<{ db: DuckDBBindings; conn: DuckDBConnection }> {
  const db = await duck.createDuckDB({ mvp: { mainModule: wasm, mainWorker: '' }, eh: { mainModule: wasm, mainWorker: '' } }, new duck.ConsoleLogger(duck.LogLevel.ERROR), duck.NODE_RUNTIME);
  await db.instantiate(() => {});
  db.open({});
  return { db, conn: db.connect() };
}
