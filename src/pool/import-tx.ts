/**
 * An import's transaction (docs/decisions/004), written once for both engines (decision 075): it appends inside a
 * transaction on a connection of its own, so other connections never see the rows before the commit and a crash
 * rolls them back for free. Rows carry their import_id; the commit's dedupe and is_last fix-up find them by it
 * (import-commit.ts). What differs between the engines is the small `ImportEngine` each lends it: how a batch goes in
 * (DuckDB-WASM inserts the Arrow batch; native DuckDB stages it as a Parquet file, decision 044), whether the file has
 * a size limit, and what makes a commit durable (OPFS flush and a deferred CHECKPOINT; nothing more natively).
 */
import type { RejectedLine } from '../contract/reports';
import { abortImportSql, beginImportSql, type CommitDedupe, commitImportRows, setImportSourceSql, stageClock } from './import-commit';
import type { CommitResult, ImportCommit, ImportMeta } from './port';
import { sqlString } from './sql';

/** What an engine lends the import transactions; `C` is its connection handle. */
export interface ImportEngine<C> {
  /** Rows of a statement on the pool's own connection. */
  run(sql: string): Promise<unknown[]>;
  /** A connection of the import's own, with nothing run on it yet. */
  connect(): Promise<C>;
  /** A statement on the import's connection, answered synchronously: the commit's dedupe is written as plain sequential SQL. */
  runSync(conn: C, sql: string): unknown[];
  /** A statement on the import's connection. */
  runOn(conn: C, sql: string): Promise<void>;
  /** The import's connection closed (its transaction ended first). */
  close(conn: C): Promise<void>;
  /** One Arrow IPC stream batch of step rows into `steps` on the import's connection, or held for `insertHeld`. */
  append(conn: C, bytes: Uint8Array): Promise<void>;
  /** Batches `append` holds outside the database (staged files) inserted now; absent when append inserts at once. */
  insertHeld?(conn: C): Promise<void>;
  /** Batches `append` holds dropped unread (the import was reset or ended). */
  dropHeld?(conn: C): Promise<void>;
  /** The database file's size and the size imports stop at; null when the engine sets no limit. */
  room(): Promise<{ bytes: number; limit: number } | null>;
  /** Checkpoint after an import began, failed or was recovered (an engine that checkpoints at close does nothing). */
  checkpoint(): Promise<void>;
  /** After the commit: make it durable (timed as the 'flush' stage); absent when the COMMIT itself is. */
  afterCommit?(): Promise<void>;
  /** Awaited between the commit's stages (the browser's worker answers queued queries there, decision 022). */
  pause?(): Promise<void>;
  /** How many passes the trajectory stats take for an import of this many trajectories and steps (decision 048). */
  statsPasses?(trajectories: number, steps: number): number;
}

interface Tx<C> {
  conn: C;
  /** Database file size when it last grew, and Arrow bytes appended since: rows still in memory (room check). */
  fileBytes: number;
  pending: number;
}

/** What `recover` says of an import that was running when its engine went away. */
export const INTERRUPTED_MESSAGE = 'The import was interrupted (the page or the command was closed) and rolled back; nothing of it was kept.';

export class ImportTransactions<C> {
  private readonly open = new Map<number, Tx<C>>();

  constructor(private readonly engine: ImportEngine<C>) {}

  /** True while an import's transaction is open (CHECKPOINT cannot run beside it). */
  get busy(): boolean {
    return this.open.size > 0;
  }

  async begin(meta: ImportMeta): Promise<number> {
    const e = this.engine;
    const id = Number(((await e.run(`SELECT nextval('import_seq') AS id`))[0] as { id?: unknown } | undefined)?.id);
    await e.run(beginImportSql(id, meta));
    await e.checkpoint();
    const conn = await e.connect();
    await e.runOn(conn, 'BEGIN TRANSACTION');
    this.open.set(id, { conn, fileBytes: (await e.room())?.bytes ?? 0, pending: 0 });
    return id;
  }

  async setSource(id: number, sourceId: string): Promise<void> {
    await this.engine.run(setImportSourceSql(id, sourceId));
  }

  async append(id: number, bytes: Uint8Array): Promise<void> {
    const t = this.tx(id);
    const n = bytes.byteLength; // before the engine takes (transfers) the bytes
    await this.engine.append(t.conn, bytes);
    const room = await this.engine.room();
    if (!room) return;
    // DuckDB writes a transaction's rows to the file a row group (122,880 rows) at a time; what it
    // has not written yet is still in memory and counted at its Arrow size (the safe side).
    if (room.bytes > t.fileBytes) {
      t.fileBytes = room.bytes;
      t.pending = 0;
    } else t.pending += n;
    if (room.bytes + t.pending > room.limit) {
      throw new Error(
        `the pool's database file would pass ${(room.limit / 1024 ** 3).toFixed(2)} GiB, past which DuckDB-WASM's browser storage does not read data back reliably. Nothing of this file was kept: export and clear older data, or split the file.`,
      );
    }
  }

  /** The rows of a query (step columns by name) appended inside the import's transaction (the CLI's merge of shard files). */
  async appendSql(id: number, select: string): Promise<void> {
    await this.engine.runOn(this.tx(id).conn, `INSERT INTO steps BY NAME ${select}`);
  }

  async reset(id: number): Promise<void> {
    const t = this.tx(id);
    const e = this.engine;
    await e.dropHeld?.(t.conn);
    await e.runOn(t.conn, 'ROLLBACK');
    await e.runOn(t.conn, 'BEGIN TRANSACTION');
    t.fileBytes = (await e.room())?.bytes ?? 0;
    t.pending = 0;
  }

  /**
   * Commit the import: drop rows already in the pool, keep apart (or join) ids that collide with other content
   * (dedupeImport, docs/decisions/011), derive is_last and the import's trajectory_stats, one transaction
   * (commitImportRows). Between its statements an engine may answer other calls (decision 022).
   */
  async commit(id: number, info: ImportCommit): Promise<CommitResult> {
    const t = this.tx(id);
    const e = this.engine;
    const q = (sql: string) => {
      const rows = e.runSync(t.conn, sql);
      return { toArray: () => rows };
    };
    const { stages, mark, lap } = stageClock(e.pause && (() => (e.pause as () => Promise<void>)()));
    let result: CommitDedupe & { rowsAdded: number };
    try {
      if (e.insertHeld) {
        await e.insertHeld(t.conn);
        mark('insert');
      }
      result = await commitImportRows(q, id, info, (errors) => {
        for (const sql of errorInserts(id, String((e.runSync(t.conn, `SELECT file FROM imports WHERE import_id = ${id}`)[0] as { file?: unknown } | undefined)?.file ?? ''), errors)) e.runSync(t.conn, sql);
      }, lap, { statsPasses: e.statsPasses && ((tr, n) => (e.statsPasses as (a: number, b: number) => number)(tr, n)) });
      await this.end(id, 'COMMIT');
    } catch (err) {
      await this.end(id, 'ROLLBACK');
      throw err;
    }
    mark('commit');
    if (e.afterCommit) {
      await e.afterCommit();
      mark('flush');
    }
    const room = await e.room();
    return { ...result, stages, ...(room ? { room } : {}) };
  }

  async abort(id: number, reason: string, errors: RejectedLine[] = []): Promise<void> {
    const e = this.engine;
    try {
      await this.end(id, 'ROLLBACK');
    } finally {
      if (errors.length) {
        const file = String(((await e.run(`SELECT file FROM imports WHERE import_id = ${id | 0}`))[0] as { file?: unknown } | undefined)?.file ?? '');
        for (const sql of errorInserts(id, file, errors)) await e.run(sql);
      }
      await e.run(abortImportSql(id, reason, errors.length));
      await e.checkpoint();
    }
  }

  /** Mark imports an engine stop interrupted (their transaction died with it, so nothing of them is in `steps`). */
  async recover(): Promise<{ import_id: number; file: string }[]> {
    const e = this.engine;
    const out = (await e.run(`SELECT import_id, file FROM imports WHERE status = 'running' ORDER BY import_id`)).map((r) => {
      const row = r as { import_id?: unknown; file?: unknown };
      return { import_id: Number(row.import_id), file: String(row.file) };
    });
    if (out.length) {
      await e.run(`UPDATE imports SET status = 'interrupted', message = ${sqlString(INTERRUPTED_MESSAGE)}, finished_at = now() WHERE status = 'running'`);
      await e.checkpoint();
    }
    return out;
  }

  private tx(id: number): Tx<C> {
    const t = this.open.get(id);
    if (!t) throw new Error(`import ${id} is not open (it was committed, aborted, or the pool restarted)`);
    return t;
  }

  private async end(id: number, how: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    const t = this.open.get(id);
    if (!t) return;
    this.open.delete(id);
    try {
      await this.engine.dropHeld?.(t.conn);
      await this.engine.runOn(t.conn, how);
    } finally {
      await this.engine.close(t.conn);
    }
  }
}

/** Rows of import_errors, in their order, as INSERT statements of at most 1000 rows (a reason cut at 1000 characters). */
export function errorInserts(id: number, file: string, errors: readonly RejectedLine[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < errors.length; i += 1000) {
    const values = errors.slice(i, i + 1000).map((e) => `(${id | 0}, ${sqlString(file)}, ${e.line | 0}, ${sqlString(e.reason.slice(0, 1000))})`);
    out.push(`INSERT INTO import_errors (import_id, file, line, reason) VALUES ${values.join(', ')}`);
  }
  return out;
}
