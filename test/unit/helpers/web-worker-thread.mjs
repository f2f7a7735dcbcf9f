// Entry of a worker thread that hosts one of the app's Web Workers (web-worker.ts): TypeScript through tsx (Node 20
// does not pass the parent's loader to threads), DuckDB-WASM's blocking import resolved to its Node build
// (duckdb-alias-hook.mjs), a dedicated worker's global scope (web-worker-scope.ts), then the worker module itself.
import { register } from 'node:module';
import { workerData } from 'node:worker_threads';
import { register as registerTsx } from 'tsx/esm/api';

registerTsx();
// after tsx: the hook registered last is asked first
register('./duckdb-alias-hook.mjs', import.meta.url);
await import('./web-worker-scope.ts');
await import(workerData.entry);
