/**
 * Issue 17 hole 4: a notebook's query cells must not be able to write, whatever the tokenizer
 * thinks of their text. Every payload runs as a non-effect cell (with and without a view id) on a
 * real pool; steps and curation must be unchanged afterwards.
 */
import { expect } from '@esm-bundle/chai';
import { parseNotebook } from '../../src/notebook/format';
import { NotebookRuntime } from '../../src/notebook/runtime';
import type { PoolClient } from '../../src/pool/client';
import { tableToRows } from '../../src/pool/rows';
import { startPool } from './helpers';
import { insertDemo } from './notebook-demo';

/** Each of these is a query cell that tries to change the pool. */
export const PAYLOADS: Record<string, string> = {
  dollarQuote: 'SELECT 1e$a$ ) t; DELETE FROM steps; SELECT * FROM (SELECT 1 x$a$',
  dollarQuoteView: 'SELECT 1 e$a$; DELETE FROM steps; SELECT 1 x$a$',
  nestedDollar: "SELECT $o$ $i$ $o$ AS s; DELETE FROM curation; SELECT $i$ ' $i$ AS t",
  commentHidesSemicolon: 'SELECT 1 /* outer /* inner */ still comment; */ AS a; DELETE FROM steps',
  lineComment: 'SELECT 1 AS a -- trailing\n; DELETE FROM curation',
  plainDelete: 'DELETE FROM steps',
  update: "UPDATE curation SET quality = 'bad'",
  insertViaCte: "WITH g AS (SELECT step_id FROM steps) INSERT INTO curation (step_id, quality) SELECT step_id, 'good' FROM g",
  createOrReplace: 'CREATE OR REPLACE TABLE steps AS SELECT * FROM steps LIMIT 0',
  createOrReplaceCuration: 'CREATE OR REPLACE TABLE curation AS SELECT * FROM curation LIMIT 0',
  truncate: 'TRUNCATE curation',
  drop: 'DROP TABLE curation',
  pragma: 'PRAGMA disable_checkpoint_on_shutdown',
  attach: "ATTACH ':memory:' AS other",
  copy: "COPY steps TO 'out.csv'",
  call: 'CALL checkpoint()',
  set: "SET VARIABLE x = 1",
  setConfig: 'SET threads = 1',
  nextvalInSelect: "SELECT nextval('import_seq') AS n",
  semicolonThenWrite: "SELECT ';' AS s; DELETE FROM steps",
};

describe('untrusted notebook: query cells cannot write', function () {
  this.timeout(180_000);
  let pool: PoolClient;
  const fingerprint = async () =>
    (
      await pool.rows(`SELECT (SELECT count(*) FROM steps)::INTEGER AS steps, (SELECT coalesce(sum(hash(step_id)), 0)::VARCHAR FROM steps) AS h,
        (SELECT count(*) FROM curation)::INTEGER AS curation, (SELECT coalesce(sum(hash(step_id || quality)), 0)::VARCHAR FROM curation) AS hc,
        (SELECT count(*) FROM information_schema.tables WHERE table_name IN ('steps', 'curation', 'trajectories'))::INTEGER AS tables`)
    )[0];

  before(async () => {
    pool = await startPool('nb-untrusted', true);
  });
  // A fresh pool state for every payload, so one that got through cannot hide the next.
  beforeEach(async () => {
    await pool.clear();
    await insertDemo(pool);
    await pool.exec(`INSERT INTO curation (step_id, quality) SELECT step_id, 'good' FROM steps WHERE step_index = 0`);
  });
  after(() => pool.terminate());

  for (const [name, sql] of Object.entries(PAYLOADS)) {
    for (const withId of [false, true]) {
      it(`${name}${withId ? ' (as a view)' : ''} leaves steps and curation unchanged`, async () => {
        const before = await fingerprint();
        expect(before.steps).to.be.greaterThan(0);
        expect(before.curation).to.be.greaterThan(0);
        const doc = parseNotebook(`\`\`\`sql${withId ? ' id=x' : ''}\n${sql}\n\`\`\`\n`);
        const rt = new NotebookRuntime(pool, `u_${name}_${withId ? 'v' : 'q'}`);
        rt.setCells(doc.cells);
        await rt.runAll();
        const st = rt.state(doc.cells[0].key);
        rt.dispose();
        expect(await fingerprint(), `${name}: ${st.status} ${st.error}`).to.deep.equal(before);
        expect(st.status, `${name} must be refused`).to.equal('error');
        expect(st.error).to.be.a('string').and.not.equal('');
      });
    }
  }

  it('a query cell with several statements is refused with a clear error', async () => {
    const doc = parseNotebook('```sql\nSELECT 1e$a$ ) t; DELETE FROM steps; SELECT * FROM (SELECT 1 x$a$\n```\n');
    const rt = new NotebookRuntime(pool, 'u_multi');
    rt.setCells(doc.cells);
    await rt.runAll();
    expect(rt.state(doc.cells[0].key).error).to.match(/more than one statement/);
    rt.dispose();
  });

  it('a query cell that tries to write is told to become an effect cell', async () => {
    const doc = parseNotebook("```sql\nSELECT nextval('import_seq') AS n\n```\n");
    const rt = new NotebookRuntime(pool, 'u_write');
    rt.setCells(doc.cells);
    await rt.runAll();
    expect(rt.state(doc.cells[0].key).error).to.match(/read-only/);
    rt.dispose();
  });

  it('read-only queries of every SELECT-like form still work', async () => {
    const before = await fingerprint();
    const doc = parseNotebook(
      [
        "```sql id=a\nSELECT ';DELETE FROM steps;' AS s, $$ $a$ ; $$ AS d -- ; DELETE FROM steps\n```",
        '```sql id=b\nWITH t AS (SELECT agent FROM steps) SELECT count(*)::INTEGER AS n FROM t\n```',
        '```sql id=c\nFROM steps SELECT step_id LIMIT 2\n```',
        '```sql id=d\nSUMMARIZE steps\n```',
        '```sql id=e\nDESCRIBE steps\n```',
        '```sql id=f\nVALUES (1, 2), (3, 4)\n```',
        '```sql\nSELECT n FROM b;\n```',
        '```sql id=g run=false\nSELECT * FROM steps\n```',
      ].join('\n\n'),
    );
    const rt = new NotebookRuntime(pool, 'u_ok');
    rt.setCells(doc.cells);
    await rt.runAll();
    const states = doc.cells.map((c) => rt.state(c.key));
    expect(states.map((s) => s.error)).to.deep.equal(doc.cells.map(() => null));
    expect(tableToRows(states[0].table!)).to.deep.equal([{ s: ';DELETE FROM steps;', d: ' $a$ ; ' }]);
    expect(tableToRows(states[1].table!)).to.deep.equal([{ n: before.steps }]);
    expect(states[2].table!.numRows).to.equal(2);
    expect(states[5].table!.numRows).to.equal(2);
    expect(tableToRows(states[6].table!)).to.deep.equal([{ n: before.steps }]);
    expect(states[7].status).to.equal('idle');
    expect((await pool.rows(`SELECT count(*)::INTEGER AS n FROM "${rt.schema}".g`))[0].n, 'run=false still defines its view').to.equal(before.steps);
    expect(await fingerprint()).to.deep.equal(before);
    rt.dispose();
  });
});
