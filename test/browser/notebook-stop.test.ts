// Issue 17 hole 8: a long query can be stopped (a Stop and a per-cell timeout), and the pool keeps working after.
// An in-memory pool refusing to stop: test/unit/notebook-runtime.test.ts.
import { expect } from '@esm-bundle/chai';
import { parseNotebook } from '../../src/notebook/format';
import { NotebookRuntime } from '../../src/notebook/runtime';
import type { PoolClient } from '../../src/pool/client';
import { tableToRows } from '../../src/pool/rows';
import { startPool } from './helpers';
import { insertDemo } from './notebook-demo';

const LONG = 'SELECT count(*) AS n FROM range(4000000000000) a WHERE a.range % 7 = 3';
const NB = `\`\`\`sql id=forever
${LONG}
\`\`\`

\`\`\`sql id=bounded timeout=1
${LONG}
\`\`\`
`;

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('stopping a running notebook query', () => {
  let pool: PoolClient;
  before(async () => {
    pool = await startPool('nb-stop'); // a saved (OPFS) pool: a stop restarts its engine on the same file
    await insertDemo(pool);
  });
  after(() => pool.terminate());

  it('Stop interrupts a 4e12-row count; the pool answers right after and its data is intact', async () => {
    const before = (await pool.rows('SELECT count(*)::INTEGER AS n FROM steps'))[0].n;
    const doc = parseNotebook(NB);
    const rt = new NotebookRuntime(pool, 'stop1');
    rt.autorun = false;
    rt.setCells(doc.cells);
    const key = doc.cells[0].key;
    const run = rt.runCell(key);
    for (let i = 0; i < 100 && rt.state(key).status !== 'running'; i++) await wait(20);
    await wait(300); // the engine is busy inside the count now
    await rt.stop();
    await run;
    expect(rt.state(key).status).to.equal('error');
    expect(rt.state(key).error).to.match(/^Stopped by you\. The query was interrupted/);
    const t0 = performance.now();
    expect(tableToRows(await pool.query('SELECT 42 AS x'))).to.deep.equal([{ x: 42 }]);
    expect(performance.now() - t0, 'the next query is not stuck behind the count').to.be.lessThan(15_000);
    expect((await pool.rows('SELECT count(*)::INTEGER AS n FROM steps'))[0].n).to.equal(before);
    rt.dispose();
  });

  it('a cell with timeout=1 is stopped by itself and says why', async () => {
    const doc = parseNotebook(NB);
    const rt = new NotebookRuntime(pool, 'stop2');
    rt.autorun = false;
    rt.setCells(doc.cells);
    const key = doc.cells[1].key;
    await rt.runCell(key);
    expect(rt.state(key).status).to.equal('error');
    expect(rt.state(key).error).to.match(/^Stopped after 1 s \(the cell's timeout=1\)\./);
    expect(tableToRows(await pool.query('SELECT 7 AS y'))).to.deep.equal([{ y: 7 }]);
    rt.dispose();
  });
});
