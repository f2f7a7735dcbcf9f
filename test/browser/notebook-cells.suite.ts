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

export const until = async (what: string, fn: () => boolean, ms = 10_000) => {
  const t0 = Date.now();
  while (!fn()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 30));
  }
};

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
    await until('cells', () => cells().length === 2 && cells()[1].state?.status === 'done');
  });
  after(() => {
    host.remove();
  });

  it('Alt+Shift+B adds a SQL cell below in edit mode; Alt+Shift+↑ moves it; Alt+Shift+Backspace deletes it; Alt+Shift+Z brings it back', async () => {
    content(cellById('a')).focus();
    await sendKeys({ press: 'Alt+Shift+KeyB' });
    await until('a new focused cell below a', () => cells().length === 3 && focusedCell() === 1);
    await sendKeys({ type: 'SELECT 3 AS z' });
    await until('typed', () => sources()[1] === 'SELECT 3 AS z');
    await sendKeys({ press: 'Alt+Shift+ArrowUp' });
    await until('moved up', () => sources()[0] === 'SELECT 3 AS z' && focusedCell() === 0);
    await sendKeys({ press: 'Alt+Shift+ArrowDown' });
    await sendKeys({ press: 'Alt+Shift+ArrowDown' });
    await until('moved to the end', () => sources()[2] === 'SELECT 3 AS z' && focusedCell() === 2);
    await sendKeys({ press: 'Alt+Shift+Backspace' });
    await until('deleted', () => cells().length === 2 && !sources().includes('SELECT 3 AS z'));
    expect(focusedCell()).to.equal(1);
    await sendKeys({ press: 'Alt+Shift+KeyZ' });
    await until('back', () => sources()[2] === 'SELECT 3 AS z');
    content(cells()[2]).focus();
    await sendKeys({ press: 'Alt+Shift+Backspace' });
    await until('deleted again', () => cells().length === 2);
  });

  it('Alt+Shift+A adds above; Alt+Enter runs the cell and opens a new one below', async () => {
    content(cellById('b')).focus();
    await sendKeys({ press: 'Alt+Shift+KeyA' });
    await until('a new cell above b', () => cells().length === 3 && focusedCell() === 1 && cells()[2].cell.options.id === 'b');
    await sendKeys({ type: 'SELECT 41 + 1 AS answer' });
    await sendKeys({ press: 'Alt+Enter' });
    await until('ran and inserted', () => cells().length === 4 && focusedCell() === 2 && cells()[1].state?.status === 'done');
    expect(cells()[1].state?.table?.numRows).to.equal(1);
    // an empty new cell: delete it and the one we ran
    await sendKeys({ press: 'Alt+Shift+Backspace' });
    content(cells()[1]).focus();
    await sendKeys({ press: 'Alt+Shift+Backspace' });
    await until('two cells', () => cells().length === 2);
  });

  it('marks a cell stale when it or its upstream was edited and has not re-run, or its upstream failed', async () => {
    expect(stale(cellById('a'))).to.equal(null);
    expect(stale(cellById('b'))).to.equal(null);
    const ed = cellById('a').shadowRoot!.querySelector('aw-sql-editor') as AwSqlEditor;
    content(cellById('a')).focus();
    await sendKeys({ press: 'End' });
    await sendKeys({ type: ' + 1' });
    await until('edited', () => cellById('a').cell.source === 'SELECT 1 AS x + 1' || ed.value.endsWith(' + 1'));
    await until('both stale', () => !!stale(cellById('a')) && !!stale(cellById('b')));
    expect(stale(cellById('a'))).to.match(/edited since its last run/);
    expect(stale(cellById('b'))).to.match(/a was edited and has not re-run/);
    expect(cellById('b').shadowRoot!.querySelector('.cell')!.classList.contains('stale')).to.equal(true);
    // the edit is a syntax error ("1 AS x + 1"): running it fails, and b is stale because a failed
    await sendKeys({ press: 'Control+Enter' });
    await until('a failed', () => cellById('a').state?.status === 'error');
    await until('b waits on a', () => /a failed/.test(stale(cellById('b')) ?? ''));
    expect(stale(cellById('a'))).to.equal(null);
    // fix and run: nothing is stale
    ed.value = 'SELECT 5 AS x';
    await ed.updateComplete;
    await until('a stale after the fix', () => !!stale(cellById('a')));
    content(cellById('a')).focus();
    await sendKeys({ press: 'Control+Enter' });
    await until('fresh again', () => cellById('b').state?.status === 'done' && !stale(cellById('a')) && !stale(cellById('b')));
  });
});
