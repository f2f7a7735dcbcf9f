import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RejectedLine } from '../../src/contract/reports';
import { ingestFile, quotaMessage } from '../../src/ingest/pipeline';

describe('ingestFile when the pool fails mid-import', () => {
  it('still reports the format, the lines rejected so far and hands them to abortImport', async () => {
    const line = (i: number) => JSON.stringify({ messages: [{ role: 'user', content: `q${i}` }, { role: 'assistant', content: `a${i}` }] });
    const lines = Array.from({ length: 60 }, (_, i) => (i === 2 ? '{"messages": [' : line(i)));
    let aborted: RejectedLine[] | undefined;
    const report = await ingestFile(new File([`${lines.join('\n')}\n`], 'chat.jsonl'), {
      beginImport: async () => 1,
      setImportSource: async () => {},
      appendBatch: async () => {
        throw new Error('disk full');
      },
      commitImport: async () => ({ rowsAdded: 0 }),
      abortImport: async (_id, _why, errors) => {
        aborted = errors;
      },
    }, { batchRows: 10 });
    assert.equal(report.status, 'failed');
    assert.match(report.message ?? '', /disk full/);
    assert.equal(report.format, 'openai-chat');
    assert.deepEqual(report.rejected.map((r) => r.line), [3]);
    assert.deepEqual(aborted?.map((r) => r.line), [3]);
  });
});

describe('the storage-full message', () => {
  it('names the quota, the use and the room left when the browser tells them', () => {
    const m = quotaMessage('QuotaExceededError', { quota: 2_147_483_648, usage: 2_140_000_000 });
    assert.match(m, /storage quota is exhausted/);
    assert.match(m, /gives this site 2\.15 GB of storage; 2\.14 GB is in use, 7\.5 MB left\./);
    assert.doesNotMatch(quotaMessage('QuotaExceededError', undefined), /gives this site/);
  });
});
