/**
 * The pool on native DuckDB (a file, for the CLI), as a `PoolPort` (src/pool/port.ts, decision 074): the same DDL,
 * curation helpers, import transaction and commit (src/pool/import-tx.ts) and change feed (src/pool/changes.ts) as
 * the page's pool worker, on @duckdb/node-api in a thread of its own (duck-thread.ts). What is native here is the
 * engine adapter under the import transaction: batches staged as Parquet files (decision 044), stats in passes
 * (decision 048), no file ceiling, and the checkpoint left to close.
 */
import { totalmem } from 'node:os';
import { type Table, tableFromJSON } from 'apache-arrow';
// batches reach arrow-rs (parquet-wasm) on their way to a staged Parquet file: an all-NULL BOOLEAN column must be readable
import '../util/arrow-bool-fix';
import type { RejectedLine } from '../contract/reports';
import { ChangeLog, withViews } from '../pool/changes';
import { CURATION_HELPERS } from '../pool/curation-sql';
import { type ImportEngine, ImportTransactions } from '../pool/import-tx';
import type { CommitResult, ImportCommit, ImportMeta, PoolChange, PoolPort } from '../pool/port';
import { TIME_MACROS } from '../pool/read-only';
import { DDL } from '../pool/schema';
import { type EngineScope, lockSql } from './engine-lock';
import { parseSize } from './files';
import { NativeDb, type Row } from './native-db';

/**
 * An import's batches are staged as Parquet files and inserted when this many bytes wait, or at its commit (decision
 * 044): the reader threads' memory and DuckDB's then peak one after the other instead of together; the files take up
 * to this much of the temp folder.
 */
export const STAGE_BYTES = 1 << 30;

/**
 * Passes of an import's trajectory_stats aggregate under a memory_limit of `limitBytes` (decision 048): its list()
 * states stay in memory (~1 KB per trajectory measured, plus the steps' agent and model names), so each pass is given
 * at most a quarter of the limit. The 100 MB bench file (50 k trajectories) is one pass at 256MB, the 1 GB one nine.
 */
export function statsPasses(trajectories: number, steps: number, limitBytes: number): number {
  return Math.max(1, Math.ceil((trajectories * 1024 + steps * 64) / (limitBytes / 4)));
}

/** DuckDB's memory_limit in bytes: the flag's, else DuckDB's own default (80 % of RAM). */
function limitBytes(memoryLimit: string | undefined): number {
  try {
    if (memoryLimit) return parseSize(memoryLimit);
  } catch {
    return 256e6; // a size DuckDB reads but parseSize not: assume the CLI's default
  }
  return totalmem() * 0.8;
}

/** JSON-safe rows → an Arrow table (node-api has no Arrow output without an extension: the types are the values'). */
export function rowsToTable(rows: Record<string, unknown>[]): Table {
  const safe = rows.map((r) =>
    Object.fromEntries(
      Object.entries(r).map(([k, x]) => [
        k,
        typeof x === 'bigint' ? Number(x) : x instanceof Date ? x.toISOString() : x !== null && typeof x === 'object' ? JSON.stringify(x, (_k, y) => (typeof y === 'bigint' ? Number(y) : y)) : x,
      ]),
    ),
  );
  return tableFromJSON(safe);
}

export class NativePool implements PoolPort {
  readonly db: NativeDb;
  private main = 0;
  /** Connections of the notebook runtime's read-only runs and views (as read-only.ts keeps them in the page). */
  private notebook: Promise<{ ro: number; views: number }> | null = null;
  private readonly imports: ImportTransactions<number>;
  private readonly changes = new ChangeLog();
  /** ChangeLog keys connections by object: one token per connection number. */
  private readonly tokens = new Map<number, object>();
  private readonly listeners = new Set<(e: PoolChange) => void>();
  /** Imports that were running when this pool file was last closed (a killed command): marked interrupted at open. */
  interrupted: { import_id: number; file: string }[] = [];

  private constructor(
    path: string,
    memoryLimit: string | undefined,
    stageBytes: number,
  ) {
    this.db = new NativeDb(path, memoryLimit);
    this.imports = new ImportTransactions(this.importEngine(stageBytes, limitBytes(memoryLimit)));
  }

  /**
   * Open (or create) the pool file at `path` (':memory:' for none) with the pool's schema; `memoryLimit`: DuckDB's
   * memory_limit; `stageBytes`: an import's batches wait as files until this many bytes (or its commit), decision 044.
   */
  static async open(path: string, opts: { memoryLimit?: string; stageBytes?: number; scope?: EngineScope } = {}): Promise<NativePool> {
    const p = new NativePool(path, opts.memoryLimit, opts.stageBytes ?? STAGE_BYTES);
    p.main = await p.db.connect();
    // before anything reads the pool: SQL reaches only the pool, its staging folder and what the command was given
    // (src/cli/engine-lock.ts) — a pool file someone sent may hold views that read files, and the setup reads `imports`
    if (opts.scope) for (const stmt of lockSql({ dirs: [p.db.stage, ...opts.scope.dirs], paths: opts.scope.paths })) await p.db.exec(p.main, stmt);
    for (const stmt of DDL) await p.db.exec(p.main, stmt);
    for (const h of CURATION_HELPERS) await p.db.exec(p.main, h.sql);
    p.interrupted = await p.imports.recover();
    return p;
  }

  /** The engine-specific parts of the one import transaction (src/pool/import-tx.ts, decision 075). */
  private importEngine(stageBytes: number, limit: number): ImportEngine<number> {
    const db = this.db;
    /** Bytes of batches staged per connection and not yet inserted. */
    const staged = new Map<number, number>();
    const insertStaged = async (conn: number) => {
      staged.delete(conn);
      await db.call({ op: 'insertStaged', conn, table: 'steps' });
      this.note('INSERT INTO steps', conn);
    };
    return {
      run: (sql) => this.run(this.main, sql),
      connect: () => db.connect(),
      runSync: (conn, sql) => {
        this.note(sql, conn);
        return db.querySync(conn, sql);
      },
      runOn: async (conn, sql) => {
        this.note(sql, conn);
        await db.exec(conn, sql);
      },
      close: async (conn) => {
        staged.delete(conn);
        await db.call({ op: 'close', conn });
        this.changes.closed(this.token(conn));
        this.tokens.delete(conn);
      },
      // no Arrow IPC reader in native DuckDB without extensions: the batch waits as a Parquet file (decision 044)
      append: async (conn, bytes) => {
        const n = bytes.length;
        await db.call({ op: 'stage', conn, bytes }, [bytes.buffer as ArrayBuffer]);
        const total = (staged.get(conn) ?? 0) + n;
        staged.set(conn, total);
        if (total >= stageBytes) await insertStaged(conn);
      },
      insertHeld: insertStaged,
      dropHeld: async (conn) => {
        staged.delete(conn);
        await db.call({ op: 'dropStaged', conn });
      },
      room: async () => null,
      // the CLI checkpoints when it closes the pool
      checkpoint: async () => {},
      statsPasses: (t, n) => statsPasses(t, n, limit),
    };
  }

  private token(conn: number): object {
    let t = this.tokens.get(conn);
    if (!t) this.tokens.set(conn, (t = {}));
    return t;
  }

  private note(sql: string, conn: number): void {
    this.changes.note(sql, this.token(conn));
  }

  /** Tell subscribers the tables the last call wrote (as the page's worker posts them after each call). */
  private tell(): void {
    const tables = this.changes.take();
    if (!tables.length) return;
    for (const fn of this.listeners) fn({ tables: withViews(tables) });
  }

  private async run(conn: number, sql: string): Promise<Row[]> {
    try {
      return await this.db.query(conn, sql);
    } finally {
      this.note(sql, conn);
    }
  }

  private async told<T>(p: Promise<T>): Promise<T> {
    try {
      return await p;
    } finally {
      this.tell();
    }
  }

  rows(sql: string): Promise<Row[]> {
    return this.told(this.run(this.main, sql));
  }

  async query(sql: string): Promise<Table> {
    return rowsToTable(await this.rows(sql));
  }

  exec(sql: string): Promise<void> {
    return this.told(
      (async () => {
        try {
          await this.db.exec(this.main, sql);
        } finally {
          this.note(sql, this.main);
        }
      })(),
    );
  }

  private connections(): Promise<{ ro: number; views: number }> {
    this.notebook ??= (async () => {
      const ro = await this.db.connect();
      const views = await this.db.connect();
      for (const c of [ro, views]) for (const m of TIME_MACROS) await this.db.exec(c, m);
      return { ro, views };
    })();
    return this.notebook;
  }

  /** One statement in a READ ONLY transaction: its first `maxRows` rows and how many it made; null when `run` is false. */
  async readOnly(sql: string, run = true, maxRows = Number.POSITIVE_INFINITY): Promise<{ rows: Row[]; count: number } | null> {
    const { ro } = await this.connections();
    return this.db.call({ op: 'one', conn: ro, sql, readOnly: true, run, maxRows: Number.isFinite(maxRows) ? maxRows : null });
  }

  async queryReadOnly(sql: string, run = true): Promise<Table | null> {
    const r = await this.readOnly(sql, run);
    return r ? rowsToTable(r.rows) : null;
  }

  async execOne(sql: string): Promise<void> {
    const { views } = await this.connections();
    await this.db.call({ op: 'one', conn: views, sql, readOnly: false, run: true, maxRows: 0 });
  }

  onChange(fn: (e: PoolChange) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  async checkpoint(): Promise<void> {
    await this.exec('CHECKPOINT');
  }

  /** Checkpoint (the WAL into the database file) and close. */
  async close(): Promise<void> {
    try {
      await this.db.exec(this.main, 'CHECKPOINT');
    } catch {
      // a read-only or failed pool: closing is what matters
    }
    await this.db.close();
  }

  beginImport(meta: ImportMeta): Promise<number> {
    return this.told(this.imports.begin(meta));
  }

  setImportSource(id: number, sourceId: string): Promise<void> {
    return this.told(this.imports.setSource(id, sourceId));
  }

  /** An import batch (Arrow IPC, or Parquet a reader thread converted), staged as a file until the commit (decision 044). */
  appendBatch(id: number, bytes: Uint8Array): Promise<void> {
    return this.told(this.imports.append(id, bytes));
  }

  /** Rows of a query appended to the import's steps (by column name), inside its transaction (merge of shard files). */
  appendSql(id: number, select: string): Promise<void> {
    return this.told(this.imports.appendSql(id, select));
  }

  resetImport(id: number): Promise<void> {
    return this.told(this.imports.reset(id));
  }

  commitImport(id: number, info: ImportCommit): Promise<CommitResult> {
    return this.told(this.imports.commit(id, info));
  }

  abortImport(id: number, reason: string, errors: RejectedLine[] = []): Promise<void> {
    return this.told(this.imports.abort(id, reason, errors));
  }
}
