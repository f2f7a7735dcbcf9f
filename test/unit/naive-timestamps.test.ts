import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { importBytes } from './helpers/real-read';

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
