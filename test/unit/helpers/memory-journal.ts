/**
 * The capture journal's IndexedDB in memory, for node tests of the gateway (src/gateway/core/capture.ts):
 * the part of idb's API that src/gateway/core/journal.ts calls (get / put on the database, a transaction's
 * `store`, `objectStore()` and `done`), with the journal's key paths. Values are cloned on the way in and
 * out, as IndexedDB's structured clone does.
 */
import type { JournalDb } from '../../../src/gateway/core/journal';

const KEY_PATHS: Record<string, string | null> = { journal: 'step_id', trajectories: 'trajectory_uid', links: 'key', settings: null };

class Store {
  readonly rows = new Map<string, unknown>();
  constructor(private keyPath: string | null) {}
  async get(key: string): Promise<unknown> {
    const v = this.rows.get(key);
    return v === undefined ? undefined : structuredClone(v);
  }
  async put(value: Record<string, unknown>, key?: string): Promise<string> {
    const k = this.keyPath ? String(value[this.keyPath]) : key!;
    this.rows.set(k, structuredClone(value));
    return k;
  }
}

export class MemoryJournal {
  readonly stores = new Map(Object.entries(KEY_PATHS).map(([name, kp]) => [name, new Store(kp)]));
  private store(name: string): Store {
    const s = this.stores.get(name);
    if (!s) throw new Error(`no object store ${name}`);
    return s;
  }
  get(name: string, key: string) {
    return this.store(name).get(key);
  }
  put(name: string, value: Record<string, unknown>, key?: string) {
    return this.store(name).put(value, key);
  }
  transaction(names: string | string[]) {
    const list = typeof names === 'string' ? [names] : names;
    return { store: this.store(list[0]), objectStore: (n: string) => this.store(n), done: Promise.resolve() };
  }
  /** idb's getAllFromIndex for an index on a top-level field (the journal's `pooled`). */
  async getAllFromIndex(name: string, field: string, value: unknown, limit = Number.POSITIVE_INFINITY): Promise<unknown[]> {
    return this.all(name).filter((v) => (v as Record<string, unknown>)[field] === value).slice(0, limit);
  }
  /** All values of one store, in insertion order. */
  all(name: string): unknown[] {
    return [...this.store(name).rows.values()].map((v) => structuredClone(v));
  }
  asDb(): JournalDb {
    return this as unknown as JournalDb;
  }
}
