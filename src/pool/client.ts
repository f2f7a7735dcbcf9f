import { type Table, tableFromIPC } from 'apache-arrow';
import * as Comlink from 'comlink';
import type { ImportCommit, ImportMeta, PoolApi, PoolStatus } from './pool-core';
import { type Row, tableToRows } from './rows';

export interface PoolClientOptions {
  poolName?: string;
  memory?: boolean;
  wasm: { mvp: string; eh: string };
  worker: () => Worker;
}

type Listener = (e: PoolChange) => void;
export interface PoolChange {
  /** Tables whose contents changed. */
  tables: string[];
}

/**
 * Main-thread broker to the pool worker (DESIGN.md: one broker, like Mosaic's coordinator).
 * Moves Arrow IPC bytes, never row object graphs.
 */
export class PoolClient {
  private listeners = new Set<Listener>();
  private constructor(
    private worker: Worker,
    readonly api: Comlink.Remote<PoolApi & { connect(port: MessagePort): void }>,
    readonly status: PoolStatus,
  ) {}

  static async start(opts: PoolClientOptions): Promise<PoolClient> {
    const worker = opts.worker();
    const api = Comlink.wrap<PoolApi & { connect(port: MessagePort): void }>(worker);
    const status = await api.open({ poolName: opts.poolName ?? 'pool', wasm: opts.wasm, memory: opts.memory });
    return new PoolClient(worker, api, status);
  }

  async query(sql: string): Promise<Table> {
    return tableFromIPC(await this.api.query(sql));
  }

  async rows(sql: string): Promise<Row[]> {
    return tableToRows(await this.query(sql));
  }

  async exec(sql: string): Promise<void> {
    await this.api.exec(sql);
  }

  /** A new MessagePort wired to the pool API, for another worker to use directly. */
  async port(): Promise<MessagePort> {
    const { port1, port2 } = new MessageChannel();
    await this.api.connect(Comlink.transfer(port1, [port1]));
    return port2;
  }

  beginImport(meta: ImportMeta): Promise<number> {
    return this.api.beginImport(meta);
  }

  async commitImport(id: number, info: ImportCommit): Promise<{ rowsAdded: number }> {
    const r = await this.api.commitImport(id, info);
    this.changed(['steps', 'trajectories', 'imports', 'import_errors']);
    return r;
  }

  async clear(): Promise<void> {
    await this.api.clear();
    this.changed(['steps', 'trajectories', 'curation', 'imports', 'import_errors']);
  }

  onChange(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Tell subscribers (notebook, dashboard) that tables changed. */
  changed(tables: string[]): void {
    for (const fn of this.listeners) fn({ tables });
  }

  terminate(): void {
    this.worker.terminate();
  }
}
