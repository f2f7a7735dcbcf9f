/**
 * Compacting a saved pool (docs/decisions/050): every table is copied by DuckDB (`COPY FROM DATABASE`) into a new
 * database file created at POOL_STORAGE_VERSION, checked table by table, and swapped in for the old file. DuckDB
 * never gives a file's free blocks back, so after large deletes the file keeps its size, and a pool made before
 * decision 049 stays at the old storage version until it is rewritten.
 *
 * The swap is made safe against a crash by a marker file written only after the copy was checked:
 * - marker present: the copy is good; settleCompaction finishes the swap, and may run any number of times;
 * - no marker: a leftover copy is deleted, and the old file is the pool.
 * Runs in the pool worker before the pool is opened (PoolInit.compact), when no other handle is on the files.
 */
import type { DuckDBBindings } from '@duckdb/duckdb-wasm/blocking';
import { PoolFiles, POOL_STORAGE_VERSION } from './engine-files';
import type { Compaction } from './api';
import { sqlIdent, sqlString } from './sql';

type OpfsFileHandle = FileSystemFileHandle & { move(name: string): Promise<void> };

const fileNames = (poolName: string) => ({
  db: `${poolName}.db`,
  wal: `${poolName}.db.wal`,
  next: `${poolName}.compact.db`,
  nextWal: `${poolName}.compact.db.wal`,
  marker: `${poolName}.compact.ok`,
});

async function remove(root: FileSystemDirectoryHandle, name: string): Promise<void> {
  try {
    await root.removeEntry(name);
  } catch (e) {
    if ((e as Error)?.name !== 'NotFoundError') throw e;
  }
}

async function exists(root: FileSystemDirectoryHandle, name: string): Promise<boolean> {
  return root.getFileHandle(name).then(
    () => true,
    () => false,
  );
}

/**
 * Finish a compaction whose copy was checked (the marker is there), or drop a copy that was not. Each step can be
 * repeated after a crash: the stale WALs go first (neither may be replayed onto the other file), then the old file,
 * then the copy takes its name, and the marker goes last.
 */
export async function settleCompaction(poolName: string): Promise<'finished' | 'dropped' | null> {
  const root = await navigator.storage.getDirectory();
  const n = fileNames(poolName);
  if (await exists(root, n.marker)) {
    await remove(root, n.wal);
    await remove(root, n.nextWal);
    if (await exists(root, n.next)) {
      await remove(root, n.db);
      await ((await root.getFileHandle(n.next)) as OpfsFileHandle).move(n.db);
    }
    await remove(root, n.marker);
    return 'finished';
  }
  if ((await exists(root, n.next)) || (await exists(root, n.nextWal))) {
    await remove(root, n.next);
    await remove(root, n.nextWal);
    return 'dropped';
  }
  return null;
}

/** Copy the pool into a new file at POOL_STORAGE_VERSION, check it, and swap it in. Throws, leaving the pool as it was, when any step fails. */
export async function compactPool(d: DuckDBBindings, poolName: string): Promise<Compaction> {
  const t0 = performance.now();
  await settleCompaction(poolName);
  const n = fileNames(poolName);
  const old = new PoolFiles(`opfs://${n.db}`);
  await old.prepare(d);
  if (old.isNew) throw new Error('There is no saved pool to compact.');
  const next = new PoolFiles(`opfs://${n.next}`);
  await next.prepare(d);
  // the copy's WAL rules (an empty WAL's probe finds nothing) and its creation at the storage version
  next.hookRuntime();
  const storageVersion = next.createAtStorageVersion(d);
  if (!storageVersion) throw new Error(`The new pool file could not be created at storage version ${POOL_STORAGE_VERSION}.`);
  const c = d.connect();
  const rows = (sql: string) => c.query(sql).toArray().map((r) => r.toJSON() as Record<string, unknown>);
  let tables: string[] = [];
  let copied = 0;
  try {
    // read-only: nothing is written to the old file, which stays the pool until the swap
    c.query(`ATTACH ${sqlString(old.dbPath)} AS old_pool (READ_ONLY)`);
    c.query(`ATTACH ${sqlString(next.dbPath)} AS new_pool`);
    c.query('COPY FROM DATABASE old_pool TO new_pool');
    tables = rows(`SELECT table_name AS t FROM duckdb_tables() WHERE database_name = 'old_pool' AND schema_name = 'main' ORDER BY 1`).map((r) => String(r.t));
    for (const t of tables) {
      const check = (db: string) => rows(`SELECT count(*)::BIGINT AS n, coalesce(sum(hash(x)), 0)::HUGEINT::VARCHAR AS h FROM ${db}.main.${sqlIdent(t)} x`)[0];
      const [a, b] = [check('old_pool'), check('new_pool')];
      if (String(a.n) !== String(b.n) || a.h !== b.h) throw new Error(`The copy of table ${t} differs (${a.n} rows before, ${b.n} after); the pool was left as it was.`);
      copied += Number(a.n);
    }
    // sequences go on from where they were (an import id is never given twice)
    for (const s of rows(`SELECT sequence_name AS s, last_value AS v FROM duckdb_sequences() WHERE database_name = 'old_pool'`)) {
      const after = rows(`SELECT last_value AS v FROM duckdb_sequences() WHERE database_name = 'new_pool' AND sequence_name = ${sqlString(String(s.s))}`)[0];
      if (s.v !== null && String(after?.v) !== String(s.v)) throw new Error(`Sequence ${String(s.s)} would restart after compaction; the pool was left as it was.`);
    }
    c.query('CHECKPOINT new_pool');
  } finally {
    for (const db of ['new_pool', 'old_pool']) {
      try {
        c.query(`DETACH ${db}`);
      } catch {
        /* not attached */
      }
    }
    c.close();
  }
  const bytesBefore = old.fileBytes();
  const bytesAfter = next.fileBytes();
  for (const p of [old.dbPath, old.walPath, next.dbPath, next.walPath]) {
    try {
      d.dropFile(p);
    } catch {
      /* never opened */
    }
  }
  const root = await navigator.storage.getDirectory();
  await (await (await root.getFileHandle(n.marker, { create: true })).createWritable()).close();
  await settleCompaction(poolName);
  return { bytesBefore, bytesAfter, storageVersion, tables, rows: copied, ms: Math.round(performance.now() - t0) };
}
