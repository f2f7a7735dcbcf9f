/**
 * The pool worker's protocol, in one file (as duckdb-wasm keeps its worker protocol in parallel/worker_request.ts):
 * what the engine (pool-core.ts) serves inside workers/pool.worker.ts, what the page's broker (client.ts) and other
 * workers (export, ingest, tokenizer: `Comlink.Remote<PoolApi>` on a port from `PoolClient.port()`) call. Results
 * cross as Arrow IPC bytes. The engine-neutral contract the stages use is the port (port.ts); this is the page's wire.
 */
import type { PoolImport } from './port';
import type { WasmSource } from './wasm-load';

/** A pool rewritten into a new file (compact.ts, decision 050): what it cost and what was checked. */
export interface Compaction {
  /** Database file bytes before and after (the WAL is empty at both ends). */
  bytesBefore: number;
  bytesAfter: number;
  storageVersion: string;
  /** Tables copied, each checked (row count and a hash of every row). */
  tables: string[];
  rows: number;
  ms: number;
}

export interface PoolInit {
  /** Name of the OPFS database file (one per test, so tests never contend). */
  poolName: string;
  wasm: { mvp: string; eh: string };
  /** Keep the wasm in this Cache Storage cache (only for content-hashed URLs: an entry is never revalidated; wasm-load.ts). */
  wasmCache?: string;
  /** Force an in-memory pool (no persistence). */
  memory?: boolean;
  /** Refuse imports that would grow the database file past this many bytes (default POOL_FILE_LIMIT; tests set it low). */
  fileLimit?: number;
  /** Create a new pool at DuckDB's default storage version, as builds before decision 049 did (tests of such pools). */
  legacyStorage?: boolean;
  /** Rewrite the saved pool into a new file before opening it (compact.ts, decision 050). */
  compact?: boolean;
}

export interface PoolStatus {
  persistent: boolean;
  /** Why the pool is not persistent, or cannot be written, when it is not. */
  message: string | null;
  interrupted: { import_id: number; file: string }[];
  version: string;
  /** The pool's schema version, and what opening it migrated (docs/decisions/023). */
  schema: { version: number; migratedFrom: number | null; applied: string[]; refused: string | null };
  /** When each stage of opening ended, epoch ms (the page marks them: `aw:boot:*` performance marks; bench/boot.mjs). */
  boot: BootStages;
  /** Where DuckDB's wasm came from (wasm-load.ts). */
  wasmSource: WasmSource;
  /** What a compaction asked for by PoolInit.compact did, or why it did not. */
  compaction?: Compaction | { error: string };
}

export interface BootStages {
  /** The worker's time origin (its creation) and when this module was evaluated. */
  workerOrigin: number;
  workerReady: number;
  instantiated: number;
  opened: number;
  schema: number;
  /** Inside the schema stage: pool_meta read (and, for a pool without it, the probes); the DDL batch committed (a new or changed schema only). */
  probed: number;
  ddl: number | null;
  done: number;
}

/** The engine's calls (pool-core.ts `PoolEngine.api()`), the import transaction's as the port has them; Comlink makes each asynchronous for the caller. */
export interface PoolApi extends PoolImport {
  open(init: PoolInit): Promise<PoolStatus>;
  /** Run SQL, return the result as Arrow IPC stream bytes (transferred). */
  query(sql: string): Uint8Array;
  /** Run SQL for its effect. */
  exec(sql: string): void;
  /** Exactly one statement in a read-only transaction (notebook query cells; read-only.ts). Null when `run` is false. */
  queryReadOnly(sql: string, run?: boolean): Uint8Array | null;
  /** Exactly one statement (a notebook's CREATE VIEW of a checked query), on the notebook's own connection. */
  execOne(sql: string): void;
  /** Open a streaming cursor over a query on its own connection (cursors.ts). */
  openCursor(sql: string): number;
  /** The next chunk of a cursor, at least `minBytes` of Arrow IPC, or null at the end. */
  nextChunk(id: number, minBytes?: number): Uint8Array | null;
  closeCursor(id: number): void;
  /** Insert or replace step rows outside an import (the gateway's captured calls), as Arrow IPC. */
  upsertSteps(bytes: Uint8Array): { total: number };
  /** Merge counted rows (Arrow IPC) into `token_counts` under `profileKey`, in one transaction. */
  mergeTokenCounts(bytes: Uint8Array, profileKey: string): { rows: number };
  checkpoint(): void;
  /** Empty every table of the pool (the user confirmed). */
  clear(): void;
  status(): { persistent: boolean };
  /** The database file's size and the ceiling imports stop at (the Pool card's "room left"). */
  room(): { bytes: number; limit: number };
  /** A remote Parquet file's columns read for a query, as table `name` of the attached in-memory database (remote-tables.ts). */
  registerRemote(name: string, ipc: Uint8Array): void;
  dropRemote(names: string[]): void;
}

/** What workers/pool.worker.ts serves (src/pool/host.ts): the engine's calls, another port, and the test builds' fault hooks. */
export type PoolWorkerApi = PoolApi & {
  connect(port: MessagePort): void;
  /** Fault injection, present only in test builds. */
  simulateCrash?(): void;
  injectFault?(method: string, message: string): void;
};
