/**
 * Notebook statement classification (src/notebook/sql-tokens.ts): what decides whether a cell may write to the
 * pool (`mutates`), how many statements it holds, and which tables it reads. Expected values were checked against
 * DuckDB 1.5 (native `@duckdb/node-api`: extractStatements, getTableNames, and running the SQL). No DuckDB here,
 * so the file stays fast under StrykerJS. Written to kill the mutants StrykerJS left and to pin four bugs.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeSql, tokenize } from '../../src/notebook/sql-tokens';

const names = (sql: string) => analyzeSql(sql).refs.map((r) => [...r.qualifier, r.name].join('.'));
const spans = (sql: string) => analyzeSql(sql).refs.map((r) => sql.slice(r.start, r.end));

describe('bugs: what a cell could hide from the classifier', () => {
  it('a -- comment ends at a lone CR, as in DuckDB: the DROP after it is a second statement that writes', () => {
    // DuckDB ran `SELECT 1 -- c\r; DROP TABLE u` as two statements and dropped u
    const a = analyzeSql('SELECT 1 -- c\r; DROP TABLE u');
    assert.deepEqual(a.statements, ['SELECT', 'DROP']);
    assert.equal(a.mutates, true);
    assert.equal(analyzeSql('SELECT 1 -- c\rFROM t').refs.length, 1);
    assert.deepEqual(tokenize('-- a\r\nx').map((t) => [t.type, t.text]), [['comment', '-- a'], ['ws', '\r\n'], ['word', 'x']]);
  });
  it('EXPLAIN ANALYZE runs the statement it explains: a write under it mutates; plain EXPLAIN does not run it', () => {
    // DuckDB inserted a row for each of these
    for (const sql of [
      'EXPLAIN ANALYZE INSERT INTO t VALUES (1)',
      'explain analyse delete from t',
      'EXPLAIN (ANALYZE) UPDATE t SET x = 1',
      'EXPLAIN (FORMAT json, ANALYZE) INSERT INTO t VALUES (1)',
      'EXPLAIN ANALYZE VERBOSE CREATE TABLE x AS SELECT 1', // DuckDB 1.5 rejects VERBOSE; counted anyway
      'EXPLAIN ANALYZE WITH a AS (SELECT 5) INSERT INTO t SELECT * FROM a',
      'SELECT 1; EXPLAIN ANALYZE COPY t TO \'x.csv\'',
    ]) {
      const a = analyzeSql(sql);
      assert.equal(a.mutates, true, sql);
      assert.equal(a.statements.at(-1), 'EXPLAIN', sql);
    }
    for (const sql of ['EXPLAIN INSERT INTO t VALUES (4)', 'EXPLAIN ANALYZE SELECT * FROM t', 'EXPLAIN (FORMAT json) DELETE FROM t', 'EXPLAIN ANALYZE WITH a AS (SELECT 1) SELECT * FROM a']) {
      assert.equal(analyzeSql(sql).mutates, false, sql);
    }
    assert.deepEqual(names('EXPLAIN ANALYZE SELECT * FROM t JOIN u ON true'), ['t', 'u']);
  });
  it('DESCRIBE TABLE t and SUMMARIZE TABLE t read t (not a table named "table")', () => {
    assert.deepEqual(names('DESCRIBE TABLE t'), ['t']);
    assert.deepEqual(names('summarize table main.steps'), ['main.steps']);
    assert.deepEqual(names('SHOW TABLE t'), ['t']);
    assert.deepEqual(spans('DESCRIBE  TABLE "My T"'), ['"My T"']);
  });
  it('TABLESAMPLE belongs to one table of a FROM list: the tables after it still count', () => {
    assert.deepEqual(names('SELECT * FROM t TABLESAMPLE 10%, u'), ['t', 'u']);
    assert.deepEqual(names('SELECT * FROM t TABLESAMPLE reservoir(5 ROWS), u JOIN v ON true'), ['t', 'u', 'v']);
    // USING SAMPLE is a clause of the whole query: nothing after it is a table
    assert.deepEqual(names('SELECT * FROM t USING SAMPLE 10%'), ['t']);
  });
});
