// An empty pool: the Dashboard, its Review queue and the Gateway say what to do, and the button goes to the import.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startApp, uniquePool } from './harness.mjs';

let app;
let page;
before(async () => {
  app = await startApp();
  page = await app.open(uniquePool('empty'));
});
after(() => app?.close());

const selectedTab = () => page.evaluate(() => document.querySelector('aw-app').shadowRoot.querySelector('nav [aria-selected="true"]').id);

for (const [view, open, title] of [
  ['dashboard', async () => page.locator('aw-app #tab-dashboard').click(), 'Import traces to see the dashboard'],
  ['review queue', async () => {
    await page.locator('aw-app #tab-dashboard').click();
    await page.locator('aw-dashboard nav button', { hasText: 'Review queue' }).click();
  }, 'Import traces to review them'],
  ['gateway', async () => page.locator('aw-app #tab-gateway').click(), 'No calls captured yet'],
]) {
  test(`the empty ${view} says what to do and its button opens the import`, async () => {
    await open();
    const empty = page.locator('.empty-state', { hasText: title });
    await empty.waitFor({ timeout: 15000 });
    await empty.getByRole('button', { name: 'Go to Import' }).click();
    assert.equal(await selectedTab(), 'tab-data');
    const inImport = await page.evaluate(() => {
      const panel = document.querySelector('aw-app').shadowRoot.querySelector('aw-import-panel');
      return panel.shadowRoot.activeElement !== null;
    });
    assert.ok(inImport, 'focus is in the import panel');
    if (view === 'review queue') await page.locator('aw-app #tab-dashboard').click().then(() => page.locator('aw-dashboard nav button', { hasText: 'Overview' }).click());
  });
}

test('with data the empty states go away', async () => {
  await page.evaluate(() => window.workbench.loadDemoData());
  await page.locator('aw-app #tab-dashboard').click();
  await page.locator('aw-dashboard .cards').waitFor();
  assert.equal(await page.locator('aw-dashboard .empty-state').count(), 0);
  await page.locator('aw-app #tab-gateway').click();
  await page.waitForFunction(() => !document.querySelector('aw-app').shadowRoot.querySelector('aw-gateway').shadowRoot.querySelector('.empty-state'));
  assert.deepEqual(app.errors, []);
});
