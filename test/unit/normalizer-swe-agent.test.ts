import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openaiChat } from '../../src/ingest/normalizers/openai-chat';
import { sweAgent } from '../../src/ingest/normalizers/swe-agent';
import { records, run, sample } from './format-helpers';

describe('swe-agent normalizer', () => {
  it('detects .traj files, mini-swe-agent trajectories and message arrays', () => {
    assert.ok(sweAgent.detect(sample('swe-agent.traj')) > 0.9);
    assert.ok(sweAgent.detect(sample('mini-swe-agent.traj.json')) > 0.9);
    assert.ok(sweAgent.detect(sample('mini-swe-agent-messages.json')) >= 0.7);
    assert.equal(sweAgent.detect([{ role: 'user', content: 'hi', weird: 1 }]), 0);
    assert.equal(sweAgent.detect(sample('atif-trajectory.json')), 0);
    assert.equal(openaiChat.detect(sample('swe-agent.traj')), 0);
  });

  it('makes one step per real assistant turn of history; demonstrations are context, not steps', () => {
    const rows = run(sweAgent, records('swe-agent.traj'));
    assert.equal(rows.length, 2);
    assert.deepEqual(rows[0].messages.map((m) => m.role), ['system', 'user', 'assistant', 'user']);
    assert.equal(rows[0].response?.tool_calls?.[0].function.name, 'str_replace_editor');
    assert.equal(rows[0].finish_reason, 'tool_calls');
    assert.equal(rows[1].messages[5].role, 'tool');
    assert.equal(rows[1].messages[5].tool_call_id, 'toolu_01Mx');
    assert.equal(rows[0].trajectory_uid, rows[1].trajectory_uid);
    assert.deepEqual(rows.map((r) => r.step_index), [0, 1]);
  });

  it('groups runs by instance, takes reward from info and keeps stats in metadata', () => {
    const rows = run(sweAgent, records('swe-agent.traj'));
    assert.equal(rows[0].prompt_uid, 'astropy__astropy-13033');
    assert.deepEqual(rows.map((r) => r.reward), [null, 1]);
    assert.equal(rows[1].metadata?.exit_status, 'submitted');
    assert.equal(rows[1].metadata?.tokens_sent, '48211');
    assert.equal(rows[1].agent, 'swe-agent');
    assert.ok(JSON.parse(rows[0].raw ?? '{}').action.startsWith('str_replace_editor'), 'raw is the trajectory entry of the step');
    assert.ok(!JSON.stringify(rows).includes('REPLAYKEY'));
  });

  it('reads mini-swe-agent trajectories', () => {
    const rows = run(sweAgent, records('mini-swe-agent.traj.json'));
    assert.equal(rows.length, 3);
    assert.equal(rows[2].messages.length, 6);
    assert.match(rows[0].response?.content ?? '', /grep -rn/);
    assert.equal(rows[0].model, 'anthropic/claude-sonnet-4-5-20250929');
    assert.equal(rows[0].agent, 'mini-swe-agent');
    assert.equal(rows[2].metadata?.exit_status, 'Submitted');
  });

  it('joins a plain message array (one record per element) into one trajectory at the end', () => {
    const rows = run(sweAgent, records('mini-swe-agent-messages.json'));
    assert.equal(rows.length, 2);
    assert.equal(rows[0].trajectory_uid, rows[1].trajectory_uid);
    assert.equal(rows[1].messages.length, 4);
    assert.equal(rows[1].source_line, 18, 'line where the assistant message starts');
    assert.equal(rows[1].is_last, null);
  });
});
