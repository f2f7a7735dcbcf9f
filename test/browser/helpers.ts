/** Shared setup for browser tests: a pool per test file with its own OPFS name, asset URLs by plain path. */
import { ImportQueue } from '../../src/ingest/import-queue';
import type { Services } from '../../src/views/kit/services';
import { WorkerExporter } from '../../src/export/exporter';
import { WorkerImporter } from '../../src/ingest/importer';
import { PoolClient } from '../../src/pool/client';

export const wasm = {
  eh: '/node_modules/@duckdb/duckdb-wasm/dist/duckdb-eh.wasm',
  mvp: '/node_modules/@duckdb/duckdb-wasm/dist/duckdb-mvp.wasm',
};
export const parquetWasmUrl = '/node_modules/parquet-wasm/esm/parquet_wasm_bg.wasm';

export function poolWorker(): Worker {
  return new Worker(new URL('/workers/pool.worker.ts', location.origin), { type: 'module' });
}

export async function startPool(name: string, memory = false, fileLimit?: number): Promise<PoolClient> {
  return PoolClient.start({ poolName: `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`, memory, fileLimit, wasm, worker: poolWorker });
}

let pagePool: Promise<PoolClient> | null = null;
/**
 * The page's one in-memory pool, emptied (PoolClient.clear) for the suite that asks: for a test file that runs several
 * suites of elements in one page, where a pool boot would cost more than most of the tests. The page's end ends it.
 */
export async function emptyPagePool(): Promise<PoolClient> {
  pagePool ??= startPool('page', true);
  const pool = await pagePool;
  await pool.clear();
  return pool;
}

export async function fixture(path: string): Promise<File> {
  const res = await fetch(`/test/fixtures/${path}`);
  if (!res.ok) throw new Error(`fixture ${path}: ${res.status}`);
  const name = path.split('/').pop()!;
  return new File([await res.arrayBuffer()], name);
}

const importers = new WeakMap<PoolClient, WorkerImporter>();
const exporters = new WeakMap<PoolClient, WorkerExporter>();

/**
 * The pool's importer: one per pool, as the page has one. A new one starts a new ingest worker at its first import
 * (≈ 1.5–2 CPU-s: the worker's modules and parquet-wasm), more than most imports of a test.
 */
export function importerFor(pool: PoolClient): WorkerImporter {
  let i = importers.get(pool);
  if (!i) importers.set(pool, (i = new WorkerImporter({ pool, parquetWasmUrl, worker: () => new Worker(new URL('/workers/ingest.worker.ts', location.origin), { type: 'module' }) })));
  return i;
}

/** The pool's exporter: one per pool, as the page has one (its export worker starts once). */
export function exporterFor(pool: PoolClient): WorkerExporter {
  let e = exporters.get(pool);
  if (!e) exporters.set(pool, (e = new WorkerExporter({ pool, parquetWasmUrl, worker: () => new Worker(new URL('/workers/export.worker.ts', location.origin), { type: 'module' }) })));
  return e;
}

/** Services for a test host: the given ones plus an import list over their importer. */
export function withImports(s: Omit<Services, 'imports'>): Services {
  return { ...s, imports: new ImportQueue(s.importer) };
}

/** Poll `cond` every 50 ms until it holds; fail naming `what` after `tries` polls (10 s by default). */
export async function until(cond: () => boolean, what: string, tries = 200): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}
