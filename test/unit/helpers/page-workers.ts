/**
 * The page's pool, importer and exporter in Node, for tests that need the app's workers but no browser (what
 * test/browser/helpers.ts gives the browser tests, with the same names): the real PoolClient, WorkerImporter and
 * WorkerExporter driving the real workers/*.worker.ts in worker threads (web-worker.ts), on DuckDB-WASM's Node build.
 * Pools are in memory (no OPFS here: tests of saved pools stay in test/browser).
 */
import { readFileSync } from 'node:fs';
import { after } from 'node:test';
import { createRequire } from 'node:module';
import { WorkerExporter } from '../../../src/export/exporter';
import { WorkerImporter } from '../../../src/ingest/importer';
import { PoolClient, type PoolClientOptions } from '../../../src/pool/client';
import { DUCKDB_EH } from './duckdb-module.mjs';
import { WebWorker } from './web-worker';

const require = createRequire(import.meta.url);
export const wasm = { eh: DUCKDB_EH, mvp: require.resolve('@duckdb/duckdb-wasm/dist/duckdb-mvp.wasm') };
export const parquetWasmUrl = new URL('../../../node_modules/parquet-wasm/esm/parquet_wasm_bg.wasm', import.meta.url).href;

// the page's workers end with the page; here every worker thread ends after the test file's tests
after(() => WebWorker.terminateAll());

/** A factory of one of the app's workers (`workers/<name>.worker.ts`), as the page's `() => new Worker(…)`. */
export const pageWorker = (name: string) => () => new WebWorker(new URL(`../../../workers/${name}.worker.ts`, import.meta.url)) as unknown as Worker;
export const poolWorker = pageWorker('pool');

export function startPool(name: string, opts: Pick<PoolClientOptions, 'maxStringBytes'> = {}): Promise<PoolClient> {
  return PoolClient.start({ poolName: name, memory: true, wasm, worker: poolWorker, ...opts });
}

/** A file of test/fixtures as the file picker gives it. */
export function fixture(path: string): File {
  return new File([readFileSync(new URL(`../../fixtures/${path}`, import.meta.url))], path.split('/').pop() ?? path);
}

const importers = new WeakMap<PoolClient, WorkerImporter>();
const exporters = new WeakMap<PoolClient, WorkerExporter>();

/** The pool's importer: one per pool, as the page has one (its ingest worker, and shard workers, start once). */
export function importerFor(pool: PoolClient): WorkerImporter {
  let i = importers.get(pool);
  if (!i) importers.set(pool, (i = new WorkerImporter({ pool, parquetWasmUrl, worker: pageWorker('ingest') })));
  return i;
}

/** The pool's exporter: one per pool, as the page has one. */
export function exporterFor(pool: PoolClient): WorkerExporter {
  let e = exporters.get(pool);
  if (!e) exporters.set(pool, (e = new WorkerExporter({ pool, parquetWasmUrl, worker: pageWorker('export') })));
  return e;
}
