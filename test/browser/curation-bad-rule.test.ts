// One trainable rule everywhere (decision 016): a step marked bad stays out of training unless explicitly set
// trainable — in the export, the dashboard counts, the trajectories view, the filters and the inspector.
import { expect } from '@esm-bundle/chai';
import { filterWhere } from '../../src/curation/filter';
import { curationStore } from '../../src/curation/store';
import type { PoolClient } from '../../src/pool/client';
import { loadTrajectory } from '../../src/views/inspector/load';
import { summarySql } from '../../src/pool/queries/dashboard';
import { loadStandardPool } from './curation-data';
import { exporterFor, startPool } from './helpers';

async function exportedUids(pool: PoolClient): Promise<string[]> {
  const blob = await exporterFor(pool).exportDataset({ layout: 'rl_steps', format: 'jsonl' });
  const lines = (await blob.text()).trim().split('\n').filter(Boolean);
  return [...new Set(lines.map((l) => String(JSON.parse(l).trajectory_uid)))].sort();
}

describe('quality bad ⇒ not trainable unless explicitly set', () => {
  let pool: PoolClient;
  before(async () => {
    pool = await startPool('curation-bad-rule', true);
    await loadStandardPool(pool);
  });
  after(() => pool.terminate());

  it('a bad label keeps a trajectory out of the default export and out of every trainable count', async () => {
    const store = curationStore(pool);
    expect(await exportedUids(pool)).to.include('p0-a');
    const [before] = await pool.rows(summarySql(''));

    await store.apply({ trajectoryUids: ['p0-a'] }, { quality: 'bad' });
    expect(await exportedUids(pool)).to.not.include('p0-a');
    const [after] = await pool.rows(summarySql(''));
    expect(after.trainable_steps).to.equal(Number(before.trainable_steps) - 1);
    const [view] = await pool.rows(`SELECT trainable_steps, bad_steps FROM trajectories WHERE trajectory_uid = 'p0-a'`);
    expect(view).to.deep.equal({ trainable_steps: 0, bad_steps: 1 });
    const yes = await pool.rows(`SELECT DISTINCT s.trajectory_uid FROM steps s LEFT JOIN curation c USING (step_id) WHERE ${filterWhere({ trainable: 'yes' })}`);
    expect(yes.map((r) => r.trajectory_uid)).to.not.include('p0-a');
    expect((await loadTrajectory(pool, 'p0-a'))[0].trainable).to.equal(false);

    // an explicit trainable label wins over the quality
    await store.apply({ trajectoryUids: ['p0-a'] }, { trainable: true });
    expect(await exportedUids(pool)).to.include('p0-a');
    const [again] = await pool.rows(`SELECT trainable_steps FROM trajectories WHERE trajectory_uid = 'p0-a'`);
    expect(again.trainable_steps).to.equal(1);
    expect((await loadTrajectory(pool, 'p0-a'))[0].trainable).to.equal(true);

    // a good label keeps the default; an error step stays out
    await store.apply({ trajectoryUids: ['p0-a'] }, { quality: 'good', trainable: null });
    expect(await exportedUids(pool)).to.include('p0-a');
    expect(await exportedUids(pool)).to.not.include('p2-c');
    await store.undo();
    await store.undo();
    await store.undo();
    expect((await pool.rows('SELECT count(*)::INTEGER AS n FROM curation'))[0].n).to.equal(0);
  });
});
