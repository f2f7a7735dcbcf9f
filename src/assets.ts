/**
 * The app's binary assets and workers, resolved by vite at build time (relative to the page, so any
 * sub-path works). Workers must be created with the literal `new Worker(new URL(...))` form for vite
 * to bundle them.
 */
import duckdbEh from '@duckdb/duckdb-wasm/dist/duckdb-eh.wasm?url';
import duckdbMvp from '@duckdb/duckdb-wasm/dist/duckdb-mvp.wasm?url';
import parquetWasm from 'parquet-wasm/esm/parquet_wasm_bg.wasm?url';

export interface Assets {
  duckdb: { eh: string; mvp: string };
  parquet: string;
  poolWorker(): Worker;
  ingestWorker(): Worker;
  exportWorker(): Worker;
  tokenizerWorker(): Worker;
  remoteParquetWorker(): Worker;
}

export const assets: Assets = {
  duckdb: { eh: new URL(duckdbEh, import.meta.url).href, mvp: new URL(duckdbMvp, import.meta.url).href },
  parquet: new URL(parquetWasm, import.meta.url).href,
  poolWorker: () => new Worker(new URL('../workers/pool.worker.ts', import.meta.url), { type: 'module', name: 'pool' }),
  ingestWorker: () => new Worker(new URL('../workers/ingest.worker.ts', import.meta.url), { type: 'module', name: 'ingest' }),
  exportWorker: () => new Worker(new URL('../workers/export.worker.ts', import.meta.url), { type: 'module', name: 'export' }),
  tokenizerWorker: () => new Worker(new URL('../workers/tokenizer.worker.ts', import.meta.url), { type: 'module', name: 'tokenizer' }),
  remoteParquetWorker: () => new Worker(new URL('../workers/remote-parquet.worker.ts', import.meta.url), { type: 'module', name: 'remote-parquet' }),
};
