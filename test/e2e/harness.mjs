// Shared e2e setup: the built app (dist/) served under a sub-path, Debian's Chromium via playwright-core.
import { existsSync } from 'node:fs';
import { launch, TEST_ARGS } from '../../scripts/browser.mjs';
import { serve } from '../../scripts/serve.mjs';

/**
 * Chromium for the e2e files. Alone (`node --test <file>`), each startApp launches its own and closes it. Under
 * scripts/e2e-one-process.mjs (AW_E2E_SHARED=1: every e2e file in one node process) the files with the default flags
 * share one persistent context, each file on its own server port: a new origin, so OPFS, IndexedDB, localStorage and
 * the gateway's service worker are the file's own as before (a Chromium launch ≈ 1 CPU-s, a node + playwright-core
 * start ≈ 1.2 CPU-s, once instead of per file). A file with more V8 flags still gets a browser of its own.
 */
let shared;
export async function browserFor(args = TEST_ARGS) {
  if (process.env.AW_E2E_SHARED !== '1' || args !== TEST_ARGS) {
    const b = await launch({ extraArgs: args });
    return { context: b.context, release: () => b.close() };
  }
  shared ??= launch({ extraArgs: args });
  const b = await shared;
  // the pages this file opens: release() closes them, and the browser stays for the next file
  const pages = [];
  const track = (p) => pages.push(p);
  b.context.on('page', track);
  return {
    context: b.context,
    async release() {
      b.context.off('page', track);
      for (const p of pages) await p.close().catch(() => {});
    },
  };
}

/** Ports served so far in this process: a port the OS gives again would be an origin whose storage a file before used. */
const served = new Set();
/** `root` served under `base` on an origin no file before used in this process. */
export async function freshOrigin(base, root = 'dist') {
  for (;;) {
    const srv = await serve(root, { base });
    const origin = new URL(srv.url).origin;
    if (!served.has(origin)) {
      served.add(origin);
      return srv;
    }
    await srv.close();
  }
}

/** Close the browser the e2e files shared (scripts/e2e-one-process.mjs, after the last file). */
export async function closeSharedBrowser() {
  const b = await shared;
  shared = undefined;
  await b?.close();
}

/**
 * The built app served under `base` in Chromium (a fresh profile, or a fresh origin in the shared one). `jsFlags`:
 * more V8 flags for this browser, added to the test flags (`--max-old-space-size=96` gives each isolate, page and
 * workers alike, a 96 MB heap: hostile-payloads makes a tab that holds too much die on a small file).
 */
export async function startApp({ base = '/workbench/', jsFlags = [] } = {}) {
  if (!existsSync('dist/index.html')) throw new Error('dist/ is missing: run `npx vite build` first (npm test does)');
  const srv = await freshOrigin(base);
  const browser = await browserFor(withJsFlags(TEST_ARGS, jsFlags));
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
      await browser.release();
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
