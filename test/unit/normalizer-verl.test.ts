import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verl } from '../../src/ingest/normalizers/verl';
import { fixtureRecords, runFixture, runNormalizer } from './helpers/formats';

describe('verl normalizer', () => {
  it('reads veRL prompt rows: group ids, channel, reward_model and extra_info kept', () => {
    const rows = runFixture(verl, 'verl-prompts.jsonl');
    assert.equal(rows.length, 4);
    const [gsm0, gsm1, math0, search] = rows;
    assert.match(gsm0.prompt_uid, /^openai\/gsm8k:0:[0-9a-f]{8}$/);
    assert.match(math0.prompt_uid, /^lighteval\/MATH:0:[0-9a-f]{8}$/, 'index is scoped by data source');
    assert.equal(search.prompt_uid, 'b7f3c2e0-0001', 'uid wins over index');
    assert.deepEqual(
      rows.map((r) => r.channel),
      ['train', 'val', 'val', 'train'],
    );
    assert.equal(gsm0.data_source, 'openai/gsm8k');
    assert.equal(gsm0.response, null);
    assert.equal(gsm0.reward, null);
    assert.equal(gsm0.step_index, 0);
    assert.match(gsm0.messages[0].content ?? '', /^Natalia sold clips/);
    assert.equal(gsm1.messages[0].role, 'system');
    assert.deepEqual(JSON.parse(gsm0.metadata?.reward_model ?? ''), { style: 'rule', ground_truth: '72' });
    assert.equal(JSON.parse(gsm0.metadata?.extra_info ?? '').index, 0);
    assert.equal(gsm0.metadata?.ability, 'math');
    assert.deepEqual(JSON.parse(math0.metadata?.reward_model ?? ''), { style: 'rule', ground_truth: '70' }, 'string-encoded JSON kept as text');
    assert.ok(search.metadata?.extra_info?.includes('tools_kwargs'));
    assert.deepEqual(
      rows.map((r) => r.metadata?.ground_truth),
      ['72', '10', '70', '{"target":["Ernest Hemingway"]}'],
      'the reward target, structured ones as JSON text',
    );
  });

  it('answer / ground_truth are the reward target, not the response (issue 16 defect 6)', () => {
    const rows = runNormalizer(verl, [
      { value: { prompt: 'What is 2+2?', answer: '4', data_source: 'toy' }, line: 1, index: 0 },
      { value: { prompt: [{ role: 'user', content: 'Capital of France?' }], ground_truth: 'Paris', response: 'Paris.', reward: 1 }, line: 2, index: 1 },
    ]);
    assert.equal(rows[0].response, null);
    assert.equal(rows[0].metadata?.ground_truth, '4');
    assert.equal(rows[1].response?.content, 'Paris.');
    assert.equal(rows[1].metadata?.ground_truth, 'Paris');
  });

  it('rows that share an index but differ in content are different prompts; rollouts of one row share it', () => {
    const base = { data_source: 'env', prompt: [{ role: 'user', content: 'Solve the maze.' }], agent_name: 'tool_agent' };
    const rows = runNormalizer(verl, [
      { value: { ...base, extra_info: { index: 3, seed: 1 } }, line: 1, index: 0 },
      { value: { ...base, extra_info: { index: 3, seed: 2 } }, line: 2, index: 1 },
      { value: { ...base, extra_info: { index: 3, seed: 1, split: 'train' }, response: 'left', reward: 0 }, line: 3, index: 2 },
    ]);
    assert.notEqual(rows[0].prompt_uid, rows[1].prompt_uid);
    assert.equal(rows[0].prompt_uid, rows[2].prompt_uid);
    assert.match(rows[0].prompt_uid, /^env:3:/);
    assert.equal(rows[0].metadata?.agent_name, 'tool_agent');
  });

  it('reads generic prompt/response/reward rows; same prompt → same group', () => {
    const rows = runFixture(verl, 'rl-generic.jsonl');
    assert.equal(rows.length, 6);
    const [a, b, c, ...many] = rows;
    assert.deepEqual(a.messages, [{ role: 'user', content: 'What is the capital of Australia?' }]);
    assert.equal(a.response_text, 'Canberra.');
    assert.equal(a.reward, 1);
    assert.equal(b.response?.content, 'cba');
    assert.equal(b.reward, 0.5);
    assert.equal(b.prompt_uid, 'rev-1');
    assert.equal(c.reward, 0);
    assert.equal(c.prompt_uid, a.prompt_uid);
    assert.notEqual(c.trajectory_uid, a.trajectory_uid);
    assert.deepEqual(
      many.map((r) => [r.response_text, r.reward, r.prompt_uid]),
      [
        ['hi', 1, 'hi-1'],
        ['hello', 0.5, 'hi-1'],
        ['hey', null, 'hi-1'],
      ],
    );
    assert.equal(new Set(many.map((r) => r.trajectory_uid)).size, 3);
  });

  it('treats Parquet-decoded rows like JSON rows', () => {
    const row = { data_source: 'gsm8k', prompt: [{ role: 'user', content: 'q' }], ability: 'math', reward_model: { style: 'rule', ground_truth: '1' }, extra_info: { index: 5, split: 'train', tags: ['a', 'b'] } };
    const [r] = runNormalizer(verl, [{ value: row, line: 1, index: 0 }]);
    assert.match(r.prompt_uid, /^gsm8k:5:[0-9a-f]{8}$/);
    assert.equal(r.metadata?.ground_truth, '1');
    assert.equal(r.metadata?.extra_info, '{"index":5,"split":"train","tags":["a","b"]}');
  });

  it('detects prompt rows and nothing else', () => {
    assert.ok(verl.detect(fixtureRecords('verl-prompts.jsonl').map((r) => r.value)) > 0.9);
    assert.ok(verl.detect(fixtureRecords('rl-generic.jsonl').map((r) => r.value)) > 0.4);
    assert.equal(verl.detect([{ messages: [{ role: 'user', content: 'x' }] }]), 0);
  });
});
