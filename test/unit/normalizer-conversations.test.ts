/**
 * Per-episode conversation exports (src/ingest/normalizers/conversations.ts): which records are episodes,
 * where the ids, reward, split and tools come from (top level or the metadata object), and that the
 * fields it reads are not repeated in metadata. Written to kill mutants StrykerJS found.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { conversations } from '../../src/ingest/normalizers/conversations';
import { runNormalizer } from './helpers/formats';
import { openaiChat } from '../../src/ingest/normalizers/openai-chat';
import { sharegpt } from '../../src/ingest/normalizers/sharegpt';
import { sample } from './format-helpers';

const rows = (...values: unknown[]) => runNormalizer(conversations, values.map((value, index) => ({ value, line: index + 1, index })));
const last = (value: unknown) => rows(value).at(-1)!;
const msgs = [
  { role: 'user', content: 'You are at (0,0). Goal (2,2). Move?' },
  { role: 'assistant', content: 'right' },
  { role: 'user', content: 'At (1,0).' },
  { role: 'assistant', content: 'down' },
];
const near = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-9, `${a} ≠ ${b}`);

describe('conversations normalizer', () => {
  it('detect: 0.9 + 0.06 × the share of episodes; each episode key, conversations or messages', () => {
    const ep = { episode_id: 'e1', messages: msgs };
    near(conversations.detect([ep]), 0.96);
    near(conversations.detect([ep, { note: 1 }]), 0.93);
    assert.equal(conversations.detect([]), 0);
    for (const k of ['episode_id', 'episode', 'episode_index']) near(conversations.detect([{ [k]: 3, conversations: msgs }]), 0.96);
    assert.equal(conversations.detect([{ episode_id: 'e', messages: [] }]), 0, 'an empty conversation');
    assert.equal(conversations.detect([{ episode_id: 'e', messages: [...msgs, { from: 'gpt', value: 'x' }] }]), 0, 'one turn without a role');
    assert.equal(conversations.detect([{ episode_id: 'e', messages: [msgs[0], 'junk'] }]), 0);
    assert.equal(conversations.detect([{ episode_id: 'e', messages: 'x' }]), 0);
    assert.equal(conversations.detect(['e']), 0);
  });

  it('ids and reward: episode_id, episode, id; reward, score, return (a zero reward first)', () => {
    assert.equal(last({ episode_id: 'a', episode: 'b', id: 'c', messages: msgs }).trajectory_uid, 'a');
    assert.equal(last({ episode: 'b', id: 'c', messages: msgs }).trajectory_uid, 'b');
    assert.equal(last({ episode_index: 4, id: 'c', messages: msgs }).trajectory_uid, 'c');
    assert.equal(last({ episode_id: 'a', messages: msgs, reward: 0, score: 1 }).reward, 0);
    assert.equal(last({ episode_id: 'a', messages: msgs, score: '0.5', return: 2 }).reward, 0.5);
    assert.equal(last({ episode_id: 'a', messages: msgs, return: 2 }).reward, 2);
    const out = rows({ episode_id: 'a', messages: msgs, reward: 1 });
    assert.deepEqual(out.map((s) => s.reward), [null, 1]);
  });

  it('the metadata object first, then the top level: prompt id, data source, model, agent, split, tools', () => {
    const fromMeta = last({
      episode_id: 'a', messages: msgs, task_id: 'top-task', data_source: 'top-ds', model: 'top-m', agent: 'top-a', split: 'train',
      metadata: { prompt_uid: 'p-1', task_id: 't-1', prompt_id: 'x-1', data_source: 'maze', env: 'grid', model: 'qwen', agent: 'react', split: 'validation', tools: [{ type: 'function', function: { name: 'meta_tool' } }] },
    });
    assert.deepEqual([fromMeta.prompt_uid, fromMeta.data_source, fromMeta.model, fromMeta.agent, fromMeta.channel], ['p-1', 'maze', 'qwen', 'react', 'val']);
    assert.equal(JSON.parse(fromMeta.tools ?? '[]')[0].function.name, 'meta_tool');
    assert.equal(last({ episode_id: 'a', messages: msgs, metadata: { task_id: 't-1', prompt_id: 'x-1' } }).prompt_uid, 't-1');
    assert.equal(last({ episode_id: 'a', messages: msgs, metadata: { prompt_id: 'x-1' }, task_id: 'top' }).prompt_uid, 'x-1');
    assert.equal(last({ episode_id: 'a', messages: msgs, metadata: { env: 'grid' }, data_source: 'top' }).data_source, 'grid');
    const top = last({ episode_id: 'a', messages: msgs, task_id: 'top-task', data_source: 'top-ds', model: 'top-m', agent: 'top-a', split: 'val', tools: [{ type: 'function', function: { name: 'top_tool' } }], metadata: { tools: [{ type: 'function', function: { name: 'meta_tool' } }] } });
    assert.deepEqual([top.prompt_uid, top.data_source, top.model, top.agent, top.channel], ['top-task', 'top-ds', 'top-m', 'top-a', 'val']);
    assert.equal(JSON.parse(top.tools ?? '[]')[0].function.name, 'top_tool', 'the top-level tools first');
    assert.equal(last({ episode_id: 'a', messages: msgs, split: 'test' }).channel, 'train');
    assert.equal(last({ episode_id: 'a', messages: msgs, split: 'val', metadata: { split: 'train' } }).channel, 'train', 'the metadata split first');
    assert.equal(last({ episode_id: 'a', messages: msgs }).tools, null);
  });

  it('metadata: the metadata object and the unread top-level keys, never the fields read, nor null values', () => {
    const r = last({
      episode_id: 'a', episode: 1, episode_index: 2, id: 'c', messages: msgs, reward: 1, score: 1, return: 1, tools: [], worker: 'gpu-3', note: null,
      metadata: { policy_step: 1200, seed: null, api_key: 'sk-live-0123456789abcdefghijklmnop' },
    });
    assert.deepEqual(Object.keys(r.metadata ?? {}).sort(), ['api_key', 'policy_step', 'worker']);
    assert.equal(r.metadata?.policy_step, '1200');
    assert.notEqual(r.metadata?.api_key, 'sk-live-0123456789abcdefghijklmnop', 'credentials redacted');
    assert.equal(last({ episode_id: 'a', conversations: msgs }).metadata, null);
    assert.equal(last({ episode_id: 'a', conversations: msgs, metadata: 'x' }).metadata, null, 'a metadata string is not an object');
  });

  it('content parts are read as loose messages (Anthropic tool blocks become tool messages)', () => {
    const out = rows({
      episode_id: 'a',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'list files' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'tu_1', name: 'ls', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_1', content: 'a.txt' }] },
        { role: 'assistant', content: 'a.txt' },
      ],
    });
    assert.equal(out[0].messages[0].content, 'list files');
    assert.equal(out[0].response?.tool_calls?.[0].function.name, 'ls');
    assert.deepEqual(out[1].messages.map((m) => m.role), ['user', 'assistant', 'tool']);
    assert.equal(out[1].messages[2].tool_call_id, 'tu_1');
  });

  it('a record without a role list is rejected', () => {
    assert.throws(() => rows({ episode_id: 'a', messages: [] }), /no "conversations" or "messages"/);
    assert.throws(() => rows('text'), /no "conversations" or "messages"/);
    assert.equal(rows({ messages: msgs }).length, 2, 'normalize reads a row without an episode key');
  });
});

describe('conversations normalizer: more shapes', () => {
  it('claims episode-keyed exports over openai-chat and sharegpt, and nothing else', () => {
    const s = sample('episode-conversations.jsonl');
    assert.ok(conversations.detect(s) > openaiChat.detect(s));
    assert.ok(conversations.detect(s) > sharegpt.detect(s));
    assert.equal(conversations.detect([{ messages: [{ role: 'user', content: 'hi' }] }]), 0);
    assert.equal(conversations.detect([{ conversations: [{ from: 'human', value: 'hi' }] }]), 0);
  });
});
