import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { importFixture } from './helpers/real-read';

describe('SWE-agent fidelity (issue 16 defect 4)', () => {
  it('keeps the final submit call that only trajectory[] holds: steps = info.model_stats.api_calls', async () => {
    const { format, steps } = await importFixture('swe-agent-submit.traj');
    assert.equal(format, 'swe-agent');
    assert.equal(steps.length, 3, 'api_calls is 3');
    assert.equal(steps[0].metadata?.api_calls, String(steps.length));
    const last = steps[2];
    assert.equal(last.response?.content, 'The nested matrix is now copied. Submitting.');
    assert.equal(last.metadata?.action, 'submit');
    assert.deepEqual(last.messages.map((m) => m.role), ['system', 'user', 'assistant', 'tool', 'assistant', 'tool'], 'context from the entry query');
    assert.equal(last.trajectory_uid, steps[0].trajectory_uid);
    assert.equal(last.step_index, 2);
    assert.equal(last.metadata?.exit_status, 'submitted', 'trajectory metadata kept on the step with its own');
    assert.equal(last.metadata?.api_calls_without_step, undefined);
    assert.ok(!JSON.stringify(steps).includes('TRAJKEY'), 'replay_config api key not kept');
  });

  it('takes the model from replay_config and invents no data_source', async () => {
    const { steps } = await importFixture('swe-agent-submit.traj');
    for (const s of steps) {
      assert.equal(s.model, 'claude-sonnet-4-20250514');
      assert.equal(s.data_source, null, 'an instance id does not say which dataset');
      assert.equal(s.prompt_uid, 'astropy__astropy-12907');
    }
    const older = await importFixture('swe-agent.traj');
    assert.equal(older.steps[0].model, 'claude-sonnet-4-20250514');
    assert.equal(older.steps[0].data_source, null);
  });

  it('puts mini-swe-agent\'s final output (the submitted diff) on the last step', async () => {
    const { steps } = await importFixture('mini-swe-agent.traj.json');
    assert.match(steps.at(-1)?.metadata?.final_output ?? '', /^diff --git/);
    assert.equal(steps.at(-1)?.metadata?.exit_status, 'Submitted');
    assert.equal(steps[0].metadata?.final_output, undefined);
  });
});
