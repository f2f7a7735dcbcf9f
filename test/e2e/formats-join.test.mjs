import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, uniquePool, waitForReports } from './harness.mjs';

let app;

before(async () => {
  app = await startApp();
});
after(async () => {
  await app?.close();
});

describe('files that belong together, dropped at once', () => {
  it('a Batch output picked with its input file gets its requests (the panel hands each file the others)', async () => {
    const page = await app.open(uniquePool('batch'));
    await page.getByLabel('Import files').setInputFiles(['test/fixtures/formats/openai-batch-output.jsonl', 'test/fixtures/formats/openai-batch-input.jsonl']);
    await waitForReports(page, 2);
    const rows = await page.evaluate(() =>
      window.workbench.query(`SELECT metadata['custom_id'] AS id, len(messages) AS n, source FROM steps ORDER BY id`),
    );
    assert.deepEqual(
      rows.map((r) => [r.id, Number(r.n), r.source]),
      [
        ['ticket-0001', 2, 'openai-batch-output.jsonl'],
        ['ticket-0002', 2, 'openai-batch-output.jsonl'],
        ['ticket-0003', 2, 'openai-batch-output.jsonl'],
        ['ticket-0004', 2, 'openai-batch-output.jsonl'],
      ],
    );
    await page.close();
  });
});
