/**
 * veRL / RL prompt rows (src/ingest/normalizers/verl.ts): the detection ladder, prompts as text, message
 * lists or one message, each response key and `responses` rollouts with per-rollout rewards, the split as
 * channel, the reward target in metadata and the prompt group id. Written to kill mutants StrykerJS found.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verl } from '../../src/ingest/normalizers/verl';
import { hash64 } from '../../src/util/hash';
import type { TrajectoryDraft } from '../../src/contract/step';
import { ctx, runNormalizer } from './helpers/formats';

const drafts = (value: unknown): TrajectoryDraft[] => verl.normalize({ value, line: 1, index: 0 }, ctx, undefined as never);
const one = (value: unknown) => {
  const [t] = drafts(value);
  return { t, s: t.steps[0], c: t.common ?? {} };
};
const prompt = [{ role: 'user', content: 'What is 6 × 7?' }];

describe('verl normalizer', () => {
  it('detect: 0.95 for veRL rows, 0.75 prompt+response+reward, 0.5 prompt+response, 0.3 a prompt alone', () => {
    assert.equal(verl.detect([{ prompt, reward_model: {} }]), 0.95);
    assert.equal(verl.detect([{ prompt: 'q', ability: 'math' }]), 0.95);
    assert.equal(verl.detect([{ prompt, data_source: 'gsm8k' }]), 0.95);
    assert.equal(verl.detect([{ prompt: JSON.stringify(prompt), extra_info: {} }]), 0.95, 'a message list as JSON text');
    assert.equal(verl.detect([{ prompt: 'q', data_source: 'gsm8k' }]), 0.3, 'a text prompt with a data source is not enough');
    assert.equal(verl.detect([{ prompt: 'q', response: 'a', reward: 1 }]), 0.75);
    assert.equal(verl.detect([{ prompt: 'q', responses: ['a'], score: 1 }]), 0.75);
    assert.equal(verl.detect([{ prompt: 'q', generation: 'a' }]), 0.5);
    assert.equal(verl.detect([{ prompt: 'q', response: null, reward: 1 }]), 0.3, 'a null response is none');
    assert.equal(verl.detect([{ prompt: 'q' }]), 0.3);
    assert.equal(verl.detect([{ prompt: 5 }, { question: 'q' }, 'q']), 0);
    assert.equal(verl.detect([{ prompt: 'q' }, { prompt: 'q', reward_model: {} }]), 0.625);
    assert.equal(verl.detect([]), 0);
    assert.equal(verl.detect([null, { prompt: 'q' }]), 0.15, 'a null line scores 0');
    assert.equal(verl.detect([{ prompt }]), 0.3, 'a message list alone is no veRL row');
  });

  it('prompts: text, a list of role messages, one message object; anything else is rejected', () => {
    assert.deepEqual(one({ prompt: 'q' }).s.messages, [{ role: 'user', content: 'q' }]);
    assert.deepEqual(one({ prompt: { role: 'system', content: 'sys' } }).s.messages.map((m) => m.role), ['system']);
    assert.throws(() => drafts({ prompt: [{ role: 'user', content: 'q' }, { content: 'no role' }] }), /"prompt" is neither/);
    assert.throws(() => drafts({ prompt: { content: 'no role' } }), /"prompt" is neither/);
    assert.throws(() => drafts('q'), /expected an object/);
  });

  it('the response: each key in order, text, a message, the last message of a list, other values as text', () => {
    for (const k of ['response', 'completion', 'output', 'generation']) assert.equal(one({ prompt: 'q', [k]: '42' }).s.response?.content, '42', k);
    assert.equal(one({ prompt: 'q', response: null, completion: 'c', output: 'o' }).s.response?.content, 'c');
    assert.equal(one({ prompt: 'q', output: '{"content":"as json"}' }).s.response?.content, '{"content":"as json"}', 'a text response stays text');
    assert.deepEqual(one({ prompt: 'q', response: { content: 'obj' } }).s.response, { role: 'assistant', content: 'obj' });
    assert.equal(one({ prompt: 'q', response: [{ role: 'assistant', content: 'first' }, 'x', { content: 'last' }] }).s.response?.content, 'last');
    assert.equal(one({ prompt: 'q', response: ['x'] }).s.response, null);
    assert.deepEqual(one({ prompt: 'q', response: 42 }).s.response, { role: 'assistant', content: '42' });
    assert.equal(one({ prompt: 'q' }).s.response, null);
    const three = one({ prompt: 'q', response: [{ role: 'assistant', content: 'a' }, { role: 'assistant', content: 'b' }, { content: 'c' }] }).s.response;
    assert.deepEqual([three?.role, three?.content], ['assistant', 'c'], 'the last of three, a role-less one is the assistant');
    assert.deepEqual(drafts({ prompt: 'q', responses: ['a', null] }).map((t) => t.steps[0].response?.content ?? null), ['a', null], 'a null rollout has no response');
    assert.equal(drafts({ prompt: 'q', responses: ['a', null] })[1].steps[0].response, null);
  });

  it('rollouts: one trajectory per response, the reward per rollout from rewards or scores, else the row reward', () => {
    const r = drafts({ prompt: 'q', responses: ['a', 'b'], rewards: [1, '0'], reward: 0.5 });
    assert.deepEqual(r.map((t) => [t.steps[0].response?.content, t.steps[0].reward]), [['a', 1], ['b', 0]]);
    assert.deepEqual(drafts({ prompt: 'q', responses: ['a', 'b'], scores: [0.25] }).map((t) => t.steps[0].reward), [0.25, null]);
    assert.deepEqual(drafts({ prompt: 'q', responses: ['a'], score: 1 }).map((t) => t.steps[0].reward), [1]);
    assert.equal(one({ prompt: 'q', reward: 0, score: 1 }).s.reward, 0);
    assert.equal(r[0].prompt_uid, r[1].prompt_uid);
  });

  it('channel from extra_info.split; metadata: the extra fields and the reward target, nothing when neither', () => {
    const ch = (split: unknown) => one({ prompt: 'q', extra_info: { split } }).c.channel;
    assert.deepEqual(['train', 'Training', 'VAL', 'valid', 'validation', 'dev', 'test', 'eval', 'holdout', 5].map(ch), ['train', 'train', 'val', 'val', 'val', 'val', 'val', 'val', 'train', 'train']);
    assert.equal(one({ prompt: 'q', extra_info: JSON.stringify({ split: 'test' }) }).c.channel, 'val');
    assert.equal(one({ prompt: 'q' }).c.metadata, null);
    assert.deepEqual(one({ prompt: 'q', reward_model: { style: 'rule', ground_truth: 42 } }).c.metadata, { reward_model: '{"style":"rule","ground_truth":42}', ground_truth: '42', reward_style: 'rule' });
    assert.deepEqual(one({ prompt: 'q', reward_model: '{"ground_truth":"a"}', ground_truth: 'b', answer: 'c' }).c.metadata?.ground_truth, 'a');
    assert.equal(one({ prompt: 'q', ground_truth: 'b', answer: 'c' }).c.metadata?.ground_truth, 'b');
    assert.deepEqual(one({ prompt: 'q', answer: 'c' }).c.metadata, { answer: 'c', ground_truth: 'c' });
    assert.deepEqual(one({ prompt: 'q', answer: null }).c.metadata, { answer: 'null' });
    assert.deepEqual(drafts({ prompt: 'q', responses: [] }), [], 'an empty rollout list makes no trajectory');
    const kept = one({ prompt: 'q', data_source: 'd', uid: 'u', index: 1, reward: 1, score: 1, rewards: [1], scores: [1], model: 'm', responses: ['x'], response: 'r', completion: 'c', output: 'o', generation: 'g', level: 3 });
    assert.deepEqual(kept.c.metadata, { level: '3' });
    assert.deepEqual([kept.c.data_source, kept.c.model], ['d', 'm']);
  });

  it('prompt group: uid, extra uid, extra prompt_uid; else the index scoped by data source and content; else none', () => {
    assert.equal(one({ prompt: 'q', uid: 'u1', extra_info: { uid: 'u2', prompt_uid: 'u3' } }).t.prompt_uid, 'u1');
    assert.equal(one({ prompt: 'q', extra_info: { uid: 'u2', prompt_uid: 'u3' } }).t.prompt_uid, 'u2');
    assert.equal(one({ prompt: 'q', extra_info: { prompt_uid: 'u3' } }).t.prompt_uid, 'u3');
    assert.equal(one({ prompt: 'q' }).t.prompt_uid, null);
    const g = (v: Record<string, unknown>) => one({ prompt: 'q', ...v }).t.prompt_uid ?? '';
    assert.match(g({ data_source: 'gsm8k', extra_info: { index: 3 } }), /^gsm8k:3:[0-9a-f]{8}$/);
    assert.match(g({ index: 3 }), /^3:[0-9a-f]{8}$/);
    assert.equal(g({ extra_info: { index: 3 }, index: 9 }).split(':')[0], '3', 'the extra index first');
    assert.equal(g({ extra_info: { index: 3, split: 'train' } }), g({ extra_info: { index: 3, split: 'test' } }), 'the split says where a row sits, not what it asks');
    assert.notEqual(g({ extra_info: { index: 3, seed: 1 } }), g({ extra_info: { index: 3, seed: 2 } }));
    for (const k of ['reward_model', 'ground_truth', 'answer', 'environment_context', 'agent_name', 'tools_kwargs', 'interaction_kwargs']) {
      assert.notEqual(g({ index: 3, [k]: 'a' }), g({ index: 3, [k]: 'b' }), k);
    }
    assert.equal(g({ index: 3, ground_truth: '{"x":1}' }), g({ index: 3, ground_truth: { x: 1 } }), 'JSON text and the value are one target');
    const content = (ex: Record<string, unknown>, own: Record<string, unknown> = {}) => hash64(JSON.stringify(['q', own, ex])).slice(0, 8);
    assert.equal(g({ extra_info: { index: 3, split: 'train', uid: '', prompt_uid: '', seed: 1 } }), `3:${content({ seed: 1 })}`, 'the hash leaves out where the row sits');
    assert.equal(g({ index: 3, answer: 'c' }), `3:${content({}, { answer: 'c' })}`);
    assert.equal(g({ index: 3, response: 'a', reward: 1 }), g({ index: 3, response: 'b', reward: 0 }), 'rollouts of one prompt share it');
  });
});

describe('verl normalizer: more shapes', () => {
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

  it('treats Parquet-decoded rows like JSON rows', () => {
    const row = { data_source: 'gsm8k', prompt: [{ role: 'user', content: 'q' }], ability: 'math', reward_model: { style: 'rule', ground_truth: '1' }, extra_info: { index: 5, split: 'train', tags: ['a', 'b'] } };
    const [r] = runNormalizer(verl, [{ value: row, line: 1, index: 0 }]);
    assert.match(r.prompt_uid, /^gsm8k:5:[0-9a-f]{8}$/);
    assert.equal(r.metadata?.ground_truth, '1');
    assert.equal(r.metadata?.extra_info, '{"index":5,"split":"train","tags":["a","b"]}');
  });

  it('detects prompt rows and nothing else', () => {
    assert.equal(verl.detect([{ messages: [{ role: 'user', content: 'x' }] }]), 0);
  });
});
