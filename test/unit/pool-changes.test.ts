/** The change feed's statement scan (src/pool/changes.ts): which tables an SQL text writes. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ALL_TABLES, ChangeLog, statementEffect, withViews } from '../../src/pool/changes';

const writes = (sql: string) => statementEffect(sql).tables;

describe('statementEffect', () => {
  it('reads write nothing, however their text looks', () => {
    assert.deepEqual(writes(`SELECT * FROM steps WHERE status = 'update steps set x' -- delete from steps`), []);
    assert.deepEqual(writes(`SELECT "update", created_at, updated FROM curation /* insert into steps */`), []);
    assert.deepEqual(writes(`SELECT $$drop table steps$$ AS s, E'truncate steps' AS t`), []);
    assert.deepEqual(writes(`COPY (SELECT * FROM steps) TO 'x.csv'`), []);
    assert.deepEqual(writes(`COPY steps TO 'x.parquet'`), []);
  });

  it('the targets of DML and DDL, not the tables they read', () => {
    assert.deepEqual(writes(`INSERT INTO curation (step_id, split) SELECT step_id, 'val' FROM steps ON CONFLICT (step_id) DO UPDATE SET split = excluded.split`), ['curation']);
    assert.deepEqual(writes(`INSERT OR REPLACE INTO main."Curation" VALUES (1)`), ['curation']);
    assert.deepEqual(writes(`UPDATE steps s SET reward = 1 FROM curation c WHERE c.step_id = s.step_id`), ['steps']);
    assert.deepEqual(writes(`update memory.main.steps set reward = 0`), ['steps']);
    assert.deepEqual(writes(`DELETE FROM near_duplicates WHERE step_id IN (SELECT step_id FROM steps)`), ['near_duplicates']);
    assert.deepEqual(writes(`WITH x AS (SELECT 1) DELETE FROM "steps" WHERE false`), ['steps']);
    assert.deepEqual(writes(`TRUNCATE TABLE steps; truncate curation`), ['curation', 'steps']);
    assert.deepEqual(writes(`ALTER TABLE steps ADD COLUMN z INT`), ['steps']);
    assert.deepEqual(writes(`DROP TABLE IF EXISTS a, b`), ['a', 'b']);
    assert.deepEqual(writes(`CREATE OR REPLACE TABLE my_set AS SELECT * FROM steps`), ['my_set']);
    assert.deepEqual(writes(`CREATE TABLE IF NOT EXISTS nb_x.t (a INT)`), ['nb_x.t']);
    assert.deepEqual(writes(`COPY steps FROM 'more.parquet'`), ['steps']);
    assert.deepEqual(writes(`MERGE INTO curation USING x ON true WHEN MATCHED THEN DELETE`), ['curation']);
  });

  it('scratch tables (temporary, or named with a leading _) are not reported', () => {
    assert.deepEqual(writes(`CREATE OR REPLACE TEMP TABLE _ids (v VARCHAR); INSERT INTO _ids VALUES ('a'); DROP TABLE "_upsert_3"`), []);
    assert.deepEqual(writes(`CREATE TEMPORARY TABLE scratch AS SELECT 1; INSERT INTO temp.scratch VALUES (2)`), []);
  });

  it('statements it cannot place report every table', () => {
    assert.deepEqual(writes(`ATTACH 'x.db' AS x`), [ALL_TABLES]);
    assert.deepEqual(writes(`DROP SCHEMA s CASCADE`), [ALL_TABLES]);
  });

  it('transactions: begin and end, in one text or apart', () => {
    assert.equal(statementEffect('BEGIN TRANSACTION; DELETE FROM near_duplicates;').tx, 'begin');
    assert.equal(statementEffect('BEGIN; UPDATE curation SET quality = 1; COMMIT').tx, 'end');
    assert.equal(statementEffect('rollback').tx, 'end');
    assert.equal(statementEffect('SELECT 1').tx, null);
  });
});

describe('ChangeLog', () => {
  it('holds a transaction’s tables until it ends, per connection', () => {
    const log = new ChangeLog();
    const a = {};
    const b = {};
    log.note('BEGIN TRANSACTION; DELETE FROM near_duplicates', a);
    log.note(`INSERT INTO curation VALUES ('x')`, b);
    assert.deepEqual(log.take(), ['curation', 'trajectories']);
    log.note(`INSERT INTO near_duplicates VALUES ('x', 'c', 1)`, a);
    assert.deepEqual(log.take(), []);
    log.note('COMMIT', a);
    assert.deepEqual(log.take(), ['near_duplicates']);
    log.note('BEGIN', b);
    log.noteTables(['import_errors'], b);
    log.closed(b);
    assert.deepEqual(log.take(), ['import_errors']);
  });

  it('a change of a table the trajectories view reads changes the view', () => {
    assert.deepEqual(withViews(['trajectory_stats']), ['trajectories', 'trajectory_stats']);
    assert.deepEqual(withViews(['token_counts']), ['token_counts']);
  });
});
