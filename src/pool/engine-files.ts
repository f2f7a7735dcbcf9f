/**
 * The pool's database files on OPFS: opening them (waiting out a previous page's handle), the
 * WAL fix of decision 010, refusing the files to SQL, and flushing what DuckDB-WASM does not.
 * The only code that reaches into duckdb-wasm's private runtime fields (`_files`, `_preparedHandles`).
 */
import { type DuckDBBindings, BROWSER_RUNTIME, DuckDBDataProtocol, failWith } from '@duckdb/duckdb-wasm/blocking';

export const POOL_FILE_DENIED = "Permission Error: SQL cannot read the pool's own database files (query the tables instead).";
/** DuckDB's FileFlags as the runtime's openFile receives them. */
const FILE_READ = 1;
const FILE_WRITE = 2;

interface RuntimeFiles {
  _files?: Map<string, unknown>;
  _preparedHandles?: Record<string, { close(): void }>;
  getFileInfo(mod: unknown, fileId: number): { fileName?: string } | null;
  openFile(mod: unknown, fileId: number, flags: number): unknown;
  /** The PoolFiles the openFile hook serves (the runtime is one per worker, so is the open pool). */
  __poolFiles?: PoolFiles;
}

const runtime = () => BROWSER_RUNTIME as unknown as RuntimeFiles;

function isAccessHandle(h: unknown): h is FileSystemSyncAccessHandle {
  return typeof FileSystemSyncAccessHandle !== 'undefined' && h instanceof FileSystemSyncAccessHandle;
}

export class PoolFiles {
  /** Set when the pool is open: from then on nothing but the WAL writer may open the pool's files. */
  private sealed = false;
  /** WAL bytes when the last write call returned: a call that grew the WAL committed something. */
  private walSynced = 0;
  readonly walPath: string;
  /** The database file was empty when prepared: a new pool, nothing to probe or recover (decision 036). */
  isNew = false;

  constructor(readonly dbPath: string) {
    this.walPath = `${dbPath}.wal`;
  }

  /**
   * Right after a reload the previous page's pool worker can still hold the file's access handle for
   * a moment (createSyncAccessHandle then fails with NoModificationAllowedError): wait for it rather
   * than fall back to an in-memory pool.
   */
  async prepare(d: DuckDBBindings): Promise<void> {
    const deadline = Date.now() + 5000;
    for (;;) {
      try {
        await d.prepareDBFileHandle(this.dbPath, DuckDBDataProtocol.BROWSER_FSACCESS);
        const empty = (path: string) => {
          const h = runtime()._preparedHandles?.[path];
          return isAccessHandle(h) && h.getSize() === 0;
        };
        this.isNew = empty(this.dbPath) && empty(this.walPath);
        return;
      } catch (e) {
        const busy = /NoModificationAllowed|InvalidState|access handle|locked|createSyncAccessHandle/i.test(`${(e as Error)?.name} ${(e as Error)?.message}`);
        if (!busy || Date.now() > deadline) throw e;
        // release what this attempt did open (the .db handle when only the .wal was busy)
        const prepared = runtime()._preparedHandles ?? {};
        for (const key of [this.dbPath, this.walPath]) {
          try {
            prepared[key]?.close();
          } catch {
            /* already closed */
          }
          delete prepared[key];
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /**
   * duckdb-wasm 1.32 keeps DuckDB's WAL in a state DuckDB does not expect. After a checkpoint DuckDB
   * deletes the WAL, which duckdb-wasm cannot do in OPFS (RemoveFile is a no-op), and it ignores the
   * append flag: a WAL opened for writing is written from offset 0. So each new WAL was written over
   * the stale bytes of the old one, and at the next start DuckDB found it invalid and dropped it: every
   * write after a checkpoint (after an import, a label…) was lost at reload unless another checkpoint
   * followed (docs/decisions/010). DuckDB opens the WAL for writing (write, no read) only to start a
   * new one from offset 0, so we empty the file at that moment, as the deletion would have.
   */
  hookRuntime(): void {
    const rt = runtime();
    const hooked = rt.__poolFiles !== undefined;
    rt.__poolFiles = this;
    if (hooked) return;
    const openFile = rt.openFile;
    rt.openFile = (mod: unknown, fileId: number, flags: number) => {
      const files = rt.__poolFiles;
      const name = rt.getFileInfo(mod, fileId)?.fileName;
      if (files && (name === files.walPath || name === files.dbPath)) {
        const writer = name === files.walPath && flags & FILE_WRITE && !(flags & FILE_READ);
        if (files.sealed && !writer) {
          // A table function (read_blob, read_text, read_csv…) opening the pool's own database file or
          // WAL, which enable_external_access=false still allows: a second handle on them wedged the
          // engine (issue 17 hole 5). Once the pool is open, DuckDB's storage opens only the WAL writer.
          failWith(mod as Parameters<typeof failWith>[0], POOL_FILE_DENIED);
          return 0;
        }
        if (writer) {
          const h = files.walHandle();
          h?.truncate(0);
          h?.flush();
        }
      }
      return openFile.call(rt, mod, fileId, flags);
    };
  }

  seal(): void {
    this.sealed = true;
  }

  private walHandle(): FileSystemSyncAccessHandle | null {
    const h = runtime()._files?.get(this.walPath);
    return isAccessHandle(h) ? h : null;
  }

  /** Bytes in the WAL DuckDB opened (0 when it opened none: nothing was replayed). */
  walBytes(): number {
    return this.walHandle()?.getSize() ?? 0;
  }

  /** Make what a call committed to the WAL durable (fsync of the OPFS file: duckdb-wasm's own sync is a no-op). */
  syncWal(): void {
    const h = this.walHandle();
    if (!h) return;
    const size = h.getSize();
    if (size !== this.walSynced) {
      h.flush();
      this.walSynced = size;
    }
  }

  /**
   * duckdb-wasm's runtime makes fsync a no-op for OPFS (its syncFile does nothing), so writes can be
   * lost when the worker is terminated by a reload. Flush the access handles ourselves.
   */
  flushAll(): void {
    for (const h of runtime()._files?.values() ?? []) if (isAccessHandle(h)) h.flush();
    const wal = this.walHandle();
    if (wal) this.walSynced = wal.getSize();
  }
}
