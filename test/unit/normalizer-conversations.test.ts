import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { conversations } from '../../src/ingest/normalizers/conversations';
import { openaiChat } from '../../src/ingest/normalizers/openai-chat';
import { sharegpt } from '../../src/ingest/normalizers/sharegpt';
import { records, run, sample } from './format-helpers';

describe('conversations normalizer', () => {
  it('claims episode-keyed exports over openai-chat and sharegpt, and nothing else', () => {
    const s = sample('episode-conversations.jsonl');
    assert.ok(conversations.detect(s) > openaiChat.detect(s));
    assert.ok(conversations.detect(s) > sharegpt.detect(s));
    assert.equal(conversations.detect([{ messages: [{ role: 'user', content: 'hi' }] }]), 0);
    assert.equal(conversations.detect([{ conversations: [{ from: 'human', value: 'hi' }] }]), 0);
    assert.equal(conversations.detect(sample('tau-bench-results.json')), 0);
  });

  it('makes a step per assistant turn with the episode as trajectory', () => {
    const rows = run(conversations, records('episode-conversations.jsonl'));
    const ep = rows.filter((r) => r.trajectory_uid === 'ep-000117');
    assert.deepEqual(ep.map((r) => r.step_id), ['ep-000117:0', 'ep-000117:1', 'ep-000117:2']);
    assert.deepEqual(ep.map((r) => r.reward), [null, null, 1]);
    assert.equal(ep[2].messages.length, 6);
    assert.equal(ep[0].prompt_uid, 'maze-seed-42');
    assert.equal(ep[0].data_source, 'maze-3x3');
    assert.equal(ep[0].model, 'qwen2.5-7b-instruct');
    assert.equal(ep[0].metadata?.policy_step, '1200');
  });

  it('reads messages with content parts, string scores, val split and extra keys', () => {
    const rows = run(conversations, records('episode-conversations.jsonl')).filter((r) => r.trajectory_uid === 'ep-000118');
    assert.equal(rows.length, 1);
    assert.equal(rows[0].response?.content, 'up');
    assert.equal(rows[0].reward, 0);
    assert.equal(rows[0].channel, 'val');
    assert.equal(rows[0].metadata?.worker, 'gpu-3');
    assert.equal(rows[0].prompt_uid, 'maze-seed-42');
  });
});
