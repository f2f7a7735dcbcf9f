import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openaiChat } from '../../src/ingest/normalizers/openai-chat';
import { tauBench } from '../../src/ingest/normalizers/tau-bench';
import { records, run, sample } from './format-helpers';

describe('tau-bench normalizer', () => {
  it('detects result lists', () => {
    assert.ok(tauBench.detect(sample('tau-bench-results.json')) > 0.9);
    assert.equal(tauBench.detect(sample('episode-conversations.jsonl')), 0);
    assert.equal(openaiChat.detect(sample('tau-bench-results.json')), 0);
  });

  it('makes one trajectory per result with the reward on its last step', () => {
    const rows = run(tauBench, records('tau-bench-results.json'));
    const first = rows.filter((r) => r.source_line === 2);
    assert.equal(first.length, 2);
    assert.deepEqual(first.map((r) => r.reward), [null, 1]);
    assert.equal(first[0].response?.tool_calls?.[0].function.name, 'find_user_id_by_name_zip');
    assert.equal(first[0].finish_reason, 'tool_calls');
    assert.equal(first[1].messages.at(-1)?.tool_call_id, 'call_a1');
    assert.equal(first[1].channel, 'train');
    assert.equal(first[1].metadata?.trial, '0');
  });

  // source_line is the line where the result's element starts (2, 71, 128), as the reader numbers it
  it('groups trials of one task by prompt_uid', () => {
    const rows = run(tauBench, records('tau-bench-results.json'));
    const trial0 = rows.find((r) => r.source_line === 2)!;
    const trial1 = rows.find((r) => r.source_line === 71)!;
    assert.equal(trial0.prompt_uid, trial1.prompt_uid);
    assert.notEqual(trial0.trajectory_uid, trial1.trajectory_uid);
    assert.equal(trial1.reward, null);
    assert.equal(rows.filter((r) => r.source_line === 71).at(-1)?.reward, 0);
  });

  it('reports an errored run with an empty traj as one error step', () => {
    const rows = run(tauBench, records('tau-bench-results.json')).filter((r) => r.source_line === 128);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].status, 'error');
    assert.match(rows[0].error ?? '', /RateLimitError/);
    assert.deepEqual(rows[0].messages, []);
    assert.equal(rows[0].reward, 0);
    assert.equal(rows[0].prompt_uid, 'tau:7');
  });
});
