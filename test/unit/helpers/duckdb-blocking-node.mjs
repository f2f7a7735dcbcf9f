// DuckDB-WASM's blocking bindings as the pool worker imports them, from the package's Node build: the same engine
// (version and wasm) as the page's; files through Node's fs instead of the browser runtime. A worker thread's bundle
// (web-worker.ts `bundleOf`) aliases the page's `@duckdb/duckdb-wasm/blocking` to this module.
import duck from '@duckdb/duckdb-wasm/dist/duckdb-node-blocking.cjs';

export const { ConsoleLogger, createDuckDB, DuckDBAccessMode, DuckDBDataProtocol, LogLevel, NODE_RUNTIME, failWith, readString } = duck;
export const BROWSER_RUNTIME = NODE_RUNTIME;
