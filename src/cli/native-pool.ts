/**
 * The pool on native DuckDB (a file, for the CLI): the same DDL, curation helpers and import commit as the
 * browser's pool worker (src/pool/schema.ts, curation-sql.ts, import-commit.ts), on @duckdb/node-api.
 * An import appends inside a transaction on a connection of its own and commits atomically (decision 004).
 */
import type { RejectedLine } from '../contract/reports';
import type { IngestSink } from '../ingest/pipeline';
import { CURATION_HELPERS } from '../pool/curation-sql';
import { abortImportSql, beginImportSql, commitImportRows, setImportSourceSql, stageClock } from '../pool/import-commit';
import type { ImportCommit, ImportMeta } from '../pool/pool-core';
import { DDL } from '../pool/schema';
import { sqlString } from '../pool/sql';
import { totalmem } from 'node:os';
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

export class NativePool implements IngestSink {
  readonly db: NativeDb;
  private main = 0;
  private tx = new Map<number, number>();
  /** Bytes of batches staged per import and not yet inserted. */
  private staged = new Map<number, number>();
  private limit: number;

  private constructor(
    path: string,
    memoryLimit: string | undefined,
    private stageBytes: number,
  ) {
    this.db = new NativeDb(path, memoryLimit);
    this.limit = limitBytes(memoryLimit);
  }

  /**
   * Open (or create) the pool file at `path` (':memory:' for none) with the pool's schema; `memoryLimit`: DuckDB's
   * memory_limit; `stageBytes`: an import's batches wait as files until this many bytes (or its commit), decision 044.
   */
  static async open(path: string, opts: { memoryLimit?: string; stageBytes?: number; scope?: EngineScope } = {}): Promise<NativePool> {
    const p = new NativePool(path, opts.memoryLimit, opts.stageBytes ?? STAGE_BYTES);
    p.main = await p.db.connect();
    for (const stmt of DDL) await p.exec(stmt);
    for (const h of CURATION_HELPERS) await p.exec(h.sql);
    // from here on SQL reaches only the pool, its staging folder and what the command was given (src/cli/engine-lock.ts)
    if (opts.scope) for (const stmt of lockSql({ dirs: [p.db.stage, ...opts.scope.dirs], paths: opts.scope.paths })) await p.exec(stmt);
    return p;
  }

  rows(sql: string): Promise<Row[]> {
    return this.db.query(this.main, sql);
  }

  exec(sql: string): Promise<void> {
    return this.db.exec(this.main, sql);
  }

  /** Checkpoint (the WAL into the database file) and close. */
  async close(): Promise<void> {
    try {
      await this.exec('CHECKPOINT');
    } catch {
      // a read-only or failed pool: closing is what matters
    }
    await this.db.close();
  }

  async beginImport(meta: ImportMeta): Promise<number> {
    const [r] = await this.rows(`SELECT nextval('import_seq') AS id`);
    const id = Number(r.id);
    await this.exec(beginImportSql(id, meta));
    const conn = await this.db.connect();
    await this.db.exec(conn, 'BEGIN TRANSACTION');
    this.tx.set(id, conn);
    return id;
  }

  async setImportSource(id: number, sourceId: string): Promise<void> {
    await this.exec(setImportSourceSql(id, sourceId));
  }

  /** An import batch (Arrow IPC, or Parquet a reader thread converted), staged as a file: insertStaged appends it. */
  async appendBatch(id: number, bytes: Uint8Array): Promise<void> {
    const c = this.conn(id);
    const n = bytes.length;
    await this.db.call({ op: 'stage', conn: c, bytes }, [bytes.buffer as ArrayBuffer]);
    const staged = (this.staged.get(id) ?? 0) + n;
    this.staged.set(id, staged);
    if (staged >= this.stageBytes) await this.insertStaged(id);
  }

  /** The import's staged batches appended to steps (one INSERT), inside its transaction. */
  private async insertStaged(id: number): Promise<void> {
    this.staged.delete(id);
    await this.db.call({ op: 'insertStaged', conn: this.conn(id), table: 'steps' });
  }

  /** Rows of a query appended to the import's steps (by column name), inside its transaction. */
  appendSql(id: number, select: string): Promise<void> {
    return this.db.exec(this.conn(id), `INSERT INTO steps BY NAME ${select}`);
  }

  async resetImport(id: number): Promise<void> {
    const c = this.conn(id);
    this.staged.delete(id);
    await this.db.call({ op: 'dropStaged', conn: c });
    await this.db.exec(c, 'ROLLBACK');
    await this.db.exec(c, 'BEGIN TRANSACTION');
  }

  async commitImport(id: number, info: ImportCommit) {
    const c = this.conn(id);
    // ms per stage, as the browser's pool reports them (src/pool/import-tx.ts): the import report's timings.commit
    const { stages, mark, lap } = stageClock();
    try {
      await this.insertStaged(id);
      mark('insert');
      const q = (sql: string) => {
        const rows = this.db.querySync(c, sql);
        return { toArray: () => rows };
      };
      const result = await commitImportRows(
        q,
        id,
        info,
        (errors) => {
          for (const sql of errorInserts(id, errors)) this.db.querySync(c, sql);
        },
        lap,
        { statsPasses: (t, n) => statsPasses(t, n, this.limit) },
      );
      await this.endTx(id, 'COMMIT');
      mark('commit');
      return { ...result, stages };
    } catch (e) {
      await this.endTx(id, 'ROLLBACK');
      throw e;
    }
  }

  async abortImport(id: number, reason: string, errors: RejectedLine[] = []): Promise<void> {
    try {
      await this.endTx(id, 'ROLLBACK');
    } finally {
      for (const sql of errorInserts(id, errors)) await this.exec(sql);
      await this.exec(abortImportSql(id, reason, errors.length));
    }
  }

  private conn(id: number): number {
    const c = this.tx.get(id);
    if (c === undefined) throw new Error(`import ${id} is not open`);
    return c;
  }

  private async endTx(id: number, how: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    const c = this.tx.get(id);
    if (c === undefined) return;
    this.tx.delete(id);
    this.staged.delete(id);
    try {
      await this.db.call({ op: 'dropStaged', conn: c });
      await this.db.exec(c, how);
    } finally {
      await this.db.call({ op: 'close', conn: c });
    }
  }
}

/** Rows of import_errors (the file name is the import's own), as INSERT statements of at most 1000 rows. */
function errorInserts(id: number, errors: RejectedLine[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < errors.length; i += 1000) {
    const values = errors.slice(i, i + 1000).map((e) => `(${id}, ${e.line | 0}, ${sqlString(e.reason.slice(0, 1000))})`);
    out.push(`INSERT INTO import_errors SELECT v.id, i.file, v.line, v.reason FROM (VALUES ${values.join(', ')}) v(id, line, reason) JOIN imports i ON i.import_id = v.id`);
  }
  return out;
}
