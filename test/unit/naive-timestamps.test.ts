import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { importBytes } from './helpers/real-read';
import { ingestFile } from '../../src/ingest/pipeline';

// a zone far from UTC, so a silent local-time reading would show
process.env.TZ = 'America/Los_Angeles';

const call = (timestamp: string) => ({
  timestamp,
  request: { model: 'claude-haiku-4-5', max_tokens: 64, system: 'Be brief.', messages: [{ role: 'user', content: `ping ${timestamp}` }] },
  response: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-haiku-4-5', content: [{ type: 'text', text: 'pong' }], stop_reason: 'end_turn', usage: { input_tokens: 5, output_tokens: 1 } },
});

describe('timestamps without a zone (issue 16 defect 9)', () => {
  it('keeps them as written (not shifted by the browser zone) and says so on the step', async () => {
    const lines = [call('2026-11-28 14:02:11'), call('2026-11-28T14:02:11.250'), call('2026-11-28T14:02:11Z'), call('2026-11-28T15:02:11+01:00')];
    const { format, steps } = await importBytes(new TextEncoder().encode(`${lines.map((l) => JSON.stringify(l)).join('\n')}\n`));
    assert.equal(format, 'anthropic');
    assert.deepEqual(
      steps.map((s) => s.started_at),
      [Date.UTC(2026, 10, 28, 14, 2, 11), Date.UTC(2026, 10, 28, 14, 2, 11, 250), Date.UTC(2026, 10, 28, 14, 2, 11), Date.UTC(2026, 10, 28, 14, 2, 11)],
    );
    assert.deepEqual(
      steps.map((s) => s.metadata?.time_zone ?? null),
      ['none in source: timestamps kept as written, stored as UTC', 'none in source: timestamps kept as written, stored as UTC', null, null],
    );
  });
});

describe('the import report names zone-less timestamps', () => {
  it('warns with the count of steps whose times had no zone, and stays quiet when every time has one', async () => {
    const sink = {
      beginImport: async () => 1,
      setImportSource: async () => {},
      appendBatch: async () => {},
      commitImport: async () => ({ rowsAdded: 3 }),
      abortImport: async () => {},
    };
    const file = (times: string[]) => new File([`${times.map((t) => JSON.stringify(call(t))).join('\n')}\n`], 'calls.jsonl');
    const naive = await ingestFile(file(['2026-11-28 14:02:11', '2026-11-28T14:03:00', '2026-11-28T14:04:00Z']), sink);
    assert.equal(naive.format, 'anthropic');
    assert.ok(
      naive.warnings.some((w) => /^2 step\(s\) have timestamps without a time zone/.test(w)),
      `warnings: ${JSON.stringify(naive.warnings)}`,
    );
    const zoned = await ingestFile(file(['2026-11-28T14:02:11Z', '2026-11-28T15:02:11+01:00']), sink);
    assert.equal(zoned.warnings.some((w) => /without a time zone/.test(w)), false);
  });
});
