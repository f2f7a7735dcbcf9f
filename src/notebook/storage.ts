/**
 * Notebooks autosave to IndexedDB (database 'aw-notebooks'): one record per notebook, the Markdown
 * as saved; and the query history (the SQL cells the user ran, newest last, capped).
 */
import { type DBSchema, type IDBPDatabase, openDB } from 'idb';

export interface StoredNotebook {
  id: string;
  title: string;
  markdown: string;
  createdAt: number;
  updatedAt: number;
  /** Where it was opened from (URL or file name), if not made here. */
  origin?: string | null;
}

/** One run of a SQL cell the user asked for (▶, Ctrl/Shift/Alt+Enter). */
export interface HistoryEntry {
  id?: number;
  at: number;
  notebookId: string;
  notebookTitle: string;
  cellId: string | null;
  sql: string;
  status: string;
  rows: number | null;
  ms: number | null;
  error?: string | null;
}

/** Entries kept; older ones are dropped as new ones come in. */
export const HISTORY_CAP = 500;

interface NotebookDb extends DBSchema {
  notebooks: { key: string; value: StoredNotebook; indexes: { updatedAt: number } };
  history: { key: number; value: HistoryEntry; indexes: { at: number } };
}

export class NotebookStore {
  private db: Promise<IDBPDatabase<NotebookDb>>;
  constructor(name = 'aw-notebooks') {
    this.db = openDB<NotebookDb>(name, 2, {
      upgrade(db, oldVersion) {
        if (oldVersion < 1) db.createObjectStore('notebooks', { keyPath: 'id' }).createIndex('updatedAt', 'updatedAt');
        if (oldVersion < 2) db.createObjectStore('history', { keyPath: 'id', autoIncrement: true }).createIndex('at', 'at');
      },
    });
  }

  async list(): Promise<StoredNotebook[]> {
    const all = await (await this.db).getAll('notebooks');
    return all.sort((a, b) => b.updatedAt - a.updatedAt);
  }

  async get(id: string): Promise<StoredNotebook | undefined> {
    return (await this.db).get('notebooks', id);
  }

  async put(nb: StoredNotebook): Promise<void> {
    await (await this.db).put('notebooks', nb);
  }

  async delete(id: string): Promise<void> {
    await (await this.db).delete('notebooks', id);
  }

  /** Record a run; drops the oldest entries past HISTORY_CAP. */
  async addHistory(e: HistoryEntry): Promise<number> {
    const db = await this.db;
    const tx = db.transaction('history', 'readwrite');
    const rec = { ...e };
    delete rec.id; // the store numbers entries
    const id = await tx.store.add(rec);
    let extra = (await tx.store.count()) - HISTORY_CAP;
    if (extra > 0) {
      let cur = await tx.store.openCursor();
      while (cur && extra-- > 0) {
        await cur.delete();
        cur = await cur.continue();
      }
    }
    await tx.done;
    return id;
  }

  /** Newest first; only one notebook's runs when `notebookId` is given. */
  async history(notebookId?: string, limit = 100): Promise<HistoryEntry[]> {
    const out: HistoryEntry[] = [];
    let cur = await (await this.db).transaction('history').store.index('at').openCursor(null, 'prev');
    while (cur && out.length < limit) {
      if (!notebookId || cur.value.notebookId === notebookId) out.push(cur.value);
      cur = await cur.continue();
    }
    return out;
  }

  async clearHistory(): Promise<void> {
    await (await this.db).clear('history');
  }

  async close(): Promise<void> {
    (await this.db).close();
  }
}

export function newNotebookId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
