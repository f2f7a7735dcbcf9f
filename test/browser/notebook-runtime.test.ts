import { expect } from '@esm-bundle/chai';
import { parseNotebook } from '../../src/notebook/format';
import type { Cell } from '../../src/notebook/model';
import { NotebookRuntime } from '../../src/notebook/runtime';
import type { PoolClient } from '../../src/pool/client';
import { tableToRows } from '../../src/pool/rows';
import { startPool } from './helpers';
import { demoSteps, insertDemo } from './notebook-demo';

const NB = `---
title: runtime test
---

\`\`\`sql id=by_agent
SELECT agent, count(*)::INTEGER AS n, sum(reward) AS reward FROM steps GROUP BY agent ORDER BY agent
\`\`\`

\`\`\`sql id=top
SELECT agent, n FROM by_agent WHERE n > 0 ORDER BY n DESC
\`\`\`

\`\`\`sql id=total
SELECT sum(n)::INTEGER AS total FROM top
\`\`\`

\`\`\`sql id=broken
SELECT agent,
  nope FROM steps
\`\`\`

\`\`\`sql id=after_broken
SELECT * FROM broken
\`\`\`

\`\`\`sql id=good_steps
SELECT count(*)::INTEGER AS good FROM curation WHERE quality = 'good'
\`\`\`

\`\`\`sql effect
INSERT INTO curation (step_id, quality) SELECT step_id, 'good' FROM steps WHERE reward > 0
\`\`\`

\`\`\`sql id=sneaky
DELETE FROM curation
\`\`\`

\`\`\`sql id=lazy run=false
SELECT * FROM steps
\`\`\`

\`\`\`sql id=unknown
SELECT * FROM nowhere_table
\`\`\`
`;

function byId(cells: Cell[], id: string): Cell {
  return cells.find((c) => c.options.id === id)!;
}

describe('notebook runtime on a real pool', () => {
  let pool: PoolClient;
  before(async () => {
    pool = await startPool('nb-runtime', true);
    await insertDemo(pool);
  });
  after(() => pool.terminate());

  it('runs a notebook: views, downstream, errors in place, effects only on request', async () => {
    const doc = parseNotebook(NB);
    const rt = new NotebookRuntime(pool, 'rt1');
    rt.setCells(doc.cells);
    await rt.runAll();
    const st = (id: string) => rt.state(byId(doc.cells, id).key);
    const rows = (id: string) => tableToRows(st(id).table!);
    expect(rows('by_agent')).to.deep.equal([{ agent: 'critic', n: 4, reward: 0.5 }, { agent: 'solver', n: 9, reward: 3 }]);
    expect(rows('top')).to.deep.equal([{ agent: 'solver', n: 9 }, { agent: 'critic', n: 4 }]);
    expect(rows('total')).to.deep.equal([{ total: 13 }]);
    expect(st('broken').status).to.equal('error');
    expect(st('broken').error).to.match(/nope/);
    expect(st('broken').error).to.not.include('nb_rt1');
    expect(st('broken').errorLine).to.equal(2);
    expect(st('after_broken').error).to.match(/Waiting for broken/);
    expect(st('sneaky').error).to.match(/Mark it as an effect cell/);
    expect(st('unknown').error).to.match(/Unknown table "nowhere_table"/);
    expect(st('lazy').status).to.equal('idle');
    expect(st('lazy').table).to.equal(null);
    // Views live in the notebook's schema, not in main.
    expect((await pool.rows(`SELECT count(*)::INTEGER AS n FROM "${rt.schema}".lazy`))[0].n).to.equal(13);
    expect((await pool.rows(`SELECT count(*)::INTEGER AS n FROM information_schema.tables WHERE table_schema = 'main' AND table_name = 'by_agent'`))[0].n).to.equal(0);
    // The effect cell did not run on open.
    expect(rows('good_steps')).to.deep.equal([{ good: 0 }]);
    const effect = doc.cells.find((c) => c.options.effect)!;
    await rt.runCell(effect.key);
    await rt.idle();
    expect(rt.state(effect.key).status).to.equal('done');
    expect(rows('good_steps'), 'cells reading curation rerun after the effect').to.deep.equal([{ good: 4 }]);
    rt.dispose();
  });

  it('reruns downstream cells when an upstream cell changes, and ignores superseded runs', async () => {
    const doc = parseNotebook(NB);
    const rt = new NotebookRuntime(pool, 'rt2');
    rt.setCells(doc.cells);
    await rt.runAll();
    const top = byId(doc.cells, 'top');
    const total = byId(doc.cells, 'total');
    const before = rt.state(total.key).runId;
    const edit = (sql: string) => {
      doc.cells = doc.cells.map((c) => (c.options.id === 'by_agent' ? { ...c, source: sql } : c));
      rt.setCells(doc.cells);
      return rt.runCell(byId(doc.cells, 'by_agent').key);
    };
    const first = edit("SELECT agent, count(*)::INTEGER AS n FROM steps WHERE agent = 'critic' GROUP BY agent");
    const second = edit("SELECT agent, count(*)::INTEGER AS n FROM steps WHERE agent = 'solver' GROUP BY agent");
    await Promise.all([first, second]);
    expect(tableToRows(rt.state(top.key).table!)).to.deep.equal([{ agent: 'solver', n: 9 }]);
    expect(tableToRows(rt.state(total.key).table!)).to.deep.equal([{ total: 9 }]);
    expect(rt.state(total.key).runId - before, 'the superseded cascade did not run total').to.equal(1);
    rt.dispose();
  });

  it('two notebooks with the same cell id never see each other', async () => {
    const a = parseNotebook('```sql id=x\nSELECT 1 AS v\n```\n\n```sql id=y\nSELECT v FROM x\n```\n');
    const b = parseNotebook('```sql id=x\nSELECT 2 AS v\n```\n\n```sql id=y\nSELECT v FROM x\n```\n');
    const ra = new NotebookRuntime(pool, 'iso_a');
    const rb = new NotebookRuntime(pool, 'iso_b');
    ra.setCells(a.cells);
    rb.setCells(b.cells);
    await Promise.all([ra.runAll(), rb.runAll()]);
    expect(tableToRows(ra.state(a.cells[1].key).table!)).to.deep.equal([{ v: 1 }]);
    expect(tableToRows(rb.state(b.cells[1].key).table!)).to.deep.equal([{ v: 2 }]);
    ra.dispose();
    rb.dispose();
  });

  it('new data in the pool reruns the cells that read steps / trajectories', async () => {
    const doc = parseNotebook('```sql id=n\nSELECT count(*)::INTEGER AS n FROM steps\n```\n\n```sql id=t\nSELECT count(*)::INTEGER AS t FROM trajectories\n```\n\n```sql id=k\nSELECT 7 AS k\n```\n');
    const rt = new NotebookRuntime(pool, 'rt_change');
    rt.setCells(doc.cells);
    await rt.runAll();
    const [n, t, k] = doc.cells.map((c) => c.key);
    const n0 = tableToRows(rt.state(n).table!)[0].n as number;
    const t0 = tableToRows(rt.state(t).table!)[0].t as number;
    const kRun = rt.state(k).runId;
    await insertDemo(pool, demoSteps('new1', 'solver', 'p9', 1, 3), 'more.jsonl');
    await rt.idle();
    expect(tableToRows(rt.state(n).table!)[0].n).to.equal(n0 + 3);
    expect(tableToRows(rt.state(t).table!)[0].t).to.equal(t0 + 1);
    expect(rt.state(k).runId, 'a cell that reads no pool table does not rerun').to.equal(kRun);
    rt.dispose();
  });
});
