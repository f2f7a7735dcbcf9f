import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { splitInlineThink } from '../../src/contract/message';
import { importBytes, importFixture } from './helpers/real-read';

describe('Harbor per-episode trace exports (issue 16 defect 5)', () => {
  it('makes the episodes of one trial the steps of one trajectory, one step per episode', async () => {
    const { format, steps } = await importFixture('harbor-traces.json');
    assert.equal(format, 'harbor');
    assert.equal(steps.length, 5, 'five episode rows, five LLM calls (no duplicated calls from the repeated history)');
    const a = steps.filter((s) => s.trajectory_uid === steps[0].trajectory_uid);
    const b = steps.filter((s) => s.trajectory_uid !== steps[0].trajectory_uid);
    assert.deepEqual(a.map((s) => s.step_index), [0, 1, 2]);
    assert.deepEqual(b.map((s) => s.step_index), [0, 1]);
    assert.deepEqual(a.map((s) => s.messages.length), [1, 3, 5], 'each step sees the history before its own turn');
    assert.ok(steps.every((s) => s.prompt_uid === steps[0].prompt_uid), 'trials of one task form one group');
    assert.deepEqual(a.map((s) => s.reward), [null, null, 1]);
    assert.deepEqual(b.map((s) => s.reward), [null, 0]);
    assert.equal(a[0].model, 'hosted_vllm/Qwen/Qwen3-8B');
    assert.equal(a[0].provider, 'hosted_vllm');
    assert.equal(a[0].agent, 'terminus-2');
    assert.equal(a[0].metadata?.trial_name, 'csv-empty-column__Xk3pQ7a');
    assert.equal(a[0].metadata?.episode, 'episode-0');
  });

  it('moves inline <think> blocks to reasoning, in the response and in the history', async () => {
    const { steps } = await importFixture('harbor-traces.json');
    const s = steps[1];
    assert.equal(s.response?.reasoning, 'Rows 1 and 3 have an empty email. awk with -F, and $3=="" counts them, skipping the header.');
    assert.ok(s.response?.content?.startsWith('{'), 'content is the answer without the think block');
    assert.equal(s.messages[1].reasoning, 'The file is a CSV; I should look at it first.');
    assert.ok(!s.messages[1].content?.includes('<think>'));
  });

  it('splitInlineThink: closed, template-opened, unclosed and absent blocks', () => {
    const m = (content: string) => splitInlineThink({ role: 'assistant', content });
    assert.deepEqual(m('<think>a</think>b'), { role: 'assistant', content: 'b', reasoning: 'a' });
    assert.deepEqual(m('a plan\n</think>\n\nanswer'), { role: 'assistant', content: 'answer', reasoning: 'a plan' });
    assert.deepEqual(m('<think>cut off by max_tokens'), { role: 'assistant', content: null, reasoning: 'cut off by max_tokens' });
    assert.deepEqual(m('no tags here'), { role: 'assistant', content: 'no tags here' });
    assert.deepEqual(m('explains the <think> tag in prose'), { role: 'assistant', content: 'explains the <think> tag in prose' });
    assert.deepEqual(splitInlineThink({ role: 'user', content: '<think>x</think>y' }), { role: 'user', content: '<think>x</think>y' });
  });

  it('splits <think> the same way in ShareGPT, OpenAI chat and Harbor rows', async () => {
    const answer = '<think>\n17 is prime: no divisor up to 4.\n</think>\n\nYes, 17 is prime.';
    const rows = [
      { conversations: [{ from: 'human', value: 'Is 17 prime?' }, { from: 'gpt', value: answer }] },
      { messages: [{ role: 'user', content: 'Is 17 prime?' }, { role: 'assistant', content: answer }] },
    ];
    for (const row of rows) {
      const { steps, format } = await importBytes(new TextEncoder().encode(`${JSON.stringify(row)}\n`));
      assert.equal(steps[0].response?.reasoning, '17 is prime: no divisor up to 4.', format);
      assert.equal(steps[0].response?.content, 'Yes, 17 is prime.', format);
    }
  });
});
