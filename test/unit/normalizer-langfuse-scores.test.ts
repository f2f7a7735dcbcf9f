import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { importFixture } from './helpers/real-read';

describe('Langfuse scores and corrections (issue 16 defect 9)', () => {
  it('puts an observation score on its step, the trace score on the last step, and no correction or category as reward', async () => {
    const { format, steps } = await importFixture('langfuse-corrections.json');
    assert.equal(format, 'langfuse');
    assert.equal(steps.length, 2);
    assert.equal(steps[0].reward, 0.8, 'helpfulness scored on the first generation');
    assert.equal(steps[1].reward, 0, 'the trace-level correctness, not the CORRECTION score value nor the category');
  });

  it('keeps the corrected output as a curation note on the corrected step, and the original response', async () => {
    const { steps } = await importFixture('langfuse-corrections.json');
    assert.equal(steps[1].metadata?.corrected_output, 'No. Worn items cannot be returned; unworn shoes can be returned within 60 days.');
    assert.equal(steps[1].response?.content, 'Yes, worn items can be returned.');
    assert.equal(steps[0].metadata?.corrected_output, undefined);
    const scores = JSON.parse(steps[1].metadata?.scores ?? '[]') as { name: string; dataType: string }[];
    assert.deepEqual(scores.map((s) => s.dataType), ['NUMERIC', 'BOOLEAN', 'CORRECTION', 'CATEGORICAL']);
    assert.equal(steps[0].provider, 'openai', 'from the model name');
  });
});
