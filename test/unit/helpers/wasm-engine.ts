/**
 * DuckDB-WASM's Node build in this process (the engine and version the page runs, blocking bindings, in memory): for
 * tests of the pool's own SQL modules that take duckdb-wasm's bindings or connection (read-only.ts, migrations.ts).
 * The app's workers in worker threads: page-workers.ts.
 */
import type { DuckDBBindings, DuckDBConnection } from '@duckdb/duckdb-wasm/blocking';
import { createRequire } from 'node:module';
import { DUCKDB_EH, duckdbEh, instantiateFrom } from './duckdb-module.mjs';

const require = createRequire(import.meta.url);
const duck = require('@duckdb/duckdb-wasm/dist/duckdb-node-blocking.cjs');

/** A new in-memory engine (its own database) and a connection to it. */
export async function wasmEngine(): Promise<{ db: DuckDBBindings; conn: DuckDBConnection }> {
  const db = await duck.createDuckDB({ mvp: { mainModule: DUCKDB_EH, mainWorker: '' }, eh: { mainModule: DUCKDB_EH, mainWorker: '' } }, new duck.ConsoleLogger(duck.LogLevel.ERROR), duck.NODE_RUNTIME);
  // the module compiled once per process (duckdb-module.mjs), not at every instantiate
  instantiateFrom(db, duckdbEh());
  await db.instantiate(() => {});
  db.open({});
  return { db, conn: db.connect() };
}
