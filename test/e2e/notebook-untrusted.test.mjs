// Issue 17 hole 4 and issue 15 item 1 on the built app under a sub-path: a notebook someone else
// wrote (a URL, a file) opens read-only, shows every cell's source, runs nothing before the user
// confirms, and its query cells cannot change the pool whatever their text hides.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startApp, uniquePool } from './harness.mjs';

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
  await demoPage?.close();
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

/**
 * The three tests share one page with the demo data (booting the app and loading the demo are the costly steps): it
 * is opened with ?notebook=<url>, the first test's journey; each test leaves the pool as it found it (it asserts so)
 * but the last, and the Open .md tests open the file anew, read-only.
 */
let demoPage;
async function demo() {
  if (!demoPage) {
    demoPage = await app.open(uniquePool('nb-shared'), '&notebook=e2e-shared/untrusted.md');
    await demoPage.evaluate(() => window.workbench.loadDemoData());
  }
  return demoPage;
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
