// Screenshots of every view with the demo data, at 1400×900 and at 800 px wide, into docs/screenshots/.
// Needs the built app: npx vite build && node scripts/screenshots.mjs
import { mkdirSync } from 'node:fs';
import { launch } from './browser.mjs';
import { serve } from './serve.mjs';

const OUT = 'docs/screenshots';
const VIEWS = [
  ['data', async () => {}],
  ['dashboard', async (page) => {
    await page.locator('aw-dashboard .cards').waitFor();
    await page.locator('aw-trajectory-list [role="row"] [role="gridcell"]').first().click();
  }],
  ['review', async (page) => page.locator('aw-dashboard nav button', { hasText: 'Review queue' }).click(), 'dashboard'],
  ['notebook', async (page) => {
    const tour = page.locator('aw-notebooks').getByText('A tour of the pool').first();
    if (await tour.isVisible()) await tour.click();
    // the first result grid with its per-column summaries, scrolled to the top of the notebook
    const grid = page.locator('aw-notebook aw-cell').filter({ has: page.locator('aw-table .sum') }).first();
    await grid.waitFor({ timeout: 60000 }).catch(() => {});
    await page.waitForTimeout(1500);
    await grid.evaluate((el) => el.scrollIntoView({ block: 'start' })).catch(() => {});
  }],
  // the inspector's views, scrolled into sight (a prepare that returns true keeps its scroll position)
  ['inspector-timeline', async (page) => {
    await page.locator('aw-dashboard .cards').waitFor();
    // the longest answers first: a trajectory with token counts and times
    const outTok = page.locator('aw-trajectory-list [role="columnheader"]', { hasText: 'out tok' });
    await outTok.click();
    if (!(await outTok.textContent()).includes('↓')) await outTok.click();
    await page.waitForTimeout(800);
    await page.locator('aw-trajectory-list [role="row"] [role="gridcell"]').first().click();
    await page.locator('aw-step-inspector [role="tab"]', { hasText: 'Timeline' }).first().click();
    await page.locator('aw-step-inspector table.timeline').first().waitFor();
    await page.waitForTimeout(600);
    await scrollToInspector(page);
    return true;
  }, 'dashboard'],
  ['inspector-compare', async (page) => {
    await page.locator('aw-grpo-groups tbody tr', { hasText: 'yes' }).first().locator('button').click();
    await page.locator('aw-rollout-compare aw-step-inspector').nth(1).waitFor();
    await page.waitForTimeout(800);
    await scrollToInspector(page);
    return true;
  }, 'dashboard'],
  ['gateway', async (page) => {
    // one captured call, so the live list has a row and the inspector under it opens
    await page.evaluate(async () => {
      const base = window.workbench.gatewayBaseUrl();
      await fetch(`${base}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'What is 17 * 3?' }] }) });
    });
    await page.locator('aw-gateway-calls tbody tr td', { hasText: '200' }).first().waitFor({ timeout: 30000 });
    await page.locator('aw-gateway-calls tbody tr').first().click();
    await page.locator('aw-gateway-calls aw-step-inspector header').waitFor();
  }],
  ['formats', async () => {}],
  ['export-dialog', async (page) => {
    await page.locator('aw-dashboard .cards').waitFor();
    await page.locator('aw-dashboard button', { hasText: 'Export filtered' }).click();
    await page.locator('aw-dashboard aw-export-form aw-table').waitFor({ timeout: 60000 });
    await page.waitForTimeout(800);
  }, 'dashboard'],
];

/** Scroll so that the dashboard's inspector sits just under the sticky header. */
async function scrollToInspector(page) {
  await page.evaluate(() => {
    const app = document.querySelector('aw-app').shadowRoot;
    const el = app.querySelector('aw-dashboard').shadowRoot.querySelector('aw-step-inspector');
    const top = el.getBoundingClientRect().top + window.scrollY - app.querySelector('header.top').getBoundingClientRect().height - 8;
    window.scrollTo(0, top);
  });
}

// VIEWS=notebook,data node scripts/screenshots.mjs shoots only those views.
const ONLY = process.env.VIEWS ? new Set(process.env.VIEWS.split(',')) : null;
mkdirSync(OUT, { recursive: true });
const srv = await serve('dist', { base: '/workbench/' });
const b = await launch();
try {
  const page = await b.context.newPage();
  page.on('pageerror', (e) => console.log('pageerror:', e.message));
  await page.goto(`${srv.url}?pool=screenshots-${Date.now().toString(36)}`);
  await page.waitForFunction(() => window.workbench?.ready !== undefined);
  await page.evaluate(() => window.workbench.ready);
  await page.evaluate(() => window.workbench.loadDemoData());
  for (const width of [1400, 800]) {
    await page.setViewportSize({ width, height: 900 });
    for (const [name, prepare, tab = name] of VIEWS.filter(([n]) => !ONLY || ONLY.has(n))) {
      await page.locator(`aw-app #tab-${tab}`).click();
      if (tab === 'dashboard' && name !== 'review') await page.locator('aw-dashboard nav button', { hasText: 'Overview' }).click();
      const keepScroll = await prepare(page);
      await page.waitForTimeout(600);
      if (keepScroll !== true) await page.evaluate(() => window.scrollTo(0, 0));
      const path = `${OUT}/${name}-${width}.png`;
      await page.screenshot({ path });
      const o = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      console.log('wrote', path, o > 0 ? `HORIZONTAL OVERFLOW ${o}px` : '');
      // a dialog shot leaves its dialog open over the page: close it for the next view
      if (name.endsWith('-dialog')) await page.keyboard.press('Escape');
    }
  }
} finally {
  await b.close();
  await srv.close();
}
