/**
 * Worker side of the pool: owns the DuckDB instance. Runs only inside workers/pool.worker.ts;
 * everything else talks to it through PoolClient (client.ts).
 */
import {
  type DuckDBBindings,
  type DuckDBConnection,
  BROWSER_RUNTIME,
  ConsoleLogger,
  createDuckDB,
  DuckDBAccessMode,
  DuckDBDataProtocol,
  failWith,
  LogLevel,
} from '@duckdb/duckdb-wasm/blocking';
import * as Comlink from 'comlink';
import { type Table, tableFromArrays, tableToIPC } from 'apache-arrow';
import { CURATION_HELPERS } from './curation-sql';
import { type CommitDedupe, dedupeImport, describeDedupe } from './import-commit';
import { execOne, readOnlyQuery, withTimeMacros } from './read-only';
import { DDL, trajectoryStatsSql } from './schema';

export interface PoolInit {
  /** Name of the OPFS database file (one per test, so tests never contend). */
  poolName: string;
  wasm: { mvp: string; eh: string };
  /** Force an in-memory pool (no persistence). */
  memory?: boolean;
  /** Refuse imports that would grow the database file past this many bytes (default POOL_FILE_LIMIT; tests set it low). */
  fileLimit?: number;
}

export interface PoolStatus {
  persistent: boolean;
  /** Why the pool is not persistent, when it is not. */
  message: string | null;
  interrupted: { import_id: number; file: string }[];
  version: string;
}

export interface ImportMeta {
  file: string;
  sourceId: string;
  bytes: number;
}

export interface ImportCommit {
  format: string;
  confidence: number;
  records: number;
  rowsMade: number;
  errors: { line: number; reason: string }[];
  message?: string | null;
  /** Formats whose trajectory ids are trace ids: spans of a stored trace from another file join it (decision 011). */
  joinFormats?: string[];
}

export interface CommitResult extends CommitDedupe {
  rowsAdded: number;
}

export class QueryError extends Error {
  constructor(
    message: string,
    readonly sql: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'QueryError';
  }
}

let db: DuckDBBindings | null = null;
let conn: DuckDBConnection | null = null;
let persistent = false;
/** An open streaming query: its IPC schema message, sent ahead of every chunk. */
const cursors = new Map<number, { conn: DuckDBConnection; header: Uint8Array; done: boolean }>();
/** Arrow IPC end-of-stream marker (continuation token, zero length). */
const EOS = new Uint8Array([255, 255, 255, 255, 0, 0, 0, 0]);
let cursorSeq = 1;

function c(): DuckDBConnection {
  if (!conn) throw new Error('The pool is not open yet.');
  return conn;
}

function run(sql: string, on: DuckDBConnection = c()): Table {
  try {
    return on.query(sql);
  } catch (e) {
    throw new QueryError(e instanceof Error ? e.message : String(e), sql, { cause: e });
  }
}

function ipc(t: Table): Uint8Array {
  return tableToIPC(t, 'stream');
}

function sqlString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

async function open(init: PoolInit): Promise<PoolStatus> {
  fileLimit = init.fileLimit ?? POOL_FILE_LIMIT;
  const bundles = {
    mvp: { mainModule: init.wasm.mvp, mainWorker: '' },
    eh: { mainModule: init.wasm.eh, mainWorker: '' },
  };
  db = await createDuckDB(bundles, new ConsoleLogger(LogLevel.WARNING), BROWSER_RUNTIME);
  await db.instantiate(() => {});
  let message: string | null = null;
  if (!init.memory) {
    try {
      if (!('storage' in navigator) || !navigator.storage.getDirectory) throw new Error('OPFS is not available in this browser');
      const path = `opfs://${init.poolName}.db`;
      await prepareWithRetry(db, path);
      // Same as duckdb-wasm's own worker does for opfs:// paths (OPEN handler): direct I/O on the access handle.
      db.open({ path, accessMode: DuckDBAccessMode.READ_WRITE, useDirectIO: true });
      persistent = true;
      walPath = `${path}.wal`;
      dbPath = path;
    } catch (e) {
      message = `The pool is in memory only and will be lost on reload: ${e instanceof Error ? e.message : String(e)}`;
      db.open({});
    }
  } else {
    db.open({});
    message = 'The pool is in memory only (requested).';
  }
  resetWalOnWriterOpen();
  conn = db.connect();
  // What DuckDB replayed from the WAL at open is only in memory: its next WAL starts at offset 0,
  // over the replayed one. Write it to the database file before anything else is written.
  if (persistent) run('CHECKPOINT');
  run('SET autoinstall_known_extensions=false');
  run('SET autoload_known_extensions=false');
  for (const stmt of DDL) run(stmt);
  for (const h of CURATION_HELPERS) run(h.sql);
  withTimeMacros(conn); // now() - interval … in workbench.query and effect cells (read-only.ts)
  const interrupted = recover();
  checkStats();
  const version = String(run('SELECT version() AS v').getChild('v')?.get(0));
  // SQL from notebooks (also ones opened from a URL) must not reach the network or the file system.
  // The open database file and Arrow inserts keep working; lock_configuration stops SQL undoing this.
  run('SET enable_external_access=false');
  run('SET lock_configuration=true');
  poolFilesSealed = true;
  return { persistent, message, interrupted, version };
}

/**
 * Right after a reload the previous page's pool worker can still hold the file's access handle for
 * a moment (createSyncAccessHandle then fails with NoModificationAllowedError): wait for it rather
 * than fall back to an in-memory pool.
 */
async function prepareWithRetry(d: DuckDBBindings, path: string): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    try {
      await d.prepareDBFileHandle(path, DuckDBDataProtocol.BROWSER_FSACCESS);
      return;
    } catch (e) {
      const busy = /NoModificationAllowed|InvalidState|access handle|locked|createSyncAccessHandle/i.test(`${(e as Error)?.name} ${(e as Error)?.message}`);
      if (!busy || Date.now() > deadline) throw e;
      // release what this attempt did open (the .db handle when only the .wal was busy)
      const prepared = (BROWSER_RUNTIME as unknown as { _preparedHandles?: Record<string, { close(): void }> })._preparedHandles ?? {};
      for (const key of [path, `${path}.wal`]) {
        try {
          prepared[key]?.close();
        } catch {
          /* already closed */
        }
        delete prepared[key];
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Mark imports a reload interrupted (their transaction died with the page, so nothing of them is in `steps`). */
function recover(): { import_id: number; file: string }[] {
  const t = run(`SELECT import_id, file FROM imports WHERE status = 'running'`);
  const out: { import_id: number; file: string }[] = [];
  for (const r of t.toArray()) out.push({ import_id: Number(r.import_id), file: String(r.file) });
  if (out.length) {
    run(`UPDATE imports SET status = 'interrupted', message = 'The import was interrupted (page closed or reloaded) and rolled back; nothing of it was kept.', finished_at = now() WHERE status = 'running'`);
    checkpoint();
  }
  return out;
}

function checkpoint(): void {
  // CHECKPOINT cannot run beside an open write transaction; the import's commit checkpoints.
  if (!persistent || importTx.size) return;
  run('CHECKPOINT');
  flushHandles();
}

/**
 * Recompute trajectory_stats for the trajectories `uids` (a subquery over steps) selects, or all of
 * them. Every write of steps calls this in the same transaction, so the dashboard's per-trajectory
 * numbers never aggregate all of steps again (docs/decisions/005).
 */
function refreshStats(uids: string | null, on: DuckDBConnection = c()): void {
  run(uids ? `DELETE FROM trajectory_stats WHERE trajectory_uid IN (${uids})` : 'DELETE FROM trajectory_stats', on);
  run(`INSERT INTO trajectory_stats ${trajectoryStatsSql(uids)}`, on);
}

/** SQL (from a notebook or the API) that may change rows of steps. */
const WRITES_STEPS = /\b(?:insert\s+(?:or\s+\w+\s+)?into|update|delete\s+from|truncate(?:\s+table)?|alter\s+table|drop\s+table(?:\s+if\s+exists)?|copy)\s+(?:(?:main|memory)\.)?"?steps"?(?![\w"])/i;

/** After SQL that wrote steps directly (the contract says steps are immutable, but SQL can), rebuild the stats. */
function afterUserSql(sql: string): void {
  if (WRITES_STEPS.test(sql)) rebuildStats();
}

/** All of trajectory_stats from steps, in a transaction of its own unless one is open. */
function rebuildStats(): void {
  try {
    run('BEGIN TRANSACTION');
  } catch {
    refreshStats(null); // the user's SQL left a transaction open: the stats join it
    return;
  }
  try {
    refreshStats(null);
    run('COMMIT');
  } catch (e) {
    run('ROLLBACK');
    throw e;
  }
}

/** A pool from before trajectory_stats existed, or one whose stats do not add up, is rebuilt at open. */
function checkStats(): void {
  const t = run('SELECT (SELECT count(*) FROM steps) AS n, (SELECT coalesce(sum(step_count), 0) FROM trajectory_stats) AS m');
  if (Number(t.getChild('n')?.get(0)) === Number(t.getChild('m')?.get(0))) return;
  rebuildStats();
  checkpoint();
}

interface RuntimeFiles {
  _files?: Map<string, unknown>;
  getFileInfo(mod: unknown, fileId: number): { fileName?: string } | null;
  openFile(mod: unknown, fileId: number, flags: number): unknown;
}

/** `opfs://<pool>.db.wal` once the pool is open on OPFS. */
let walPath: string | null = null;
let walHooked = false;
/** `opfs://<pool>.db`; set with walPath. */
let dbPath: string | null = null;
/** Set when open() is done: from then on nothing but the WAL writer may open the pool's files. */
let poolFilesSealed = false;
export const POOL_FILE_DENIED = "Permission Error: SQL cannot read the pool's own database files (query the tables instead).";
/** DuckDB's FileFlags as the runtime's openFile receives them. */
const FILE_READ = 1;
const FILE_WRITE = 2;

function walHandle(): FileSystemSyncAccessHandle | null {
  const h = walPath ? (BROWSER_RUNTIME as unknown as RuntimeFiles)._files?.get(walPath) : null;
  return typeof FileSystemSyncAccessHandle !== 'undefined' && h instanceof FileSystemSyncAccessHandle ? h : null;
}

/**
 * duckdb-wasm 1.32 keeps DuckDB's WAL in a state DuckDB does not expect. After a checkpoint DuckDB
 * deletes the WAL, which duckdb-wasm cannot do in OPFS (RemoveFile is a no-op), and it ignores the
 * append flag: a WAL opened for writing is written from offset 0. So each new WAL was written over
 * the stale bytes of the old one, and at the next start DuckDB found it invalid and dropped it: every
 * write after a checkpoint (after an import, a label…) was lost at reload unless another checkpoint
 * followed (docs/decisions/010). DuckDB opens the WAL for writing (write, no read) only to start a
 * new one from offset 0, so we empty the file at that moment, as the deletion would have.
 */
function resetWalOnWriterOpen(): void {
  if (!walPath || walHooked) return;
  walHooked = true;
  const rt = BROWSER_RUNTIME as unknown as RuntimeFiles;
  const openFile = rt.openFile;
  rt.openFile = (mod: unknown, fileId: number, flags: number) => {
    const name = rt.getFileInfo(mod, fileId)?.fileName;
    if (name === walPath || name === dbPath) {
      const writer = name === walPath && flags & FILE_WRITE && !(flags & FILE_READ);
      if (poolFilesSealed && !writer) {
        // A table function (read_blob, read_text, read_csv…) opening the pool's own database file or
        // WAL, which enable_external_access=false still allows: a second handle on them wedged the
        // engine (issue 17 hole 5). Once the pool is open, DuckDB's storage opens only the WAL writer.
        failWith(mod as Parameters<typeof failWith>[0], POOL_FILE_DENIED);
        return 0;
      }
      if (writer) {
        const h = walHandle();
        h?.truncate(0);
        h?.flush();
      }
    }
    return openFile.call(rt, mod, fileId, flags);
  };
}

/** WAL bytes when the last write call returned: a call that grew the WAL committed something. */
let walSynced = 0;

/** Make what a call committed to the WAL durable (fsync of the OPFS file: duckdb-wasm's own sync is a no-op). */
function syncWal(): void {
  const h = walHandle();
  if (!h) return;
  const size = h.getSize();
  if (size !== walSynced) {
    h.flush();
    walSynced = size;
  }
}

/**
 * duckdb-wasm's runtime makes fsync a no-op for OPFS (its syncFile does nothing), so writes can be
 * lost when the worker is terminated by a reload. Flush the access handles ourselves after a checkpoint.
 */
function flushHandles(): void {
  const files = (BROWSER_RUNTIME as unknown as { _files?: Map<string, unknown> })._files;
  for (const h of files?.values() ?? []) {
    if (typeof FileSystemSyncAccessHandle !== 'undefined' && h instanceof FileSystemSyncAccessHandle) h.flush();
  }
}

/**
 * An import appends straight into `steps` inside a transaction on a connection of its own, so
 * nothing is copied at commit, other connections never see the rows before the commit, and a reload
 * rolls it back for free. Rows carry their import_id; the commit's dedupe and is_last fix-up find
 * them by it.
 */
interface ImportTx {
  conn: DuckDBConnection;
  /** Database file size when it last grew, and Arrow bytes appended since: rows still in memory. */
  fileBytes: number;
  pending: number;
}
const importTx = new Map<number, ImportTx>();

/** duckdb-wasm 1.32 read back corrupt blocks past 4 GiB of OPFS database file (docs/performance.md). */
export const POOL_FILE_LIMIT = 3.75 * 1024 ** 3;
let fileLimit = POOL_FILE_LIMIT;

function databaseBytes(): number {
  const t = run('SELECT total_blocks * block_size AS b FROM pragma_database_size() LIMIT 1');
  return Number(t.getChild('b')?.get(0) ?? 0);
}

function tx(id: number): ImportTx {
  const t = importTx.get(id);
  if (!t) throw new Error(`import ${id} is not open (it was committed, aborted, or the pool restarted)`);
  return t;
}

function endTx(id: number, how: 'COMMIT' | 'ROLLBACK'): void {
  const t = importTx.get(id);
  if (!t) return;
  importTx.delete(id);
  try {
    run(how, t.conn);
  } finally {
    t.conn.close();
  }
}

export const poolApi = {
  open,

  /** Run SQL, return the result as Arrow IPC stream bytes (transferred). */
  query(sql: string): Uint8Array {
    const bytes = ipc(run(sql));
    afterUserSql(sql);
    syncWal();
    return Comlink.transfer(bytes, [bytes.buffer]);
  },

  /** Run SQL for its effect; returns the number of statements' last result rows. */
  exec(sql: string): void {
    run(sql);
    afterUserSql(sql);
    syncWal();
  },

  /** Exactly one statement in a read-only transaction (notebook query cells; read-only.ts). Null when `run` is false. */
  queryReadOnly(sql: string, run = true): Uint8Array | null {
    if (!db) throw new Error('The pool is not open yet.');
    let t: Table | null;
    try {
      t = readOnlyQuery(db, sql, run);
    } catch (e) {
      throw new QueryError(e instanceof Error ? e.message : String(e), sql, { cause: e });
    }
    if (!t) return null;
    const bytes = ipc(t);
    return Comlink.transfer(bytes, [bytes.buffer]);
  },

  /** Exactly one statement (a notebook's CREATE VIEW of a checked query), on the notebook's own connection. */
  execOne(sql: string): void {
    if (!db) throw new Error('The pool is not open yet.');
    try {
      execOne(db, sql);
    } catch (e) {
      throw new QueryError(e instanceof Error ? e.message : String(e), sql, { cause: e });
    }
  },

  tableNames(sql: string): string[] {
    try {
      return c().getTableNames(sql);
    } catch {
      return [];
    }
  },

  /** Open a streaming cursor over a query on its own connection. */
  openCursor(sql: string): number {
    if (!db) throw new Error('The pool is not open yet.');
    const cc = db.connect();
    try {
      withTimeMacros(cc); // exports of notebook views that use now()
      const header = cc.useUnsafe((b, conn) => {
        let h = b.startPendingQuery(conn, sql, true);
        while (h == null) h = b.pollPendingQuery(conn);
        return h;
      });
      const id = cursorSeq++;
      cursors.set(id, { conn: cc, header, done: false });
      return id;
    } catch (e) {
      cc.close();
      throw new QueryError(e instanceof Error ? e.message : String(e), sql, { cause: e });
    }
  },

  /**
   * The next chunk of a cursor as one Arrow IPC stream (schema, DuckDB's record batches, end
   * marker) of at least `minBytes` unless the result ends, or null at the end. DuckDB's own IPC
   * messages are passed on as they are: decoding them into JS Arrow objects and encoding them again
   * cost as much as the query.
   */
  nextChunk(id: number, minBytes = 24 << 20): Uint8Array | null {
    const cur = cursors.get(id);
    if (!cur || cur.done) {
      if (cur) poolApi.closeCursor(id);
      return null;
    }
    const parts: Uint8Array[] = [cur.header];
    let n = cur.header.byteLength;
    while (n < minBytes) {
      let m: Uint8Array | null = null;
      do m = cur.conn.useUnsafe((b, conn) => b.fetchQueryResults(conn));
      while (m == null);
      if (m.byteLength === 0) {
        cur.done = true;
        break;
      }
      parts.push(m);
      n += m.byteLength;
    }
    if (parts.length === 1) {
      poolApi.closeCursor(id);
      return null;
    }
    parts.push(EOS);
    const bytes = new Uint8Array(n + EOS.byteLength);
    let at = 0;
    for (const p of parts) {
      bytes.set(p, at);
      at += p.byteLength;
    }
    return Comlink.transfer(bytes, [bytes.buffer]);
  },

  closeCursor(id: number): void {
    const cur = cursors.get(id);
    if (!cur) return;
    cursors.delete(id);
    try {
      cur.conn.close();
    } catch {
      /* already closed */
    }
  },

  beginImport(meta: ImportMeta): number {
    const id = Number(run(`SELECT nextval('import_seq') AS id`).getChild('id')?.get(0));
    run(`INSERT INTO imports (import_id, file, source_id, bytes, status, started_at)
         VALUES (${id}, ${sqlString(meta.file)}, ${sqlString(meta.sourceId)}, ${Math.round(meta.bytes)}, 'running', now())`);
    checkpoint();
    if (!db) throw new Error('The pool is not open yet.');
    const conn = db.connect();
    run('BEGIN TRANSACTION', conn);
    importTx.set(id, { conn, fileBytes: persistent ? databaseBytes() : 0, pending: 0 });
    return id;
  },

  /** Record the file's content hash once computed (imports are registered before hashing, so a reload then is reported too). */
  setImportSource(id: number, sourceId: string): void {
    run(`UPDATE imports SET source_id = ${sqlString(sourceId)} WHERE import_id = ${id | 0}`);
  },

  /** Append one Arrow IPC batch of step records (columns in `steps` order, import_id set) inside the import's transaction. */
  appendBatch(id: number, bytes: Uint8Array): void {
    const t = tx(id);
    t.conn.insertArrowFromIPCStream(bytes, { name: 'steps', create: false });
    if (!persistent) return;
    // DuckDB writes a transaction's rows to the file a row group (122,880 rows) at a time; what it
    // has not written yet is still in memory and counted at its Arrow size (the safe side).
    const now = databaseBytes();
    if (now > t.fileBytes) {
      t.fileBytes = now;
      t.pending = 0;
    } else t.pending += bytes.byteLength;
    if (now + t.pending > fileLimit) {
      throw new Error(
        `the pool's database file would pass ${(fileLimit / 1024 ** 3).toFixed(2)} GiB, past which DuckDB-WASM's browser storage does not read data back reliably. Nothing of this file was kept: export and clear older data, or split the file.`,
      );
    }
  },

  /** Drop every row the import appended and keep it open: the ingest worker reads the file again (a parallel read fell back to one reader). */
  resetImport(id: number): void {
    const t = tx(id);
    run('ROLLBACK', t.conn);
    run('BEGIN TRANSACTION', t.conn);
    t.fileBytes = persistent ? databaseBytes() : 0;
    t.pending = 0;
  },

  /**
   * Commit the import: drop rows already in the pool, keep apart (or join) ids that collide with other
   * content (dedupeImport, docs/decisions/011), derive is_last, one transaction.
   */
  commitImport(id: number, info: ImportCommit): CommitResult {
    const t = tx(id);
    const q = (sql: string) => run(sql, t.conn);
    let added = 0;
    let d: CommitDedupe;
    try {
      d = dedupeImport(q, id, info.joinFormats);
      q(`UPDATE steps SET is_last = (steps.step_index = l.last_index)
         FROM (SELECT trajectory_uid, max(step_index) AS last_index FROM steps WHERE import_id = ${id} GROUP BY ALL) l
         WHERE steps.import_id = ${id} AND steps.is_last IS NULL AND steps.trajectory_uid = l.trajectory_uid`);
      refreshStats(`SELECT DISTINCT trajectory_uid FROM steps WHERE import_id = ${id}`, t.conn);
      added = Number(q(`SELECT count(*) AS n FROM steps WHERE import_id = ${id}`).getChild('n')?.get(0));
      const errors = [...info.errors, ...d.repeats];
      insertErrors(id, errors, t.conn);
      const message = [info.message, ...describeDedupe(d, added)].filter(Boolean).join('; ') || null;
      q(`UPDATE imports SET status = '${added ? 'done' : 'unchanged'}', format = ${sqlString(info.format)}, confidence = ${Number(info.confidence) || 0},
           records = ${info.records | 0}, rows_made = ${info.rowsMade | 0}, rows_added = ${added}, rejected = ${errors.length},
           message = ${message ? sqlString(message) : 'NULL'}, finished_at = now() WHERE import_id = ${id}`);
      endTx(id, 'COMMIT');
    } catch (e) {
      endTx(id, 'ROLLBACK');
      throw e;
    }
    checkpoint();
    return { rowsAdded: added, ...d };
  },

  /** Abandon an import: its transaction is rolled back, so nothing of it is kept; the reason is recorded. */
  abortImport(id: number, reason: string, errors: { line: number; reason: string }[] = []): void {
    try {
      endTx(id, 'ROLLBACK');
    } finally {
      insertErrors(id, errors);
      run(`UPDATE imports SET status = 'failed', message = ${sqlString(reason)}, rejected = ${errors.length}, finished_at = now() WHERE import_id = ${id}`);
      checkpoint();
    }
  },

  /**
   * Insert or replace step rows outside an import (the gateway's captured calls): rows whose
   * step_id exists are replaced (complete_trajectory updates the last step once). One transaction.
   */
  upsertSteps(bytes: Uint8Array): { total: number } {
    withStaged(bytes, '_upsert', (name) => {
      run(`DELETE FROM steps WHERE step_id IN (SELECT step_id FROM "${name}")`);
      run(`INSERT INTO steps BY NAME SELECT * REPLACE (coalesce(is_last, false) AS is_last) FROM "${name}" QUALIFY row_number() OVER (PARTITION BY step_id ORDER BY source_line DESC) = 1`);
      refreshStats(`SELECT DISTINCT trajectory_uid FROM "${name}"`);
    });
    const total = Number(run(`SELECT count(*) AS n FROM steps`).getChild('n')?.get(0));
    checkpoint();
    return { total };
  },

  /** Replace the `token_counts` table with these rows (Arrow IPC stream), in one transaction. */
  replaceTokenCounts(bytes: Uint8Array): { rows: number } {
    withStaged(bytes, '_token_counts', (name) => {
      run('DELETE FROM token_counts');
      run(`INSERT INTO token_counts BY NAME SELECT * FROM "${name}"`);
    });
    checkpoint();
    return { rows: Number(run('SELECT count(*) AS n FROM token_counts').getChild('n')?.get(0)) };
  },

  checkpoint,

  /** Empty every table of the pool (the user confirmed). */
  clear(): void {
    run('BEGIN TRANSACTION');
    run('DELETE FROM steps');
    run('DELETE FROM trajectory_stats');
    run('DELETE FROM curation');
    run('DELETE FROM import_errors');
    run('DELETE FROM imports');
    run('DELETE FROM token_counts');
    run('COMMIT');
    checkpoint();
  },

  status(): { persistent: boolean } {
    return { persistent };
  },
};

function insertErrors(id: number, errors: { line: number; reason: string }[], on: DuckDBConnection = c()): void {
  if (!errors.length) return;
  const file = String(run(`SELECT file FROM imports WHERE import_id = ${id}`, on).getChild('file')?.get(0) ?? '');
  const t = tableFromArrays({
    import_id: Int32Array.from(errors, () => id),
    file: errors.map(() => file),
    line: Int32Array.from(errors, (e) => e.line),
    reason: errors.map((e) => e.reason.slice(0, 1000)),
  });
  on.insertArrowTable(t, { name: 'import_errors', create: false });
}

/** Stage Arrow IPC rows in a table of their own, run `body` over it in one transaction, and drop the stage. */
function withStaged(bytes: Uint8Array, prefix: string, body: (name: string) => void): void {
  const name = `${prefix}_${cursorSeq++}`;
  c().insertArrowFromIPCStream(bytes, { name, create: true });
  run('BEGIN TRANSACTION');
  try {
    body(name);
    run('COMMIT');
  } catch (e) {
    run('ROLLBACK');
    throw e;
  } finally {
    run(`DROP TABLE IF EXISTS "${name}"`);
  }
}

export type PoolApi = typeof poolApi;
