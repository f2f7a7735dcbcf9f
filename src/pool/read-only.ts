/**
 * Notebook query cells run here (issue 17 hole 4, decision 009): the engine, not a tokenizer,
 * decides what a query cell may do.
 * - A prepared statement holds exactly one statement: DuckDB's parser refuses several
 *   ("Cannot prepare multiple statements at once!"), however the text hides its semicolons.
 * - It runs inside `BEGIN TRANSACTION READ ONLY` on a connection of its own, so any write the
 *   statement attempts (DML, DDL, nextval …) fails in the engine and is rolled back.
 */
import type { DuckDBBindings, DuckDBConnection } from '@duckdb/duckdb-wasm/blocking';
import type { Table } from 'apache-arrow';

const connections = new WeakMap<DuckDBBindings, DuckDBConnection>();

function prepared<T>(conn: DuckDBConnection, sql: string, fn: (t: () => Table) => T): T {
  const stmt = conn.prepare(sql);
  try {
    return fn(() => stmt.query());
  } finally {
    stmt.close();
  }
}

/** One statement, read-only; `run: false` only prepares it (parse, bind, type-check). */
export function readOnlyQuery(db: DuckDBBindings, sql: string, run = true): Table | null {
  let conn = connections.get(db);
  if (!conn) {
    conn = db.connect();
    connections.set(db, conn);
  }
  conn.query('BEGIN TRANSACTION READ ONLY');
  try {
    return prepared(conn, sql, (q) => (run ? q() : null));
  } finally {
    conn.query('ROLLBACK');
  }
}

/** Run exactly one statement on `conn` (a prepared statement cannot hold more). */
export function execOne(conn: DuckDBConnection, sql: string): void {
  prepared(conn, sql, (q) => q());
}
