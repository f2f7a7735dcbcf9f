// Shared e2e setup: the built app (dist/) served under a sub-path, Debian's Chromium via playwright-core.
import { existsSync } from 'node:fs';
import { launch, TEST_ARGS } from '../../scripts/browser.mjs';
import { serve } from '../../scripts/serve.mjs';

export async function startApp({ base = '/workbench/' } = {}) {
  if (!existsSync('dist/index.html')) throw new Error('dist/ is missing: run `npx vite build` first (npm test does)');
  const srv = await serve('dist', { base });
  const browser = await launch({ extraArgs: TEST_ARGS });
  const errors = [];
  const open = async (pool, extra = '') => {
    const page = await browser.context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${srv.url}?pool=${pool}${extra}`);
    await page.waitForFunction(() => window.workbench?.ready !== undefined);
    await page.evaluate(() => window.workbench.ready);
    return page;
  };
  return {
    url: srv.url,
    context: browser.context,
    errors,
    open,
    async close() {
      await browser.close();
      await srv.close();
    },
  };
}

export function uniquePool(name) {
  return `${name}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}`;
}

/** Wait until the import panel shows `n` finished reports. */
export async function waitForReports(page, n, timeout = 60000) {
  await page.waitForFunction(
    (k) => document.querySelector('aw-app')?.shadowRoot?.querySelector('aw-import-panel')?.shadowRoot?.querySelectorAll('.report').length >= k,
    n,
    { timeout },
  );
}

/** Poll a SQL query in the page until `test(rows)` holds. */
export async function waitForQuery(page, sql, test, timeout = 60000) {
  const t0 = Date.now();
  for (;;) {
    const rows = await page.evaluate((q) => window.workbench.query(q), sql);
    if (test(rows)) return rows;
    if (Date.now() - t0 > timeout) throw new Error(`timed out waiting on: ${sql} → ${JSON.stringify(rows)}`);
    // each poll is a query through the pool (≈ 8 ms of CPU): every 150 ms, not 50, while a test waits
    await new Promise((r) => setTimeout(r, 150));
  }
}
