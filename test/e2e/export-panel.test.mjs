// The Data tab's export form (the same element the dashboard opens as its export dialog) tells the user which rows a trainer would reject before the download (issue 21),
// and the downloaded file holds only the others (read back with native DuckDB); the notebook view's "Run headless" prints its settings as flags.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { startApp, uniquePool, waitForReports } from './harness.mjs';

let app;
before(async () => {
  app = await startApp();
});
after(async () => {
  await app?.close();
});

describe('export panel', () => {
  it('names the rows a plain check of roles and content rejects, and leaves them out of the file', async () => {
    const page = await app.open(uniquePool('export-panel'));
    await page.getByLabel('Import files').setInputFiles(['test/fixtures/formats/verl-prompts.jsonl', 'test/fixtures/formats/sharegpt-array.json', 'test/fixtures/core/chat.jsonl']);
    await waitForReports(page, 3);
    await page.evaluate(() => document.querySelector('aw-app').selectTab('data'));
    const form = page.locator('aw-export-panel aw-export-form');
    await form.getByRole('radio', { name: 'rl_steps' }).check();
    await form.getByRole('button', { name: 'Preview' }).click();
    const problems = form.getByLabel('Rows a trainer would reject');
    await problems.waitFor();
    const text = (await problems.textContent()) ?? '';
    assert.match(text, /no response: 4/);
    assert.match(text, /empty prompt: 1/);
    assert.match(text, /QWJhYvA_2:0 — empty prompt/);
    const shown = Number(((await form.locator('strong.total').textContent()) ?? '').replace(/,/g, ''));

    const [download] = await Promise.all([page.waitForEvent('download'), form.getByRole('button', { name: 'Download rl_steps.parquet' }).click()]);
    const file = join(mkdtempSync(join(tmpdir(), 'aw-panel-')), 'rl_steps.parquet');
    await download.saveAs(file);
    const conn = await (await DuckDBInstance.create(':memory:')).connect();
    const res = await conn.runAndReadAll(`SELECT count(*) AS n, count(*) FILTER (WHERE len(prompt) = 0 OR response IS NULL) AS bad,
      count(*) FILTER (WHERE list_bool_or(list_transform(prompt, m -> m.content IS NULL))) AS null_content FROM read_parquet('${file}')`);
    const [n, bad, nullContent] = res.getRows()[0].map(Number);
    assert.equal(n, shown);
    assert.equal(bad, 0);
    assert.equal(nullContent, 0);

    // "Run headless" (issue 22): the notebook view prints the export form's current settings as CLI flags
    await form.getByLabel('Split to export').selectOption('val');
    await form.getByRole('checkbox', { name: /redact/ }).check();
    await page.evaluate(() => document.querySelector('aw-app').selectTab('notebook'));
    await page.getByRole('button', { name: 'New notebook' }).click();
    await page.locator('details.headless summary').click();
    const commands = (await page.getByLabel('Headless commands').textContent()) ?? '';
    const line = commands.split('\n').find((l) => l.startsWith('npx agentworld export')) ?? '';
    assert.match(line, /--layout rl_steps /);
    assert.match(line, / --redact /);
    assert.match(line, / --split val /);
    await page.close();
  });
});
