// Layout on the built app with the demo data: no horizontal overflow in any view at 1400 and 800 px, chart
// labels inside their chart and not overlapping each other, the Clear-pool dialog centred in the viewport; zero
// axe-core violations (WCAG 2 A/AA and best practice) in every view and dialog; every view's state in the address.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import { startApp, uniquePool } from './harness.mjs';

let app;
let page;
const pool = uniquePool('layout');
before(async () => {
  app = await startApp();
  page = await app.open(pool);
  await page.evaluate(() => window.workbench.loadDemoData());
});
after(() => app?.close());

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core over the whole page as it is now (open shadow roots included), or with `within` (a selector, matched
 * through shadow roots) over that element only: `rule: target` for every failing node. A scan `within` is for a state
 * that differs from one already scanned whole only inside that element (an open modal dialog, another tab of the
 * inspector): ≈ 1 CPU-s instead of ≈ 2.2 (color-contrast over the dashboard is half of a whole scan).
 */
async function axe(where, within) {
  // evaluated through the DevTools protocol: the page's CSP (no inline scripts) does not apply to it
  if (!(await page.evaluate(() => !!window.axe))) await page.evaluate(axeSource);
  const found = await page.evaluate(async ([tags, within]) => {
    // the first shown element that matches (a closed modal export form keeps its dialog, not shown)
    const deep = (root) => {
      const hit = [...root.querySelectorAll(within)].find((e) => e.getClientRects().length > 0);
      if (hit) return hit;
      for (const el of root.querySelectorAll('*')) {
        const inner = el.shadowRoot && deep(el.shadowRoot);
        if (inner) return inner;
      }
      return null;
    };
    const context = within ? deep(document) : document;
    if (!context) return [`no element matches ${within}`];
    const r = await window.axe.run(context, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return r.violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' >>> ')} — ${n.failureSummary.split('\n').slice(1, 2).join('').trim()}`));
  }, [AXE_TAGS, within]);
  return found.map((f) => `[${where}] ${f}`);
}

/** The modal shown now: a native <dialog> opened with showModal, or the export form's modal. */
const MODAL = 'dialog[open], [role="dialog"][aria-modal="true"]';

const overflow = () => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth });

/**
 * After a click: every element's pending render done (lit's updateComplete, through shadow roots), the dashboard's
 * queries answered, then two frames for layout — instead of a fixed 400 ms sleep per view.
 */
const settled = () =>
  page.evaluate(async () => {
    for (let round = 0; round < 5; round++) {
      const pending = [];
      const walk = (root) => {
        for (const el of root.querySelectorAll('*')) {
          if (el.updateComplete && el.isUpdatePending) pending.push(el.updateComplete);
          if (el.shadowRoot) walk(el.shadowRoot);
        }
      };
      walk(document);
      const dash = document.querySelector('aw-app')?.shadowRoot?.querySelector('aw-dashboard');
      if (dash?.loaded) pending.push(dash.loaded);
      await Promise.all(pending);
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      if (!pending.length) return;
    }
  });

/**
 * Every view, in the walk's order: the Data tab (with an export preview open), each top tab, each dashboard sub-view.
 * A tab left keeps its elements in the page (hidden), and every axe run walks them all: Formats before the dashboard's
 * ≈ 1,900, the notebook last (its example notebook doubles the page, ≈ 2,800 → 5,200; ≈ +0.3 CPU-s a run), the
 * gateway after the dashboard (its captured call would be the trajectory list's first row, the one the inspector opens).
 */
const VIEWS = ['data + export preview', 'formats', 'dashboard', 'gateway', 'dashboard / Review queue', 'dashboard / Curation tools & SQL', 'dashboard / Overview', 'notebook'];

/** Show one of VIEWS. */
async function show(name) {
  if (name === 'data + export preview') {
    await page.locator('aw-app #tab-data').click();
    await page.locator('aw-export-panel aw-export-form button', { hasText: 'Preview' }).click();
    await page.locator('aw-export-panel strong.total').waitFor();
    return;
  }
  if (name.startsWith('dashboard / ')) {
    await page.locator('aw-app #tab-dashboard').click();
    await page.locator('aw-dashboard nav button', { hasText: name.slice('dashboard / '.length) }).click();
  } else {
    await page.locator(`aw-app #tab-${name}`).click();
  }
  await settled();
}

/** `name: scrollWidth > clientWidth` when the page overflows horizontally now. */
async function overflows(name) {
  const o = await page.evaluate(overflow);
  return o.scroll > o.client ? [`${name}: ${o.scroll} > ${o.client}`] : [];
}

/** The Formats cards at the viewport's width now: a built-in format wider than its card, the list running under the editor. */
async function formatsCards(width) {
  const r = await page.evaluate(() => {
    const root = document.querySelector('aw-app').shadowRoot.querySelector('aw-formats').shadowRoot;
    const aside = root.querySelector('aside').getBoundingClientRect();
    const editor = root.querySelector('.editor').getBoundingClientRect();
    const widest = Math.max(...[...root.querySelectorAll('aside *')].map((e) => e.getBoundingClientRect().right));
    return { asideRight: aside.right, widest, editorLeft: editor.left, editorTop: editor.top, asideBottom: aside.bottom };
  });
  const out = [];
  if (!(r.widest <= r.asideRight + 0.5)) out.push(`a built-in format overflows its card at ${width}: ${r.widest} > ${r.asideRight}`);
  const sideBySide = r.editorTop < r.asideBottom;
  if (sideBySide && !(r.asideRight <= r.editorLeft)) out.push(`the format list runs under the editor at ${width}: ${r.asideRight} > ${r.editorLeft}`);
  return out;
}

/** Every dashboard chart's labels: inside the chart, not overlapping each other (at least three charts drawn). */
async function chartLabels() {
  await page.waitForFunction(() => document.querySelector('aw-app').shadowRoot.querySelector('aw-dashboard').shadowRoot.querySelectorAll('figure svg').length >= 3);
  return page.evaluate(() => {
    const out = [];
    const svgs = document.querySelector('aw-app').shadowRoot.querySelector('aw-dashboard').shadowRoot.querySelectorAll('figure svg');
    for (const svg of svgs) {
      const box = svg.getBoundingClientRect();
      const texts = [...svg.querySelectorAll('g[aria-label$="label"] text')].map((t) => ({ t: t.textContent, r: t.getBoundingClientRect() }));
      if (!texts.length) out.push(`${svg.getAttribute('aria-label')}: no labels`);
      for (const { t, r } of texts) {
        if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5) out.push(`${svg.getAttribute('aria-label')}: "${t}" clipped`);
      }
      for (let i = 0; i < texts.length; i++)
        for (let j = i + 1; j < texts.length; j++) {
          const a = texts[i].r;
          const b = texts[j].r;
          if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) out.push(`${svg.getAttribute('aria-label')}: "${texts[i].t}" overlaps "${texts[j].t}"`);
        }
    }
    return out;
  });
}

/** Open the Clear-pool dialog (on the Data tab): `null` when it is centred in the viewport, else what is off. */
async function clearPoolCentred(width) {
  await page.locator('aw-pool-summary button', { hasText: 'Clear pool…' }).click();
  const dialog = page.locator('aw-pool-summary dialog');
  await dialog.waitFor();
  const r = await dialog.boundingBox();
  const vw = await page.evaluate(() => document.documentElement.clientWidth);
  return Math.abs(r.x + r.width / 2 - vw / 2) <= 2 ? null : `dialog centre ${r.x + r.width / 2} vs viewport ${vw / 2} at ${width}`;
}
async function closeClearPool() {
  await page.keyboard.press('Escape');
  await page.locator('aw-pool-summary dialog').waitFor({ state: 'hidden' });
}

// What the walk below checks for the tests after it (one walk through the views instead of one per test): the whole
// page scan that carried an unnamed probe button, the Formats cards and the Clear-pool dialog's centre at each width,
// the dashboard charts' labels.
const folded = { probe: null, formats: new Map(), centred: new Map(), charts: null };

// the overflow checks ride on the axe pass (one walk through the views instead of three): each view is checked as it
// is shown at 1400 and at 800 px, and at 1400 px again with what the axe pass opens in it (the inspector, a notebook,
// a captured call)
test('axe-core finds no violation (WCAG 2 A/AA, best practice) in any view or dialog, and no view overflows at 1400 or 800 px', async () => {
  await page.setViewportSize({ width: 1400, height: 900 });
  await settled();
  const bad = [];
  const wide = [];
  const narrow = [];
  const scan = async (where, within) => {
    wide.push(...(await overflows(where)));
    bad.push(...(await axe(where, within)));
  };
  const dash = (sel) => page.locator(`aw-dashboard ${sel}`);
  for (const name of VIEWS) {
    await show(name);
    wide.push(...(await overflows(name)));
    if (name === 'formats') folded.formats.set(1400, await formatsCards(1400));
    // freshly drawn at 1400 px, beside the inspector (a trajectory is selected), with the captured call in the pool
    if (name === 'dashboard / Overview') folded.charts = await chartLabels();
    await page.setViewportSize({ width: 800, height: 900 });
    await settled();
    narrow.push(...(await overflows(name)));
    if (name === 'formats') folded.formats.set(800, await formatsCards(800));
    if (name === 'data + export preview') {
      folded.centred.set(800, await clearPoolCentred(800));
      await closeClearPool();
    }
    await page.setViewportSize({ width: 1400, height: 900 });
    await settled();
    if (name === 'data + export preview') {
      folded.centred.set(1400, await clearPoolCentred(1400));
      await scan('clear-pool dialog', MODAL);
      await closeClearPool();
      // the page whole, with an unnamed button in it: the axe run must see that one (the probe test) and only that
      wide.push(...(await overflows(name)));
      await page.evaluate(() => document.body.append(Object.assign(document.createElement('button'), { id: 'unnamed-probe' })));
      const found = await axe(name);
      await page.evaluate(() => document.getElementById('unnamed-probe').remove());
      folded.probe = found.filter((f) => f.includes('#unnamed-probe'));
      bad.push(...found.filter((f) => !f.includes('#unnamed-probe')));
    } else if (name === 'dashboard') {
      // the inspector open on a trajectory, in each of its views
      await dash('aw-trajectory-list [role="row"][data-index="0"]').click();
      // the page whole with the first view, the inspector alone with the others (only it changes)
      for (const v of ['Conversation', 'Timeline', 'Compare rollouts']) {
        await dash('aw-step-inspector [role="tab"]').filter({ hasText: v }).first().click();
        await settled();
        await scan(`dashboard, inspector ${v}`, v === 'Conversation' ? undefined : 'aw-step-inspector');
      }
      await dash('aw-step-inspector [role="tab"]').filter({ hasText: 'Conversation' }).first().click();
    } else if (name === 'dashboard / Overview') {
      // the page as scanned whole at 'dashboard, inspector Conversation' but for the trajectory list, which now has
      // the captured call's trajectory in it (the counts and the charts' bars differ, not their elements)
      await scan(name, 'aw-trajectory-list');
      // the dialogs: each modal alone (opening one changes nothing outside it; the page under it was scanned whole)
      await dash('button').filter({ hasText: 'Export filtered' }).click();
      await dash('aw-export-form aw-table').waitFor({ timeout: 60000 });
      await scan('export dialog', MODAL);
      await page.keyboard.press('Escape');
      await dash('aw-step-inspector button').filter({ hasText: 'Prices…' }).first().click();
      await scan('prices dialog', MODAL);
      await page.keyboard.press('Escape');
      await page.locator('aw-app button.keys').click();
      await scan('shortcuts dialog', MODAL);
      await page.keyboard.press('Escape');
    } else if (name === 'notebook') {
      await page.locator('aw-notebooks').getByRole('button', { name: 'Open example: A tour of the pool' }).click();
      await page.locator('aw-notebook aw-chart svg').first().waitFor({ timeout: 30000 });
      // every cell run and drawn (the first chart comes ≈ 2 s before the last cell)
      await page.evaluate(() => document.querySelector('aw-app').shadowRoot.querySelector('aw-notebooks').shadowRoot.querySelector('aw-notebook').idle());
      await settled();
      await scan(name);
      await page.locator('aw-notebooks').getByRole('button', { name: 'Export…' }).click();
      await page.locator('aw-notebooks aw-export-form [role="dialog"]').waitFor();
      await scan('notebook export dialog', MODAL);
      await page.keyboard.press('Escape');
    } else {
      if (name === 'gateway') {
        // one captured call, so the live list has a row and its inspector opens
        await page.evaluate(async () => {
          await fetch(`${window.workbench.gatewayBaseUrl()}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'What is 17 * 3?' }] }) });
        });
        await page.locator('aw-gateway-calls tbody tr td', { hasText: '200' }).first().waitFor({ timeout: 30000 });
        await page.locator('aw-gateway-calls tbody tr').first().click();
        await page.locator('aw-gateway-calls aw-step-inspector header').waitFor();
      }
      await scan(name);
    }
  }
  // a new notebook with empty cells (their placeholders), and the export form on a notebook view
  await page.locator('aw-notebooks').getByRole('button', { name: 'New notebook' }).click();
  const cell = page.locator('aw-notebook aw-cell').last();
  await cell.getByRole('button', { name: /Add SQL cell below/i }).click();
  await cell.getByRole('button', { name: /add a Markdown cell below/i }).click();
  await settled();
  await scan('new notebook, empty cells', 'aw-notebooks');
  await page.locator('aw-app #tab-data').click();
  await page.locator('aw-export-panel aw-export-form').getByRole('radio', { name: 'notebook cell view' }).check();
  await settled();
  await scan('data, export from a notebook view', 'aw-export-panel');
  assert.deepEqual(bad, []);
  assert.deepEqual(wide, [], 'horizontal overflow at 1400 px');
  assert.deepEqual(narrow, [], 'horizontal overflow at 800 px');
});

// checked in the walk above: its whole-page scan of 'data + export preview' carries the probe
test('the axe run sees a violation when there is one', () => {
  assert.ok(folded.probe, 'the walk did not reach the probe scan');
  assert.ok(folded.probe.some((f) => f.includes('button-name') && f.includes('#unnamed-probe')), folded.probe.join('\n'));
});

// checked in the walk above, on the Formats tab at each width
test('the Formats cards do not overlap each other at 1400 or 800 px', () => {
  assert.deepEqual([...folded.formats.keys()].sort((a, b) => a - b), [800, 1400], 'the walk did not check both widths');
  assert.deepEqual([...folded.formats.values()].flat(), []);
});

// checked in the walk above, on the dashboard's Overview at 1400 px
test('dashboard chart labels stay inside their chart and do not overlap', () => {
  assert.ok(folded.charts, 'the walk did not reach the Overview');
  assert.deepEqual(folded.charts, []);
});

// checked in the walk above, on the Data tab with an export preview shown, at each width
test('the Clear-pool dialog opens centred after an export preview', () => {
  assert.deepEqual([...folded.centred.keys()].sort((a, b) => a - b), [800, 1400], 'the walk did not check both widths');
  assert.deepEqual([...folded.centred.values()].filter(Boolean), []);
});

test('every view is in the address: a link opens the same filter, trajectory, step and view, and Back walks them', async () => {
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.locator('aw-app #tab-dashboard').click();
  await page.locator('aw-dashboard nav button', { hasText: 'Overview' }).click();
  await page.locator('aw-dashboard-filters').getByLabel('Filter by agent').selectOption('react-calculator');
  await page.waitForFunction(() => location.hash.includes('agent=react-calculator'));
  await page.evaluate(() => document.querySelector('aw-app').shadowRoot.querySelector('aw-dashboard').loaded);
  const row = page.locator('aw-trajectory-list [role="row"][data-index="1"]');
  await row.waitFor();
  const uid = (await row.locator('[role="gridcell"]').first().textContent()).trim();
  await row.click();
  const inspector = page.locator('aw-dashboard aw-step-inspector').first();
  await inspector.locator('[role="tab"]', { hasText: 'Timeline' }).click();
  await page.waitForFunction(() => location.hash.includes('view=timeline'));
  const hash = await page.evaluate(() => location.hash);
  const p = new URLSearchParams(hash.slice(hash.indexOf('?') + 1));
  assert.equal(hash.split('?')[0], '#dashboard');
  assert.deepEqual([p.get('agent'), p.get('traj'), p.get('view')], ['react-calculator', uid, 'timeline']);

  // the link, opened again: the same filter, trajectory and view
  await page.goto('about:blank');
  await page.goto(`${app.url}?pool=${pool}${hash}`);
  await page.evaluate(() => window.workbench.ready);
  await page.locator('aw-dashboard aw-step-inspector table.timeline').first().waitFor({ timeout: 30000 });
  assert.equal(await page.locator('aw-dashboard-filters').getByLabel('Filter by agent').inputValue(), 'react-calculator');
  assert.equal(await page.evaluate(() => document.querySelector('aw-app').shadowRoot.querySelector('aw-dashboard').selectedTrajectory), uid);

  // Back: the conversation view of the same trajectory, then (after a notebook) the dashboard again
  await inspector.locator('[role="tab"]', { hasText: 'Conversation' }).click();
  await page.waitForFunction(() => !location.hash.includes('view='));
  await page.locator('aw-app #tab-notebook').click();
  await page.waitForFunction(() => location.hash.startsWith('#notebook'));
  await page.goBack();
  await page.waitForFunction(() => location.hash.startsWith('#dashboard') && !location.hash.includes('view='));
  await page.goBack();
  await page.waitForFunction(() => location.hash.includes('view=timeline'));
  await page.locator('aw-dashboard aw-step-inspector table.timeline').first().waitFor({ timeout: 10000 });
  assert.equal(await page.evaluate(() => document.querySelector('aw-app').shadowRoot.querySelector('aw-dashboard').selectedTrajectory), uid);
  assert.deepEqual(app.errors, []);
});
