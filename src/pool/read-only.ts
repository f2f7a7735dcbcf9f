/**
 * Notebook query cells run here (issue 17 hole 4, decision 009): the engine, not a tokenizer,
 * decides what a query cell may do.
 * - A prepared statement holds exactly one statement: DuckDB's parser refuses several
 *   ("Cannot prepare multiple statements at once!"), however the text hides its semicolons.
 * - It runs inside `BEGIN TRANSACTION READ ONLY` on a connection of its own, so any write the
 *   statement attempts (DML, DDL, nextval …) fails in the engine and is rolled back.
 * Both notebook connections (the read-only one, and the one that defines the notebook's views)
 * shadow the current-time functions with UTC TIMESTAMP macros: without ICU (not in the offline
 * build) the built-ins return TIMESTAMPTZ, on which `now() - interval 1 hour`, date_trunc,
 * strftime and epoch fail. Temporary macros: nothing is written into the pool's file.
 */
import type { DuckDBBindings, DuckDBConnection } from '@duckdb/duckdb-wasm/blocking';
import type { Table } from 'apache-arrow';

/** The built-in, by its system-catalog name (the macros below shadow the plain names); the pool's columns are UTC TIMESTAMP. */
const NOW = 'CAST(system.main.get_current_timestamp() AS TIMESTAMP)';
export const TIME_MACROS = [
  `CREATE OR REPLACE TEMP MACRO now() AS ${NOW}`,
  `CREATE OR REPLACE TEMP MACRO transaction_timestamp() AS ${NOW}`,
  // CURRENT_TIMESTAMP, LOCALTIMESTAMP, CURRENT_DATE, CURRENT_TIME parse into these calls
  `CREATE OR REPLACE TEMP MACRO get_current_timestamp() AS ${NOW}`,
  `CREATE OR REPLACE TEMP MACRO current_localtimestamp() AS ${NOW}`,
  `CREATE OR REPLACE TEMP MACRO today() AS CAST(${NOW} AS DATE)`,
  `CREATE OR REPLACE TEMP MACRO current_date() AS CAST(${NOW} AS DATE)`,
  `CREATE OR REPLACE TEMP MACRO get_current_time() AS CAST(${NOW} AS TIME)`,
  // seconds since the epoch → UTC TIMESTAMP (the built-in returns TIMESTAMPTZ)
  'CREATE OR REPLACE TEMP MACRO to_timestamp(s) AS make_timestamp(CAST(round(CAST(s AS DOUBLE) * 1000000) AS BIGINT))',
];

/**
 * Give a connection the UTC time macros. Temporary macros live per connection, and a view binds
 * its SQL on the connection that reads it: the pool's own connection and every export cursor need
 * them too, or a notebook view using now() fails to export (issue 15).
 */
export function withTimeMacros(conn: DuckDBConnection): DuckDBConnection {
  conn.query(TIME_MACROS.join(';\n')); // one call: each statement of its own cost a round of parsing and commit
  return conn;
}

interface NotebookConnections {
  /** Query cells: every statement inside a READ ONLY transaction. */
  ro: DuckDBConnection;
  /** Views of checked query cells (CREATE VIEW of one prepared statement). */
  views: DuckDBConnection;
}
const connections = new WeakMap<DuckDBBindings, NotebookConnections>();

function notebookConnections(db: DuckDBBindings): NotebookConnections {
  let c = connections.get(db);
  // Stryker disable next-line ConditionalExpression: new connections per call give the same results (views live in the catalog, the macros are made again); only slower
  if (!c) {
    c = { ro: db.connect(), views: db.connect() };
    for (const conn of [c.ro, c.views]) withTimeMacros(conn);
    connections.set(db, c);
  }
  return c;
}

function prepared<T>(conn: DuckDBConnection, sql: string, fn: (t: () => Table) => T): T {
  const stmt = conn.prepare(sql);
  try {
    return fn(() => stmt.query());
    // Stryker disable next-line BlockStatement: a statement left open holds memory until the engine ends; no result differs
  } finally {
    stmt.close();
  }
}

/** One statement, read-only; `run: false` only prepares it (parse, bind, type-check). */
export function readOnlyQuery(db: DuckDBBindings, sql: string, run = true): Table | null {
  const { ro } = notebookConnections(db);
  ro.query('BEGIN TRANSACTION READ ONLY');
  try {
    return prepared(ro, sql, (q) => (run ? q() : null));
  } finally {
    ro.query('ROLLBACK');
  }
}

/** Run exactly one statement (a prepared statement cannot hold more) on the notebook's view connection. */
export function execOne(db: DuckDBBindings, sql: string): void {
  prepared(notebookConnections(db).views, sql, (q) => q());
}
