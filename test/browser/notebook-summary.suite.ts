/**
 * Issue 15: result grids with per-column summaries (type, nulls, distinct, a mini histogram or the
 * top values), computed by SQL in the pool worker over the cell's view, checked against the same
 * numbers computed here from the cell's own rows.
 */
import { expect } from '@esm-bundle/chai';
import { parseNotebook } from '../../src/notebook/format';
import { NotebookRuntime } from '../../src/notebook/runtime';
import type { PoolClient } from '../../src/pool/client';
import { tableToRows } from '../../src/pool/rows';
import '../../src/views/aw-table';
import { demoPool } from './notebook-demo';

describe('column summaries of a cell result', function () {
  this.timeout(120_000);
  let pool: PoolClient;
  before(async () => {
    pool = await demoPool();
  });

  async function run(md: string) {
    const doc = parseNotebook(md);
    const rt = new NotebookRuntime(pool, `sum_${Math.random().toString(36).slice(2, 8)}`);
    rt.setCells(doc.cells);
    await rt.runAll();
    return { rt, key: doc.cells[0].key };
  }

  it('nulls, distinct, bins and top values match the rows; a cell without an id is summarized too', async () => {
    for (const fence of ['sql id=s', 'sql']) {
      const { rt, key } = await run(`\`\`\`${fence}\nSELECT step_id, agent, reward, prompt_tokens, started_at, metadata FROM steps\n\`\`\`\n`);
      const rows = tableToRows(rt.state(key).table!);
      const sum = await rt.summary(key)!;
      const by = Object.fromEntries(sum.map((c) => [c.name, c]));
      expect(sum.map((c) => c.name)).to.deep.equal(['step_id', 'agent', 'reward', 'prompt_tokens', 'started_at', 'metadata']);
      expect(by.reward.kind).to.equal('number');
      expect(by.started_at.kind).to.equal('time');
      expect(by.agent.kind).to.equal('text');
      expect(by.metadata.kind).to.equal('other');
      const nulls = rows.filter((r) => r.reward === null).length;
      expect(by.reward.nullPct).to.be.closeTo((100 * nulls) / rows.length, 0.01);
      expect(by.reward.count).to.equal(rows.length);
      // bins: every non-null value once, over [min, max]
      const rewards = rows.map((r) => r.reward).filter((v): v is number => v !== null) as number[];
      expect(by.reward.bins!.counts.reduce((a, b) => a + b, 0)).to.equal(rewards.length);
      expect(by.reward.bins!.lo).to.equal(Math.min(...rewards));
      expect(by.reward.bins!.hi).to.equal(Math.max(...rewards));
      expect(by.reward.bins!.counts[0]).to.equal(rewards.filter((v) => v === Math.min(...rewards)).length);
      expect(by.reward.bins!.counts.at(-1)).to.equal(rewards.filter((v) => v === Math.max(...rewards)).length);
      expect(by.started_at.bins!.counts.reduce((a, b) => a + b, 0)).to.equal(rows.length);
      // top values: the most frequent agents, with their counts
      const freq = new Map<string, number>();
      for (const r of rows) freq.set(String(r.agent), (freq.get(String(r.agent)) ?? 0) + 1);
      const want = [...freq].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 3).map(([value, n]) => ({ value, n }));
      expect(by.agent.top).to.deep.equal(want);
      // exact below EXACT_DISTINCT_ROWS: SUMMARIZE's estimate said more distinct values than rows
      for (const c of ['step_id', 'agent', 'reward', 'prompt_tokens', 'started_at']) {
        const want = new Set(rows.map((r) => (r[c] instanceof Date ? (r[c] as Date).getTime() : r[c])).filter((v) => v !== null)).size;
        expect(by[c].distinct, c).to.equal(want);
        expect(by[c].distinctExact, c).to.equal(true);
      }
      // one computation per run
      expect(rt.summary(key)).to.equal(rt.summary(key));
      rt.dispose();
    }
  });

  it('no summary for effect cells (they never re-run by themselves) or failed cells', async () => {
    const { rt, key } = await run('```sql id=bad\nSELECT nope FROM steps\n```\n');
    expect(rt.summary(key)).to.equal(null);
    rt.dispose();
    const e = await run("```sql effect\nSELECT 1 AS one\n```\n");
    await e.rt.runCell(e.key);
    expect(e.rt.state(e.key).status).to.equal('done');
    expect(e.rt.summary(e.key)).to.equal(null);
    e.rt.dispose();
  });

  it('the result grid shows each column’s summary under its name: a histogram for numbers, top values for text', async () => {
    const { rt, key } = await run('```sql id=g\nSELECT agent, reward FROM steps\n```\n');
    const table = document.createElement('aw-table');
    table.table = rt.state(key).table;
    table.summaries = await rt.summary(key)!;
    document.body.append(table);
    await table.updateComplete;
    const heads = [...table.shadowRoot!.querySelectorAll('[role=columnheader]')];
    const reward = heads.find((h) => h.textContent!.startsWith('reward'))!;
    const agent = heads.find((h) => h.textContent!.startsWith('agent'))!;
    const bars = [...reward.querySelectorAll('svg rect')];
    expect(bars.length).to.equal(12);
    // real SVG rects (an html`` template would make unknown HTML elements that draw nothing)
    expect(bars.every((b) => b instanceof SVGRectElement)).to.equal(true);
    expect(Math.max(...bars.map((b) => b.getBoundingClientRect().height))).to.be.greaterThan(10);
    expect(reward.querySelector('.sum')!.getAttribute('aria-label')).to.match(/null/);
    expect([...agent.querySelectorAll('.top')].map((t) => t.textContent!.trim())).to.deep.equal(['solver', 'critic']);
    // an exact count reads as one; an estimate (a result past EXACT_DISTINCT_ROWS) says ≈
    expect(agent.querySelector('.stats')!.textContent).to.match(/^2 distinct$/);
    table.summaries = table.summaries!.map((c) => ({ ...c, distinctExact: false }));
    await table.updateComplete;
    expect(agent.querySelector('.stats')!.textContent).to.match(/^≈2 distinct$/);
    // rows start below the taller header
    const firstRow = table.shadowRoot!.querySelector('.row') as HTMLElement;
    expect(firstRow.getBoundingClientRect().top).to.be.at.least(reward.getBoundingClientRect().bottom - 1);
    table.remove();
    rt.dispose();
  });
});
