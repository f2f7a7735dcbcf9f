// DuckDB-WASM's blocking bindings as the pool worker imports them, from the package's Node build: the same engine
// (version and wasm) as the page's; files through Node's fs instead of the browser runtime. A worker thread's bundle
// (web-worker.ts `bundleOf`) aliases the page's `@duckdb/duckdb-wasm/blocking` to this module.
import { workerData } from 'node:worker_threads';
import duck from '@duckdb/duckdb-wasm/dist/duckdb-node-blocking.cjs';

export const { ConsoleLogger, DuckDBAccessMode, DuckDBDataProtocol, LogLevel, NODE_RUNTIME, failWith, readString } = duck;
export const BROWSER_RUNTIME = NODE_RUNTIME;

/**
 * The module file this thread's parent compiled once for every pool thread of the process (web-worker.ts
 * `duckdbModule`): `{ path, module }`, or nothing.
 */
const shared = workerData?.duckdb;

/**
 * duckdb-wasm's createDuckDB. When the bindings chose the module file the parent compiled, they instantiate that
 * compiled module instead of reading and compiling the 34 MB file again (≈ 0.5–1 CPU-s per pool thread); otherwise
 * (another file, a wrong path a test gives on purpose) their own loader runs as before. What the Node bindings'
 * instantiateWasm does, less the read and the compile: the module's imports call into a copy of the runtime.
 */
export async function createDuckDB(bundles, logger, runtime) {
  const db = await duck.createDuckDB(bundles, logger, runtime);
  if (shared && db.mainModulePath === shared.path) {
    db.instantiateWasm = function (imports, done) {
      globalThis.DUCKDB_RUNTIME = {};
      for (const k of Object.getOwnPropertyNames(this._runtime)) {
        if (k !== 'constructor') globalThis.DUCKDB_RUNTIME[k] = Object.getOwnPropertyDescriptor(this._runtime, k).value;
      }
      WebAssembly.instantiate(shared.module, imports).then((instance) => done(instance, shared.module));
      return [];
    };
  }
  return db;
}
