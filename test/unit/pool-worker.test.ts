/**
 * The pool worker's API on the page's engine (the real pool worker, here in a Node worker thread:
 * helpers/page-workers.ts): an import stages, commits atomically and derives is_last, a re-import adds nothing, an
 * aborted one keeps nothing; the change feed (the broker tells subscribers which tables a statement wrote; writers
 * announce nothing); trajectory_stats equals aggregating steps and curation through every kind of write (decision 005).
 * One in-memory pool for the file. What needs a saved pool (the wasm caches, the file limit, a reopen): test/browser.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import { expect } from '@esm-bundle/chai';
import { stepsToIPC } from '../../src/record/step-arrow';
import type { PoolChange, PoolClient } from '../../src/pool/client';
import { startPool } from './helpers/page-workers';
import { expectSame, importSteps, step, trajStep } from '../browser/pool-data';

let pool: PoolClient;
before(async () => {
  pool = await startPool('pool-worker');
});
after(() => pool.terminate());


describe('pool', () => {
  beforeEach(() => pool.clear());

  it('stages, commits atomically and derives is_last; re-import adds nothing', async () => {
    const id = await pool.beginImport({ file: 'f.jsonl', sourceId: 'sid', bytes: 1 });
    await pool.appendBatch(id, stepsToIPC([step(0, 't1', id), step(1, 't1', id), step(2, 't1', id)]));
    expect((await pool.rows('SELECT count(*) AS n FROM steps'))[0].n).to.equal(0);
    const r = await pool.commitImport(id, { format: 'test', confidence: 1, records: 3, rowsMade: 3, errors: [{ line: 9, reason: 'bad json' }] });
    expect(r.rowsAdded).to.equal(3);
    const rows = await pool.rows('SELECT step_id, is_last, messages[1].tool_calls[1].function.name AS fn, metadata[\'k\'] AS k FROM steps ORDER BY step_index');
    expect(rows.map((x) => x.is_last)).to.deep.equal([false, false, true]);
    expect(rows[0].fn).to.equal('calc');
    expect(rows[0].k).to.equal('v');
    const id2 = await pool.beginImport({ file: 'f.jsonl', sourceId: 'sid', bytes: 1 });
    await pool.appendBatch(id2, stepsToIPC([step(0, 't1', id2), step(1, 't1', id2), step(2, 't1', id2)]));
    expect((await pool.commitImport(id2, { format: 'test', confidence: 1, records: 3, rowsMade: 3, errors: [] })).rowsAdded).to.equal(0);
    const errs = await pool.rows('SELECT line, reason FROM import_errors');
    expect(errs).to.deep.equal([{ line: 9, reason: 'bad json' }]);
    const t = await pool.rows('SELECT step_count, reward_sum, complete FROM trajectories');
    expect(t).to.deep.equal([{ step_count: 3, reward_sum: 3, complete: true }]);
  });

  it('an aborted import keeps nothing of it', async () => {
    const id = await pool.beginImport({ file: 'g.jsonl', sourceId: 'g', bytes: 1 });
    await pool.appendBatch(id, stepsToIPC([step(0, 'g', id)]));
    await pool.abortImport(id, 'cancelled by the user');
    expect((await pool.rows('SELECT count(*) AS n FROM steps'))[0].n).to.equal(0);
    expect((await pool.rows('SELECT status FROM imports'))[0].status).to.equal('failed');
  });
});


/** Changes the broker reports between now and when `body` resolves (the worker's reports arrive before the call's answer). */
async function changesOf(pool: PoolClient, body: () => Promise<unknown>): Promise<string[]> {
  const seen = new Set<string>();
  const off = pool.onChange((e: PoolChange) => {
    for (const t of e.tables) seen.add(t);
  });
  try {
    await body();
  } finally {
    off();
  }
  return [...seen].sort();
}

describe('pool change feed (the broker tells subscribers; writers announce nothing)', () => {
  it('a write through query/exec (an effect cell, workbench.query) is reported with the tables it wrote, a read with none', async () => {
    await pool.clear();
    {
      expect(await changesOf(pool, () => pool.rows(`SELECT count(*) AS n FROM steps`))).to.deep.equal([]);
      // an effect cell's SQL: DuckDB writes curation; nobody calls pool.changed
      const wrote = await changesOf(pool, () => pool.query(`INSERT INTO curation (step_id, quality) VALUES ('s1', 3)`));
      expect(wrote).to.include('curation');
      expect(wrote).to.include('trajectories'); // the view over steps, trajectory_stats and curation
      expect(wrote).to.not.include('steps');
      // a statement that reads steps but writes near_duplicates names only what it wrote
      const nd = await changesOf(pool, () => pool.exec(`DELETE FROM near_duplicates WHERE step_id IN (SELECT step_id FROM steps)`));
      expect(nd).to.deep.equal(['near_duplicates']);
      // a transaction is reported when it ends, not statement by statement
      const inTx = await changesOf(pool, () => pool.exec(`BEGIN TRANSACTION; UPDATE curation SET quality = 1`));
      expect(inTx).to.deep.equal([]);
      expect(await changesOf(pool, () => pool.exec('COMMIT'))).to.include('curation');
      // a user table created, then dropped
      expect(await changesOf(pool, () => pool.exec(`CREATE TABLE my_notes AS SELECT 1 AS x`))).to.deep.equal(['my_notes']);
      expect(await changesOf(pool, () => pool.exec(`DROP TABLE my_notes`))).to.deep.equal(['my_notes']);
    }
  });
});

describe('trajectory_stats', () => {
  it('the trajectories view equals aggregating steps and curation, through imports, labels, upserts, SQL writes and clear', async () => {
    await pool.clear();
      await importSteps(pool, [trajStep('t1', 0), trajStep('t1', 1), trajStep('t1', 2), trajStep('t2', 0), trajStep('t2', 1, { status: 'error', reward: null })]);
      await expectSame(pool, 'after an import');
      // a second import continues t2 and adds t3
      await importSteps(pool, [trajStep('t2', 2, { model: 'm2' }), trajStep('t3', 0, { status: null as unknown as 'ok' })]);
      await expectSame(pool, 'after an import that continues a trajectory');

      await pool.exec(`INSERT INTO curation (step_id, quality, trainable) VALUES ('t1:0', 'good', NULL), ('t1:1', 'bad', false), ('t2:1', 'unreviewed', true), ('t3:0', 'good', true), ('gone:0', 'bad', false)`);
      await expectSame(pool, 'after labels (one on a step that does not exist)');

      await pool.upsertSteps(stepsToIPC([trajStep('t1', 2, { reward: 10, is_last: true }), trajStep('t4', 0)]));
      await expectSame(pool, 'after the gateway upserts steps');

      await pool.exec(`UPDATE steps SET reward = 7 WHERE step_id = 't2:0'`);
      await expectSame(pool, 'after UPDATE steps in SQL');
      await pool.exec(`DELETE FROM "steps" WHERE trajectory_uid = 't3'`);
      await expectSame(pool, 'after DELETE FROM steps in SQL');
      await pool.exec(`INSERT INTO main.steps SELECT * REPLACE ('t5:' || step_index AS step_id, 't5' AS trajectory_uid) FROM steps WHERE trajectory_uid = 't1'`);
      await expectSame(pool, 'after INSERT INTO steps in SQL');

      await pool.clear();
      expect(await pool.rows('SELECT count(*)::INTEGER AS n FROM trajectory_stats')).to.deep.equal([{ n: 0 }]);
  });

});

describe('compacting an in-memory pool', () => {
  it('has nothing to compact, and says so', async () => {
    let err = '';
    await pool.compact().catch((e) => (err = String(e)));
    expect(err).to.match(/in memory .* no file to compact/);
  });
});
