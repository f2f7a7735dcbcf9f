/**
 * OpenAI's `o200k_base` encoding as a counting-only profile (gpt-tokenizer's ranks, imported lazily: the
 * encoding data is its own chunk, fetched only when this profile is chosen). OpenAI publishes no chat
 * template: the conversation is rendered the way gpt-tokenizer's `encodeChat` renders a gpt-4o chat —
 * `<|im_start|>{name or role}<|im_sep|>{content}<|im_end|>` per message, `<|im_start|>assistant<|im_sep|>` as
 * the generation prompt — with an assistant's tool calls appended to its content as JSON (`encodeChat` has no
 * field for them) and tool definitions not rendered. The counts are estimates of what OpenAI bills or trains
 * on, not a trainer's rendering: template-dependent features (content-loss audit, assistant masks, export
 * with tokens) are unavailable for it (`countingOnly`). Special-token text inside a message (`<|im_end|>` typed by a
 * user) counts as the special token, as in every rendered-then-tokenized profile; encodeChat would count it as text.
 */
import { AddedSplitter } from './added-split';
import { Template } from '@huggingface/jinja';
import type { Tokenizer } from '@huggingface/tokenizers';
import type { TokenizerProfile } from './profile';

/** What the counting rendering is, for the UI. */
export const O200K_RENDERING = "gpt-tokenizer's encodeChat format for gpt-4o (<|im_start|>role<|im_sep|>content<|im_end|>); tool calls counted as JSON text, tool definitions not counted";

export const O200K_TEMPLATE =
  "{%- for m in messages -%}<|im_start|>{{ m.name if m.name else m.role }}<|im_sep|>{{ m.content if m.content is string else '' }}" +
  "{%- if m.tool_calls -%}{{ m.tool_calls | tojson }}{%- endif -%}<|im_end|>{%- endfor -%}" +
  '{%- if add_generation_prompt -%}<|im_start|>assistant<|im_sep|>{%- endif -%}';

const SPECIALS = ['<|im_start|>', '<|im_sep|>', '<|im_end|>', '<|endoftext|>'];

async function sha256Hex(text: string): Promise<string> {
  const buf = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The o200k_base counting profile. */
export async function loadO200k(): Promise<TokenizerProfile> {
  const enc = await import('gpt-tokenizer/encoding/o200k_base');
  const addedTokens = new Map<string, number>();
  for (const s of SPECIALS) {
    const ids = enc.encode(s, { allowedSpecial: new Set([s]) });
    if (ids.length === 1) addedTokens.set(s, ids[0] as number);
  }
  // Text between special tokens is encoded with special-token text treated as plain text (as the pieces are
  // split on them first, none reaches encode).
  const tokenizer = {
    encode: (text: string) => ({ ids: enc.encode(text, { disallowedSpecial: new Set() }) }),
    id_to_token: (id: number) => enc.decode([id]),
  } as unknown as Tokenizer;
  return {
    name: 'OpenAI o200k_base (counting only)',
    vocabSize: enc.vocabularySize,
    templateHash: await sha256Hex(O200K_TEMPLATE),
    generationMarkers: false,
    toolSupport: false,
    countingOnly: true,
    rendering: O200K_RENDERING,
    tokenizer,
    template: new Template(O200K_TEMPLATE),
    specialTokens: {},
    addedTokens,
    addedSplit: new AddedSplitter(addedTokens.keys()),
    segmentable: true,
    byteLevel: false,
  };
}
