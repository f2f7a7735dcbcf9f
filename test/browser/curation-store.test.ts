import { expect } from '@esm-bundle/chai';
import { setCuration, setCurationWhere } from '../../src/curation/api';
import { filterWhere } from '../../src/curation/filter';
import { assignSplit } from '../../src/curation/split';
import { curationStore } from '../../src/curation/store';
import type { PoolClient } from '../../src/pool/client';
import { loadStandardPool } from './curation-data';
import { startPool } from './helpers';

describe('curation store', () => {
  let pool: PoolClient;
  before(async () => {
    pool = await startPool('curation-store', true);
    await loadStandardPool(pool);
  });
  after(() => pool.terminate());

  it('bulk-labels every step a composed filter selects, visible in SQL, and undoes exactly', async () => {
    const changes: string[][] = [];
    const off = pool.onChange((e) => changes.push(e.tables));
    const where = filterWhere({ agents: ['solver'], rewardMax: 0, status: 'complete' });
    const expected = await pool.rows(`SELECT step_id FROM steps s LEFT JOIN curation c USING (step_id) WHERE ${where} ORDER BY step_id`);
    expect(expected.map((r) => r.step_id)).to.deep.equal(['p0-b:0', 'p2-a:0', 'p2-c:0', 'p3-b:0', 'p3-b:1']);
    const r = await setCurationWhere(pool, where, { quality: 'bad', trainable: false, addTags: ['low-reward'] });
    expect(r.steps).to.equal(5);
    const rows = await pool.rows(`SELECT step_id, quality, trainable, tags, reviewed_at IS NOT NULL AS reviewed FROM curation ORDER BY step_id`);
    expect(rows.map((x) => x.step_id)).to.deep.equal(expected.map((x) => x.step_id));
    for (const x of rows) expect(x).to.include({ quality: 'bad', trainable: false, reviewed: true }) && expect(x.tags).to.deep.equal(['low-reward']);
    const [t] = await pool.rows(`SELECT bad_steps, trainable_steps FROM trajectories WHERE trajectory_uid = 'p3-b'`);
    expect(t).to.deep.equal({ bad_steps: 2, trainable_steps: 0 });
    expect(changes.some((c) => c.includes('curation'))).to.equal(true);

    await setCuration(pool, ['p0-b:0', "it's:not-a-step"], { addTags: ['x'], note: "o'neil said <b>hi</b>" });
    const [b] = await pool.rows(`SELECT tags, note, quality FROM curation WHERE step_id = 'p0-b:0'`);
    expect(b).to.deep.equal({ tags: ['low-reward', 'x'], note: "o'neil said <b>hi</b>", quality: 'bad' });

    const store = curationStore(pool);
    expect((await store.undo())?.steps).to.equal(2);
    const [b2] = await pool.rows(`SELECT tags, note FROM curation WHERE step_id = 'p0-b:0'`);
    expect(b2).to.deep.equal({ tags: ['low-reward'], note: null });
    expect((await pool.rows(`SELECT count(*)::INTEGER AS n FROM curation WHERE step_id = 'it''s:not-a-step'`))[0].n).to.equal(0);
    expect((await store.undo())?.steps).to.equal(5);
    expect((await pool.rows('SELECT count(*)::INTEGER AS n FROM curation'))[0].n).to.equal(0);
    expect(await store.undo()).to.equal(null);
    off();
  });

  it('labels whole trajectories and thousands of ids staged in chunks', async () => {
    const store = curationStore(pool);
    const r = await store.apply({ trajectoryUids: ['p3-a', 'p1-b'] }, { quality: 'good' });
    expect(r.steps).to.equal(3);
    const ids = Array.from({ length: 5000 }, (_, i) => `ghost-${i}:'x'`).concat(['p0-a:0']);
    expect((await setCuration(pool, ids, { trainable: false })).steps).to.equal(5001);
    const [n] = await pool.rows(`SELECT count(*)::INTEGER AS n FROM curation WHERE NOT trainable`);
    expect(n.n).to.equal(5001);
    await store.undo();
    await store.undo();
    expect((await pool.rows('SELECT count(*)::INTEGER AS n FROM curation'))[0].n).to.equal(0);
  });

  it('text search and quality / tag filters compose; quotes in the search are escaped', async () => {
    const text = filterWhere({ text: 'ALICE@example' });
    const hits = await pool.rows(`SELECT DISTINCT trajectory_uid FROM steps s LEFT JOIN curation c USING (step_id) WHERE ${text} ORDER BY 1`);
    expect(hits.map((h) => h.trajectory_uid)).to.deep.equal(['p2-a', 'p2-b', 'p2-c']);
    const quote = filterWhere({ text: "it's'); DROP TABLE steps; --" });
    expect((await pool.rows(`SELECT count(*)::INTEGER AS n FROM steps s LEFT JOIN curation c USING (step_id) WHERE ${quote}`))[0].n).to.equal(0);
    expect((await pool.rows(`SELECT count(*)::INTEGER AS n FROM steps`))[0].n).to.equal(15);
    await setCuration(pool, ['p0-c:0'], { quality: 'meh', addTags: ['weird'] });
    const q = filterWhere({ quality: ['meh'], tags: ['weird', 'other'], models: ['m-small'] });
    expect((await pool.rows(`SELECT step_id FROM steps s LEFT JOIN curation c USING (step_id) WHERE ${q}`)).map((x) => x.step_id)).to.deep.equal(['p0-c:0']);
    await curationStore(pool).undo();
  });

  it('splits deterministically by trajectory: same seed same split, no trajectory in both', async () => {
    const a = await assignSplit(pool, { valFraction: 0.4, seed: 's1' });
    const first = await pool.rows(`SELECT step_id, split FROM curation ORDER BY step_id`);
    expect(a.train + a.val).to.equal(15);
    expect(a.val).to.be.greaterThan(0);
    expect(a.train).to.be.greaterThan(0);
    const leak = await pool.rows(`SELECT trajectory_uid FROM steps JOIN curation USING (step_id) GROUP BY 1 HAVING count(DISTINCT split) > 1`);
    expect(leak).to.deep.equal([]);
    await assignSplit(pool, { valFraction: 0.4, seed: 'other' });
    await assignSplit(pool, { valFraction: 0.4, seed: 's1' });
    expect(await pool.rows(`SELECT step_id, split FROM curation ORDER BY step_id`)).to.deep.equal(first);
    const [m] = await pool.rows(`SELECT split_of('p0-a', 0.4, 's1') AS s`);
    expect(m.s).to.equal(first.find((r) => r.step_id === 'p0-a:0')?.split);
    await assignSplit(pool, { valFraction: 0.5, by: 'prompt', seed: 'g' });
    const groups = await pool.rows(`SELECT prompt_uid FROM steps JOIN curation USING (step_id) GROUP BY 1 HAVING count(DISTINCT split) > 1`);
    expect(groups).to.deep.equal([]);
    await pool.exec('DELETE FROM curation');
  });
});
