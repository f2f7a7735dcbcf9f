/**
 * The pre-token memo and pair-rank lookup (fast-encode.ts, decision 039) against tokenizers.js unchanged (a profile
 * loaded with `libraryCache`: the library's own encode, cache and rank lookup): the same ids on every fixture file's
 * text, on the bench generator's text, and on random text built from the characters pre-tokenizers treat specially
 * (whitespace runs, contractions, digits, combining marks that NFC composes, CJK, emoji, punctuation).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import { fastEncoder } from '../../src/tokenizer/fast-encode';
import { loadProfile, type TokenizerProfile } from '../../src/tokenizer/profile';
// mulberry32, so a failure names a reproducible input
import { rng } from '../../bench/rng.mjs';
import { qwen3Files, qwen3Json, qwen3Profile } from './helpers/qwen3';


const ATOMS = [' ', '  ', '\n', '\r\n', '\t', ' \n ', "'s", "'T", "'re", "'LL", "'d", 'a', 'Z', 'word', 'Über', 'e\u0301', 'A\u030A', 'ﬁ', '0', '7', '123', '２', '½', '中文', '日本', '한국', '😀', '👍🏽', '\u200d', '—', '...', '!?', '{"k":', '[1, 2]', '#', '_', '\\n', '\u00a0', '\u3000', 'x'.repeat(40)];

describe('fast encode (pre-token memo, pair ranks) = tokenizers.js', () => {
  let fast: TokenizerProfile;
  let lib: TokenizerProfile;
  before(async () => {
    // its own tokenizer part (a fresh pre-token memo: the memo is what is tested), the library's the shared one
    fast = await loadProfile(qwen3Files());
    lib = await qwen3Profile({ libraryCache: true });
  });
  const plain = (t: string) => lib.addedSplit?.split(t).map((piece) => (lib.addedTokens.has(piece) ? ' ' : piece)).join('') ?? t;
  // the library's ids of a text, computed once: the fixture texts are checked twice (the fast encoder's second time from
  // its memo), and the library's own encode of the whole texts was most of this file's time
  const libIds = new Map<string, number[]>();
  const check = (text: string, what: string) => {
    let want = libIds.get(text);
    if (!want) libIds.set(text, (want = lib.tokenizer.encode(text, { add_special_tokens: false }).ids));
    assert.deepEqual(fast.encodePiece?.(text), want, `${what}: ${JSON.stringify(text.slice(0, 120))}`);
  };

  it('is used for the bundled Qwen3 tokenizer, not for the library-cache profile', () => {
    assert.equal(typeof fast.encodePiece, 'function');
    assert.equal(lib.encodePiece, undefined);
  });

  it('same ids on every fixture file, whole and line by line, twice (the second time from the memo)', () => {
    const roots = ['../fixtures/formats/', '../fixtures/core/'].map((d) => new URL(d, import.meta.url));
    let n = 0;
    for (const dir of roots) {
      for (const f of readdirSync(dir)) {
        const text = plain(readFileSync(new URL(f, dir), 'utf8'));
        for (let pass = 0; pass < 2; pass++) {
          check(text, f);
          for (const line of text.split('\n').slice(0, 200)) check(line, f);
        }
        n++;
      }
    }
    assert.ok(n >= 10, `${n} fixture files`);
  });

  it('same ids on the bench generator text and on 3,000 random strings of tricky pieces', async () => {
    const gen = '../../bench/gen.mjs'; // plain JS: imported by name so the typecheck does not need its types
    const { makeGenerator } = (await import(gen)) as { makeGenerator: (seed: number) => () => string };
    const next = makeGenerator(11);
    for (let i = 0; i < 200; i++) check(plain(next()), `bench line ${i}`);
    const r = rng(19);
    for (let i = 0; i < 3000; i++) {
      let s = '';
      const k = 1 + Math.floor(r() * 12);
      for (let j = 0; j < k; j++) s += ATOMS[Math.floor(r() * ATOMS.length)];
      check(s, `random ${i}`);
    }
  });

  it('refuses a tokenizer whose shape it does not know (no ByteLevel last step): the library encode stays', async () => {
    const tj = qwen3Json('tokenizer.json');
    tj.pre_tokenizer = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: true };
    const p = await loadProfile({ tokenizer: tj, config: qwen3Json('tokenizer_config.json') });
    assert.equal(p.encodePiece, undefined);
    assert.equal(fastEncoder(p.tokenizer), null);
  });
});
