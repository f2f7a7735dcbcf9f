import { expect } from '@esm-bundle/chai';
import type { PoolChange } from '../../src/pool/client';
import { startPool } from './helpers';

/** Changes the broker reports between now and when `body` resolves (the worker's reports arrive before the call's answer). */
async function changesOf(pool: Awaited<ReturnType<typeof startPool>>, body: () => Promise<unknown>): Promise<string[]> {
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
    const pool = await startPool('pool-changes', true);
    try {
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
    } finally {
      pool.terminate();
    }
  });
});
