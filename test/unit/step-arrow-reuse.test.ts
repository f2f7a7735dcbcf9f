import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Table, tableToIPC } from 'apache-arrow';
import { createFinalizeState, finalize } from '../../src/ingest/finalize';
import { openaiChat } from '../../src/ingest/normalizers/openai-chat';
import type { StepRecord } from '../../src/contract/step';
import { stepsToBatch, stepsToIPC } from '../../src/record/step-arrow';

function steps(): StepRecord[] {
  const ctx = { sourceId: 'f'.repeat(64), file: 'chat.jsonl' };
  const fin = createFinalizeState();
  const out: StepRecord[] = [];
  readFileSync('test/fixtures/core/chat.jsonl', 'utf8').split('\n').forEach((line, i) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return;
    }
    const rec = { value, line: i + 1, index: i };
    try {
      out.push(...finalize(openaiChat.normalize(rec, ctx, undefined as never), rec, ctx, fin, { format: 'openai-chat', importId: 3 }));
    } catch {
      // rejected records are the reader's and pipeline's business
    }
  });
  return out;
}

describe('stepsToIPC reuses its builders', () => {
  it('gives the same bytes as fresh builders, batch after batch, with nulls in different places', () => {
    const all = steps();
    assert.ok(all.length > 10);
    const a = all.slice(0, Math.ceil(all.length / 2));
    const b = all.slice(a.length).map((s, i) => (i % 2 ? { ...s, reward: null, model: null, is_last: true, metadata: null } : s));
    for (const rows of [a, b, a, b.slice(0, 3)]) {
      const fresh = tableToIPC(new Table(stepsToBatch(rows)), 'stream');
      assert.deepEqual(stepsToIPC(rows), fresh);
    }
  });
});

describe('Utf8Builder', () => {
  it('repeated values (copied, not encoded again) read back exactly, around nulls, growth and reset', async () => {
    const { makeVector } = await import('apache-arrow');
    const { Utf8Builder } = await import('../../src/util/arrow-build');
    const big = `{"raw":"${'ü€𝄞x'.repeat(40_000)}"}`;
    const values = ['a', 'a', null, 'a', big, big, big, null, big, '', '', 'ü', 'ü', 'b', null, null, 'b', big];
    const b = new Utf8Builder();
    for (const round of [0, 1]) {
      for (const v of values) b.append(v);
      const got = [...makeVector(b.finish())];
      assert.deepEqual(got, values, `round ${round}`);
      b.reset();
    }
  });
});
