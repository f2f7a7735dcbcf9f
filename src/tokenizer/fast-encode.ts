/**
 * A pre-token memo in front of tokenizers.js (decision 039). Profiling `token_counts` on the bench file put ~60 % of
 * the encoding time in the last pre-tokenizer step and the model: ByteLevel maps every pre-token's UTF-8 bytes to
 * characters (TextEncoder + Array.from + join), BPE looks the word up, and each token string is mapped to its id — for
 * words the tokenizer has seen thousands of times. Where the pipeline has the shape byte-level BPE tokenizers have
 * (normalizer → pre-tokenizer Sequence ending with a ByteLevel step that does not split → BPE), a pre-token's ids depend
 * on the pre-token alone, so they are memoized per pre-token text: a hit is one Map lookup. Every transform is still the
 * library's own code (normalizer, the splitting pre-tokenizers, ByteLevel, BPE, vocabulary); only the glue that
 * `Tokenizer.encode` runs between them is here, for text without added tokens (the callers split those off first).
 * `fastEncoder` returns null where the shape differs, or where the memoized path does not give the library's ids on a
 * probe text; then callers keep `tokenizer.encode`.
 */
import type { Tokenizer } from '@huggingface/tokenizers';
import { GenerationCache } from './memo';

type Fn = ((x: unknown, o?: unknown) => unknown) & { config?: Record<string, unknown>; tokenizers?: Fn[] };

interface Internals {
  normalizer: ((s: string) => string) | null;
  pre_tokenizer: Fn | null;
  model: ((words: string[]) => string[]) & { tokens_to_ids: Map<string, number>; unk_token_id?: number; config?: Record<string, unknown> };
  post_processor: Fn | null;
  added_tokens_map: Map<string, { id: number }>;
  remove_space?: unknown;
  do_lowercase_and_remove_accent?: unknown;
  tokenizer?: { added_tokens?: { normalized?: boolean }[] };
}

/** Text the memoized path is checked on before it is used: scripts, numbers, whitespace runs, contractions, NFC pairs. */
const PROBE = [
  "Hello, world! It's 2026 — we'll see. I'd've said 'NO'.",
  '  leading spaces\n\n\ttabs\r\n  trailing   ',
  'def f(x):\n    return x ** 2  # ok\n',
  '数字123与中文混合，日本語のテキスト、한국어 텍스트 😀👍🏽',
  'Cafe\u0301 vs Café · Ωmega µ ﬁ ２３４',
  '{"a": [1, 2.5e-3, null], "b": "x\\ny"}',
  'x'.repeat(300),
].join(' ');

export type Encoder = (text: string) => number[];

interface BpeModel {
  merges?: unknown;
  bpe_ranks?: Map<string, number>;
  add_node?: (queue: { push(n: unknown): void }, node: { token: string; bias: number; score?: number; next: { token: string } }) => void;
}

/**
 * BPE's pair-rank lookup without a JSON.stringify per pair: tokenizers.js keys `bpe_ranks` by
 * `JSON.stringify([a, b])` and builds that key for every candidate pair of every word (the top self time of a cold
 * count). The same ranks in a Map per left token give the same rank for every pair, so the same merges. The method is
 * replaced on this model instance only, and only where the model has the expected fields.
 */
function fastPairRanks(model: BpeModel): boolean {
  const ranks = model.bpe_ranks;
  if (!(ranks instanceof Map) || typeof model.add_node !== 'function') return false;
  // from the merges bpe_ranks was built from (rank = index, a later duplicate wins as in the Map constructor): no
  // JSON.parse of 151 k keys; checked against bpe_ranks' size and a sample of its entries
  const merges = model.merges;
  if (!Array.isArray(merges)) return false;
  const byLeft = new Map<string, Map<string, number>>();
  let entries = 0;
  for (let i = 0; i < merges.length; i++) {
    const pair = merges[i] as unknown;
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') return false;
    let m = byLeft.get(pair[0]);
    if (!m) byLeft.set(pair[0], (m = new Map()));
    if (!m.has(pair[1])) entries++;
    m.set(pair[1], i);
  }
  if (entries !== ranks.size) return false;
  const stride = Math.max(1, Math.floor(merges.length / 997));
  for (let i = 0; i < merges.length; i += stride) {
    const [a, b] = merges[i] as [string, string];
    if (ranks.get(JSON.stringify([a, b])) !== byLeft.get(a)?.get(b)) return false;
  }
  model.add_node = (queue, node) => {
    const rank = byLeft.get(node.token)?.get(node.next.token);
    if (rank !== undefined) {
      node.score = rank + node.bias;
      queue.push(node);
    }
  };
  return true;
}

/**
 * An encoder giving `tokenizer.encode(text, { add_special_tokens: false }).ids` for text without added tokens, with a
 * pre-token memo (at most `capacity` entries per generation); null when the tokenizer is not of the supported shape.
 */
export function fastEncoder(tokenizer: Tokenizer, capacity = 200_000): Encoder | null {
  const t = tokenizer as unknown as Internals;
  const pre = t.pre_tokenizer;
  const steps = Array.isArray(pre?.tokenizers) ? pre.tokenizers : [];
  const last = steps[steps.length - 1];
  const lc = last?.config;
  if (!last || lc?.type !== 'ByteLevel' || lc.use_regex !== false || lc.add_prefix_space) return null;
  const split = steps.slice(0, -1);
  if (!split.every((s) => s?.config?.type === 'Split' || s?.config?.type === 'Digits' || s?.config?.type === 'Punctuation')) return null;
  if (t.model?.config?.type !== 'BPE' && !(t.model?.config && 'merges' in t.model.config)) return null;
  const ppType = t.post_processor?.config?.type;
  if (t.post_processor && ppType !== 'ByteLevel') return null;
  if (t.remove_space === true || t.do_lowercase_and_remove_accent) return null;
  if ((t.tokenizer?.added_tokens ?? []).some((a) => a.normalized)) return null;
  const ids = t.model.tokens_to_ids;
  const unk = t.model.unk_token_id;
  if ((t.model as { fuse_unk?: unknown }).fuse_unk) return null;
  const original = (t.model as BpeModel).add_node;
  const patched = fastPairRanks(t.model as BpeModel);
  const memo = new GenerationCache<number[]>(capacity);
  const idOf = (tok: string): number => (t.added_tokens_map.get(tok)?.id ?? ids.get(tok) ?? unk) as number;
  const encodeWord = (word: string): number[] => {
    let out = memo.get(word);
    if (out === undefined) {
      const mapped = last(word) as string[];
      out = t.model(mapped).map(idOf);
      memo.put(word, out);
    }
    return out;
  };
  const encoder: Encoder = (text) => {
    if (!text) return [];
    const normalized = t.normalizer ? t.normalizer(text) : text;
    if (!normalized) return [];
    let words: string[] = [normalized];
    for (const s of split) words = s(words) as string[];
    const out: number[] = [];
    for (const w of words) {
      const wi = encodeWord(w);
      for (let i = 0; i < wi.length; i++) out.push(wi[i] as number);
    }
    return out;
  };
  const want = tokenizer.encode(PROBE, { add_special_tokens: false }).ids;
  const got = encoder(PROBE);
  const again = encoder(PROBE); // from the memo
  const same = (a: number[]) => a.length === want.length && a.every((x, i) => x === want[i]);
  if (!same(got) || !same(again)) {
    if (patched) (t.model as BpeModel).add_node = original;
    return null;
  }
  return encoder;
}
