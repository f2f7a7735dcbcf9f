// Module resolve hook for the app's workers in Node (web-worker-thread.mjs):
// - the page imports DuckDB-WASM's blocking bindings as '@duckdb/duckdb-wasm/blocking' and runs them on the browser
//   runtime (vite and web-test-runner alias the specifier to the browser build); in Node the same bindings come from
//   the package's Node build with its Node runtime (duckdb-blocking-node.mjs);
// - that build is CommonJS and requires apache-arrow's CommonJS build, while the app's modules import its ES build:
//   two copies whose Tables do not know each other (a Table from one encoded by the other's tableToIPC came out
//   empty). The app's imports of apache-arrow resolve to the CommonJS build too, so there is one copy, as in the page.
export async function resolve(specifier, context, next) {
  if (specifier === '@duckdb/duckdb-wasm/blocking') return { url: new URL('./duckdb-blocking-node.mjs', import.meta.url).href, shortCircuit: true };
  if (specifier === 'apache-arrow' || specifier.startsWith('apache-arrow/')) {
    const r = await next(specifier, { ...context, conditions: ['node', 'require', 'default'] });
    return { ...r, format: 'commonjs' };
  }
  return next(specifier, context);
}
