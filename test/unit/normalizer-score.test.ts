/**
 * scoreSample (src/ingest/normalizers/score.ts), the mean detection score most normalizers return: records
 * a format has no opinion on do not dilute it, and a sample nothing scored is 0, never NaN (NaN would
 * lose every comparison in detection and hide the format). Written to kill mutants StrykerJS found.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { anthropic } from '../../src/ingest/normalizers/anthropic';
import { openaiLog } from '../../src/ingest/normalizers/openai-log';
import { scoreSample } from '../../src/ingest/normalizers/score';

const table: Record<string, number | null> = { good: 0.9, weak: 0.5, none: 0, skip: null };
const by = (v: unknown): number | null => (String(v) in table ? table[String(v)] : 0);

describe('scoreSample', () => {
  it('is the mean over the records that scored, skipping the no-opinion ones', () => {
    assert.equal(scoreSample(['good', 'skip'], by), 0.9, 'a null record does not count as a zero');
    assert.equal(scoreSample(['skip', 'good', 'skip', 'weak'], by), 0.7);
    assert.equal(scoreSample(['good', 'none'], by), 0.45);
  });

  it('is 0 for an empty sample, one nothing scored, and one of zeros', () => {
    assert.equal(scoreSample([], by), 0);
    assert.equal(scoreSample(['skip', 'skip'], by), 0);
    assert.equal(scoreSample(['none', 'none'], by), 0);
  });

  it('in the normalizers: an OpenAI stream whose only lines are [DONE] is no match, a chunk plus [DONE] is a full one', () => {
    assert.equal(openaiLog.detect(['[DONE]']), 0);
    const chunk = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta: { content: 'hi' } }] };
    assert.equal(openaiLog.detect([chunk, '[DONE]']), openaiLog.detect([chunk]));
    assert.ok(openaiLog.detect([chunk, '[DONE]']) > 0.9);
    assert.equal(anthropic.detect([]), 0);
  });
});
