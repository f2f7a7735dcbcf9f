/**
 * Issue 15: cell shortcuts (add above / below, move, delete and undo, run-and-insert) from the
 * keyboard, a new cell focused in edit mode, and stale cells marked until they re-run.
 */
import { expect } from '@esm-bundle/chai';
import { sendKeys } from '@web/test-runner-commands';
import type { PoolClient } from '../../src/pool/client';
import type { AwCell } from '../../src/views/notebook/aw-cell';
import type { AwNotebook } from '../../src/views/notebook/aw-notebook';
import '../../src/views/notebook/aw-notebooks';
import type { AwNotebooks } from '../../src/views/notebook/aw-notebooks';
import type { AwSqlEditor } from '../../src/views/notebook/aw-sql-editor';
import { demoPool } from './notebook-demo';
import { mountNotebooks, notebookServices } from './notebook-helpers';
import { type ServicesHost, servicesHost } from './services-host';
import { until } from './helpers';

const deepActive = (): Element | null => {
  let el: Element | null = document.activeElement;
  while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
  return el;
};

describe('notebook cells from the keyboard', function () {
  this.timeout(120_000);
  let pool: PoolClient;
  let host: ServicesHost;
  const panel = () => host.querySelector('aw-notebooks') as AwNotebooks;
  const notebook = () => panel().shadowRoot!.querySelector('aw-notebook') as AwNotebook;
  const cells = () => [...notebook().shadowRoot!.querySelectorAll('aw-cell')] as AwCell[];
  const sources = () => cells().map((c) => c.cell.source);
  const cellById = (id: string) => cells().find((c) => c.cell.options.id === id)!;
  const content = (c: AwCell) => c.shadowRoot!.querySelector('aw-sql-editor')!.shadowRoot!.querySelector('.cm-content') as HTMLElement;
  /** Index of the cell whose editor has the focus, or -1. */
  const focusedCell = () => {
    const a = deepActive();
    const root = a?.getRootNode();
    const editorHost = root instanceof ShadowRoot ? root.host : null;
    return cells().findIndex((c) => !!editorHost && c.shadowRoot!.contains(editorHost));
  };
  const stale = (c: AwCell) => c.shadowRoot!.querySelector('.stale-tag')?.getAttribute('title') ?? null;

  before(async () => {
    pool = await demoPool();
    host = servicesHost();
    host.services = notebookServices(pool);
    const p = mountNotebooks(host, `aw-notebooks-cells-${Date.now()}`);
    await p.openMarkdown('```sql id=a\nSELECT 1 AS x\n```\n\n```sql id=b\nSELECT x + 1 AS y FROM a\n```\n');
    await panel().runAll();
    await until(() => cells().length === 2 && cells()[1].state?.status === 'done', 'cells');
  });
  after(() => {
    host.remove();
  });

  it('Alt+Shift+B adds a SQL cell below in edit mode; Alt+Shift+↑ moves it; Alt+Shift+Backspace deletes it; Alt+Shift+Z brings it back', async () => {
    content(cellById('a')).focus();
    await sendKeys({ press: 'Alt+Shift+KeyB' });
    await until(() => cells().length === 3 && focusedCell() === 1, 'a new focused cell below a');
    await sendKeys({ type: 'SELECT 3 AS z' });
    await until(() => sources()[1] === 'SELECT 3 AS z', 'typed');
    await sendKeys({ press: 'Alt+Shift+ArrowUp' });
    await until(() => sources()[0] === 'SELECT 3 AS z' && focusedCell() === 0, 'moved up');
    await sendKeys({ press: 'Alt+Shift+ArrowDown' });
    await sendKeys({ press: 'Alt+Shift+ArrowDown' });
    await until(() => sources()[2] === 'SELECT 3 AS z' && focusedCell() === 2, 'moved to the end');
    await sendKeys({ press: 'Alt+Shift+Backspace' });
    await until(() => cells().length === 2 && !sources().includes('SELECT 3 AS z'), 'deleted');
    expect(focusedCell()).to.equal(1);
    await sendKeys({ press: 'Alt+Shift+KeyZ' });
    await until(() => sources()[2] === 'SELECT 3 AS z', 'back');
    content(cells()[2]).focus();
    await sendKeys({ press: 'Alt+Shift+Backspace' });
    await until(() => cells().length === 2, 'deleted again');
  });

  it('Alt+Shift+A adds above; Alt+Enter runs the cell and opens a new one below', async () => {
    content(cellById('b')).focus();
    await sendKeys({ press: 'Alt+Shift+KeyA' });
    await until(() => cells().length === 3 && focusedCell() === 1 && cells()[2].cell.options.id === 'b', 'a new cell above b');
    await sendKeys({ type: 'SELECT 41 + 1 AS answer' });
    await sendKeys({ press: 'Alt+Enter' });
    await until(() => cells().length === 4 && focusedCell() === 2 && cells()[1].state?.status === 'done', 'ran and inserted');
    expect(cells()[1].state?.table?.numRows).to.equal(1);
    // an empty new cell: delete it and the one we ran
    await sendKeys({ press: 'Alt+Shift+Backspace' });
    content(cells()[1]).focus();
    await sendKeys({ press: 'Alt+Shift+Backspace' });
    await until(() => cells().length === 2, 'two cells');
  });

  it('marks a cell stale when it or its upstream was edited and has not re-run, or its upstream failed', async () => {
    expect(stale(cellById('a'))).to.equal(null);
    expect(stale(cellById('b'))).to.equal(null);
    const ed = cellById('a').shadowRoot!.querySelector('aw-sql-editor') as AwSqlEditor;
    content(cellById('a')).focus();
    await sendKeys({ press: 'End' });
    await sendKeys({ type: ' + 1' });
    await until(() => cellById('a').cell.source === 'SELECT 1 AS x + 1' || ed.value.endsWith(' + 1'), 'edited');
    await until(() => !!stale(cellById('a')) && !!stale(cellById('b')), 'both stale');
    expect(stale(cellById('a'))).to.match(/edited since its last run/);
    expect(stale(cellById('b'))).to.match(/a was edited and has not re-run/);
    expect(cellById('b').shadowRoot!.querySelector('.cell')!.classList.contains('stale')).to.equal(true);
    // the edit is a syntax error ("1 AS x + 1"): running it fails, and b is stale because a failed
    await sendKeys({ press: 'Control+Enter' });
    await until(() => cellById('a').state?.status === 'error', 'a failed');
    await until(() => /a failed/.test(stale(cellById('b')) ?? ''), 'b waits on a');
    expect(stale(cellById('a'))).to.equal(null);
    // fix and run: nothing is stale
    ed.value = 'SELECT 5 AS x';
    await ed.updateComplete;
    await until(() => !!stale(cellById('a')), 'a stale after the fix');
    content(cellById('a')).focus();
    await sendKeys({ press: 'Control+Enter' });
    await until(() => cellById('b').state?.status === 'done' && !stale(cellById('a')) && !stale(cellById('b')), 'fresh again');
  });
});
