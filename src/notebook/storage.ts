/** Notebooks autosave to IndexedDB (database 'aw-notebooks'): one record per notebook, the Markdown as saved. */
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

interface NotebookDb extends DBSchema {
  notebooks: { key: string; value: StoredNotebook; indexes: { updatedAt: number } };
}

export class NotebookStore {
  private db: Promise<IDBPDatabase<NotebookDb>>;
  constructor(name = 'aw-notebooks') {
    this.db = openDB<NotebookDb>(name, 1, {
      upgrade(db) {
        const s = db.createObjectStore('notebooks', { keyPath: 'id' });
        s.createIndex('updatedAt', 'updatedAt');
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

  async close(): Promise<void> {
    (await this.db).close();
  }
}

export function newNotebookId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
