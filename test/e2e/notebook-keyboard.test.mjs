// Issue 15: a notebook flow with the keyboard only, on the built app — new notebook, new cell,
// type SQL, run, move, delete, rename — and the schema sidebar / history reachable by Tab.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, uniquePool } from './harness.mjs';

let app;
before(async () => {
  app = await startApp();
});
after(async () => {
  await app?.close();
});

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

describe('notebook with the keyboard only', () => {
  it('new notebook → new cell → type → run → move → delete → rename', async () => {
    const page = await app.open(uniquePool('nbkeys'));
    await page.evaluate(() => window.workbench.loadDemoData());
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
    await page.close();
  });
});
