import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecordError } from '../../src/ingest/normalizer';
import { atif } from '../../src/ingest/normalizers/atif';
import { openaiChat } from '../../src/ingest/normalizers/openai-chat';
import { ctx, records, run, sample } from './format-helpers';

describe('atif normalizer', () => {
  it('detects by schema_version', () => {
    assert.ok(atif.detect(sample('atif-trajectory.json')) > 0.95);
    assert.equal(atif.detect([{ schema_version: '2.0', steps: [] }]), 0);
    assert.equal(atif.detect(sample('langfuse-trace.json')), 0);
    assert.equal(openaiChat.detect(sample('atif-trajectory.json')), 0);
  });

  it('makes one step per agent step with everything before it as context', () => {
    const rows = run(atif, records('atif-trajectory.json'));
    assert.equal(rows.length, 3);
    assert.deepEqual(rows.map((r) => r.step_id), [0, 1, 2].map((i) => `harbor-8c1e0d2a-hello-world-trial-3:${i}`));
    assert.deepEqual(rows[0].messages.map((m) => m.role), ['system', 'user']);
    assert.deepEqual(rows[1].messages.map((m) => m.role), ['system', 'user', 'assistant', 'tool']);
    assert.equal(rows[1].messages[3].tool_call_id, 'call_0_1');
    assert.deepEqual(rows[2].messages.slice(4).map((m) => [m.role, m.tool_call_id ?? null, m.content]), [
      ['assistant', null, 'Verifying the content.'],
      ['tool', 'call_1_1', 'Hello, world!'],
      ['tool', 'call_1_2', 'Task marked complete.'],
      ['user', null, 'Current terminal state: root@c0ffee:/app#'],
    ]);
    assert.equal(rows[0].prompt_uid, rows[2].prompt_uid);
    assert.deepEqual(rows.map((r) => r.is_last), [false, false, null]);
  });

  it('keeps tool calls, reasoning, token ids and log-probs', () => {
    const [s0, s1, s2] = run(atif, records('atif-trajectory.json'));
    assert.equal(s0.response?.reasoning, 'Simple task; one command suffices.');
    assert.deepEqual(s0.response?.tool_calls?.[0], { id: 'call_0_1', type: 'function', function: { name: 'bash_command', arguments: '{"keystrokes":"echo \'Hello, world!\' > hello.txt\\n","duration":0.1}' } });
    assert.deepEqual(s0.prompt_ids, [151644, 8948, 198]);
    assert.deepEqual(s0.response_ids, [40, 686, 3270, 279]);
    assert.deepEqual(s0.rollout_log_probs, [-0.01, -0.2, -1.5e-5, -0.003]);
    assert.deepEqual(s1.rollout_log_probs, [-0.4, -0.02]);
    assert.equal(s1.response?.tool_calls?.length, 2);
    assert.equal(s1.finish_reason, 'tool_calls');
    assert.equal(s2.finish_reason, 'stop');
    assert.equal(s0.model, 'openai/gpt-5-mini-2025-08-07');
    assert.equal(s1.model, 'openai/gpt-5-mini', 'falls back to agent.model_name');
    assert.equal(s0.agent, 'terminus-2');
    assert.equal(s0.prompt_tokens, 682);
  });

  it('puts the final reward on the last step and keeps secrets out', () => {
    const rows = run(atif, records('atif-trajectory.json'));
    assert.deepEqual(rows.map((r) => r.reward), [null, null, 1]);
    assert.ok(!JSON.stringify(rows).includes('SHOULDNOTLEAK'));
    assert.equal(rows[0].metadata?.schema_version, 'ATIF-v1.2');
  });

  it('rejects a trajectory without agent steps with a clear reason', () => {
    const [rec] = records('atif-no-agent.json');
    assert.throws(() => atif.normalize(rec, ctx, undefined), (e: unknown) => e instanceof RecordError && /no agent steps/.test(e.message));
  });
});
