/**
 * An import's transaction (docs/decisions/004): it appends straight into `steps` inside a transaction
 * on a connection of its own, so nothing is copied at commit, other connections never see the rows
 * before the commit, and a reload rolls it back for free. Rows carry their import_id; the commit's
 * dedupe and is_last fix-up find them by it.
 */
import type { DuckDBConnection } from '@duckdb/duckdb-wasm/blocking';
import type { Table } from 'apache-arrow';
import { tableFromArrays } from 'apache-arrow';
import { changes } from './changes';
import { abortImportSql, beginImportSql, type CommitDedupe, type CommitInfo, commitImportRows, setImportSourceSql, stageClock } from './import-commit';
import type { TrajectoryStats } from './stats';

export interface ImportMeta {
  file: string;
  sourceId: string;
  bytes: number;
}

export type ImportCommit = CommitInfo;

export interface CommitResult extends CommitDedupe {
  rowsAdded: number;
  /** Where the commit's time went, ms per stage (dedupe, isLast, stats, meta, commit, flush). */
  stages?: Record<string, number>;
  /** The pool's database file after the commit, and the size imports stop at (a persistent pool only). */
  room?: { bytes: number; limit: number };
}

/** What the engine lends the import transactions. */
export interface ImportHost {
  connect(): DuckDBConnection;
  run(sql: string, on?: DuckDBConnection): Table;
  /** Append an Arrow table to `name` on the pool's own connection. */
  insertArrow(t: Table, name: string): void;
  readonly persistent: boolean;
  readonly fileLimit: number;
  readonly stats: TrajectoryStats;
  databaseBytes(): number;
  /** CHECKPOINT now (skipped while an import is open). */
  checkpoint(): void;
  /** CHECKPOINT soon, off the caller's path (the commit is durable in the WAL already). */
  checkpointSoon(): void;
  /** Flush the OPFS handles: what was committed survives a reload. */
  flush(): void;
}

interface Tx {
  conn: DuckDBConnection;
  /** Database file size when it last grew, and Arrow bytes appended since: rows still in memory. */
  fileBytes: number;
  pending: number;
}

/** Let the worker answer the queries that queued up behind the last statement. */
const breathe = () => new Promise<void>((r) => setTimeout(r, 0));

export class ImportTransactions {
  private readonly open = new Map<number, Tx>();

  constructor(private readonly host: ImportHost) {}

  /** True while an import's transaction is open (CHECKPOINT cannot run beside it). */
  get busy(): boolean {
    return this.open.size > 0;
  }

  begin(meta: ImportMeta): number {
    const { host } = this;
    const id = Number(host.run(`SELECT nextval('import_seq') AS id`).getChild('id')?.get(0));
    host.run(beginImportSql(id, meta));
    host.checkpoint();
    const conn = host.connect();
    host.run('BEGIN TRANSACTION', conn);
    this.open.set(id, { conn, fileBytes: host.persistent ? host.databaseBytes() : 0, pending: 0 });
    return id;
  }

  setSource(id: number, sourceId: string): void {
    this.host.run(setImportSourceSql(id, sourceId));
  }

  append(id: number, bytes: Uint8Array): void {
    const t = this.tx(id);
    const { host } = this;
    t.conn.insertArrowFromIPCStream(bytes, { name: 'steps', create: false });
    if (!host.persistent) return;
    // DuckDB writes a transaction's rows to the file a row group (122,880 rows) at a time; what it
    // has not written yet is still in memory and counted at its Arrow size (the safe side).
    const now = host.databaseBytes();
    if (now > t.fileBytes) {
      t.fileBytes = now;
      t.pending = 0;
    } else t.pending += bytes.byteLength;
    if (now + t.pending > host.fileLimit) {
      throw new Error(
        `the pool's database file would pass ${(host.fileLimit / 1024 ** 3).toFixed(2)} GiB, past which DuckDB-WASM's browser storage does not read data back reliably. Nothing of this file was kept: export and clear older data, or split the file.`,
      );
    }
  }

  reset(id: number): void {
    const t = this.tx(id);
    this.host.run('ROLLBACK', t.conn);
    this.host.run('BEGIN TRANSACTION', t.conn);
    t.fileBytes = this.host.persistent ? this.host.databaseBytes() : 0;
    t.pending = 0;
  }

  /**
   * Commit the import: drop rows already in the pool, keep apart (or join) ids that collide with other
   * content (dedupeImport, docs/decisions/011), derive is_last and the import's trajectory_stats, one
   * transaction. Between its statements the worker answers other calls (docs/decisions/022); the
   * CHECKPOINT that follows runs after this returns.
   */
  async commit(id: number, info: ImportCommit): Promise<CommitResult> {
    const t = this.tx(id);
    const { host } = this;
    const q = (sql: string) => host.run(sql, t.conn);
    const { stages, mark, lap } = stageClock(breathe);
    let result: CommitDedupe & { rowsAdded: number };
    try {
      result = await commitImportRows(q, id, info, (errors) => this.insertErrors(id, errors, t.conn), lap);
      this.end(id, 'COMMIT');
    } catch (e) {
      this.end(id, 'ROLLBACK');
      throw e;
    }
    mark('commit');
    // durable now (WAL and data blocks on OPFS); the checkpoint is housekeeping and waits its turn
    host.flush();
    mark('flush');
    host.checkpointSoon();
    const room = host.persistent ? { bytes: host.databaseBytes(), limit: host.fileLimit } : undefined;
    return { ...result, stages, room };
  }

  abort(id: number, reason: string, errors: { line: number; reason: string }[] = []): void {
    try {
      this.end(id, 'ROLLBACK');
    } finally {
      this.insertErrors(id, errors);
      this.host.run(abortImportSql(id, reason, errors.length));
      this.host.checkpoint();
    }
  }

  /** Mark imports a reload interrupted (their transaction died with the page, so nothing of them is in `steps`). */
  recover(): { import_id: number; file: string }[] {
    const t = this.host.run(`SELECT import_id, file FROM imports WHERE status = 'running'`);
    const out: { import_id: number; file: string }[] = [];
    for (const r of t.toArray()) out.push({ import_id: Number(r.import_id), file: String(r.file) });
    if (out.length) {
      this.host.run(`UPDATE imports SET status = 'interrupted', message = 'The import was interrupted (page closed or reloaded) and rolled back; nothing of it was kept.', finished_at = now() WHERE status = 'running'`);
      this.host.checkpoint();
    }
    return out;
  }

  private tx(id: number): Tx {
    const t = this.open.get(id);
    if (!t) throw new Error(`import ${id} is not open (it was committed, aborted, or the pool restarted)`);
    return t;
  }

  private end(id: number, how: 'COMMIT' | 'ROLLBACK'): void {
    const t = this.open.get(id);
    if (!t) return;
    this.open.delete(id);
    try {
      this.host.run(how, t.conn);
    } finally {
      t.conn.close();
      changes.closed(t.conn);
    }
  }

  private insertErrors(id: number, errors: { line: number; reason: string }[], on?: DuckDBConnection): void {
    if (!errors.length) return;
    const file = String(this.host.run(`SELECT file FROM imports WHERE import_id = ${id}`, on).getChild('file')?.get(0) ?? '');
    const t = tableFromArrays({
      import_id: Int32Array.from(errors, () => id),
      file: errors.map(() => file),
      line: Int32Array.from(errors, (e) => e.line),
      reason: errors.map((e) => e.reason.slice(0, 1000)),
    });
    if (on) {
      on.insertArrowTable(t, { name: 'import_errors', create: false });
      changes.noteTables(['import_errors'], on);
    } else this.host.insertArrow(t, 'import_errors');
  }
}
