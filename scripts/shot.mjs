// Open the built app in headless Chromium and take a screenshot: node scripts/shot.mjs out.png [hash] [files…]
import { launch } from './browser.mjs';
import { serve } from './serve.mjs';

const [out = '.tmp/shot.png', hash = '', ...files] = process.argv.slice(2);
const base = process.env.BASE ?? '/workbench/';
const srv = await serve('dist', { base });
const b = await launch();
try {
  const page = await b.context.newPage();
  page.on('console', (m) => (m.type() === 'error' || m.type() === 'warning') && console.log('console:', m.text().slice(0, 300)));
  page.on('pageerror', (e) => console.log('pageerror:', e.message));
  await page.goto(`${srv.url}?pool=shot${hash ? `#${hash}` : ''}`);
  await page.waitForFunction(() => window.workbench?.ready !== undefined);
  await page.evaluate(() => window.workbench.ready);
  if (files.length) {
    await page.getByLabel('Import files').setInputFiles(files);
    await page.waitForFunction((n) => document.querySelector('aw-app').shadowRoot.querySelector('aw-import-panel').shadowRoot.querySelectorAll('.report').length >= n, files.length, { timeout: 60000 });
  }
  if (process.env.DEMO) await page.evaluate(() => window.workbench.loadDemoData());
  if (process.env.EVAL) console.log(JSON.stringify(await page.evaluate(process.env.EVAL)));
  await page.waitForTimeout(Number(process.env.WAIT ?? 500));
  await page.screenshot({ path: out, fullPage: !!process.env.FULL });
  console.log('wrote', out);
} finally {
  await b.close();
  await srv.close();
}
