// DuckDB-WASM's blocking bindings as the pool worker imports them, from the package's Node build: the same engine
// (version and wasm) as the page's; files through Node's fs instead of the browser runtime. A worker thread's bundle
// (web-worker.ts `bundleOf`) aliases the page's `@duckdb/duckdb-wasm/blocking` to this module.
import { workerData } from 'node:worker_threads';
import duck from '@duckdb/duckdb-wasm/dist/duckdb-node-blocking.cjs';
import { DUCKDB_EH, instantiateFrom } from './duckdb-module.mjs';

export const { ConsoleLogger, DuckDBAccessMode, DuckDBDataProtocol, LogLevel, NODE_RUNTIME, failWith, readString } = duck;
export const BROWSER_RUNTIME = NODE_RUNTIME;

/** The compiled module of DuckDB-WASM's eh build this thread's parent handed it (web-worker.ts), or nothing. */
const shared = workerData?.duckdb;

/**
 * duckdb-wasm's createDuckDB. When the bindings chose the eh build, they instantiate the module the parent compiled
 * (duckdb-module.mjs) instead of reading and compiling the 34 MB file again; otherwise (another file, a wrong path a
 * test gives on purpose) their own loader runs as before.
 */
export async function createDuckDB(bundles, logger, runtime) {
  const db = await duck.createDuckDB(bundles, logger, runtime);
  if (shared && db.mainModulePath === DUCKDB_EH) instantiateFrom(db, shared);
  return db;
}
