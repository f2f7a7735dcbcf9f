// Launch Debian's Chromium through playwright-core with the flags this machine needs (never downloads a browser).
import { chromium } from 'playwright-core';

export const CHROME_PATH = process.env.CHROME_PATH || '/usr/bin/chromium';
export const CHROME_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
];

/**
 * Tests only (web-test-runner and the e2e harness; never benchmarks, which measure what users get): WebAssembly stays
 * on V8's baseline compiler, no TurboFan tier-up. A DuckDB boot then costs the renderer 3.7 CPU-s instead of 6.6, and
 * an import-and-export-heavy pair of browser files ran 59 → 49 s (docs/testing.md "Where test time goes").
 */
export const TEST_ARGS = ['--js-flags=--liftoff-only'];

/**
 * A persistent context with a fresh user-data-dir (OPFS and IndexedDB survive reloads within it). Playwright makes the
 * folder (userDataDir '') and removes it when the context closes, and also when the process ends without closing it
 * (an uncaught error, Ctrl-C): it kills the browser first. Our own aw-chrome-* folder stayed behind in those cases.
 */
export async function launch({ headless = true, extraArgs = [] } = {}) {
  const context = await chromium.launchPersistentContext('', {
    executablePath: CHROME_PATH, headless, args: [...CHROME_ARGS, ...extraArgs], acceptDownloads: true, viewport: { width: 1400, height: 900 },
  });
  return { context, close: () => context.close() };
}
