/**
 * Issue 15: the notebook's schema sidebar (tables, views, this notebook's cell views, columns with
 * types; a click inserts the name into the editor) and the persisted query history (insert, run).
 */
import { expect } from '@esm-bundle/chai';
import { sendKeys } from '@web/test-runner-commands';
import { NotebookStore } from '../../src/notebook/storage';
import type { PoolClient } from '../../src/pool/client';
import type { AwCell } from '../../src/views/notebook/aw-cell';
import type { AwNotebook } from '../../src/views/notebook/aw-notebook';
import type { AwNotebookSidebar } from '../../src/views/notebook/aw-notebook-sidebar';
import '../../src/views/notebook/aw-notebooks';
import type { AwNotebooks } from '../../src/views/notebook/aw-notebooks';
import { demoPool } from './notebook-demo';
import { mountNotebooks, notebookServices } from './notebook-helpers';
import { type ServicesHost, servicesHost } from './services-host';
import { until } from './helpers';

describe('notebook schema sidebar and query history', function () {
  this.timeout(300_000);
  let pool: PoolClient;
  let host: ServicesHost;
  const dbName = `aw-notebooks-sidebar-${Date.now()}`;
  const panel = () => host.querySelector('aw-notebooks') as AwNotebooks;
  const notebook = () => panel().shadowRoot!.querySelector('aw-notebook') as AwNotebook;
  const sidebar = () => panel().shadowRoot!.querySelector('aw-notebook-sidebar') as AwNotebookSidebar;
  const sb = (sel: string) => sidebar().shadowRoot!.querySelector(sel) as HTMLElement | null;
  const cells = () => [...notebook().shadowRoot!.querySelectorAll('aw-cell')] as AwCell[];
  const content = (c: AwCell) => c.shadowRoot!.querySelector('aw-sql-editor')!.shadowRoot!.querySelector('.cm-content') as HTMLElement;

  async function mount(): Promise<void> {
    host = servicesHost();
    host.services = notebookServices(pool);
    const p = mountNotebooks(host, dbName);
    await p.updateComplete;
  }

  before(async () => {
    pool = await demoPool();
    await mount();
    await panel().openMarkdown('---\ntitle: Sidebar test\n---\n\n```sql id=rewards\nSELECT agent, reward FROM steps\n```\n');
    await panel().runAll();
  });
  after(() => {
    host.remove();
  });

  it('reads the schema only once it is shown: a hidden sidebar (the Notebook tab at start) asks the pool nothing', async () => {
    const asked: string[] = [];
    const spy = Object.create(pool) as PoolClient;
    spy.rows = (sql: string) => {
      asked.push(sql);
      return pool.rows(sql);
    };
    const h = servicesHost();
    h.services = notebookServices(spy);
    // in view once shown (a hidden view reads when it comes into view: pool-refresh.ts)
    h.style.cssText = 'display: none; position: fixed; top: 0; left: 0; width: 300px; height: 400px; z-index: 10;';
    const el = document.createElement('aw-notebook-sidebar') as AwNotebookSidebar;
    el.notebookSchema = 'nb_hidden_sidebar';
    h.append(el);
    document.body.append(h);
    try {
      await el.updateComplete;
      await new Promise((r) => setTimeout(r, 300));
      const schemaReads = () => asked.filter((q) => q.includes('information_schema.columns')).length;
      expect(schemaReads(), 'reads while hidden').to.equal(0);
      h.style.display = 'block';
      await until(() => !!el.shadowRoot!.querySelector('[aria-label="Insert table name steps"]'), 'the tables once shown', 2_000);
      expect(schemaReads(), 'reads once shown').to.equal(1);
    } finally {
      h.remove();
    }
  });

  it('lists the pool’s tables and views and this notebook’s cell views, with each column’s type as DESCRIBE gives it', async () => {
    await until(() => !!sb('[aria-label="Insert table name steps"]') && !!sb('[aria-label="Insert table name rewards"]'), 'tables', 1_200);
    const kinds = Object.fromEntries(
      [...sidebar().shadowRoot!.querySelectorAll('.t')].map((t) => [t.querySelector('.name')!.textContent, t.querySelector('.kind')!.textContent]),
    );
    expect(kinds.steps).to.equal('table');
    expect(kinds.trajectories).to.equal('view');
    expect(kinds.rewards).to.equal('cell');
    expect(Object.keys(kinds).some((k) => k.startsWith('_'))).to.equal(false);
    sb('[aria-label="Show columns of steps"]')!.click();
    await until(() => !!sb('[aria-label="Columns of steps"]'), 'columns', 1_200);
    const shown = [...sb('[aria-label="Columns of steps"]')!.querySelectorAll('li')].map((li) => [li.querySelector('.name')!.textContent, li.querySelector('.type')!.textContent]);
    const described = (await pool.rows('DESCRIBE steps')).map((r) => [String(r.column_name), String(r.column_type).toLowerCase()]);
    expect(shown).to.deep.equal(described);
  });

  it('a click on a column name inserts it at the cursor of the editor used last', async () => {
    const cell = cells()[0];
    content(cell).focus();
    await sendKeys({ press: 'Control+End' });
    await sendKeys({ type: ' WHERE' });
    sb('[aria-label="Insert column name reward"]')!.click();
    await until(() => cell.cell.source === 'SELECT agent, reward FROM steps WHERE reward', 'inserted', 1_200);
  });

  it('a run lands in the persisted history; "run" adds it as a new cell and runs it; "all" shows other notebooks’ runs', async () => {
    content(cells()[0]).focus();
    await sendKeys({ type: ' > 0' });
    await sendKeys({ press: 'Control+Enter' });
    await until(() => !!sb('.history li code') && sb('.history li code')!.textContent === 'SELECT agent, reward FROM steps WHERE reward > 0', 'history entry', 1_200);
    const n = Number((await pool.rows('SELECT count(*) AS n FROM steps WHERE reward > 0'))[0].n);
    expect(sb('.history li .meta')!.textContent).to.match(new RegExp(`\\b${n} rows`));
    const stored = await new NotebookStore(dbName).history();
    expect(stored.map((e) => [e.sql, e.rows, e.cellId, e.notebookTitle])).to.deep.equal([['SELECT agent, reward FROM steps WHERE reward > 0', n, 'rewards', 'Sidebar test']]);
    // run it again from the history: a new cell with that SQL runs
    (sb('[aria-label="Run this query in a new cell"]') as HTMLButtonElement).click();
    await until(() => cells().length === 2 && cells()[1].state?.status === 'done', 'a new cell ran', 1_200);
    expect(cells()[1].cell.source).to.equal('SELECT agent, reward FROM steps WHERE reward > 0');
    await until(() => sidebar().shadowRoot!.querySelectorAll('.history li').length === 2, 'two entries', 1_200);
    // another notebook: its own history is empty, "all" shows both runs
    await panel().openMarkdown('```sql\nSELECT 1\n```\n');
    await until(() => sidebar().shadowRoot!.querySelectorAll('.history li').length === 0, 'empty history for the new notebook', 1_200);
    (sidebar().shadowRoot!.querySelector('.seg button:last-child') as HTMLButtonElement).click();
    await until(() => sidebar().shadowRoot!.querySelectorAll('.history li').length === 2, 'all history', 1_200);
  });
});
