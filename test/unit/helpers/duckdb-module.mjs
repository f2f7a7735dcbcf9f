// DuckDB-WASM's module (the eh build, the one its Node bindings choose here) compiled once per process, and a
// DuckDB-WASM bindings object made to instantiate it: for the engines in this process (wasm-engine.ts) and for every
// pool thread (web-worker.ts hands the compiled module to the thread, duckdb-blocking-node.mjs instantiates it). A
// compiled module crosses to a thread without a copy of its code; the bindings' own loader reads and compiles the
// 34 MB file at every instantiate (≈ 0.5–1 CPU-s). Each engine still gets its own instance and memory.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The module file: DuckDB-WASM's eh build. */
export const DUCKDB_EH = createRequire(import.meta.url).resolve('@duckdb/duckdb-wasm/dist/duckdb-eh.wasm');

let compiled;
/** The module file compiled, once per process. */
export function duckdbEh() {
  compiled ??= new WebAssembly.Module(readFileSync(DUCKDB_EH));
  return compiled;
}

/**
 * `db` (duckdb-wasm's Node bindings, before `instantiate`) instantiates `module` instead of reading and compiling its
 * file: what the bindings' own instantiateWasm does, less the read and the compile — the module's imports call into
 * a copy of the bindings' runtime.
 */
export function instantiateFrom(db, module) {
  db.instantiateWasm = function (imports, done) {
    globalThis.DUCKDB_RUNTIME = {};
    for (const k of Object.getOwnPropertyNames(this._runtime)) {
      if (k !== 'constructor') globalThis.DUCKDB_RUNTIME[k] = Object.getOwnPropertyDescriptor(this._runtime, k).value;
    }
    WebAssembly.instantiate(module, imports).then((instance) => done(instance, module));
    return [];
  };
}
