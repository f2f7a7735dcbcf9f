/**
 * Opening the page's database: DuckDB-WASM's browser build instantiated (the module from the HTTP cache or Cache
 * Storage, wasm-load.ts), a pending compaction settled or run (compact.ts), and the database file opened on OPFS with
 * its handles prepared (engine-files.ts), else in memory with the reason said. The engine (pool-core.ts) takes the
 * boot as a parameter (workers/pool.worker.ts passes this one): the engine is the pool's SQL, this is the browser's
 * storage.
 */
import type { DuckDBBindings } from '@duckdb/duckdb-wasm/blocking';
import { BROWSER_RUNTIME, ConsoleLogger, createDuckDB, DuckDBAccessMode, LogLevel } from '@duckdb/duckdb-wasm/blocking';
import type { Compaction } from './api';
import { compactPool, settleCompaction } from './compact';
import { PoolFiles } from './engine-files';
import type { PoolInit } from './api';
import { loadWasmFrom, type WasmSource } from './wasm-load';

export interface BootedEngine {
  /** Opened (`db.open` called). */
  db: DuckDBBindings;
  /** The database file's handles on OPFS; null for a pool in memory (or a node test's file). */
  files: PoolFiles | null;
  /** Whether the database is kept (on OPFS; a node test's file). */
  persistent: boolean;
  /** Whether the database held nothing when opened (a new file, a pool in memory): no schema to read, no import to recover. */
  isNew: boolean;
  /** Why the pool is in memory, when it is. */
  message: string | null;
  wasm: { source: WasmSource };
  compaction?: Compaction | { error: string };
  /** When the module was instantiated, epoch ms. */
  instantiated: number;
}

export type EngineBoot = (init: PoolInit) => Promise<BootedEngine>;

const epochNow = () => performance.timeOrigin + performance.now();

export const browserBoot: EngineBoot = async (init) => {
  const bundles = {
    mvp: { mainModule: init.wasm.mvp, mainWorker: '' },
    eh: { mainModule: init.wasm.eh, mainWorker: '' },
  };
  const db = await createDuckDB(bundles, new ConsoleLogger(LogLevel.WARNING), BROWSER_RUNTIME);
  const wasm = loadWasmFrom(db, init.wasmCache ?? null);
  await db.instantiate(() => {});
  const instantiated = epochNow();
  if (init.memory) {
    db.open({});
    return { db, files: null, persistent: false, isNew: true, message: 'The pool is in memory only (requested).', wasm, instantiated };
  }
  let compaction: BootedEngine['compaction'];
  try {
    if (!('storage' in navigator) || !navigator.storage.getDirectory) throw new Error('OPFS is not available in this browser');
    if (init.compact) {
      compaction = await compactPool(db, init.poolName).catch((e: unknown) => ({ error: e instanceof Error ? e.message : String(e) }));
    } else await settleCompaction(init.poolName);
    const files = new PoolFiles(`opfs://${init.poolName}.db`);
    await files.prepare(db);
    files.hookRuntime();
    if (!init.legacyStorage) files.createAtStorageVersion(db);
    // Same as duckdb-wasm's own worker does for opfs:// paths (OPEN handler): direct I/O on the access handle.
    db.open({ path: files.dbPath, accessMode: DuckDBAccessMode.READ_WRITE, useDirectIO: true });
    return { db, files, persistent: true, isNew: files.isNew, message: null, wasm, instantiated, ...(compaction ? { compaction } : {}) };
  } catch (e) {
    db.open({});
    return { db, files: null, persistent: false, isNew: true, message: `The pool is in memory only and will be lost on reload: ${e instanceof Error ? e.message : String(e)}`, wasm, instantiated, ...(compaction ? { compaction } : {}) };
  }
};
