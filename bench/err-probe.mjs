import { launch } from '../scripts/browser.mjs';
import { serveCached, pageHooks } from './probe.mjs';
const srv = await serveCached('/work/main/dist');
const b = await launch();
const page = await b.context.newPage();
await page.addInitScript(pageHooks);
await page.goto(`${srv.url}?pool=er${Date.now()}`);
await page.waitForFunction(() => window.__readyAt !== undefined);
for (const format of ['parquet', 'jsonl']) console.log(format, await page.evaluate(async (format) => {
  try { const blob = await window.workbench.exportQuery("SELECT CASE WHEN i = 250000 THEN error('boom at 250000') ELSE i END AS i, repeat('y', 100) AS s FROM range(400000) t(i)", { format }); return { size: blob.size }; }
  catch (e) { return { error: String(e.message).slice(0, 200) }; }
}, format));
await b.close(); await srv.close();
