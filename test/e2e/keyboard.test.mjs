// Keyboard only: the tab bar (roving tabindex from the focused tab, Home / End), the `?` shortcut sheet and
// Escape, then import the demo data, open the review queue and label a trajectory bad — no mouse. Before the demo
// data, on the same page, the empty views' states and their Go to Import button (with the mouse: issue 33 folded
// empty-states.test.mjs here, one page boot fewer).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startApp, uniquePool, waitForQuery } from './harness.mjs';

let app;
let page;
before(async () => {
  app = await startApp();
  page = await app.open(uniquePool('keys'));
});
after(() => app?.close());

/** The focused element, through shadow roots: `tag#id "text"`. */
const focused = () =>
  page.evaluate(() => {
    let a = document.activeElement;
    while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
    return { tag: a?.tagName.toLowerCase(), id: a?.id ?? '', text: (a?.textContent ?? '').trim().slice(0, 40), role: a?.getAttribute('role') };
  });
const selectedTab = () => page.evaluate(() => document.querySelector('aw-app').shadowRoot.querySelector('nav [aria-selected="true"]').id);
const sheetOpen = () => page.evaluate(() => document.querySelector('aw-app').shadowRoot.querySelector('aw-shortcuts')?.shadowRoot.querySelector('dialog')?.open ?? false);

/** Keyboard only: back to the tab bar, the Dashboard tab (second), and its Overview view (first). */
async function toDashboardOverview() {
  await tabUntil((x) => x.role === 'tab' && x.id.startsWith('tab-'), 200, 'Shift+Tab');
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  assert.equal(await selectedTab(), 'tab-dashboard');
  await tabUntil((x) => x.id === 'view-overview' || x.id === 'view-review');
  await page.keyboard.press('Home');
  assert.equal((await focused()).id, 'view-overview');
}

async function tabUntil(pred, max = 60, key = 'Tab') {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(key);
    const f = await focused();
    if (pred(f)) return f;
  }
  throw new Error('focus never reached the target');
}

test('arrow keys move from the focused tab; Home and End go to the ends', async () => {
  const f = await tabUntil((x) => x.role === 'tab');
  assert.equal(f.id, 'tab-data');
  await page.keyboard.press('ArrowRight');
  assert.equal(await selectedTab(), 'tab-dashboard');
  assert.equal((await focused()).id, 'tab-dashboard');
  await page.keyboard.press('End');
  assert.equal(await selectedTab(), 'tab-formats');
  await page.keyboard.press('Home');
  assert.equal(await selectedTab(), 'tab-data');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await selectedTab(), 'tab-formats');
  // a tab focused by a script (or by assistive technology) is where the arrows start from
  await page.evaluate(() => document.querySelector('aw-app').shadowRoot.querySelector('#tab-notebook').focus());
  await page.keyboard.press('ArrowRight');
  assert.equal(await selectedTab(), 'tab-gateway');
  await page.keyboard.press('Home');
});

test('? opens the shortcut sheet, Escape closes it, and focus returns', async () => {
  assert.equal(await sheetOpen(), false);
  await page.keyboard.press('?');
  assert.equal(await sheetOpen(), true);
  const text = await page.evaluate(() => document.querySelector('aw-app').shadowRoot.querySelector('aw-shortcuts').shadowRoot.textContent);
  for (const k of ['Home / End', 'g / b', '] / [', 'Shift+Enter', 'Esc']) assert.ok(text.includes(k), `sheet lists ${k}`);
  await page.keyboard.press('Escape');
  assert.equal(await sheetOpen(), false);
  // typing ? in a text field types it
  await page.evaluate(() => document.querySelector('aw-app').shadowRoot.querySelector('aw-export-panel').shadowRoot.querySelector('textarea').focus());
  await page.keyboard.press('?');
  assert.equal(await sheetOpen(), false);
});

// The empty pool this file starts with (was test/e2e/empty-states.test.mjs, a page boot of its own): the Dashboard,
// its Review queue and the Gateway say what to do, and the button goes to the import; with the demo data (the test
// after these) the empty states go away.
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

test('keyboard only: load the demo data, open the review queue, label a trajectory bad', async () => {
  await page.evaluate(() => document.activeElement?.blur?.());
  await page.evaluate(() => document.querySelector('aw-app').shadowRoot.activeElement?.blur());
  await tabUntil((x) => x.text === 'Load demo data');
  await page.keyboard.press('Enter');
  await waitForQuery(page, 'SELECT count(*) AS n FROM steps', (r) => Number(r[0].n) > 0);
  await page.waitForFunction(() => !document.querySelector('aw-app').shadowRoot.textContent.includes('Loading demo data…'), null, { timeout: 120000 });
  await tabUntil((x) => x.role === 'tab', 80, 'Shift+Tab');
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  assert.equal(await selectedTab(), 'tab-dashboard');
  // into the dashboard's own tab list, then to the review queue with the arrows
  await tabUntil((x) => x.id === 'view-overview');
  await page.keyboard.press('ArrowRight');
  assert.equal((await focused()).id, 'view-review');
  // Tab to the queue's first button (past its order select and checkbox), where the single keys work
  await tabUntil((x) => x.tag === 'button' && x.text.startsWith('good'));
  await page.waitForFunction(() => /\d+ \/ \d+/.test(document.querySelector('aw-app').shadowRoot.querySelector('aw-dashboard').shadowRoot.querySelector('aw-review-queue').shadowRoot.textContent));
  await page.keyboard.press('b');
  await waitForQuery(page, "SELECT count(*) AS n FROM curation WHERE quality = 'bad'", (r) => Number(r[0].n) > 0);
  // with data the empty states go away
  await page.locator('aw-dashboard nav button', { hasText: 'Overview' }).click();
  await page.locator('aw-dashboard .cards').waitFor();
  assert.equal(await page.locator('aw-dashboard .empty-state').count(), 0);
  await page.locator('aw-app #tab-gateway').click();
  await page.waitForFunction(() => !document.querySelector('aw-app').shadowRoot.querySelector('aw-gateway').shadowRoot.querySelector('.empty-state'));
  assert.deepEqual(app.errors, []);
});

/** Controls with no accessible name, from Chromium's own accessibility tree (shadow DOM included). */
async function unnamedControls() {
  const cdp = await page.context().newCDPSession(page);
  const { nodes } = await cdp.send('Accessibility.getFullAXTree');
  await cdp.detach();
  const roles = new Set(['button', 'textbox', 'combobox', 'checkbox', 'tab', 'spinbutton', 'searchbox', 'link', 'slider', 'radio', 'listbox']);
  return nodes
    .filter((n) => !n.ignored && roles.has(n.role?.value) && !String(n.name?.value ?? '').trim())
    .map((n) => `${n.role.value} (${n.properties?.map((p) => p.name).join(',') ?? ''})`);
}

test('a re-import says "already imported"; then, keyboard only, a trajectory opens in the inspector, its timeline, the compare view, and the price dialog closes with Esc', async () => {
  // a demo file again (the one-key demo load is the test before; all twelve files again cost ≈ 2 CPU-s): nothing new,
  // and its report in the import panel says so
  await tabUntil((x) => x.role === 'tab' && x.id.startsWith('tab-'), 200, 'Shift+Tab');
  await page.keyboard.press('Home');
  assert.equal(await selectedTab(), 'tab-data');
  await tabUntil((x) => x.text === 'Load demo data');
  const again = await page.evaluate(() => window.workbench.importUrl(new URL('notebooks/data/gsm8k-prompts.verl.jsonl', document.baseURI).href));
  assert.equal(again.status, 'unchanged', again.message);
  await page.waitForFunction(() => /Already imported — 0 new steps/.test(document.querySelector('aw-app').shadowRoot.querySelector('aw-import-panel').shadowRoot.textContent), null, { timeout: 120000 });
  // to the dashboard's overview and its trajectory list
  await toDashboardOverview();
  await tabUntil((x) => x.role === 'row', 120);
  await page.keyboard.press('Enter');
  await page.evaluate(() => {
    window.__inspector = () => document.querySelector('aw-app').shadowRoot.querySelector('aw-dashboard').shadowRoot.querySelector('aw-step-inspector');
  });
  await page.waitForFunction(() => window.__inspector()?.loadedSteps.length > 0);
  // the inspector's view tabs: Conversation → Timeline → Compare with the arrows
  await tabUntil((x) => x.role === 'tab' && x.text === 'Conversation', 200);
  await page.keyboard.press('ArrowRight');
  assert.equal((await focused()).text, 'Timeline');
  await page.waitForFunction(() => !!window.__inspector()?.shadowRoot.querySelector('table.timeline tbody tr'));
  await page.keyboard.press('ArrowRight');
  assert.equal((await focused()).text, 'Compare rollouts');
  await page.waitForFunction(() => !!window.__inspector()?.shadowRoot.querySelector('aw-rollout-compare'));
  // Prices… opens a modal dialog; Esc closes it and gives focus back
  await tabUntil((x) => x.text === 'Prices…', 40, 'Shift+Tab');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.__inspector()?.shadowRoot.querySelector('aw-price-table')?.shadowRoot.querySelector('dialog')?.open === true);
  assert.match((await focused()).tag, /input|button/);
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => window.__inspector()?.shadowRoot.querySelector('aw-price-table')?.shadowRoot.querySelector('dialog')?.open === false);
  assert.equal((await focused()).text, 'Prices…');
  // every control on the way has an accessible name, by Chromium's own accessibility tree (the axe run is in layout.test.mjs)
  assert.deepEqual(await unnamedControls(), []);
  // and the check sees one when there is one
  await page.evaluate(() => document.body.append(Object.assign(document.createElement('button'), { id: 'unnamed-probe' })));
  assert.equal((await unnamedControls()).length, 1);
  await page.evaluate(() => document.getElementById('unnamed-probe').remove());
  assert.deepEqual(app.errors, []);
});

test('keyboard only: the export dialog opens, its preview says which of how many rows it shows, and Escape closes it wherever the focus is', async () => {
  // keyboard only: the Dashboard tab, its Overview, then Tab to "Export filtered…" and Enter
  await toDashboardOverview();
  await tabUntil((x) => x.tag === 'button' && x.text.startsWith('Export filtered'), 200);
  await page.keyboard.press('Enter');
  await page.locator('aw-dashboard aw-export-form aw-table').waitFor({ timeout: 60000 });
  await page.waitForFunction(() => /Preview: the first/.test(document.querySelector('aw-app').shadowRoot.querySelector('aw-dashboard').shadowRoot.querySelector('aw-export-form').shadowRoot.textContent));
  const t = await page.locator('aw-dashboard aw-export-form').evaluate((el) => el.shadowRoot.textContent);
  const total = Number(/([\d,]+)\s+rows from/.exec(t)?.[1].replaceAll(',', ''));
  const caption = /Preview: the first ([\d,]+) of ([\d,]+) rows/.exec(t);
  assert.ok(total > 0, t);
  assert.ok(caption, 'the preview has a caption');
  assert.equal(Number(caption[2].replaceAll(',', '')), total);
  assert.ok(Number(caption[1].replaceAll(',', '')) <= total);
  // focus on the page behind the dialog (or nowhere): Escape still closes it
  await page.evaluate(() => {
    let a = document.activeElement;
    while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
    a?.blur();
  });
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => !document.querySelector('aw-app').shadowRoot.querySelector('aw-dashboard').shadowRoot.querySelector('aw-export-form').hasAttribute('open'));
});
