/**
 * The bench's tokenizer throughput (`npm run bench`, tokens phase; reached through window.workbench.debug in test builds
 * only): `text` (no special tokens) encoded `runs` times with a profile, both ways. `ms`: on the path token counting
 * uses (`encode`: added tokens split off, then the pre-token memo of `fastEncoder`, a fresh memo each run so nothing is
 * carried over from the run before or from counting); `libraryMs`: tokenizers.js's own `tokenizer.encode`. Both token
 * counts are returned; they must be equal (the bench reports it).
 */
import { fastEncoder } from './fast-encode';
import type { TokenizerProfile } from './profile';
import { encode } from './render';

export interface BenchEncodeResult {
  ms: number[];
  tokens: number;
  libraryMs: number[];
  libraryTokens: number;
}

export function benchEncode(p: TokenizerProfile, text: string, runs: number): BenchEncodeResult {
  const out: BenchEncodeResult = { ms: [], tokens: 0, libraryMs: [], libraryTokens: 0 };
  for (let i = 0; i < runs; i++) {
    const fresh: TokenizerProfile = { ...p, encodePiece: p.encodePiece ? (fastEncoder(p.tokenizer) ?? undefined) : undefined };
    let t0 = performance.now();
    out.tokens = encode(fresh, text).length;
    out.ms.push(performance.now() - t0);
    t0 = performance.now();
    out.libraryTokens = p.tokenizer.encode(text, { add_special_tokens: false }).ids.length;
    out.libraryMs.push(performance.now() - t0);
  }
  return out;
}
