import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createFinalizeState, finalize } from '../../src/ingest/finalize';
import { openaiChat } from '../../src/ingest/normalizers/openai-chat';

const ctx = { sourceId: '0123456789abcdef0123', file: 'ft.jsonl' };
const run = (value: unknown, index = 0) => finalize(openaiChat.normalize({ value, line: index + 1, index }, ctx, undefined), { value, line: index + 1, index }, ctx, createFinalizeState(), { format: 'openai-chat', importId: 1 });

describe('openai-chat normalizer', () => {
  it('one step per assistant turn; parallel and double-encoded tool calls; reward on the last step', () => {
    const rec = {
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: [{ type: 'text', text: 'look at' }, { type: 'image_url', image_url: { url: 'data:...' } }] },
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'a', type: 'function', function: { name: 'f', arguments: JSON.stringify(JSON.stringify({ x: 1 })) } },
            { id: 'b', type: 'function', function: { name: 'g', arguments: { y: 2 } } },
          ],
        },
        { role: 'tool', tool_call_id: 'a', content: '1' },
        { role: 'tool', tool_call_id: 'b', content: '2' },
        { role: 'assistant', content: 'done' },
      ],
      tools: [{ type: 'function', function: { name: 'f' } }],
      parallel_tool_calls: true,
      reward: 0.5,
      agent: 'react',
      id: 'conv-9',
    };
    const rows = run(rec);
    assert.equal(rows.length, 2);
    assert.deepEqual(rows.map((r) => r.step_id), ['conv-9:0', 'conv-9:1']);
    assert.equal(rows[0].messages[1].content, 'look at\n[image]');
    assert.ok(rows[0].messages[1].parts?.includes('image_url'));
    assert.deepEqual(rows[0].response?.tool_calls?.map((c) => [c.function.name, c.function.arguments]), [['f', '{"x":1}'], ['g', '{"y":2}']]);
    assert.equal(rows[1].messages.length, 5);
    assert.deepEqual(rows.map((r) => r.reward), [null, 0.5]);
    assert.equal(rows[0].agent, 'react');
    assert.equal(rows[0].metadata?.parallel_tool_calls, 'true');
    assert.equal(JSON.parse(rows[0].tools ?? '[]')[0].function.name, 'f');
  });

  it('a conversation with no assistant turn is one prompt step', () => {
    const rows = run({ messages: [{ role: 'user', content: 'only a question' }] });
    assert.equal(rows.length, 1);
    assert.equal(rows[0].response, null);
    assert.equal(rows[0].trajectory_uid, '0123456789ab-0');
  });

  it('detects chat rows, not request logs', () => {
    assert.ok(openaiChat.detect([{ messages: [{ role: 'user', content: 'x' }] }]) > 0.5);
    assert.equal(openaiChat.detect([{ messages: [{ role: 'user', content: 'x' }], choices: [] }]), 0);
  });
});
