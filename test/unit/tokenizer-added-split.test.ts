/**
 * Cutting text at added tokens (src/tokenizer/added-split.ts): the trie, used past REGEX_UP_TO tokens, cuts every
 * text where the regular expression of alternatives cuts it (differential, random texts over tokens that are
 * prefixes of each other, overlap, repeat and hold surrogate pairs), and both agree with tokenizers.js on Qwen3.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rng } from '../../bench/rng.mjs';
import { AddedSplitter, REGEX_UP_TO } from '../../src/tokenizer/added-split';
import { qwen3Json } from './helpers/qwen3';

const TOKENS = ['<', '<a>', '<a>b', 'ab', 'b<a', '<|x|>', '<|x|><|x|>', '𝔘', '𝔘𝔘x', '\n\n', '\n', '<think>', '</think>', 'a'];
const ALPHABET = ['<', '>', 'a', 'b', '|', 'x', '𝔘', '\n', ' ', 'c', '<think>', '</think>', '/'];

function randomText(next: () => number): string {
  let t = '';
  const n = Math.floor(next() * 40);
  for (let i = 0; i < n; i++) t += ALPHABET[Math.floor(next() * ALPHABET.length)];
  return t;
}

describe('added-token splitter', () => {
  it('the trie cuts 5,000 random texts where the regular expression cuts them; next() from any offset too', () => {
    const re = new AddedSplitter(TOKENS);
    const trie = new AddedSplitter(TOKENS, { regexUpTo: 0 });
    const next = rng(37);
    for (let k = 0; k < 5000; k++) {
      const text = randomText(next);
      assert.deepEqual(trie.split(text), re.split(text), JSON.stringify(text));
      assert.equal(trie.split(text).join(''), text);
      const from = Math.floor(next() * (text.length + 1));
      assert.deepEqual(trie.next(text, from), re.next(text, from), `${JSON.stringify(text)} from ${from}`);
    }
  });

  it('no empty pieces, no tokens, and the same token twice', () => {
    for (const opts of [{}, { regexUpTo: 0 }]) {
      assert.deepEqual(new AddedSplitter(['<a>', '<a>', ''], opts).split('<a><a>x'), ['<a>', '<a>', 'x']);
      assert.equal(new AddedSplitter(['<a>', '<a>', ''], opts).size, 1);
      assert.deepEqual(new AddedSplitter([], opts).split('abc'), ['abc']);
      assert.equal(new AddedSplitter([], opts).next('abc', 0), null);
      assert.deepEqual(new AddedSplitter(['x'], opts).split(''), []);
    }
  });

  it('both cut Qwen3 chat text where tokenizers.js cuts it (its added tokens, the trie forced)', async () => {
    const { Tokenizer } = await import('@huggingface/tokenizers');
    const tj = qwen3Json('tokenizer.json');
    const lib = new Tokenizer(tj, qwen3Json('tokenizer_config.json'));
    const contents: string[] = tj.added_tokens.map((t: { content: string }) => t.content);
    const ids = new Map(tj.added_tokens.map((t: { content: string; id: number }) => [t.content, t.id]));
    const text = '<|im_start|>user\nRead <tool_call> a<|im_end|><|im_end|>\n<|im_start|>assistant\n<think>\nok</think>\n\n<|endoftext|>';
    for (const s of [new AddedSplitter(contents), new AddedSplitter(contents, { regexUpTo: 0 })]) {
      const added = s.split(text).filter((p) => ids.has(p)).map((p) => ids.get(p));
      const libAdded = lib.encode(text, { add_special_tokens: false }).ids.filter((id: number) => contents.some((c) => ids.get(c) === id));
      assert.deepEqual(added, libAdded);
    }
    assert.ok(contents.length < REGEX_UP_TO, 'Qwen3 is split by the regular expression in the app');
  });
});
