/**
 * The one interface of a pool engine (decision 074), as Mosaic's `Connector` is the whole engine contract of its
 * coordinator and duckdb-wasm's bindings interface is implemented by its browser and node builds alike. The page's
 * broker to DuckDB-WASM (`PoolClient`, client.ts) and the CLI's native DuckDB (`NativePool`, src/cli/native-pool.ts)
 * both implement it; ingest, export, curation and the notebook runtime ask for this port (or a `Pick` of it), never
 * for an engine. test/unit/pool-port.test.ts runs one conformance suite against both.
 */
import type { Table } from 'apache-arrow';
import type { RejectedLine } from '../contract/reports';
import type { CommitDedupe, CommitInfo } from './import-commit';
import type { Row } from './rows';

export type { Row };

/** An import as it is registered before its rows are read (the file's hash is set once computed: setImportSource). */
export interface ImportMeta {
  file: string;
  sourceId: string;
  bytes: number;
}

export type ImportCommit = CommitInfo;

export interface CommitResult extends CommitDedupe {
  rowsAdded: number;
  /** Where the commit's time went, ms per stage (insert, dedupe, isLast, stats, meta, commit, flush). */
  stages?: Record<string, number>;
  /** The pool's database file after the commit, and the size imports stop at (an engine with a file limit only). */
  room?: { bytes: number; limit: number };
}

export interface PoolChange {
  /** Tables (and the pool's views over them) whose contents changed, as the pool engine reported them. */
  tables: string[];
}

/** An import's transaction (decision 004): rows appended inside it are seen by nobody until the commit, and a crash rolls them back. */
export interface PoolImport {
  beginImport(meta: ImportMeta): Promise<number>;
  setImportSource(id: number, sourceId: string): Promise<void>;
  /** One Arrow IPC stream batch of step records (columns in `steps` order, import_id set). The bytes may be transferred. */
  appendBatch(id: number, bytes: Uint8Array): Promise<void>;
  /** Drop every row appended so far and keep the import open (a sharded read fell back to one reader). */
  resetImport(id: number): Promise<void>;
  /** Atomic: deduped (decision 011), is_last and trajectory_stats derived, rejected lines recorded. */
  commitImport(id: number, info: ImportCommit): Promise<CommitResult>;
  /** Nothing of the import is kept; the reason and the rejected lines are recorded. */
  abortImport(id: number, reason: string, errors?: RejectedLine[]): Promise<void>;
}

export interface PoolPort extends PoolImport {
  /** A statement's result as Arrow. */
  query(sql: string): Promise<Table>;
  /** A statement's result as plain rows (pool/rows.ts: BIGINT as number, timestamps as ISO text, MAP as an object). */
  rows(sql: string): Promise<Row[]>;
  /** SQL run for its effect (one statement or several). */
  exec(sql: string): Promise<void>;
  /** Exactly one statement in a read-only transaction: the engine refuses several, and any write. `run: false` only checks it. */
  queryReadOnly(sql: string, run?: boolean): Promise<Table | null>;
  /** Exactly one statement (a prepared statement cannot hold more). */
  execOne(sql: string): Promise<void>;
  /** Which tables any statement wrote, whoever ran it (the engine reads it from the SQL: changes.ts). */
  onChange(fn: (e: PoolChange) => void): () => void;
  /** Make what was written durable now. */
  checkpoint(): Promise<void>;
  /** Stop what the engine runs now; calls in flight fail (an engine that cannot says so by rejecting). */
  interrupt?(reason?: string): Promise<void>;
}
