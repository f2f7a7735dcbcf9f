/**
 * The pool's database files on OPFS: opening them (waiting out a previous page's handle), the
 * WAL fix of decision 010, refusing the files to SQL, and flushing what DuckDB-WASM does not.
 * The only code that reaches into duckdb-wasm's private runtime fields (`_files`, `_preparedHandles`).
 */
import { type DuckDBBindings, BROWSER_RUNTIME, DuckDBDataProtocol, failWith, readString } from '@duckdb/duckdb-wasm/blocking';
import { sqlString } from './sql';

export const POOL_FILE_DENIED = "Permission Error: SQL cannot read the pool's own database files (query the tables instead).";
/** DuckDB's FileFlags as the runtime's openFile receives them. */
const FILE_READ = 1;
const FILE_WRITE = 2;
const FILE_NULL_IF_NOT_EXISTS = 128;
/** The storage version new pools are created at (docs/decisions/049); pools made before keep theirs. */
export const POOL_STORAGE_VERSION = 'v1.4.0';

interface RuntimeFiles {
  _files?: Map<string, unknown>;
  _preparedHandles?: Record<string, { close(): void }>;
  getFileInfo(mod: unknown, fileId: number): { fileName?: string } | null;
  openFile(mod: unknown, fileId: number, flags: number): unknown;
  checkFile(mod: unknown, pathPtr: number, pathLen: number): boolean;
  glob(mod: unknown, pathPtr: number, pathLen: number): unknown;
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
  /** While a new pool's file is created by an ATTACH (see createAtStorageVersion). */
  private creating = false;

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
   * A new pool's database file is created by DuckDB at {@link POOL_STORAGE_VERSION} (decision 049): at that version
   * DuckDB dictionary- and FSST-compresses long strings (a step's `raw`, its messages), which the default v0.10.2
   * format stores uncompressed. duckdb-wasm's `open()` takes no storage option, so the file is created by an
   * `ATTACH` from an in-memory database first, then opened as the main database as before. Direct I/O as in the
   * main open: without it duckdb-wasm never wrote the attached file's header (a reopened file was empty).
   * If that fails the file is emptied again and the pool is created at DuckDB's default version.
   */
  createAtStorageVersion(d: DuckDBBindings): string | null {
    if (!this.isNew) return null;
    // DuckDB creates a database only where no file is: meanwhile the empty file prepared above reads as missing
    const rt = runtime();
    const { checkFile } = rt;
    rt.checkFile = (mod, ptr, len) => readString(mod as Parameters<typeof readString>[0], ptr, len) !== this.dbPath && checkFile.call(rt, mod, ptr, len);
    this.creating = true;
    try {
      d.open({ useDirectIO: true });
      const c = d.connect();
      try {
        c.query(`SET storage_compatibility_version = '${POOL_STORAGE_VERSION}'`);
        c.query(`ATTACH ${sqlString(this.dbPath)} AS new_pool`);
        c.query('DETACH new_pool');
      } finally {
        c.close();
      }
      return POOL_STORAGE_VERSION;
    } catch (e) {
      console.warn(`pool: a new pool could not be created at storage version ${POOL_STORAGE_VERSION}; using DuckDB's default`, e);
      for (const h of [runtime()._files?.get(this.dbPath), runtime()._preparedHandles?.[this.dbPath]]) if (isAccessHandle(h)) h.truncate(0);
      return null;
    } finally {
      rt.checkFile = checkFile;
      this.creating = false;
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
        // An existence probe of an empty WAL (or of the file being created) finds nothing. Otherwise DuckDB
        // 1.4 keeps the probe's read-only handle and, for a file at v1.4.0, its first commit then fails
        // with "File is not opened in write mode" (decision 049). A WAL with content is replayed as before.
        if (flags & FILE_NULL_IF_NOT_EXISTS && !files.sealed && files.readsAsMissing(name)) return 0;
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
    // Every file function (read_blob, read_text, read_csv, COPY … FROM, a path as a table) expands its path here
    // first, and DuckDB does not always open an already open file through openFile again (a new pool's WAL writer
    // made read_text of the database file read it): refuse any pattern that can reach the pool's files.
    const glob = rt.glob;
    rt.glob = (mod: unknown, ptr: number, len: number) => {
      const files = rt.__poolFiles;
      if (files?.sealed && files.reachedBy(readString(mod as Parameters<typeof readString>[0], ptr, len))) {
        failWith(mod as Parameters<typeof failWith>[0], POOL_FILE_DENIED);
        return 0;
      }
      return glob.call(rt, mod, ptr, len);
    };
  }

  /**
   * Whether a path pattern can name the pool's database file or WAL: as DuckDB's glob (`*`, `**`, `?`, `[…]`, each
   * taken as "anything", so the answer errs on refusing) or as duckdb-wasm's own listing, which takes every
   * registered file whose name starts with the pattern.
   */
  reachedBy(pattern: string): boolean {
    // literal pieces between wildcards, found left to right (linear: no regular expression built from SQL)
    const [head, ...rest] = pattern.toLowerCase().split(/\*+|\?|\[[^\]]*\]/);
    return [this.dbPath, this.walPath].some((path) => {
      const name = path.toLowerCase();
      if (!name.startsWith(head)) return false;
      let at = head.length;
      for (const piece of rest) {
        const i = name.indexOf(piece, at);
        if (i < 0) return false;
        at = i + piece.length;
      }
      return true;
    });
  }

  private readsAsMissing(name: string): boolean {
    if (name === this.dbPath) return this.creating;
    const h = runtime()._files?.get(name) ?? runtime()._preparedHandles?.[name];
    return isAccessHandle(h) && h.getSize() === 0;
  }

  seal(): void {
    this.sealed = true;
  }

  private walHandle(): FileSystemSyncAccessHandle | null {
    const h = runtime()._files?.get(this.walPath);
    return isAccessHandle(h) ? h : null;
  }

  /** Bytes in the database file (0 when it has no handle yet). */
  fileBytes(): number {
    const h = runtime()._files?.get(this.dbPath) ?? runtime()._preparedHandles?.[this.dbPath];
    return isAccessHandle(h) ? h.getSize() : 0;
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
