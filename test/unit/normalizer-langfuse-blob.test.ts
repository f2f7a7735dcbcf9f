import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detectFormat } from '../../src/ingest/detect';
import { langfuseBlob } from '../../src/ingest/normalizers/langfuse-blob';
import { fixtureRecords, runFixture } from './helpers/formats';
import { importWith } from './helpers/ingest-files';

const TA = '7f3c2a91e4b84d5f9a1c6e2b8d0f4a37';
const TB = '0b9e4d27c1a64f3e8b5d2a9c7e1f6b04';

describe('langfuse-blob normalizer', () => {
  it('wins detection for the observations, scores and traces tables', () => {
    for (const f of ['langfuse-blob-observations.jsonl', 'langfuse-blob-scores.jsonl', 'langfuse-blob-traces.jsonl']) {
      const d = detectFormat(fixtureRecords(f).map((r) => r.value));
      assert.equal(d.normalizer.id, 'langfuse-blob', `${f}: ${JSON.stringify(d.scores)}`);
    }
    // the API-shaped export (camelCase) stays the langfuse format's
    assert.equal(detectFormat(fixtureRecords('langfuse-observations.jsonl').map((r) => r.value)).normalizer.id, 'langfuse');
  });

  it('every GENERATION a step of its trace, in start order; spans and tools are not steps', () => {
    const rows = runFixture(langfuseBlob, 'langfuse-blob-observations.jsonl');
    assert.equal(rows.length, 3);
    const a = rows.filter((r) => r.trajectory_uid === TA);
    assert.deepEqual(
      a.map((r) => [r.step_index, r.metadata?.observation_id]),
      [
        [0, 'b2e1d4f3c5a67b89'],
        [1, 'd4a3f6b5e7c89d01'],
      ],
    );
    assert.deepEqual(a[0].response?.tool_calls?.[0], { id: 'call_Wq8Zr3Kd', type: 'function', function: { name: 'get_invoice', arguments: '{"invoice_id":"INV-2291"}' } });
    assert.equal(JSON.parse(a[0].tools ?? '[]')[0].function.name, 'get_invoice');
    assert.deepEqual(
      a[1].messages.map((m) => m.role),
      ['system', 'user', 'assistant', 'tool'],
    );
    assert.equal(a[1].messages[3].tool_call_id, 'call_Wq8Zr3Kd');
    assert.equal(a[0].model, 'gpt-4o-2024-08-06');
    assert.deepEqual([a[0].prompt_tokens, a[0].completion_tokens], [142, 19]);
    // ClickHouse times carry no zone; Langfuse writes UTC
    assert.equal(a[0].started_at, Date.parse('2025-03-04T10:15:02.013Z'));
    assert.equal(a[0].ttft_ms, 828);
    assert.equal(a[0].metadata?.start_time, '2025-03-04 10:15:02.013', 'the time as written is kept');
    assert.equal(a[0].metadata?.prompt_name, 'billing-system');
    const b = rows.find((r) => r.trajectory_uid === TB);
    assert.equal(b?.status, 'error');
    assert.match(b?.error ?? '', /context_length_exceeded/);
    assert.equal(b?.response, null);
    assert.ok(rows.every((r) => r.reward === null), 'no scores file: no reward invented');
  });

  it('scores and traces dropped with the observations: rewards on their step, trace details in metadata', async () => {
    const { report, rows } = await importWith('langfuse-blob-observations.jsonl', ['langfuse-blob-scores.jsonl', 'langfuse-blob-traces.jsonl']);
    assert.equal(report.format, 'langfuse-blob');
    assert.equal(rows.length, 3);
    const a = rows.filter((r) => r.trajectory_uid === TA).sort((x, y) => Number(x.step_index) - Number(y.step_index));
    assert.deepEqual(
      a.map((r) => r.reward),
      [0, 1],
      'the BOOLEAN score on the first generation, the NUMERIC trace score on the last; the CATEGORICAL one is no reward',
    );
    assert.equal(a[1].metadata?.session_id, 'chat-2025-03-04-88');
    assert.equal(a[1].metadata?.trace_name, 'support-agent');
    assert.equal(JSON.parse(a[1].metadata?.scores ?? '[]').length, 3);
    assert.equal(rows.find((r) => r.trajectory_uid === TB)?.reward, null);
    assert.ok(report.warnings.some((w) => /scores and trace details read from langfuse-blob-scores\.jsonl, langfuse-blob-traces\.jsonl/.test(w)), report.warnings.join(' | '));
  });

  it('a scores file alone makes no step and says why', async () => {
    const { rows, report } = await importWith('langfuse-blob-scores.jsonl', []);
    assert.equal(rows.length, 0);
    assert.ok(report.warnings.some((w) => /hold no LLM call/.test(w)), report.warnings.join(' | '));
  });
});
