// The Data tab's export form (the same element the dashboard opens as its export dialog) tells the user which rows a trainer would reject before the download (issue 21),
// and the downloaded file holds only the others (read back with native DuckDB); the notebook view's "Run headless" prints its settings as flags.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { unzipSync } from 'fflate';
import { startApp, uniquePool, waitForReports } from './harness.mjs';
import { scratchDir } from '../scratch.mjs';

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
    const file = join(scratchDir('aw-panel-'), 'rl_steps.parquet');
    await download.saveAs(file);
    const conn = await (await DuckDBInstance.create(':memory:')).connect();
    const res = await conn.runAndReadAll(`SELECT count(*) AS n, count(*) FILTER (WHERE len(prompt) = 0 OR response IS NULL) AS bad,
      count(*) FILTER (WHERE list_bool_or(list_transform(prompt, m -> m.content IS NULL))) AS null_content FROM read_parquet('${file}')`);
    const [n, bad, nullContent] = res.getRows()[0].map(Number);
    assert.equal(n, shown);
    assert.equal(bad, 0);
    assert.equal(nullContent, 0);

    // the same rows as part files, a folder per data_source, in one zip: native DuckDB reads the folder as one dataset
    await form.getByLabel('Split into files by').selectOption('data_source');
    const [zipped] = await Promise.all([page.waitForEvent('download'), form.getByRole('button', { name: 'Download rl_steps files (.zip)' }).click()]);
    assert.match(zipped.suggestedFilename(), /^rl_steps-[\d-]+\.zip$/);
    const dir = scratchDir('aw-parts-');
    const files = unzipSync(readFileSync(await zipped.path()));
    for (const [path, bytes] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), bytes);
    }
    const manifest = JSON.parse(readFileSync(join(dir, zipped.suggestedFilename().replace(/\.zip$/, ''), '_manifest.json'), 'utf8'));
    const parts = await conn.runAndReadAll(`SELECT count(*) AS n, count(DISTINCT filename) AS files, count(DISTINCT coalesce(data_source, '(null)')) AS sources, count(*) FILTER (WHERE filename NOT LIKE '%/data_source=' || data_source || '/part-%') AS misplaced
      FROM read_parquet('${dir}/**/*.parquet', hive_partitioning = false, filename = true)`);
    const [pn, pfiles, sources, misplaced] = parts.getRows()[0].map(Number);
    assert.equal(pn, shown, 'the part files hold the rows of the one file');
    assert.equal(pfiles, manifest.files.length);
    assert.equal(pfiles, sources, 'a file per data source');
    assert.equal(misplaced, 0, 'every row sits in its data_source folder');
    assert.equal(manifest.rows, shown);

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
    assert.match(line, / --partition-by data_source /, 'the form\'s part files: a folder per data_source');
    await page.close();
  });
});
