// Issue 17 hole 4 and issue 15 item 1: a notebook someone else wrote (a URL, a file) opens read-only, shows every
// cell's source, runs nothing before the user confirms, and its query cells cannot change the pool whatever their text
// hides (was notebook-untrusted.test.mjs). Issue 4 "Done means" on the built app: open an example, edit a SQL cell,
// dependents update, reload, find it as left. The headline path (issue 36): curate in a notebook → Export → pick the
// cell's view → the downloaded file holds its rows. Issue 15: a notebook flow with the keyboard only — new notebook, new
// cell, type SQL, run, move, delete, rename — and the schema sidebar / history reachable by Tab (was
// notebook-keyboard.test.mjs). One app boot and one demo load for them all.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { startApp, uniquePool } from './harness.mjs';
import { scratchDir } from '../scratch.mjs';

const PAYLOAD = [
  '---', 'title: Shared analysis', '---', '', '# Step totals', '',
  // The tokenizer read both as one SELECT (a $a$…$a$ string); DuckDB sees three statements.
  '```sql hidden', 'SELECT 1e$a$ ) t; DELETE FROM steps; SELECT * FROM (SELECT 1 x$a$', '```', '',
  '```sql id=totals hidden', 'SELECT 1 e$a$; DELETE FROM steps; SELECT 1 x$a$', '```', '',
  '```sql id=n_steps', 'SELECT count(*)::INTEGER AS n FROM steps', '```', '',
  '```sql effect hidden', "INSERT OR REPLACE INTO curation (step_id, quality) SELECT step_id, 'good' FROM steps WHERE status = 'error'", '```', '',
].join('\n');

let app;
const SHARED = 'dist/e2e-shared';
before(async () => {
  mkdirSync(SHARED, { recursive: true });
  writeFileSync(`${SHARED}/untrusted.md`, PAYLOAD);
  app = await startApp();
});
after(async () => {
  await page?.close();
  await app?.close();
  rmSync(SHARED, { recursive: true, force: true });
});

const counts = (page) =>
  page.evaluate(async () => (await window.workbench.query(`SELECT (SELECT count(*) FROM steps)::INTEGER AS steps, (SELECT count(*) FROM curation WHERE quality = 'good')::INTEGER AS good`))[0]);

/** The confirmation bar, with the source of the effect cells it offers to run. */
async function checkConfirmation(page) {
  const bar = page.locator('aw-notebook .confirm');
  await bar.waitFor({ timeout: 20000 });
  assert.match(await bar.textContent(), /read-only/);
  // exactly the effect cell's source, in the bar
  assert.match(await bar.locator('pre').textContent(), /INSERT OR REPLACE INTO curation \(step_id, quality\) SELECT step_id, 'good'/);
  assert.equal(await bar.locator('pre').count(), 1);
  // "hidden" does not hide the source of a notebook that is not trusted
  assert.equal(await page.getByText('source hidden').count(), 0);
  await page.getByText('DELETE FROM steps; SELECT * FROM (SELECT 1 x$a$').first().waitFor({ timeout: 5000 });
}

/** The focused element through shadow roots: tag, class and aria-label. */
const active = (page) =>
  page.evaluate(() => {
    let el = document.activeElement;
    while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
    return { tag: el?.tagName.toLowerCase(), cls: el?.className ?? '', label: el?.getAttribute('aria-label') ?? '', text: el?.textContent?.slice(0, 80) ?? '' };
  });

const sources = (page) =>
  page.evaluate(() => {
    const nb = document.querySelector('aw-app').shadowRoot.querySelector('aw-notebooks').shadowRoot.querySelector('aw-notebook');
    return [...nb.shadowRoot.querySelectorAll('aw-cell')].map((c) => c.cell.source);
  });

/**
 * One page and pool for every test (an app boot and a demo load are their costly steps), each starting where the one
 * before left off: opened with ?notebook=<url> (the first test's journey), the demo data loaded. The notebook-from-
 * someone-else tests leave the pool as they found it (they assert so) but the last; the Open .md tests open the file
 * anew, read-only. The demo's one-click load is foundation's.
 */
let page;
async function demo() {
  if (!page) {
    page = await app.open(uniquePool('nb'), '&notebook=e2e-shared/untrusted.md');
    await page.evaluate(() => window.workbench.loadDemoData());
  }
  return page;
}

describe('a notebook from someone else', () => {
  it('?notebook=<url> opens it read-only in the Notebook tab; runs after confirming; runAll returns; examples open afterwards', async () => {
    const page = await demo();
    const start = await counts(page);
    assert.ok(start.steps > 0);
    assert.equal(await page.getByRole('tab', { name: 'Notebook' }).getAttribute('aria-selected'), 'true');
    await checkConfirmation(page);
    assert.deepEqual(await counts(page), start, 'nothing ran before confirming');
    await page.getByRole('button', { name: 'Run queries only' }).click();
    const report = await Promise.race([
      page.evaluate(() => window.workbench.runAll()),
      new Promise((_, fail) => setTimeout(() => fail(new Error('workbench.runAll() did not return')), 30000)),
    ]);
    assert.equal(report.cells.find((c) => c.id === 'n_steps')?.status, 'done');
    assert.deepEqual(await counts(page), start, 'the queries could not change the pool');
    await page.getByRole('button', { name: 'Open example: A tour of the pool' }).click();
    await page.waitForFunction(() => {
      const nbs = document.querySelector('aw-app')?.shadowRoot?.querySelector('aw-notebooks');
      return nbs?.shadowRoot?.querySelector('input[aria-label="Notebook title"]')?.value === 'A tour of the pool';
    }, null, { timeout: 15000 });
    const tour = await page.evaluate(() => window.workbench.runAll());
    assert.ok(tour.cells.length > 0 && tour.cells.every((c) => c.status !== 'error'), JSON.stringify(tour));
  });

  it('Open .md: opens read-only, nothing runs before confirming, "Run queries only" leaves the pool as it was', async () => {
    const page = await demo();
    const start = await counts(page);
    assert.ok(start.steps > 0);
    await page.getByRole('tab', { name: 'Notebook' }).click();
    await page.locator('input[aria-label="Notebook file"]').setInputFiles({ name: 'shared.md', mimeType: 'text/markdown', buffer: Buffer.from(PAYLOAD) });
    await page.waitForTimeout(1500);
    assert.deepEqual(await counts(page), start, 'nothing ran on open');
    await checkConfirmation(page);
    await page.getByRole('button', { name: 'Run queries only' }).click();
    const report = await page.evaluate(() => window.workbench.runAll());
    assert.deepEqual(await counts(page), start, 'the queries could not change the pool');
    const byId = Object.fromEntries(report.cells.map((c) => [c.id, c]));
    assert.equal(byId.n_steps.status, 'done');
    // refused by the engine (several statements) or already by the tokenizer's hint (a DELETE)
    assert.match(byId.totals.error, /more than one statement|changes data/);
    assert.match(report.cells.find((c) => /^sql\d/.test(c.id))?.error ?? '', /more than one statement/);
    assert.equal(await page.locator('aw-notebook .confirm').count(), 0);
  });

  it('the confirmation can run the effect cells it shows, and only those', async () => {
    const page = await demo();
    const start = await counts(page);
    const errors = (await page.evaluate(() => window.workbench.query(`SELECT count(*)::INTEGER AS n FROM steps WHERE status = 'error'`)))[0].n;
    await page.getByRole('tab', { name: 'Notebook' }).click();
    await page.locator('input[aria-label="Notebook file"]').setInputFiles({ name: 'shared.md', mimeType: 'text/markdown', buffer: Buffer.from(PAYLOAD) });
    await checkConfirmation(page);
    await page.getByRole('button', { name: 'Run queries and 1 effect cell' }).click();
    await page.evaluate(() => window.workbench.runAll());
    const end = await counts(page);
    assert.equal(end.steps, start.steps, 'steps unchanged');
    assert.ok(errors > 0);
    assert.ok(end.good >= errors && end.good > start.good, `the effect cell ran: ${JSON.stringify({ start, end, errors })}`);
  });
});

describe('notebook in the app', () => {
  it('edit an upstream cell → the downstream table and chart update; autosaved across a reload', async () => {
    await demo();
    // the reload below opens the pool as the user left it, not the shared notebook the address names (?notebook=)
    await page.evaluate(() => history.replaceState(null, '', location.pathname + location.search.replace(/&notebook=[^&]*/, '') + location.hash));
    await page.getByRole('tab', { name: 'Notebook' }).click();
    const md = [
      '---', 'title: Edited notebook', '---', '', '# Rewards', '',
      '```sql id=base', "SELECT * FROM steps WHERE data_source = 'gsm8k-mini'", '```', '',
      '```sql id=per_agent', 'SELECT coalesce(agent, \'none\') AS agent, count(*) AS n FROM base GROUP BY ALL ORDER BY agent', '```', '',
      '```plot', 'mark: barY', 'data: per_agent', 'x: agent', 'y: n', '```', '',
    ].join('\n');
    await page.evaluate((m) => window.workbench.openNotebook(m), md);
    const first = await page.evaluate(() => window.workbench.runAll());
    const rows = (id, r) => r.cells.find((c) => c.id === id)?.rows;
    assert.equal(first.cells.find((c) => c.id === 'per_agent')?.status, 'done', JSON.stringify(first));
    const before = rows('per_agent', first);
    const bars = async () => page.locator('aw-chart svg rect').count();
    await page.locator('aw-chart svg').first().waitFor();
    const barsBefore = await bars();

    // edit the upstream cell through its editor and run it with Ctrl+Enter
    // the first SQL editor is the `base` cell's
    await page.locator('.cm-content').first().click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type("SELECT * FROM steps WHERE data_source = 'gsm8k-mini' AND agent = 'react-calculator'");
    const t0 = Date.now();
    await page.keyboard.press('Control+Enter');
    await page.waitForFunction(
      (n) => {
        const find = (root) => {
          for (const el of root.querySelectorAll('*')) {
            if (el.tagName === 'AW-CHART' && el.shadowRoot) return el.shadowRoot.querySelectorAll('svg rect').length;
            if (el.shadowRoot) {
              const r = find(el.shadowRoot);
              if (r !== null) return r;
            }
          }
          return null;
        };
        const got = find(document);
        return got !== null && got !== n;
      },
      barsBefore,
      { timeout: 10000 },
    );
    const updateMs = Date.now() - t0;
    // reactive: the chart changed by itself within the wait above (no run); the time is reported, not asserted
    console.log(`# dependents updated in ${updateMs} ms`);
    const after = await page.evaluate(() => window.workbench.runAll());
    assert.notEqual(rows('per_agent', after), before, 'the downstream cell reran on the edited view');
    assert.equal(rows('per_agent', after), 1);

    // autosave: wait until IndexedDB holds the edit (not a fixed sleep)
    const saved = () =>
      page.evaluate(
        () =>
          new Promise((ok, fail) => {
            const r = indexedDB.open('aw-notebooks');
            r.onerror = () => fail(r.error);
            r.onsuccess = () => {
              if (!r.result.objectStoreNames.contains('notebooks')) return ok(false);
              const get = r.result.transaction('notebooks').objectStore('notebooks').getAll();
              get.onsuccess = () => ok(get.result.some((nb) => nb.markdown.includes("agent = 'react-calculator'")));
              get.onerror = () => fail(get.error);
            };
          }),
      );
    for (const t1 = Date.now(); !(await saved()); await new Promise((r) => setTimeout(r, 100))) assert.ok(Date.now() - t1 < 10000, 'the edit was not autosaved within 10 s');
    await page.reload();
    await page.evaluate(() => window.workbench.ready);
    await page.getByRole('tab', { name: 'Notebook' }).click();
    await page.getByRole('button', { name: 'Edited notebook' }).first().click();
    await page.getByText("agent = 'react-calculator'").first().waitFor({ timeout: 10000 });
  });

  it("curate in a new notebook, then Export → pick the cell's view → the downloaded file holds the view's rows", async () => {
    await page.getByRole('tab', { name: 'Notebook' }).click();
    await page.getByRole('button', { name: 'New notebook' }).click();
    // the new notebook opens after it is stored: edit its cell, not one of the notebook still shown (a race seen under load)
    await page.waitForFunction(() => document.querySelector('aw-app')?.shadowRoot?.querySelector('aw-notebooks')?.shadowRoot?.querySelector('header input')?.value === 'Untitled notebook');
    // the new notebook's query cell becomes the curated view: tau-bench steps that called a tool
    const cell = page.locator('aw-notebook aw-cell').filter({ has: page.getByLabel('View id') }).first();
    await cell.getByLabel('View id').fill('tool_steps');
    await cell.getByLabel('View id').press('Enter');
    await cell.locator('.cm-content').click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type("SELECT step_id, reward FROM steps WHERE data_source = 'tau-bench' AND finish_reason = 'tool_calls'");
    await page.keyboard.press('Control+Enter');
    await cell.getByText(/\d+ rows?/).first().waitFor({ timeout: 30000 });
    const want = await page.evaluate(() => window.workbench.query("SELECT step_id FROM steps WHERE data_source = 'tau-bench' AND finish_reason = 'tool_calls' ORDER BY step_id"));
    assert.ok(want.length > 0, 'the demo has tau-bench tool-call steps');

    await page.getByRole('button', { name: 'Export…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Export dataset' });
    await dialog.getByRole('radio', { name: 'steps', exact: true }).check();
    await dialog.getByRole('checkbox', { name: /trainable only/ }).uncheck();
    await dialog.getByLabel('Notebook view').selectOption('tool_steps');
    await dialog.locator('strong.total').filter({ hasText: String(want.length) }).waitFor({ timeout: 30000 });
    assert.equal(await dialog.getByRole('alert').count(), 0, 'no error beside the count');
    const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Download steps.parquet' }).click()]);
    const file = join(scratchDir('aw-nb-export-'), 'steps.parquet');
    await download.saveAs(file);
    const conn = await (await DuckDBInstance.create(':memory:')).connect();
    const got = (await conn.runAndReadAll(`SELECT step_id FROM read_parquet('${file}') ORDER BY step_id`)).getRows().map((r) => ({ step_id: r[0] }));
    assert.deepEqual(got, want);
  });

  it('with the keyboard only: new notebook → new cell → type → run → move → delete → rename', async () => {
    await page.getByRole('tab', { name: 'Data' }).focus();
    // the tab bar: arrows move between tabs, selection follows focus
    for (let i = 0; i < 6 && !(await page.getByRole('tab', { name: 'Notebook', selected: true }).count()); i++) await page.keyboard.press('ArrowRight');
    await page.getByRole('button', { name: 'New notebook' }).waitFor();
    // Tab from the selected tab into the panel until "New" has the focus
    for (let i = 0; i < 40 && (await active(page)).label !== 'New notebook'; i++) await page.keyboard.press('Tab');
    assert.equal((await active(page)).label, 'New notebook');
    await page.keyboard.press('Enter');
    await page.getByRole('textbox', { name: 'Notebook title' }).waitFor();
    await page.waitForFunction(() => true);
    // a new notebook: its title heading and one SQL cell
    let cells = await sources(page);
    assert.equal(cells.length, 2);
    // Tab to the first cell's editor
    // past the toolbar and the schema sidebar (one button per table, view and column group of the pool)
    for (let i = 0; i < 250 && !(await active(page)).cls.includes('cm-content'); i++) await page.keyboard.press('Tab');
    assert.match((await active(page)).cls, /cm-content/);
    await page.keyboard.press('Alt+Shift+KeyB');
    await page.waitForFunction(() => true);
    await page.keyboard.type('SELECT 41 + 1 AS answer');
    await page.keyboard.press('Control+Enter');
    await page.getByRole('grid', { name: 'Query result' }).filter({ hasText: '42' }).waitFor({ timeout: 30000 });
    cells = await sources(page);
    assert.deepEqual(cells.slice(2), ['SELECT 41 + 1 AS answer']);
    await page.keyboard.press('Alt+Shift+ArrowUp');
    await page.waitForFunction(() => true);
    for (let i = 0; i < 50 && (await sources(page))[1] !== 'SELECT 41 + 1 AS answer'; i++) await page.waitForTimeout(100);
    assert.equal((await sources(page))[1], 'SELECT 41 + 1 AS answer');
    assert.match((await active(page)).cls, /cm-content/, 'the moved cell keeps the focus');
    await page.keyboard.press('Alt+Shift+Backspace');
    for (let i = 0; i < 50 && (await sources(page)).length !== 2; i++) await page.waitForTimeout(100);
    assert.equal((await sources(page)).length, 2);
    assert.ok(!(await sources(page)).includes('SELECT 41 + 1 AS answer'));
    // rename: Shift+Tab back to the title field
    // Escape first: in the editor Tab indents (CodeMirror's convention: Escape, then Tab leaves)
    for (let i = 0; i < 60 && (await active(page)).label !== 'Notebook title'; i++) {
      await page.keyboard.press('Escape');
      await page.keyboard.press('Shift+Tab');
    }
    assert.equal((await active(page)).label, 'Notebook title');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('Keyboard notebook');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    await page.getByRole('button', { name: 'Keyboard notebook' }).waitFor({ timeout: 10000 });
    // the run is in the query history of the sidebar
    await page.locator('aw-notebook-sidebar .history code', { hasText: 'SELECT 41 + 1 AS answer' }).waitFor({ timeout: 20000 });
    assert.deepEqual(app.errors, []);
  });
});
