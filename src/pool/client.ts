import { DataType, type Table, tableFromIPC } from 'apache-arrow';
import * as Comlink from 'comlink';
import { ALL_TABLES, isPoolChangeMessage, withViews } from './changes';
import type { PoolStatus, PoolWorkerApi } from './api';
import type { CommitResult, ImportCommit, ImportMeta, PoolChange, PoolPort } from './port';
import type { RejectedLine } from '../contract/reports';
import type { Compaction } from './api';
import { type Row, tableToRows } from './rows';
import { TEST_BUILD } from '../util/test-build';

export interface PoolClientOptions {
  poolName?: string;
  memory?: boolean;
  /** See PoolInit.fileLimit. */
  fileLimit?: number;
  wasm: { mvp: string; eh: string };
  /** See PoolInit.wasmCache (only for content-hashed wasm URLs). */
  wasmCache?: string;
  /** See PoolInit.legacyStorage (tests of pools made before decision 049). */
  legacyStorage?: boolean;
  /** The longest text value a result may hold, in bytes (default: MAX_STRING_BYTES, what V8 can make a string of). */
  maxStringBytes?: number;
  /** See PoolInit.compact (set for one restart by `compact()`). */
  compact?: boolean;
  worker: () => Worker;
}

type Listener = (e: PoolChange) => void;
type PoolRemote = Comlink.Remote<PoolWorkerApi>;
export type { PoolWorkerApi };

/**
 * Errors after which a DuckDB-WASM instance is unusable (it hangs or keeps failing). The last two are
 * the wedged states a second handle on the pool's own files left behind (issue 17 hole 5): every
 * later write failed with them until a reload; a restart on the same database file clears them.
 */
const FATAL = /RuntimeError|unreachable|memory access out of bounds|Aborted\(|function signature mismatch|pool worker (crashed|stopped)|Maximum call stack size exceeded|File is not opened in write mode/i;
export type { PoolChange };

/** Every table of the pool, for a change nobody could place (a restart). */
const ALL = ['steps', 'trajectory_stats', 'curation', 'imports', 'import_errors', 'near_duplicates', 'token_counts'];

/** V8 strings hold at most 2^29 - 24 UTF-16 units; a longer Arrow text value decodes to '' without an error. */
export const MAX_STRING_BYTES = 2 ** 29 - 24;

/** Say so when a text value of the result is too large to become a browser string (issue 17 hole 10), instead of showing ''. */
export function checkStringSizes(t: Table, limit = MAX_STRING_BYTES): void {
  for (const f of t.schema.fields) {
    if (!DataType.isUtf8(f.type)) continue;
    for (const d of t.getChild(f.name)?.data ?? []) {
      const o = d.valueOffsets;
      for (let i = 0; i < d.length; i++) {
        const bytes = Number(o[i + 1]) - Number(o[i]);
        if (bytes > limit) {
          throw new Error(
            `The result is too large: a value of column "${f.name}" holds ${bytes.toLocaleString('en')} bytes of text, more than a browser string can hold (${limit.toLocaleString('en')} characters). Select a part of it (left(…, n)) or its length instead.`,
          );
        }
      }
    }
  }
}

/** A call that was running when the pool worker was restarted (a Stop, a timeout or a crash). */
export class PoolRestartedError extends Error {
  constructor(reason: string) {
    super(`The pool was restarted (${reason}); this query did not finish.`);
    this.name = 'PoolRestartedError';
  }
}

/**
 * Main-thread broker to the pool worker (one broker, like Mosaic's coordinator; docs/architecture.md). Every
 * call goes through the crash guard; the worker reports which tables each call wrote and the broker
 * tells subscribers (writers announce nothing). Moves Arrow IPC bytes, never row object graphs.
 */
export class PoolClient implements PoolPort {
  private listeners = new Set<Listener>();
  private restartListeners = new Set<(reason: string) => void>();
  private restarting: Promise<void> | null = null;
  /** Rejecters of the calls in flight: a restart ends them (a terminated worker never answers). */
  private inflight = new Set<(e: Error) => void>();
  /** How many times the pool worker was restarted after a crash. */
  restarts = 0;
  /** Rewrites SQL before it runs (remote Parquet reads, src/hub/remote-query.ts); identity when none is set. */
  private rewriter: ((sql: string) => Promise<string>) | null = null;
  private constructor(
    private worker: Worker,
    private api: PoolRemote,
    public status: PoolStatus,
    private opts: PoolClientOptions,
  ) {
    this.watch(worker);
  }

  static async start(opts: PoolClientOptions): Promise<PoolClient> {
    const { worker, api, status } = await PoolClient.spawn(opts);
    return new PoolClient(worker, api, status, opts);
  }

  private static async spawn(opts: PoolClientOptions): Promise<{ worker: Worker; api: PoolRemote; status: PoolStatus }> {
    const worker = opts.worker();
    const api = Comlink.wrap<PoolWorkerApi>(worker);
    const status = await api.open({ poolName: opts.poolName ?? 'pool', wasm: opts.wasm, wasmCache: opts.wasmCache, memory: opts.memory, fileLimit: opts.fileLimit, legacyStorage: opts.legacyStorage, compact: opts.compact });
    return { worker, api, status };
  }

  private watch(worker: Worker): void {
    // the engine's change reports (Comlink's own messages carry an id and are not these)
    worker.addEventListener('message', (e) => {
      if (isPoolChangeMessage(e.data)) this.tell(e.data.awPoolChange);
    });
    worker.addEventListener('error', (e) => {
      e.preventDefault();
      void this.restart(`pool worker crashed: ${e.message || 'unknown error'}`);
    });
  }

  /**
   * Replace a crashed pool worker with a fresh one on the same database. Committed data is on disk
   * (OPFS); an import in flight is rolled back by the new instance's recovery.
   */
  restart(reason: string): Promise<void> {
    this.restarting ??= (async () => {
      try {
        this.worker.terminate();
        for (const drop of this.inflight) drop(new PoolRestartedError(reason));
        this.inflight.clear();
        const next = await PoolClient.spawn(this.opts);
        this.worker = next.worker;
        this.api = next.api;
        this.status = next.status;
        this.watch(next.worker);
        this.restarts++;
        for (const fn of this.restartListeners) fn(reason);
        this.tell(withViews(ALL));
      } finally {
        this.restarting = null;
      }
    })();
    return this.restarting;
  }

  /** Called after a crash restart (ports other workers held are dead: reconnect). */
  onRestart(fn: (reason: string) => void): () => void {
    this.restartListeners.add(fn);
    return () => this.restartListeners.delete(fn);
  }

  private async guard<T>(call: () => Promise<T>): Promise<T> {
    if (this.restarting) await this.restarting;
    let drop!: (e: Error) => void;
    const ended = new Promise<never>((_, reject) => {
      drop = reject;
    });
    this.inflight.add(drop);
    try {
      return await Promise.race([call(), ended]);
    } catch (e) {
      const msg = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      if (!(e instanceof PoolRestartedError) && FATAL.test(msg)) void this.restart(msg);
      throw e;
    } finally {
      this.inflight.delete(drop);
    }
  }

  /**
   * Stop whatever the pool is running. The blocking engine answers no message while a query runs, so the
   * worker is terminated and a new one opens the same database (committed data is on disk; an import in
   * flight is rolled back and reported as interrupted). Calls in flight fail with PoolRestartedError.
   */
  interrupt(reason = 'stopped by the user'): Promise<void> {
    // an in-memory pool (a second tab, no OPFS) has nothing on disk: a new engine would start empty
    if (!this.status.persistent) {
      return Promise.reject(new Error('This pool is in memory (not saved in this browser), so stopping its engine would empty it. Wait for the query to finish, or reload the page.'));
    }
    return this.restart(reason);
  }

  /**
   * Let `fn` rewrite every statement `query`, `queryReadOnly`, `execOne` and `exec` run, before it runs (the page's
   * remote Parquet: read_parquet('<URL>') becomes a table of what was read). A statement it rejects fails with its error.
   */
  setRewriter(fn: ((sql: string) => Promise<string>) | null): void {
    this.rewriter = fn;
  }

  /** `sql` as the pool will run it (after the rewriter), for SQL another worker runs (exports). */
  prepareSql(sql: string): Promise<string> {
    return this.rewriter ? this.rewriter(sql) : Promise.resolve(sql);
  }

  async query(sql: string): Promise<Table> {
    sql = await this.prepareSql(sql);
    return this.result(await this.guard(() => this.api.query(sql)));
  }

  /** A result's IPC bytes as a table, refused when a text value is too large to become a string (every result path). */
  private result(bytes: Uint8Array): Table {
    const t = tableFromIPC(bytes);
    checkStringSizes(t, this.opts.maxStringBytes);
    return t;
  }

  /** Exactly one statement in a read-only transaction: the engine refuses several, and any write. `run: false` only checks it. */
  async queryReadOnly(sql: string, run = true): Promise<Table | null> {
    sql = await this.prepareSql(sql);
    const bytes = await this.guard(() => this.api.queryReadOnly(sql, run));
    return bytes ? this.result(bytes) : null;
  }

  /** Exactly one statement (a prepared statement cannot hold more). */
  async execOne(sql: string): Promise<void> {
    sql = await this.prepareSql(sql);
    await this.guard(() => this.api.execOne(sql));
  }

  async rows(sql: string): Promise<Row[]> {
    return tableToRows(await this.query(sql));
  }

  async exec(sql: string): Promise<void> {
    sql = await this.prepareSql(sql);
    await this.guard(() => this.api.exec(sql));
  }

  /** A new MessagePort wired to the pool API, for another worker to use directly. */
  async port(): Promise<MessagePort> {
    const { port1, port2 } = new MessageChannel();
    await this.api.connect(Comlink.transfer(port1, [port1]));
    return port2;
  }

  beginImport(meta: ImportMeta): Promise<number> {
    return this.guard(() => this.api.beginImport(meta));
  }

  commitImport(id: number, info: ImportCommit): Promise<CommitResult> {
    return this.guard(() => this.api.commitImport(id, info));
  }

  setImportSource(id: number, sourceId: string): Promise<void> {
    return this.guard(() => this.api.setImportSource(id, sourceId));
  }

  resetImport(id: number): Promise<void> {
    return this.guard(() => this.api.resetImport(id));
  }

  /** Append one Arrow IPC batch of step rows to an open import (transferred). */
  appendBatch(id: number, bytes: Uint8Array): Promise<void> {
    return this.guard(() => this.api.appendBatch(id, Comlink.transfer(bytes, [bytes.buffer])));
  }

  abortImport(id: number, reason: string, errors?: RejectedLine[]): Promise<void> {
    return this.guard(() => this.api.abortImport(id, reason, errors));
  }

  /** Insert or replace step rows outside an import (captured calls), as Arrow IPC (transferred). */
  upsertSteps(bytes: Uint8Array): Promise<{ total: number }> {
    return this.guard(() => this.api.upsertSteps(Comlink.transfer(bytes, [bytes.buffer])));
  }

  /** A query's result as Arrow IPC bytes, for another worker to read (no decoding on this thread). */
  queryIPC(sql: string): Promise<Uint8Array> {
    return this.guard(() => this.api.query(sql));
  }

  /** The pool's database file size and the size imports stop at (a persistent pool; null otherwise). */
  room(): Promise<{ bytes: number; limit: number } | null> {
    return this.guard(() => this.api.room());
  }

  /** Make what was written durable now (the pool also checkpoints after its own writes). */
  checkpoint(): Promise<void> {
    return this.guard(() => this.api.checkpoint());
  }

  /**
   * Rewrite the saved pool into a new database file at the current storage version, every table copied and
   * checked (compact.ts, decision 050): gives back what deletes left unused and upgrades a pool made before
   * decision 049. The engine restarts on the new file (as after a crash: calls in flight fail with
   * PoolRestartedError, other workers reconnect). On failure the pool is left as it was and this rejects.
   */
  async compact(): Promise<Compaction> {
    if (!this.status.persistent) throw new Error('This pool is in memory (not saved in this browser): there is no file to compact.');
    const opts = this.opts;
    this.opts = { ...opts, compact: true };
    try {
      await this.restart('compacting the pool');
    } finally {
      this.opts = opts;
    }
    const done = this.status.compaction;
    if (!done) throw new Error('The pool was not compacted: the engine did not report a compaction.');
    if ('error' in done) throw new Error(`The pool was not compacted: ${done.error}`);
    return done;
  }

  clear(): Promise<void> {
    return this.guard(() => this.api.clear());
  }

  /**
   * Fault injection, only in test builds (`window.workbench.debug`). Written inside the condition so that a production
   * build, where TEST_BUILD folds to false, drops the code and the worker's hook names with it.
   */
  readonly faults = TEST_BUILD
    ? {
        /** The engine fails as a wasm abort does; the broker restarts it. */
        simulateCrash: (): Promise<void> => this.guard(() => (this.api as Comlink.Remote<Required<PoolWorkerApi>>).simulateCrash()).catch(() => undefined),
        /** The next call of a pool method fails with this message. */
        injectFault: (method: string, message: string): Promise<void> => this.guard(() => (this.api as Comlink.Remote<Required<PoolWorkerApi>>).injectFault(method, message)),
      }
    : null;

  /** Be told which tables changed, whoever wrote them (an import, a label, an effect cell, SQL from the console). */
  onChange(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private tell(reported: string[]): void {
    const tables = reported.includes(ALL_TABLES) ? withViews(ALL) : reported;
    for (const fn of this.listeners) fn({ tables });
  }

  terminate(): void {
    this.worker.terminate();
  }
}
