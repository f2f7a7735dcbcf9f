/**
 * The pool on native DuckDB (a file, for the CLI): the same DDL, curation helpers and import commit as the
 * browser's pool worker (src/pool/schema.ts, curation-sql.ts, import-commit.ts), on @duckdb/node-api.
 * An import appends inside a transaction on a connection of its own and commits atomically (decision 004).
 */
import type { RejectedLine } from '../contract/reports';
import type { IngestSink } from '../ingest/pipeline';
import { CURATION_HELPERS } from '../pool/curation-sql';
import { abortImportSql, beginImportSql, commitImportRows, setImportSourceSql } from '../pool/import-commit';
import type { ImportCommit, ImportMeta } from '../pool/pool-core';
import { DDL } from '../pool/schema';
import { NativeDb, type Row } from './native-db';

const str = (s: string) => `'${s.replaceAll("'", "''")}'`;

export class NativePool implements IngestSink {
  readonly db: NativeDb;
  private main = 0;
  private tx = new Map<number, number>();

  private constructor(path: string, memoryLimit?: string) {
    this.db = new NativeDb(path, memoryLimit);
  }

  /** Open (or create) the pool file at `path` (':memory:' for none) with the pool's schema; `memoryLimit`: DuckDB's memory_limit. */
  static async open(path: string, opts: { memoryLimit?: string } = {}): Promise<NativePool> {
    const p = new NativePool(path, opts.memoryLimit);
    p.main = await p.db.connect();
    for (const stmt of DDL) await p.exec(stmt);
    for (const h of CURATION_HELPERS) await p.exec(h.sql);
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

  appendBatch(id: number, bytes: Uint8Array): Promise<void> {
    return this.db.call({ op: 'appendIPC', conn: this.conn(id), table: 'steps', bytes }, [bytes.buffer as ArrayBuffer]);
  }

  /** Rows of a query appended to the import's steps (by column name), inside its transaction. */
  appendSql(id: number, select: string): Promise<void> {
    return this.db.exec(this.conn(id), `INSERT INTO steps BY NAME ${select}`);
  }

  async resetImport(id: number): Promise<void> {
    const c = this.conn(id);
    await this.db.exec(c, 'ROLLBACK');
    await this.db.exec(c, 'BEGIN TRANSACTION');
  }

  async commitImport(id: number, info: ImportCommit) {
    const c = this.conn(id);
    try {
      const q = (sql: string) => {
        const rows = this.db.querySync(c, sql);
        return { toArray: () => rows };
      };
      const result = await commitImportRows(q, id, info, (errors) => {
        for (const sql of errorInserts(id, errors)) this.db.querySync(c, sql);
      });
      await this.endTx(id, 'COMMIT');
      return result;
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
    try {
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
    const values = errors.slice(i, i + 1000).map((e) => `(${id}, ${e.line | 0}, ${str(e.reason.slice(0, 1000))})`);
    out.push(`INSERT INTO import_errors SELECT v.id, i.file, v.line, v.reason FROM (VALUES ${values.join(', ')}) v(id, line, reason) JOIN imports i ON i.import_id = v.id`);
  }
  return out;
}
