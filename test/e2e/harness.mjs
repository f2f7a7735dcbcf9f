// Shared e2e setup: the built app (dist/) served under a sub-path, Debian's Chromium via playwright-core.
import { existsSync } from 'node:fs';
import { launch, TEST_ARGS } from '../../scripts/browser.mjs';
import { serve } from '../../scripts/serve.mjs';

/**
 * The built app served under `base` in a fresh Chromium. `jsFlags`: more V8 flags for this browser, added to the test
 * flags (`--max-old-space-size=96` gives each isolate, page and workers alike, a 96 MB heap: hostile-payloads makes a
 * tab that holds too much die on a small file).
 */
export async function startApp({ base = '/workbench/', jsFlags = [] } = {}) {
  if (!existsSync('dist/index.html')) throw new Error('dist/ is missing: run `npx vite build` first (npm test does)');
  const srv = await serve('dist', { base });
  const browser = await launch({ extraArgs: withJsFlags(TEST_ARGS, jsFlags) });
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

/** Chromium reads one --js-flags: the extra V8 flags join the test's own. */
function withJsFlags(args, more) {
  if (!more.length) return args;
  const i = args.findIndex((a) => a.startsWith('--js-flags='));
  if (i < 0) return [...args, `--js-flags=${more.join(' ')}`];
  return args.map((a, k) => (k === i ? `${a} ${more.join(' ')}` : a));
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
