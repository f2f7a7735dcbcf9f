/**
 * Worker side of the pool: one PoolEngine owns the DuckDB instance. Runs only inside
 * workers/pool.worker.ts; everything else talks to it through PoolClient (client.ts).
 *
 * The engine composes its parts, each in a file of its own: the OPFS files (engine-files.ts: open,
 * the WAL fix, flushing), schema migrations (migrations.ts), trajectory_stats (stats.ts), import
 * transactions (import-tx.ts, import-commit.ts) and streaming cursors (cursors.ts). `run` is the one
 * place a statement of the pool's own connection is executed.
 *
 * One concept: the engine's worker API is one object over the parts above; each method is a few lines that delegate.
 */
import type { DuckDBBindings, DuckDBConnection } from '@duckdb/duckdb-wasm/blocking';
import * as Comlink from 'comlink';
import { type Table, tableToIPC } from 'apache-arrow';
import { changes } from './changes';
import { CURATION_HELPERS } from './curation-sql';
import { sqlString } from './sql';
import { Cursors } from './cursors';
import type { PoolFiles } from './engine-files';
import type { EngineBoot } from './boot';
import type { PoolApi, PoolInit, PoolStatus } from './api';
import { type ImportEngine, ImportTransactions } from './import-tx';
import type { CommitResult, ImportCommit, ImportMeta } from './port';
import { type MigrationOutcome, migrate } from './migrations';
import { execOne, readOnlyQuery, withTimeMacros } from './read-only';
import { RemoteTables } from './remote-tables';
import { DATA_TABLES, DDL, SCHEMA_VERSION } from './schema';
import { SCHEMA_HASH, SCHEMA_OBJECTS, SCHEMA_OBJECTS_SQL } from './schema-hash';
import { TrajectoryStats } from './stats';

export type { CommitResult, ImportCommit, ImportMeta } from './port';

/** Epoch ms, comparable across the page and its workers. */
const epochNow = () => performance.timeOrigin + performance.now();
const WORKER_READY = epochNow();

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

/** duckdb-wasm 1.32 read back corrupt blocks past 4 GiB of OPFS database file (docs/performance.md). */
export const POOL_FILE_LIMIT = 3.75 * 1024 ** 3;

/** Let the worker answer the queries that queued up behind the last statement. */
const breathe = () => new Promise<void>((r) => setTimeout(r, 0));

export class PoolEngine {
  /** `boot` opens the database (boot.ts: on OPFS, else in memory). */
  constructor(private readonly boot: EngineBoot) {}

  private db: DuckDBBindings | null = null;
  private conn: DuckDBConnection | null = null;
  private files: PoolFiles | null = null;
  /** The database held nothing when opened (boot.ts). */
  private isNew = true;
  persistent = false;
  fileLimit = POOL_FILE_LIMIT;
  /** Set when this build must not write the pool (a newer or unmigratable schema): the reason. */
  private refused: string | null = null;
  /** Sub-stages of prepareSchema, for PoolStatus.boot. */
  private schemaMarks: { probed: number; ddl: number | null } = { probed: 0, ddl: null };
  private checkpointTimer: ReturnType<typeof setTimeout> | null = null;
  private stageSeq = 1;
  readonly stats = new TrajectoryStats((sql, on) => this.run(sql, on));
  readonly cursors = new Cursors();
  readonly imports = new ImportTransactions(this.importEngine());
  readonly remote = new RemoteTables();

  private c(): DuckDBConnection {
    if (!this.conn) throw new Error('The pool is not open yet.');
    return this.conn;
  }

  private bindings(): DuckDBBindings {
    if (!this.db) throw new Error('The pool is not open yet.');
    return this.db;
  }

  /** Execute one statement on the pool's own connection (or `on`); DuckDB's errors become QueryErrors naming the SQL. */
  run(sql: string, on: DuckDBConnection = this.c()): Table {
    try {
      return on.query(sql);
    } catch (e) {
      throw new QueryError(e instanceof Error ? e.message : String(e), sql, { cause: e });
    } finally {
      changes.note(sql, on);
    }
  }

  connect(): DuckDBConnection {
    return this.bindings().connect();
  }

  /**
   * The engine-specific parts of the one import transaction (import-tx.ts, decision 075): a batch is inserted as
   * Arrow on the import's connection; the database file has a ceiling (fileLimit); a commit is made durable by
   * flushing the OPFS handles, and its CHECKPOINT runs later, off the commit's path.
   */
  private importEngine(): ImportEngine<DuckDBConnection> {
    return {
      run: async (sql) => this.run(sql).toArray(),
      connect: async () => this.connect(),
      runSync: (conn, sql) => this.run(sql, conn).toArray(),
      runOn: async (conn, sql) => void this.run(sql, conn),
      close: async (conn) => {
        conn.close();
        changes.closed(conn);
      },
      append: async (conn, bytes) => conn.insertArrowFromIPCStream(bytes, { name: 'steps', create: false }),
      room: async () => (this.persistent ? { bytes: this.databaseBytes(), limit: this.fileLimit } : null),
      checkpoint: async () => this.checkpoint(),
      afterCommit: async () => {
        // durable now (WAL and data blocks on OPFS); the checkpoint is housekeeping and waits its turn
        this.flush();
        this.checkpointSoon();
      },
      pause: breathe,
    };
  }

  async open(init: PoolInit): Promise<PoolStatus> {
    this.fileLimit = init.fileLimit ?? POOL_FILE_LIMIT;
    const booted = await this.boot(init);
    const { db, wasm, compaction, instantiated } = booted;
    let message = booted.message;
    this.db = db;
    this.persistent = booted.persistent;
    this.isNew = booted.isNew;
    this.files = booted.files;
    this.conn = db.connect();
    // What DuckDB replayed from the WAL at open is only in memory: its next WAL starts at offset 0,
    // over the replayed one. Write it to the database file before anything else is written.
    // (A WAL left empty, as a new pool's or one closed after a checkpoint, replayed nothing.)
    if (this.persistent && this.files?.walBytes() !== 0) this.run('CHECKPOINT');
    this.run('SET autoinstall_known_extensions=false; SET autoload_known_extensions=false');
    const opened = epochNow();
    const schema = this.prepareSchema();
    const schemaReady = epochNow();
    if (schema.refused) message = schema.refused;
    // a new pool has no import to recover and no steps to count
    const fresh = schema.from === null;
    const interrupted = this.refused || fresh ? [] : await this.imports.recover();
    if (!this.refused && !fresh && this.stats.check()) this.checkpoint();
    const version = String(this.run('SELECT version() AS v').getChild('v')?.get(0));
    // SQL from notebooks (also ones opened from a URL) must not reach the network or the file system.
    // The open database file and Arrow inserts keep working; lock_configuration stops SQL undoing this.
    this.run('SET enable_external_access=false; SET lock_configuration=true');
    this.files?.seal();
    return {
      persistent: this.persistent,
      message,
      interrupted,
      version,
      schema: { version: schema.refused ? (schema.from ?? SCHEMA_VERSION) : SCHEMA_VERSION, migratedFrom: schema.applied.length ? schema.from : null, applied: schema.applied, refused: schema.refused },
      wasmSource: wasm.source,
      ...(compaction ? { compaction } : {}),
      boot: { workerOrigin: performance.timeOrigin, workerReady: WORKER_READY, instantiated, opened, schema: schemaReady, ...this.schemaMarks, done: epochNow() },
    };
  }

  /** pool_meta's rows, or null when the database has no pool_meta table. */
  private poolMeta(): Map<string, string> | null {
    let t: Table;
    try {
      t = this.c().query('SELECT key, value FROM pool_meta');
    } catch {
      return null;
    }
    return new Map(t.toArray().map((r) => [String(r.key), String(r.value)]));
  }

  /**
   * Migrate a saved pool to this build's schema, then create what is missing (docs/decisions/023).
   * A pool whose pool_meta names this build's schema version and DDL (SCHEMA_HASH) is used as it is:
   * no probe, no DDL, nothing written (docs/decisions/036).
   */
  private prepareSchema(): MigrationOutcome {
    const outcome = this.createSchema();
    withTimeMacros(this.c()); // now() - interval … in workbench.query and effect cells (read-only.ts)
    return outcome;
  }

  private createSchema(): MigrationOutcome {
    // a new database file (or an in-memory pool) has nothing to read: its first query is the DDL
    const isNew = this.isNew;
    const meta = isNew ? null : this.poolMeta();
    this.schemaMarks.probed = epochNow();
    if (meta?.get('schema_version') === String(SCHEMA_VERSION) && meta.get('schema_hash') === SCHEMA_HASH) {
      // unless SQL dropped one of the pool's views or macros since (an effect cell may): then the DDL below repairs it
      if (Number(this.c().query(SCHEMA_OBJECTS_SQL).getChild('n')?.get(0)) === SCHEMA_OBJECTS.length) {
        return { from: SCHEMA_VERSION, to: SCHEMA_VERSION, applied: [], refused: null };
      }
    }
    // nothing in the database at all: a new pool (no information_schema probes)
    const empty = isNew || (!meta && Number(this.c().query('SELECT count(*)::INTEGER AS n FROM duckdb_tables()').getChild('n')?.get(0)) === 0);
    const outcome: MigrationOutcome = empty ? { from: null, to: SCHEMA_VERSION, applied: [], refused: null } : migrate((sql: string) => this.run(sql));
    this.schemaMarks.probed = epochNow();
    if (outcome.refused) {
      this.refused = outcome.refused;
      return outcome;
    }
    // The whole schema in one transaction and one call: one WAL commit instead of one per statement.
    const stmts = [...DDL, ...CURATION_HELPERS.map((h) => h.sql)];
    stmts.push(`INSERT OR REPLACE INTO pool_meta VALUES ('schema_version', '${SCHEMA_VERSION}'), ('schema_hash', '${SCHEMA_HASH}')`);
    const batch = `BEGIN TRANSACTION;\n${stmts.join(';\n')};\nCOMMIT`;
    try {
      this.c().query(batch);
    } catch (e) {
      try {
        this.c().query('ROLLBACK');
      } catch {
        /* the failed statement ended the transaction */
      }
      throw new QueryError(e instanceof Error ? e.message : String(e), batch, { cause: e });
    }
    this.schemaMarks.ddl = epochNow();
    // A new pool's schema stays in the WAL (made durable here); the next open's checkpoint moves it.
    if (outcome.from === null) this.files?.flushAll();
    else this.checkpoint();
    return outcome;
  }

  /** Throw when this build must not write the pool (see `refused`). */
  private writable(): void {
    if (this.refused) throw new Error(this.refused);
  }

  databaseBytes(): number {
    const t = this.run('SELECT total_blocks * block_size AS b FROM pragma_database_size() LIMIT 1');
    return Number(t.getChild('b')?.get(0) ?? 0);
  }

  checkpoint(): void {
    // CHECKPOINT cannot run beside an open write transaction; the import's commit checkpoints after.
    if (!this.persistent || this.imports.busy) return;
    if (this.checkpointTimer) {
      clearTimeout(this.checkpointTimer);
      this.checkpointTimer = null;
    }
    this.run('CHECKPOINT');
    this.flush();
  }

  checkpointSoon(): void {
    if (!this.persistent || this.checkpointTimer) return;
    this.checkpointTimer = setTimeout(() => {
      this.checkpointTimer = null;
      try {
        this.checkpoint();
      } catch (e) {
        // the next write's checkpoint (or the next open) tries again; the data is safe in the WAL
        console.warn('pool: deferred checkpoint failed', e);
      }
    }, 0);
  }

  flush(): void {
    this.files?.flushAll();
  }

  /** After a call that may have written: stats follow SQL that wrote steps, the WAL is made durable. */
  private afterWrite(sql: string): void {
    this.stats.afterUserSql(sql);
    this.files?.syncWal();
  }

  /** Stage Arrow IPC rows in a table of their own, run `body` over it in one transaction, and drop the stage. */
  private withStaged(bytes: Uint8Array, prefix: string, body: (name: string) => void): void {
    const name = `${prefix}_${this.stageSeq++}`;
    this.c().insertArrowFromIPCStream(bytes, { name, create: true });
    this.run('BEGIN TRANSACTION');
    try {
      body(name);
      this.run('COMMIT');
    } catch (e) {
      this.run('ROLLBACK');
      throw e;
    } finally {
      this.run(`DROP TABLE IF EXISTS "${name}"`);
    }
  }

  private queryError(e: unknown, sql: string): QueryError {
    return new QueryError(e instanceof Error ? e.message : String(e), sql, { cause: e });
  }

  /** The object the worker exposes (Comlink): plain methods, each a call of the pool API. */
  api(): PoolApi {
    return {
      open: (init: PoolInit): Promise<PoolStatus> => this.open(init),

      /** Run SQL, return the result as Arrow IPC stream bytes (transferred). */
      query: (sql: string): Uint8Array => {
        const bytes = tableToIPC(this.run(sql), 'stream');
        this.afterWrite(sql);
        return Comlink.transfer(bytes, [bytes.buffer]);
      },

      /** Run SQL for its effect. */
      exec: (sql: string): void => {
        this.run(sql);
        this.afterWrite(sql);
      },

      /** Exactly one statement in a read-only transaction (notebook query cells; read-only.ts). Null when `run` is false. */
      queryReadOnly: (sql: string, run = true): Uint8Array | null => {
        let t: Table | null;
        try {
          t = readOnlyQuery(this.bindings(), sql, run);
        } catch (e) {
          throw this.queryError(e, sql);
        }
        if (!t) return null;
        const bytes = tableToIPC(t, 'stream');
        return Comlink.transfer(bytes, [bytes.buffer]);
      },

      /** Exactly one statement (a notebook's CREATE VIEW of a checked query), on the notebook's own connection. */
      execOne: (sql: string): void => {
        try {
          execOne(this.bindings(), sql);
        } catch (e) {
          throw this.queryError(e, sql);
        }
      },

      /** Open a streaming cursor over a query on its own connection. */
      openCursor: (sql: string): number => {
        try {
          return this.cursors.start(this.bindings(), sql);
        } catch (e) {
          throw this.queryError(e, sql);
        }
      },

      /** The next chunk of a cursor (Cursors.next), or null at the end. */
      nextChunk: (id: number, minBytes = 24 << 20): Uint8Array | null => {
        const bytes = this.cursors.next(id, minBytes);
        return bytes ? Comlink.transfer(bytes, [bytes.buffer]) : null;
      },

      closeCursor: (id: number): void => this.cursors.close(id),

      beginImport: (meta: ImportMeta): Promise<number> => {
        this.writable();
        return this.imports.begin(meta);
      },

      /** Record the file's content hash once computed (imports are registered before hashing, so a reload then is reported too). */
      setImportSource: (id: number, sourceId: string): Promise<void> => this.imports.setSource(id, sourceId),

      /** Append one Arrow IPC batch of step records (columns in `steps` order, import_id set) inside the import's transaction. */
      appendBatch: (id: number, bytes: Uint8Array): Promise<void> => this.imports.append(id, bytes),

      /** Drop every row the import appended and keep it open: the ingest worker reads the file again (a parallel read fell back to one reader). */
      resetImport: (id: number): Promise<void> => this.imports.reset(id),

      /** Commit the import (ImportTransactions.commit): atomic, deduped, stats derived; the checkpoint follows off its path. */
      commitImport: (id: number, info: ImportCommit): Promise<CommitResult> => this.imports.commit(id, info),

      /** Abandon an import: its transaction is rolled back, so nothing of it is kept; the reason is recorded. */
      abortImport: (id: number, reason: string, errors: { line: number; reason: string }[] = []): Promise<void> => this.imports.abort(id, reason, errors),

      /**
       * Insert or replace step rows outside an import (the gateway's captured calls): rows whose
       * step_id exists are replaced (complete_trajectory updates the last step once). One transaction.
       */
      upsertSteps: (bytes: Uint8Array): { total: number } => {
        this.writable();
        this.withStaged(bytes, '_upsert', (name) => {
          this.run(`DELETE FROM steps WHERE step_id IN (SELECT step_id FROM "${name}")`);
          this.run(`INSERT INTO steps BY NAME SELECT * REPLACE (coalesce(is_last, false) AS is_last) FROM "${name}" QUALIFY row_number() OVER (PARTITION BY step_id ORDER BY source_line DESC) = 1`);
          this.stats.refresh(`SELECT DISTINCT trajectory_uid FROM "${name}"`);
        });
        const total = Number(this.run(`SELECT count(*) AS n FROM steps`).getChild('n')?.get(0));
        this.checkpoint();
        return { total };
      },

      /**
       * Merge counted rows (Arrow IPC stream) into `token_counts`, in one transaction: rows of another profile than
       * `profileKey`, of steps no longer in the pool, or of the steps counted again are dropped; the new rows added.
       */
      mergeTokenCounts: (bytes: Uint8Array, profileKey: string): { rows: number } => {
        this.writable();
        this.withStaged(bytes, '_token_counts', (name) => {
          this.run(
            `DELETE FROM token_counts WHERE profile_key IS DISTINCT FROM ${sqlString(profileKey)} OR step_id NOT IN (SELECT step_id FROM steps) OR step_id IN (SELECT step_id FROM "${name}")`,
          );
          // content_hash comes as text (a UBIGINT does not survive JS numbers)
          this.run(`INSERT INTO token_counts BY NAME SELECT * REPLACE (content_hash::UBIGINT AS content_hash) FROM "${name}"`);
        });
        this.checkpoint();
        return { rows: Number(this.run('SELECT count(*) AS n FROM token_counts').getChild('n')?.get(0)) };
      },

      checkpoint: (): void => this.checkpoint(),

      /** A remote Parquet file's columns read for a query, as table `name` of the attached in-memory database (remote-tables.ts). */
      registerRemote: (name: string, ipc: Uint8Array): void => this.remote.register(this.bindings(), name, ipc),

      dropRemote: (names: string[]): void => this.remote.drop(this.bindings(), names),

      /** Empty every table of the pool (the user confirmed). */
      clear: (): void => {
        this.writable();
        this.run('BEGIN TRANSACTION');
        for (const t of DATA_TABLES) this.run(`DELETE FROM ${t}`);
        this.run('COMMIT');
        this.checkpoint();
      },

      status: (): { persistent: boolean } => ({ persistent: this.persistent }),

      /** The database file's size and the ceiling imports stop at (the Pool card's "room left"). */
      room: (): { bytes: number; limit: number } => ({ bytes: this.persistent ? this.databaseBytes() : 0, limit: this.fileLimit }),
    };
  }
}

/**
 * The pool API of a new engine over the database `boot` opens (one per worker: duckdb-wasm's browser runtime is one
 * per worker; workers/pool.worker.ts passes the browser's boot, boot.ts).
 */
export function createPoolApi(boot: EngineBoot): PoolApi {
  return new PoolEngine(boot).api();
}
