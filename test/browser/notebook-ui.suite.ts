import { expect } from '@esm-bundle/chai';
import { sendKeys } from '@web/test-runner-commands';
import type { ExportQueryOptions } from '../../src/contract/reports';
import { openNotebook, runAll } from '../../src/notebook/api';
import { NotebookStore } from '../../src/notebook/storage';
import type { PoolClient } from '../../src/pool/client';
import type { AwCell } from '../../src/views/notebook/aw-cell';
import type { AwNotebook } from '../../src/views/notebook/aw-notebook';
import '../../src/views/notebook/aw-notebooks';
import type { AwNotebooks } from '../../src/views/notebook/aw-notebooks';
import type { AwSqlEditor } from '../../src/views/notebook/aw-sql-editor';
import { until, withImports } from './helpers';
import { parsePlotSpec } from '../../src/notebook/plot-spec';
import { renderPlot } from '../../src/views/notebook/plot-render';
import { demoPool } from './notebook-demo';
import { type ServicesHost, servicesHost } from './services-host';

const NB = `---
title: UI test
---

# Rewards by agent

\`\`\`sql id=by_agent
SELECT agent, count(*)::INTEGER AS steps, sum(reward) AS reward FROM steps GROUP BY agent ORDER BY agent
\`\`\`

\`\`\`sql id=top
SELECT agent FROM by_agent ORDER BY agent
\`\`\`

\`\`\`sql id=broken
SELECT nope FROM steps
\`\`\`

\`\`\`plot
mark: barY
data: by_agent
x: agent
y: steps
fill: agent
tip: true
\`\`\`
`;

/** The SVG's element structure (tags, classes, aria labels, tick text), repeated siblings collapsed. */
function svgStructure(node: Element, depth = 0): string[] {
  const sig = (el: Element) => {
    const cls = el.getAttribute('class')?.replace(/plot-[a-z0-9]+/g, 'plot-*');
    const aria = el.getAttribute('aria-label');
    const text = el.tagName === 'text' || el.tagName === 'tspan' ? el.textContent?.trim() : '';
    const fill = el.tagName === 'rect' || el.tagName === 'circle' ? el.getAttribute('fill') : null;
    return `${el.tagName}${cls ? `.${cls}` : ''}${aria ? `[aria-label=${aria}]` : ''}${fill ? `[fill=${fill}]` : ''}${text && !el.children.length ? ` "${text}"` : ''}`;
  };
  const out = [`${'  '.repeat(depth)}${sig(node)}`];
  const kids = [...node.children].filter((k) => k.tagName !== 'style');
  for (let i = 0; i < kids.length; ) {
    let j = i + 1;
    const s = svgStructure(kids[i], depth + 1).join('\n');
    while (j < kids.length && svgStructure(kids[j], depth + 1).join('\n') === s && !kids[j].children.length) j++;
    out.push(s + (j - i > 1 ? ` ×${j - i}` : ''));
    i = j;
  }
  return out;
}

describe('notebook UI', () => {
  let pool: PoolClient;
  let host: ServicesHost;
  let store: NotebookStore;
  const exports: { sql: string; opts: ExportQueryOptions }[] = [];

  const panel = () => host.querySelector('aw-notebooks') as AwNotebooks;
  const notebook = () => panel().shadowRoot!.querySelector('aw-notebook') as AwNotebook;
  const cells = () => [...notebook().shadowRoot!.querySelectorAll('aw-cell')] as AwCell[];
  const cellById = (id: string) => cells().find((c) => c.cell.options.id === id)!;
  const rowCount = (c: AwCell) => c.shadowRoot!.querySelector('aw-table')?.shadowRoot?.querySelector('.count')?.textContent ?? '';

  async function mount(): Promise<void> {
    host = servicesHost();
    host.services = withImports({
      pool,
      importer: { importFiles: async () => [], importUrl: async () => { throw new Error('unused'); } },
      exporter: {
        exportQuery: async (sql, opts) => {
          exports.push({ sql, opts });
          return new Blob(['x']);
        },
        exportDataset: async () => new Blob([]),
        datasetSql: () => '',
      },
      notify: () => {},
    });
    const p = document.createElement('aw-notebooks') as AwNotebooks;
    p.store = store;
    p.fromUrl = false;
    p.style.height = '900px';
    host.append(p);
    document.body.append(host);
    await p.updateComplete;
  }

  before(async () => {
    pool = await demoPool();
    store = new NotebookStore(`aw-notebooks-test-${Date.now()}`);
    await mount();
  });
  after(() => {
    host.remove();
  });

  it('opens and runs a notebook through window.workbench-style calls; a failing cell shows its error while others run', async () => {
    openNotebook(NB);
    const report = await runAll();
    expect(report.cells.map((c) => [c.id, c.status, c.rows ?? null])).to.deep.equal([
      ['by_agent', 'done', 2],
      ['top', 'done', 2],
      ['broken', 'error', null],
      ['plot5', 'done', 2],
    ]);
    expect(report.cells[2].error).to.match(/nope/);
    await until(() => cells().length === 5 && rowCount(cellById('top')) === '2 rows', 'cells to render');
    const err = cellById('broken').shadowRoot!.querySelector('.error-box')!;
    expect(err.getAttribute('role')).to.equal('alert');
    expect(err.textContent).to.match(/Binder Error.*nope/s);
    // said once: DuckDB's echo of the failing SQL line goes (the editor marks that line)
    expect(err.textContent).to.not.match(/LINE 1:/);
    expect(err.textContent).to.include('(line 1, marked above)');
    const md = cells()[0].shadowRoot!.querySelector('.md h1');
    expect(md?.textContent).to.equal('Rewards by agent');
  });

  it('renders the chart cell as an SVG with the expected marks (golden structure)', async () => {
    const chart = () => cells()[4].shadowRoot!.querySelector('aw-chart')!;
    await until(() => !!chart()?.shadowRoot?.querySelector('svg'), 'the chart svg');
    const svg = chart().shadowRoot!.querySelector('.figure svg')!;
    expect(svg.querySelectorAll('g[aria-label="bar"] rect').length).to.equal(2);
    const actual = `${svgStructure(svg).join('\n')}\n`;
    const res = await fetch('/test/fixtures/notebooks/chart-bar.structure.txt');
    if (!res.ok) console.log(`GOLDEN chart-bar.structure.txt missing; actual:\n${actual}`);
    expect(res.ok, 'golden file test/fixtures/notebooks/chart-bar.structure.txt exists').to.equal(true);
    expect(actual).to.equal(await res.text());
  });

  it('editing an upstream cell and pressing Ctrl+Enter reruns downstream cells and the chart; the edit autosaves', async () => {
    const editor = cellById('by_agent').shadowRoot!.querySelector('aw-sql-editor') as AwSqlEditor;
    editor.value = "SELECT agent, count(*)::INTEGER AS steps FROM steps WHERE agent = 'solver' GROUP BY agent";
    await editor.updateComplete;
    (editor.shadowRoot!.querySelector('.cm-content') as HTMLElement).focus();
    await sendKeys({ press: 'Control+Enter' });
    await until(() => rowCount(cellById('top')) === '1 row', 'downstream rerun');
    await until(() => cells()[4].shadowRoot!.querySelector('aw-chart')!.shadowRoot!.querySelectorAll('g[aria-label="bar"] rect').length === 1, 'chart redraw');
    // the autosave is debounced: wait for the saved copy to carry the edit (no fixed sleep)
    let saved = (await store.list())[0];
    for (let i = 0; i < 200 && !saved?.markdown.includes("WHERE agent = 'solver'"); i++) {
      await new Promise((r) => setTimeout(r, 50));
      saved = (await store.list())[0];
    }
    expect(saved.title).to.equal('UI test');
    expect(saved.markdown).to.include("WHERE agent = 'solver'");
  });

  it('result actions: export goes through the exporter with the view; open as chart adds a plot cell', async () => {
    const c = cellById('by_agent');
    (c.shadowRoot!.querySelector('[aria-label="Download result as Parquet"]') as HTMLButtonElement).click();
    await until(() => exports.length === 1, 'export call');
    expect(exports[0].opts.format).to.equal('parquet');
    expect(exports[0].sql).to.match(/SELECT \* FROM "nb_[0-9a-f]+"\."by_agent"/);
    const n = cells().length;
    (c.shadowRoot!.querySelector('[aria-label="Open result as chart"]') as HTMLButtonElement).click();
    await until(() => cells().length === n + 1, 'new chart cell');
    const added = cells()[2];
    expect(added.cell.kind).to.equal('plot');
    expect(added.cell.source).to.match(/data: by_agent/);
  });

  it('finds the notebook as it was left after a reload', async () => {
    host.remove();
    await mount();
    await until(() => !!notebook() && cells().length > 0, 'the saved notebook');
    const editor = cellById('by_agent').shadowRoot!.querySelector('aw-sql-editor') as AwSqlEditor;
    expect(editor.value).to.include("WHERE agent = 'solver'");
    await until(() => rowCount(cellById('top')) === '1 row', 'rerun after reload');
  });

  /** The element that has focus, through shadow roots. */
  const deepActive = (): Element | null => {
    let el: Element | null = document.activeElement;
    while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
    return el;
  };

  it('a new cell gets the focus in edit mode (SQL: its editor; Markdown: its source editor)', async () => {
    const add = (label: string) => (notebook().shadowRoot!.querySelector(`[aria-label="${label}"]`) as HTMLButtonElement).click();
    const n = cells().length;
    add('Add SQL cell at the end');
    await until(() => cells().length === n + 1 && !!deepActive()?.classList.contains('cm-content') && cells()[n].shadowRoot!.contains(deepActive()!.getRootNode() instanceof ShadowRoot ? (deepActive()!.getRootNode() as ShadowRoot).host : null), 'the new SQL cell focused');
    await sendKeys({ type: 'SELECT 42 AS answer' });
    await until(() => cells()[n].cell.source === 'SELECT 42 AS answer', 'typed into the new cell');
    add('Add Markdown cell at the end');
    await until(() => cells().length === n + 2 && !!cells()[n + 1].shadowRoot!.querySelector('aw-sql-editor') && !!deepActive()?.classList.contains('cm-content'), 'the new Markdown cell in edit mode');
    await sendKeys({ type: '# Notes' });
    await until(() => cells()[n + 1].cell.source === '# Notes', 'typed into the Markdown cell');
  });

  it('opening an example again shows its saved copy instead of saving another', async () => {
    const open = () => (panel().shadowRoot!.querySelector('[aria-label="Open example: A tour of the pool"]') as HTMLButtonElement).click();
    const title = () => (panel().shadowRoot!.querySelector('input[aria-label="Notebook title"]') as HTMLInputElement | null)?.value;
    const copies = async () => (await store.list()).filter((x) => x.origin === 'notebooks/tour.md').length;
    open();
    await until(() => title() === 'A tour of the pool', 'the example');
    await until(() => panel().shadowRoot!.querySelectorAll('nav li button[aria-current="true"]').length === 1, 'saved');
    expect(await copies()).to.equal(1);
    for (let i = 0; i < 2; i++) {
      (panel().shadowRoot!.querySelector('nav li button[aria-current="false"]') as HTMLButtonElement).click();
      await until(() => title() !== 'A tour of the pool', 'another notebook');
      open();
      await until(() => title() === 'A tour of the pool', 'the example again');
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(await copies()).to.equal(1);
  });

  it('a notebook opened read-only runs only after the user confirms', async () => {
    await panel().openMarkdown(NB, { origin: 'https://example.test/nb.md', readonly: true });
    await until(() => !!notebook()?.shadowRoot?.querySelector('.confirm'), 'confirm bar');
    await new Promise((r) => setTimeout(r, 300));
    expect(rowCount(cellById('top'))).to.equal('');
    expect(cellById('top').shadowRoot!.querySelector('[aria-label^="Run "]')).to.equal(null);
    (notebook().shadowRoot!.querySelector('.confirm button') as HTMLButtonElement).click();
    await until(() => rowCount(cellById('top')) === '2 rows', 'runs after confirm');
    expect(notebook().shadowRoot!.querySelector('.confirm')).to.equal(null);
  });

  it('an effect cell of a read-only notebook does not run on Ctrl+Enter after "Run queries only"', async () => {
    const good = async () => (await pool.rows(`SELECT count(*)::INTEGER AS n FROM curation WHERE quality = 'good'`))[0].n;
    const before = await good();
    await panel().openMarkdown("```sql id=q\nSELECT 1 AS one\n```\n\n```sql effect\nINSERT OR REPLACE INTO curation (step_id, quality) SELECT step_id, 'good' FROM steps\n```\n", {
      origin: 'shared.md',
      readonly: true,
    });
    await until(() => !!notebook()?.shadowRoot?.querySelector('.confirm'), 'confirm bar');
    (notebook().shadowRoot!.querySelector('.confirm button') as HTMLButtonElement).click();
    await until(() => rowCount(cellById('q')) === '1 row', 'the query ran');
    const effect = cells()[1];
    (effect.shadowRoot!.querySelector('aw-sql-editor')!.shadowRoot!.querySelector('.cm-content') as HTMLElement).focus();
    await sendKeys({ press: 'Control+Enter' });
    await new Promise((r) => setTimeout(r, 800));
    expect(await good()).to.equal(before);
    expect(effect.state?.status).to.not.equal('done');
  });

  it("chart settings pick the data among the notebook's views and offer that view's columns; +plot starts from the view above", async () => {
    await panel().openMarkdown(NB);
    await runAll();
    const chart = () => cells()[4].shadowRoot!.querySelector('aw-chart')!;
    await until(() => !!chart()?.shadowRoot?.querySelector('.figure svg'), 'the chart');
    (chart().shadowRoot!.querySelector('[aria-label="Edit chart settings"]') as HTMLButtonElement).click();
    await chart().updateComplete;
    const select = (label: string) => chart().shadowRoot!.querySelector(`select[aria-label="${label}"]`) as HTMLSelectElement;
    const texts = (sel: HTMLSelectElement) => [...sel.options].map((o) => o.textContent!.trim());
    expect(texts(select('Data'))).to.deep.equal(['by_agent', 'top', 'broken']);
    expect(select('Data').value).to.equal('by_agent');
    expect(texts(select('Channel x'))).to.deep.equal(['—', 'agent', 'steps', 'reward']);
    select('Data').value = 'top';
    select('Data').dispatchEvent(new Event('change'));
    await until(() => /data: top/.test(cells()[4].cell.source), 'the spec names top');
    await until(() => texts(select('Channel x')).join() === '—,agent', "top's columns as fields");
    // +plot under "top": a chart of top's columns, drawn at once
    (cellById('top').shadowRoot!.querySelector('[aria-label^="+plot"]') as HTMLButtonElement).click();
    await until(() => cells()[3]?.cell.kind === 'plot', 'the new chart cell');
    expect(cells()[3].cell.source).to.match(/^mark: barY\ndata: top\nx: agent/);
  });

  it("the y axis's labels fit in the chart (Plot's 40 px default clipped category names)", async () => {
    const t = await pool.query("SELECT 'a rather long category name, number ' || i AS category, i * 1000 AS n FROM range(4) t(i)");
    const box = document.createElement('div');
    box.style.width = '600px';
    document.body.append(box);
    const svg = renderPlot(parsePlotSpec('mark: barX\ndata: v\nx: n\ny: category'), t, 600);
    box.append(svg);
    const frame = (svg instanceof SVGSVGElement ? svg : svg.querySelector('svg')!).getBoundingClientRect();
    const labels = [...box.querySelectorAll('g[aria-label="y-axis tick label"] text')];
    expect(labels.length).to.equal(4);
    for (const l of labels) expect(l.getBoundingClientRect().left, l.textContent ?? '').to.be.at.least(frame.left - 0.5);
    box.remove();
  });

  it('a hidden notebook reruns nothing after pool writes, and catches up once when shown (the demo import took 4.6 s, not 2.0, behind it)', async () => {
    await panel().openMarkdown(NB);
    await runAll();
    const runs = () => cellById('by_agent').state?.runId ?? 0;
    const before = runs();
    host.style.display = 'none';
    for (let i = 0; i < 3; i++) await pool.exec('UPDATE steps SET reward = reward WHERE false');
    await new Promise((r) => setTimeout(r, 600));
    expect(runs(), 'no rerun while hidden').to.equal(before);
    host.style.display = '';
    await until(() => runs() > before, 'one catch-up rerun when shown');
    await new Promise((r) => setTimeout(r, 400));
    expect(runs()).to.equal(before + 1);
  });
});

