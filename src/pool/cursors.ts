/** Streaming query results (exports): each cursor a query on a connection of its own, read in chunks of DuckDB's own Arrow IPC messages. */
import type { DuckDBBindings, DuckDBConnection } from '@duckdb/duckdb-wasm/blocking';
import { withTimeMacros } from './read-only';

/** Arrow IPC end-of-stream marker (continuation token, zero length). */
const EOS = new Uint8Array([255, 255, 255, 255, 0, 0, 0, 0]);

interface Cursor {
  conn: DuckDBConnection;
  /** The query's IPC schema message, sent ahead of every chunk. */
  header: Uint8Array;
  done: boolean;
}

export class Cursors {
  private readonly open = new Map<number, Cursor>();
  private seq = 1;

  /** Open a streaming cursor over `sql` on a new connection; throws what DuckDB throws. */
  start(db: DuckDBBindings, sql: string): number {
    const cc = db.connect();
    try {
      withTimeMacros(cc); // exports of notebook views that use now()
      const header = cc.useUnsafe((b, conn) => {
        let h = b.startPendingQuery(conn, sql, true);
        while (h == null) h = b.pollPendingQuery(conn);
        return h;
      });
      const id = this.seq++;
      this.open.set(id, { conn: cc, header, done: false });
      return id;
    } catch (e) {
      cc.close();
      throw e;
    }
  }

  /**
   * The next chunk of a cursor as one Arrow IPC stream (schema, DuckDB's record batches, end
   * marker) of at least `minBytes` unless the result ends, or null at the end. DuckDB's own IPC
   * messages are passed on as they are: decoding them into JS Arrow objects and encoding them again
   * cost as much as the query.
   */
  next(id: number, minBytes: number): Uint8Array | null {
    const cur = this.open.get(id);
    if (!cur || cur.done) {
      if (cur) this.close(id);
      return null;
    }
    const parts: Uint8Array[] = [cur.header];
    let n = cur.header.byteLength;
    while (n < minBytes) {
      let m: Uint8Array | null = null;
      do m = cur.conn.useUnsafe((b, conn) => b.fetchQueryResults(conn));
      while (m == null);
      if (m.byteLength === 0) {
        cur.done = true;
        break;
      }
      parts.push(m);
      n += m.byteLength;
    }
    if (parts.length === 1) {
      this.close(id);
      return null;
    }
    parts.push(EOS);
    const bytes = new Uint8Array(n + EOS.byteLength);
    let at = 0;
    for (const p of parts) {
      bytes.set(p, at);
      at += p.byteLength;
    }
    return bytes;
  }

  close(id: number): void {
    const cur = this.open.get(id);
    if (!cur) return;
    this.open.delete(id);
    try {
      cur.conn.close();
    } catch {
      /* already closed */
    }
  }
}
