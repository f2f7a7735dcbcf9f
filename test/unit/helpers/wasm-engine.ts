/**
 * DuckDB-WASM's Node build in this process (the engine and version the page runs, blocking bindings, in memory): for
 * tests of the pool's own SQL modules that take duckdb-wasm's bindings or connection (read-only.ts, migrations.ts).
 * The app's workers in worker threads: page-workers.ts.
 */
import type { DuckDBBindings, DuckDBConnection } from '@duckdb/duckdb-wasm/blocking';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const duck = require('@duckdb/duckdb-wasm/dist/duckdb-node-blocking.cjs');
const wasm = require.resolve('@duckdb/duckdb-wasm/dist/duckdb-eh.wasm');

/**
 * The 34 MB module compiled once per process (the unit files share one): duckdb-wasm's node bindings read and compile
 * it at every instantiate, ≈ 0.6 CPU-s of the ≈ 1.4 an engine costs. Each engine still gets its own instance and memory.
 */
let compiled: Promise<WebAssembly.Module> | undefined;

/** A new in-memory engine (its own database) and a connection to it. */
export async function wasmEngine(): Promise<{ db: DuckDBBindings; conn: DuckDBConnection }> {
  const db = await duck.createDuckDB({ mvp: { mainModule: wasm, mainWorker: '' }, eh: { mainModule: wasm, mainWorker: '' } }, new duck.ConsoleLogger(duck.LogLevel.ERROR), duck.NODE_RUNTIME);
  // what the bindings' own instantiateWasm does, less the compile: the module's imports call into this runtime
  db.instantiateWasm = function (this: { _runtime: unknown }, imports: WebAssembly.Imports, done: (i: WebAssembly.Instance, m: WebAssembly.Module) => void) {
    (globalThis as { DUCKDB_RUNTIME?: unknown }).DUCKDB_RUNTIME = this._runtime;
    compiled ??= WebAssembly.compile(readFileSync(wasm));
    void compiled.then((m) => WebAssembly.instantiate(m, imports).then((i) => done(i, m)));
    return [];
  };
  await db.instantiate(() => {});
  db.open({});
  return { db, conn: db.connect() };
}
