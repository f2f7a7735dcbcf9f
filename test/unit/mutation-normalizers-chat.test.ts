/**
 * The chat-shaped normalizers users import most (src/ingest/normalizers/openai-chat.ts, sharegpt.ts) on
 * the rows OpenAI fine-tuning files, LLaMA-Factory and ShareGPT dumps hold: detection scores (they decide
 * ties against other formats), ids, rewards, tools, metadata, container shapes. Written to kill mutants
 * StrykerJS found.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openaiChat } from '../../src/ingest/normalizers/openai-chat';
import { SYNTHETIC_ID_PREFIX, sharegpt, shareGptMessages } from '../../src/ingest/normalizers/sharegpt';
import { runNormalizer } from './helpers/formats';

const rows = (n: typeof openaiChat | typeof sharegpt, ...values: unknown[]) => runNormalizer(n, values.map((value, index) => ({ value, line: index + 1, index })));
const u = (content: string) => ({ role: 'user', content });
const a = (content: string) => ({ role: 'assistant', content });

describe('openai-chat normalizer', () => {
  it('detect: 0.5 + 0.4 × the share of chat rows; request logs, empty or role-less messages are not chat rows', () => {
    const chat = { messages: [u('hi'), a('hello')] };
    assert.equal(openaiChat.detect([]), 0);
    assert.equal(openaiChat.detect([chat]), 0.9);
    assert.equal(openaiChat.detect([chat, { x: 1 }]), 0.7);
    assert.equal(openaiChat.detect([{ x: 1 }]), 0);
    for (const bad of [{ messages: [] }, { messages: 'x' }, { messages: [u('x')], request: {} }, { messages: [u('x')], response: {} }, { messages: [{ role: 1, content: 'x' }] }, { messages: [{ role: 'user' }] }, { messages: [5] }, 'x']) {
      assert.equal(openaiChat.detect([bad]), 0, JSON.stringify(bad));
    }
    assert.equal(openaiChat.detect([{ messages: [u('q'), { role: 'assistant', tool_calls: [] }] }]), 0.9);
    assert.equal(openaiChat.detect([{ messages: [u('q'), { role: 'assistant', function_call: {} }] }]), 0.9);
  });

  it('ids: session_id, then conversation_id, then id; uid is the prompt id; score is the reward when no reward', () => {
    const msgs = [u('q'), a('x')];
    assert.equal(rows(openaiChat, { messages: msgs, session_id: 's1', conversation_id: 'c1', id: 'i1' })[0].trajectory_uid, 's1');
    assert.equal(rows(openaiChat, { messages: msgs, conversation_id: 'c1', id: 'i1' })[0].trajectory_uid, 'c1');
    const r = rows(openaiChat, { messages: msgs, id: 'i1', uid: 'prompt-7', score: 0.25, model: 'gpt-4o', data_source: 'gsm8k', extra: 'kept' })[0];
    assert.deepEqual([r.trajectory_uid, r.prompt_uid, r.reward, r.model, r.data_source], ['i1', 'prompt-7', 0.25, 'gpt-4o', 'gsm8k']);
    assert.deepEqual(r.metadata, { extra: 'kept' }, 'own fields are not repeated in metadata');
    assert.equal(rows(openaiChat, { messages: msgs, reward: 0, score: 1 })[0].reward, 0, 'a zero reward is a reward');
  });

  it('every own field is read, none repeated in metadata; one malformed message makes the row no chat row', () => {
    const r = rows(openaiChat, {
      messages: [u('q'), a('x')], tools: [{ type: 'function', function: { name: 'f' } }], functions: [{ name: 'g' }], session_id: 's', conversation_id: 'c', id: 'i',
      reward: 1, score: 0, model: 'm', data_source: 'd', uid: 'p', agent: 'ag', split: 'train',
    })[0];
    assert.deepEqual(r.metadata, { split: 'train' });
    assert.equal(openaiChat.detect([{ messages: [u('q'), { role: 'assistant' }] }]), 0);
  });

  it('legacy functions become tools; a row without messages is rejected with its reason', () => {
    const r = rows(openaiChat, { messages: [u('q'), { role: 'assistant', content: null, function_call: { name: 'f', arguments: '{}' } }], functions: [{ name: 'f', parameters: {} }] })[0];
    assert.equal(r.tools, '[{"type":"function","function":{"name":"f","parameters":{}}}]');
    assert.throws(() => rows(openaiChat, { prompt: 'x' }), /no "messages" array/);
  });
});

describe('sharegpt normalizer', () => {
  it('detect: 0.95 for from/value turns, 0.7 for role/content turns, averaged over the sample', () => {
    const fv = { conversations: [{ from: 'human', value: 'q' }, { from: 'gpt', value: 'a' }] };
    const rc = { conversations: [u('q'), a('a')] };
    assert.equal(sharegpt.detect([]), 0);
    assert.equal(sharegpt.detect([fv]), 0.95);
    assert.equal(sharegpt.detect([rc]), 0.7);
    assert.equal(sharegpt.detect([fv, { other: 1 }]), 0.475);
    assert.equal(sharegpt.detect([{ conversations: [] }]), 0);
    assert.equal(sharegpt.detect([{ conversations: [{ from: 'human' }] }]), 0, 'a turn needs a value');
    assert.equal(sharegpt.detect([{ conversations: [{ role: 'user' }] }]), 0, 'a turn needs content');
    assert.equal(sharegpt.detect([{ conversation: JSON.stringify(fv.conversations) }]), 0.95, 'the singular key, as JSON text');
  });

  it('containers: a list of conversations, turns as a list of lists, and each container key', () => {
    const conv = (id: string) => ({ id, conversations: [{ from: 'human', value: `q ${id}` }, { from: 'gpt', value: 'a' }] });
    assert.deepEqual(rows(sharegpt, [conv('x'), conv('y')]).map((r) => r.trajectory_uid), ['x', 'y']);
    const nested = rows(sharegpt, { conversations: [[{ from: 'human', value: 'q1' }, { from: 'gpt', value: 'a1' }], [{ from: 'human', value: 'q2' }, { from: 'gpt', value: 'a2' }]] });
    assert.deepEqual(nested.map((r) => r.messages[0].content), ['q1', 'q2']);
    for (const k of ['data', 'items', 'records', 'examples', 'dialogs', 'samples']) {
      assert.deepEqual(rows(sharegpt, { [k]: [conv('x'), { note: 'not a conversation' }] }).map((r) => r.trajectory_uid), ['x'], k);
    }
    assert.equal(rows(sharegpt, { data: JSON.stringify([conv('t')]) })[0].trajectory_uid, 't', 'a container as JSON text');
    assert.throws(() => rows(sharegpt, { data: [{ note: 1 }] }), /no "conversations" list/);
    assert.throws(() => rows(sharegpt, 'text'), /no "conversations" list/);
  });

  it('roles, names, the system field, a conversation_id, tools without a type, the score as reward', () => {
    const r = rows(sharegpt, {
      conversation_id: 'c-1', uid: 'p-1', system: 'Be nice.', model: 'llama', data_source: 'alpaca', score: 1, lang: 'en',
      tools: JSON.stringify([{ name: 'calc', parameters: {} }, { type: 'function', function: { name: 'f' } }]),
      conversations: [{ from: 'Human', value: 'hi' }, { from: 'bard', value: 'yo', name: 'b1' }, { from: 'chatgpt', value: 'x' }, { from: 'bing', value: 'y' }, { from: 'ipython', value: 'out' }, { from: 'narrator', value: 'n' }, { from: 'model', value: 'z' }],
    });
    const last = r.at(-1)!;
    assert.deepEqual([last.trajectory_uid, last.prompt_uid, last.model, last.data_source, last.reward], ['c-1', 'p-1', 'llama', 'alpaca', 1]);
    assert.deepEqual(last.metadata, { lang: 'en' });
    assert.deepEqual(JSON.parse(last.tools ?? 'null'), [{ type: 'function', function: { name: 'calc', parameters: {} } }, { type: 'function', function: { name: 'f' } }]);
    const all = [...last.messages, ...(last.response ? [last.response] : [])];
    assert.deepEqual(all.map((m) => m.role), ['system', 'user', 'assistant', 'assistant', 'assistant', 'tool', 'narrator', 'assistant']);
    assert.equal(all[2].name, 'b1');
    assert.deepEqual(r.map((s) => s.reward).slice(0, -1).every((x) => x === null), true, 'the reward only on the last step');
    assert.equal(rows(sharegpt, { conversations: [{ from: 'human', value: 'q' }], tools: 'not json' })[0].tools, null);
  });

  it('function_call turns: calls with and without ids, several at once, observations answer them in order', () => {
    const ms = shareGptMessages(
      [
        { from: 'human', value: 'weather in Paris and Rome?' },
        { from: 'function_call', value: JSON.stringify([{ name: 'weather', arguments: { city: 'Paris' } }, { id: 'own', function: { name: 'weather', arguments: '{"city":"Rome"}' } }, { arguments: {} }, 'junk']) },
        { from: 'observation', value: '18C' },
        { from: 'observation', value: '20C' },
        { from: 'observation', value: 'extra' },
        { from: 'tool_call', value: { name: 'calc', parameters: { x: 1 } } },
        { from: 'tool', value: '1' },
        { from: 'function_call', value: '<think>hm</think>No call after all.' },
        5,
        { role: 'assistant', content: 'Done.' },
      ],
      '',
    );
    assert.deepEqual(ms[1], {
      role: 'assistant', content: null,
      tool_calls: [
        { id: `${SYNTHETIC_ID_PREFIX}1_0`, type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
        { id: 'own', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
      ],
    });
    assert.deepEqual(ms.slice(2, 5).map((m) => [m.tool_call_id, m.name, m.content]), [[`${SYNTHETIC_ID_PREFIX}1_0`, 'weather', '18C'], ['own', 'weather', '20C'], [undefined, undefined, 'extra']]);
    assert.deepEqual(ms[5].tool_calls?.[0], { id: `${SYNTHETIC_ID_PREFIX}5_0`, type: 'function', function: { name: 'calc', arguments: '{"x":1}' } });
    assert.equal(ms[6].tool_call_id, `${SYNTHETIC_ID_PREFIX}5_0`);
    assert.deepEqual([ms[7].role, ms[7].content, ms[7].reasoning], ['assistant', 'No call after all.', 'hm']);
    assert.deepEqual(ms[8], { role: 'assistant', content: 'Done.' });
    assert.equal(ms.length, 9, 'no system message for an empty system field; a non-object turn is skipped');
    assert.equal(shareGptMessages([{ value: 'no from' }], null)[0].role, 'user');
  });

  it('metadata says when call ids were made up', () => {
    const made = rows(sharegpt, { conversations: [{ from: 'human', value: 'q' }, { from: 'function_call', value: '{"name":"f","arguments":{}}' }, { from: 'observation', value: 'r' }, { from: 'gpt', value: 'ok' }] });
    assert.equal(made.at(-1)?.metadata?.tool_call_ids, 'synthetic');
    const own = rows(sharegpt, { conversations: [{ from: 'human', value: 'q' }, { from: 'function_call', value: '{"id":"call_1","name":"f","arguments":{}}' }, { from: 'observation', value: 'r' }, { from: 'gpt', value: 'ok' }] });
    assert.equal(own.at(-1)?.metadata?.tool_call_ids, undefined);
  });
});
