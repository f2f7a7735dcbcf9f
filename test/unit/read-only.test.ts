/**
 * The read-only guard of notebook query cells (src/pool/read-only.ts, decision 009) in the page's engine (DuckDB-WASM's
 * Node build, in this process): exactly one prepared statement, inside a READ ONLY transaction on a connection of its
 * own, rolled back whatever happens; `run: false` only prepares; views on the notebook's own connection; the UTC time
 * macros on both notebook connections and on a connection given them. The same guard through the pool worker and the
 * notebook runtime, with every hostile payload: notebook-runtime.test.ts.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { DuckDBBindings, DuckDBConnection } from '@duckdb/duckdb-wasm/blocking';
import { execOne, readOnlyQuery, TIME_MACROS, withTimeMacros } from '../../src/pool/read-only';
import { wasmEngine } from './helpers/wasm-engine';

let db: DuckDBBindings;
let conn: DuckDBConnection;
const count = (t = 'notes') => Number(conn.query(`SELECT count(*)::INTEGER AS n FROM ${t}`).getChild('n')?.get(0));
const fails = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    return String(e);
  }
  return 'no error';
};

before(async () => {
  ({ db, conn } = await wasmEngine());
  conn.query(`CREATE TABLE notes AS SELECT range::INTEGER AS i FROM range(3); CREATE SEQUENCE seq`);
});

describe('read-only query cells', () => {
  it('a query runs and returns its rows; `run: false` prepares it (bound, type-checked) without running it', () => {
    const t = readOnlyQuery(db, 'SELECT sum(i)::INTEGER AS s FROM notes');
    assert.equal(t?.getChild('s')?.get(0), 3);
    assert.equal(readOnlyQuery(db, `SELECT error('ran') FROM notes`, false), null);
    assert.match(fails(() => readOnlyQuery(db, 'SELECT nope FROM notes', false)), /nope/);
  });

  it('several statements are refused, however the text hides its semicolons', () => {
    for (const sql of ['SELECT 1; DELETE FROM notes', 'SELECT 1 -- c\r; DELETE FROM notes', "SELECT $$ $$; DELETE FROM notes; SELECT $$ $$"]) {
      assert.match(fails(() => readOnlyQuery(db, sql)), /multiple statements|more than one/i, sql);
    }
    assert.equal(count(), 3);
  });

  it('every kind of write fails in the engine and leaves nothing behind; the next query runs', () => {
    for (const sql of ['DELETE FROM notes', "INSERT INTO notes VALUES (9)", 'CREATE TABLE t2 AS SELECT 1', "SELECT nextval('seq')", 'DROP TABLE notes', 'UPDATE notes SET i = 0']) {
      assert.match(fails(() => readOnlyQuery(db, sql)), /read-only|read only/i, sql);
      // the failed statement's transaction is over: the guard's connection takes the next query
      assert.equal(readOnlyQuery(db, 'SELECT count(*)::INTEGER AS n FROM notes')?.getChild('n')?.get(0), 3, sql);
    }
    assert.equal(count(), 3);
    assert.equal(Number(conn.query(`SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name = 't2'`).getChild('n')?.get(0)), 0);
  });

  it('a view is one statement on the notebook connection: it stays; two statements are refused', () => {
    execOne(db, 'CREATE VIEW big AS SELECT i FROM notes WHERE i > 0');
    assert.equal(count('big'), 2);
    assert.match(fails(() => execOne(db, 'CREATE VIEW v2 AS SELECT 1; DELETE FROM notes')), /multiple statements/i);
    assert.equal(count(), 3);
  });

  it('now() and friends are UTC TIMESTAMPs on both notebook connections, and on a connection given the macros', () => {
    assert.equal(readOnlyQuery(db, 'SELECT typeof(now()) AS t')?.getChild('t')?.get(0), 'TIMESTAMP');
    execOne(db, 'CREATE VIEW recent AS SELECT now() - INTERVAL 1 HOUR AS t');
    assert.equal(readOnlyQuery(db, 'SELECT typeof(t) AS t FROM recent')?.getChild('t')?.get(0), 'TIMESTAMP');
    const other = withTimeMacros(db.connect());
    for (const [sql, type] of [
      ['now()', 'TIMESTAMP'], ['current_timestamp', 'TIMESTAMP'], ['transaction_timestamp()', 'TIMESTAMP'], ['localtimestamp', 'TIMESTAMP'],
      ['today()', 'DATE'], ['current_date', 'DATE'], ['current_time', 'TIME'], ['to_timestamp(0)', 'TIMESTAMP'],
    ]) {
      assert.equal(other.query(`SELECT typeof(${sql}) AS t`).getChild('t')?.get(0), type, sql);
    }
    const near = Number(other.query('SELECT epoch_ms(now()) AS t').getChild('t')?.get(0));
    assert.ok(Math.abs(near - Date.now()) < 120_000, `${near}`);
    assert.equal(String(other.query('SELECT to_timestamp(1767225600) AS t').getChild('t')?.get(0)), String(Date.UTC(2026, 0, 1)));
    assert.equal(TIME_MACROS.length, 8);
  });
});
