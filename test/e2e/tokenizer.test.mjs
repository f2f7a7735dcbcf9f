// The built app: the bundled Qwen3 tokenizer is not part of the first page load, is fetched when chosen,
// fills token_counts for the imported steps, and is chosen again after a reload.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, uniquePool, waitForQuery, waitForReports } from './harness.mjs';

let app;
before(async () => {
  app = await startApp();
});
after(async () => {
  await app?.close();
});

describe('tokenizer (built app)', () => {
  it('bundled Qwen3 loads on demand, token_counts is queryable, the choice survives a reload', async () => {
    const page = await app.open(uniquePool('tok'));
    const fetched = [];
    page.on('request', (r) => fetched.push(r.url()));
    await page.getByLabel('Import files').setInputFiles(['test/fixtures/core/chat.jsonl']);
    await waitForReports(page, 1);
    assert.equal(fetched.filter((u) => /tokenizer/.test(u)).length, 0, 'nothing of the tokenizer before it is chosen');
    const info = await page.evaluate(() => window.workbench.setTokenizer({ bundled: 'qwen3' }));
    assert.equal(info.vocabSize, 151669);
    assert.ok(fetched.some((u) => /\/assets\/tokenizer-[\w-]+\.json$/.test(u)), 'the tokenizer.json asset was fetched on demand');
    const r = await page.evaluate(() => window.workbench.tokenCounts());
    assert.equal(r.rows, 40);
    const rows = await page.evaluate(() => window.workbench.query('SELECT count(*)::INTEGER AS n, sum(n_tokens)::INTEGER AS t, count(template_error)::INTEGER AS e FROM token_counts'));
    assert.equal(rows[0].n, 40);
    assert.ok(rows[0].t > 40 * 10);
    await page.reload();
    await page.evaluate(() => window.workbench.ready);
    await page.waitForFunction(() => window.workbench.tokenizer() !== null, null, { timeout: 60000 });
    assert.deepEqual(await page.evaluate(() => window.workbench.tokenizer()), info);
    await waitForQuery(page, 'SELECT count(*)::INTEGER AS n FROM token_counts', (x) => x[0].n === 40);
    assert.deepEqual(app.errors, []);
    await page.close();
  });
});
