import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { startApp, uniquePool, waitForQuery, waitForReports } from './harness.mjs';
import { documentedApi } from './readme-api.mjs';
import { scratchDir } from '../scratch.mjs';

const tmp = scratchDir('aw-e2e-');
let app;

before(async () => {
  app = await startApp();
});
after(async () => {
  await app?.close();
});

async function count(page, sql = 'SELECT count(*) AS n FROM steps') {
  const [r] = await page.evaluate((q) => window.workbench.query(q), sql);
  return r.n;
}

/**
 * One new user's session on one page and one saved pool, in order (a page boot is the costliest step of an e2e test):
 * the page loads from a sub-path → imports through the file picker → reloads → downloads sft.parquet → clears the
 * pool → loads the demo data → an import cut off by a reload rolls back. Requests are watched from the first one.
 */
describe('foundation, as a new user', () => {
  const base = () => new URL(app.url);
  const fetched = [];
  const errors = [];
  let page;

  before(async () => {
    // The harness serves dist/ under /workbench/ only (anything else is a 404), so an absolute asset URL breaks here.
    page = await app.context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('response', (r) => {
      const u = new URL(r.url());
      if (u.origin === base().origin) fetched.push({ path: u.pathname, status: r.status() });
    });
    page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()}`));
    await page.goto(`${app.url}?pool=${uniquePool('found')}`);
    await page.waitForFunction(() => window.workbench?.ready !== undefined);
    await page.evaluate(() => window.workbench.ready);
  });
  after(() => page?.close());

  it('works from a sub-path: every asset, worker and wasm is fetched under it, and queries run', async () => {
    const [row] = await page.evaluate(() => window.workbench.query('SELECT 6 * 7 AS n'));
    assert.equal(Number(row.n), 42);
    const outside = fetched.filter((f) => !f.path.startsWith(base().pathname) || f.status >= 400);
    assert.deepEqual(outside, [], 'requests outside the sub-path or failing');
    assert.ok(fetched.some((f) => f.path.endsWith('.js')), `no script fetched: ${JSON.stringify(fetched)}`);
    assert.ok(fetched.some((f) => f.path.endsWith('.wasm')), `no DuckDB wasm fetched under the sub-path: ${JSON.stringify(fetched)}`);
    assert.deepEqual(errors, []);
  });

  it('window.workbench has every member README.md documents, each a function (ready a Promise), and none it does not', async () => {
    const doc = documentedApi();
    const real = await page.evaluate(() => {
      const kinds = (o) => Object.fromEntries(Object.keys(o).map((k) => [k, typeof o[k] === 'function' ? 'function' : typeof o[k]?.then === 'function' ? 'promise' : typeof o[k]]));
      const w = window.workbench;
      return { top: kinds(w), debug: w.debug ? kinds(w.debug) : null };
    });
    const flat = { ...real.top, ...Object.fromEntries(Object.entries(real.debug ?? {}).map(([k, v]) => [`debug.${k}`, v])) };
    delete flat.debug;
    // a test build: the debug members are there too
    assert.deepEqual(Object.keys(flat).sort(), doc.map((m) => m.name).sort());
    for (const m of doc) assert.equal(flat[m.name], m.property ? 'promise' : 'function', m.name);
  });

  it('imports through the file picker, persists across reload, exports sft.parquet that native DuckDB reads', async () => {
    await page.getByLabel('Import files').setInputFiles(['test/fixtures/core/chat.jsonl', 'notebooks/data/gsm8k-rollouts.jsonl']);
    await waitForReports(page, 2);
    const panel = page.locator('aw-import-panel');
    await assert.doesNotReject(panel.getByText('openai-chat').first().waitFor());
    const rejected = await panel.getByLabel('Report for chat.jsonl').locator('.rejected').textContent();
    assert.equal(rejected, '2');
    const steps = await count(page);
    assert.ok(steps > 40, `steps ${steps}`);

    await page.reload();
    await page.evaluate(() => window.workbench.ready);
    assert.equal(await count(page), steps, 'the pool survives a reload');
    assert.equal((await page.evaluate(() => window.workbench.poolStatus())).persistent, true);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download sft.parquet' }).click()]);
    const file = join(tmp, 'sft.parquet');
    await download.saveAs(file);
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    const res = await conn.runAndReadAll(`SELECT count(*) AS n, typeof(any_value(messages)) AS t, max(len(messages)) AS longest FROM read_parquet('${file}')`);
    const [n, t, longest] = res.getRows()[0];
    assert.equal(Number(n), await count(page, 'SELECT count(DISTINCT trajectory_uid) AS n FROM steps'));
    assert.match(String(t), /^STRUCT\(.*"role" VARCHAR.*tool_calls STRUCT.*\)\[\]$/);
    assert.ok(Number(longest) >= 5);
    conn.closeSync?.();
  });

  it('clears the pool after confirmation', async () => {
    const steps = await count(page);
    assert.ok(steps > 40);
    await page.getByRole('button', { name: 'Clear pool…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await count(page), steps);
    await page.getByRole('button', { name: 'Clear pool…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Clear pool' }).click();
    await waitForQuery(page, 'SELECT count(*) AS n FROM steps', (r) => r[0].n === 0);
  });

  it('loads the bundled demo data with one click', async () => {
    const reports = await page.locator('aw-import-panel .report').count();
    await page.getByRole('button', { name: 'Load demo data' }).click();
    const manifest = JSON.parse(readFileSync('notebooks/data/manifest.json', 'utf8'));
    await waitForReports(page, reports + manifest.length, 120000);
    const formats = await page.evaluate(() => window.workbench.query('SELECT source, any_value(source_format) AS f, count(*) AS n FROM steps GROUP BY source ORDER BY source'));
    assert.equal(formats.length, manifest.length, JSON.stringify(formats));
    assert.ok(formats.reduce((a, r) => a + r.n, 0) >= 200, 'a few hundred steps');
  });

  it('compacts the pool from the Pool card: the same rows, reported sizes, a pool that still works (decision 050)', async () => {
    const before = await page.evaluate(() => window.workbench.query('SELECT count(*)::INTEGER AS n, sum(hash(s))::VARCHAR AS h FROM steps s'));
    assert.ok(before[0].n > 0);
    await page.getByRole('button', { name: 'Compact' }).click();
    await page.getByText(/The pool was compacted: .* → .* \(storage v1\.4\.0; \d+ tables, [\d,]+ rows copied and checked/).waitFor({ timeout: 60000 });
    assert.deepEqual(await page.evaluate(() => window.workbench.query('SELECT count(*)::INTEGER AS n, sum(hash(s))::VARCHAR AS h FROM steps s')), before);
    await page.getByRole('button', { name: 'Compact' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Compact' }).isEnabled(), true);
    // the same through the scripting API README.md documents (it was not attached: "compactPool is not a function")
    const report = await page.evaluate(() => window.workbench.compactPool());
    assert.deepEqual(Object.keys(report).sort(), ['bytesAfter', 'bytesBefore', 'ms', 'rows', 'storageVersion', 'tables']);
    assert.equal(report.storageVersion, 'v1.4.0');
    assert.deepEqual(await page.evaluate(() => window.workbench.query('SELECT count(*)::INTEGER AS n, sum(hash(s))::VARCHAR AS h FROM steps s')), before);
  });

  it('rolls back an import interrupted by a reload; earlier data is intact', async () => {
    const big = join(tmp, 'big.jsonl');
    const line = (i) => JSON.stringify({ messages: [{ role: 'user', content: `question ${i} ${'lorem ipsum '.repeat(40)}` }, { role: 'assistant', content: `answer ${i}` }] });
    writeFileSync(big, Array.from({ length: 120000 }, (_, i) => line(i)).join('\n'));
    const earlier = await count(page);
    assert.ok(earlier > 0, 'the demo data is there');
    await page.getByLabel('Import files').setInputFiles([big]);
    await waitForQuery(page, `SELECT count(*) AS n FROM imports WHERE status = 'running'`, (r) => r[0].n === 1);
    await page.waitForTimeout(500);
    await page.reload();
    await page.evaluate(() => window.workbench.ready);
    const status = await page.evaluate(() => window.workbench.poolStatus());
    assert.equal(status.interrupted.length, 1, JSON.stringify(status));
    assert.equal(status.interrupted[0].file, 'big.jsonl');
    assert.equal(await count(page), earlier, 'only the earlier imports remain');
    await assert.doesNotReject(page.getByText('was interrupted by a reload and rolled back').waitFor());
    // every request of the whole session stayed under the sub-path
    assert.deepEqual(fetched.filter((f) => !f.path.startsWith(base().pathname) || f.status >= 400), []);
    assert.deepEqual(errors, []);
    assert.deepEqual(app.errors, [], 'page errors in the other tests of this file');
  });
});
