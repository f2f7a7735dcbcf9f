/**
 * The OpenAI o200k_base counting profile: ids equal gpt-tokenizer's published o200k test vectors (tiktoken cannot
 * fetch its BPE file offline), the counting rendering gives exactly encodeChat's ids for gpt-4o, and
 * template-dependent flags are unknown (null), not zero.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { encodeChat } from 'gpt-tokenizer/encoding/o200k_base';
import { countStep } from '../../src/tokenizer/counts';
import { loadO200k } from '../../src/tokenizer/openai';
import type { TokenizerProfile } from '../../src/tokenizer/profile';
import { encode, renderChat } from '../../src/tokenizer/render';

// gpt-tokenizer 4.0.0, src/GptEncoding.test.ts, o200kBaseResults (its vectors match tiktoken's o200k_base)
const VECTORS: [string, number[]][] = [
  [' ', [220]],
  ['\t', [197]],
  ['This is some text', [2500, 382, 1236, 2201]],
  ['indivisible', [521, 349, 181386]],
  ['hello 👋 world 🌍', [24912, 61138, 233, 2375, 130321, 235]],
  ['toString constructor hasOwnProperty valueOf', [935, 916, 9220, 853, 18555, 3895, 1432, 2566]],
  ['hello, I am a text, and I have commas. a,b,c', [24912, 11, 357, 939, 261, 2201, 11, 326, 357, 679, 179663, 13, 261, 17568, 22261]],
];

describe('o200k_base counting profile', () => {
  let p: TokenizerProfile;
  before(async () => {
    p = await loadO200k();
  });

  it('encodes the published o200k_base vectors', () => {
    assert.equal(p.countingOnly, true);
    assert.ok(p.vocabSize > 200_000);
    for (const [text, ids] of VECTORS) assert.deepEqual(encode(p, text, new Map()), ids, JSON.stringify(text));
  });

  it('renders a conversation to exactly the ids of encodeChat (gpt-4o)', () => {
    const chat = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Say hello 👋 twice.\n\nThen  stop.' },
      { role: 'assistant', content: 'hello 👋' },
      { role: 'user', content: 'again' },
    ] as const;
    const r = renderChat(p, chat.map((m) => ({ ...m })), { addGenerationPrompt: true, noMask: true, cache: new Map() });
    assert.equal(r.error, null);
    assert.deepEqual(r.ids, encodeChat(chat.map((m) => ({ ...m })), 'gpt-4o', { disallowedSpecial: new Set() }));
  });

  it('counts a step; the template audit flags are unknown (null)', () => {
    const row = countStep(
      p,
      {
        step_id: 's',
        trajectory_uid: 't',
        messages: [{ role: 'user', content: 'hi' }],
        response: { role: 'assistant', content: null, reasoning: 'think', tool_calls: [{ id: 'a', type: 'function', function: { name: 'ls', arguments: '{}' } }] },
        tools: null,
      },
      new Map(),
    );
    assert.equal(row.template_error, null);
    assert.equal((row.n_prompt_tokens ?? 0) + (row.n_response_tokens ?? 0), row.n_tokens);
    assert.ok((row.n_response_tokens ?? 0) > 5, 'the tool call is counted');
    assert.equal(row.lost_reasoning, null);
    assert.equal(row.lost_tool_calls, null);
  });
});
