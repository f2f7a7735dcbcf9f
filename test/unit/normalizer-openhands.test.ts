import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openhands } from '../../src/ingest/normalizers/openhands';
import { sweAgent } from '../../src/ingest/normalizers/swe-agent';
import { records, run, sample } from './format-helpers';

describe('openhands normalizer', () => {
  it('detects event streams and evaluation outputs', () => {
    assert.ok(openhands.detect(sample('openhands-events.json')) > 0.9);
    assert.ok(openhands.detect(sample('openhands-eval-output.jsonl')) > 0.9);
    assert.equal(openhands.detect(sample('swe-agent.traj')), 0);
    assert.equal(sweAgent.detect(sample('openhands-events.json')), 0);
  });

  it('makes one step per model response, even when it made several actions', () => {
    const rows = run(openhands, records('openhands-events.json'));
    assert.equal(rows.length, 3);
    assert.deepEqual(rows.map((r) => r.metadata?.model_response_id), ['chatcmpl-resp-1', 'chatcmpl-resp-2', 'chatcmpl-resp-3']);
    assert.equal(rows[0].response?.tool_calls?.length, 2);
    assert.equal(rows[0].response?.content, 'Let me look around first.');
    assert.equal(rows[0].prompt_tokens, 5210);
    assert.equal(rows[0].model, 'litellm_proxy/claude-sonnet-4-20250514');
    assert.ok(rows[0].tools?.includes('execute_bash'));
    assert.deepEqual(rows.map((r) => r.step_index), [0, 1, 2]);
    assert.equal(new Set(rows.map((r) => r.trajectory_uid)).size, 1);
  });

  it('rebuilds context from system, user messages, responses and tool observations', () => {
    const [s0, s1, s2] = run(openhands, records('openhands-events.json'));
    assert.deepEqual(s0.messages.map((m) => m.role), ['system', 'user']);
    assert.deepEqual(s1.messages.map((m) => [m.role, m.tool_call_id ?? null]), [
      ['system', null],
      ['user', null],
      ['assistant', null],
      ['tool', 'toolu_A1'],
      ['tool', 'toolu_A2'],
    ]);
    assert.equal(s1.messages[4].content, 'def add(a, b):\n    return a - b\n');
    assert.deepEqual(s1.response?.tool_calls?.[0].function, { name: 'str_replace_editor', arguments: '{"path":"/workspace/app.py","command":"str_replace","old_str":"return a - b","new_str":"return a + b","thought":"The bug is the minus sign."}' }, 'rebuilt from the action when the model response was not kept');
    assert.deepEqual(s2.messages.slice(5).map((m) => m.role), ['assistant', 'tool', 'user']);
    assert.equal(s2.response?.tool_calls?.[0].function.name, 'finish');
    assert.ok(!JSON.stringify(s1.raw).includes('REALKEY') && s2.raw?.includes('finish'), 'raw is the action event of the step');
  });

  it('reads evaluation outputs: instance as prompt group, resolved as reward', () => {
    const rows = run(openhands, records('openhands-eval-output.jsonl'));
    assert.equal(rows.length, 2);
    assert.equal(rows[0].prompt_uid, 'django__django-11099');
    assert.deepEqual(rows.map((r) => r.reward), [null, 1]);
    assert.equal(rows[0].agent, 'CodeActAgent');
    assert.equal(rows[0].data_source, 'princeton-nlp/SWE-bench_Verified');
    assert.ok(!JSON.stringify(rows).includes('REALKEY'));
  });
});
