/**
 * Tables of remote Parquet read for a query (src/hub/remote-query.ts, decision 071): in an in-memory database attached
 * to the pool, never in the pool's file — they are a cache of someone else's data, gone at a restart, and a query
 * that needs one again reads it again. One connection of their own, whose default database is the attached one, so
 * duckdb-wasm's Arrow insert (which names a table, not a database) creates them there.
 */
import type { DuckDBBindings, DuckDBConnection } from '@duckdb/duckdb-wasm/blocking';

export const REMOTE_DB = 'aw_remote';
const NAME = /^rp_[a-z0-9]+$/;

export class RemoteTables {
  private conn: DuckDBConnection | null = null;

  private connection(db: DuckDBBindings): DuckDBConnection {
    if (!this.conn) {
      const c = db.connect();
      c.query(`ATTACH IF NOT EXISTS ':memory:' AS ${REMOTE_DB}`);
      c.query(`USE ${REMOTE_DB}`);
      this.conn = c;
    }
    return this.conn;
  }

  /** Create (or replace) table `name` from Arrow IPC stream bytes. */
  register(db: DuckDBBindings, name: string, ipc: Uint8Array): void {
    if (!NAME.test(name)) throw new Error(`Not a remote table name: ${name}`);
    const c = this.connection(db);
    c.query(`DROP TABLE IF EXISTS "${name}"`);
    c.insertArrowFromIPCStream(ipc, { name, create: true });
  }

  drop(db: DuckDBBindings, names: string[]): void {
    const c = this.connection(db);
    for (const n of names) if (NAME.test(n)) c.query(`DROP TABLE IF EXISTS "${n}"`);
  }
}

/** How a query names a registered table. */
export function remoteRelation(name: string): string {
  return `${REMOTE_DB}.main."${name}"`;
}
