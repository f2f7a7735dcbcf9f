/**
 * A tokenizer profile: a model's `tokenizer.json` + `tokenizer_config.json` (+ optional separate chat
 * template), checked and compiled once. Pure module: runs in a worker, in node tests and on the main thread.
 */
import { Template } from '@huggingface/jinja';
import { Tokenizer } from '@huggingface/tokenizers';
import { AddedSplitter } from './added-split';
import { type Encoder, fastEncoder } from './fast-encode';
import { GenerationCache } from './memo';
import { renderLimited, renderLimits, TemplateLimitError } from './template-limits';

export { GenerationCache };

export interface ProfileSource {
  /** Parsed `tokenizer.json`. */
  tokenizer: unknown;
  /** Parsed `tokenizer_config.json`. */
  config: unknown;
  /** A chat template given separately (`chat_template.jinja`); wins over the config's. */
  template?: string | null;
  name?: string;
  /** Keep tokenizers.js's own BPE word cache and no pre-token memo (bench comparison; see GenerationCache, fast-encode.ts). */
  libraryCache?: boolean;
  /**
   * The tokenizer part of a profile loaded before from the same tokenizer.json and tokenizer_config.json (ProfileLoader):
   * used as it is, `tokenizer` is then not read.
   */
  compiled?: CompiledTokenizer;
}

export interface ProfileInfo {
  name: string;
  vocabSize: number;
  /** SHA-256 (hex) of the chat template text. */
  templateHash: string;
  /** Whether the template marks assistant output with {% generation %} (TRL's assistant_only_loss). */
  generationMarkers: boolean;
  /** Whether the template renders `tools` at all. */
  toolSupport: boolean;
  /** A counting-only profile (OpenAI o200k_base): no real chat template, so no audit, masks or export with tokens. */
  countingOnly: boolean;
  /** For counting-only profiles: how the conversation is rendered for counting. */
  rendering: string | null;
}

export interface TokenizerProfile extends ProfileInfo {
  tokenizer: Tokenizer;
  /** Compiled template; {% generation %} markers turned into sentinel characters. */
  template: Template;
  /** Render-time globals transformers passes: special tokens by name (bos_token, eos_token, …). */
  specialTokens: Record<string, unknown>;
  /** Added tokens by content, for splitting rendered text where the tokenizer itself splits it. */
  addedTokens: Map<string, number>;
  /** Where added tokens cut a text (added-split.ts), or null when there are none. */
  addedSplit: AddedSplitter | null;
  /** Pieces between added tokens tokenize independently (tokenizers.js splits on added tokens before normalizing; byte-level, no lstrip/rstrip/normalized added tokens): cacheable. */
  segmentable: boolean;
  /** Byte length of each token id's text, for character-offset ↔ token mapping (byte-level BPE only). */
  byteLevel: boolean;
  /** Ids of text without added tokens, as `tokenizer.encode(text, { add_special_tokens: false })` gives them, memoized per pre-token (fast-encode.ts); absent where the tokenizer's shape is not supported. */
  encodePiece?: Encoder;
}

/** What a profile takes from tokenizer.json and tokenizer_config.json alone (not the chat template, not the name). */
export type CompiledTokenizer = Pick<TokenizerProfile, 'vocabSize' | 'tokenizer' | 'specialTokens' | 'addedTokens' | 'addedSplit' | 'segmentable' | 'byteLevel' | 'encodePiece'>;

/** The profile name of the bundled Qwen3 tokenizer (the page's and the CLI's `--tokenizer qwen3`). */
export const BUNDLED_QWEN3 = 'Qwen3 (bundled)';

export class ProfileError extends Error {
  override name = 'ProfileError';
}

/** Start / end of a {% generation %} block in the rendered text. Private-use characters. */
export const GEN_START = '\uE000';
export const GEN_END = '\uE001';

const SPECIAL_KEYS = ['bos_token', 'eos_token', 'unk_token', 'sep_token', 'pad_token', 'cls_token', 'mask_token'] as const;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A special token's text: tokenizer_config stores either a string or an AddedToken object ({content}). */
function tokenText(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (isObject(v) && typeof v.content === 'string') return v.content;
  return null;
}

/**
 * The chat template text from the config (string, or a list of named templates as some configs have:
 * transformers uses the one named "default" when no name is given).
 */
function configTemplate(config: Record<string, unknown>): string | null {
  const t = config.chat_template;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) {
    const d = t.find((x) => isObject(x) && x.name === 'default');
    if (isObject(d) && typeof d.template === 'string') return d.template;
  }
  return null;
}

/**
 * {% generation %} / {% endgeneration %} as output of a sentinel, with the tag's own whitespace control
 * kept: the leading block tag gets lstrip_blocks and `-`, the trailing one trim_blocks and `-`.
 */
export function markGeneration(template: string): { text: string; found: boolean } {
  let found = false;
  const text = template.replace(/{%(-?)\s*(end)?generation\s*(-?)%}/g, (_m, l: string, end: string | undefined, r: string) => {
    found = true;
    const mark = end ? '\\ue001' : '\\ue000';
    return `{%${l} if true %}{{ '${mark}' }}{% endif ${r}%}`;
  });
  return { text, found };
}

export async function sha256Hex(text: string): Promise<string> {
  const buf = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Swap the library's BPE word cache for a GenerationCache where the model has one of the expected shape. */
function fastWordCache(tokenizer: Tokenizer): void {
  const model = (tokenizer as unknown as { model?: { cache?: { get?: unknown; put?: unknown; clear?: unknown; capacity?: unknown } } }).model;
  const c = model?.cache;
  if (!model || !c || typeof c.get !== 'function' || typeof c.put !== 'function' || typeof c.clear !== 'function') return;
  model.cache = new GenerationCache<unknown>(Math.max(50_000, typeof c.capacity === 'number' ? c.capacity : 0)) as unknown as typeof c;
}

const SUPPORTED_MODELS = new Set(['BPE', 'WordPiece', 'Unigram', 'WordLevel']);

/** Small conversations a chat template is rendered with before it is accepted: plain turns, and a tool round trip. */
const TEST_CONVERSATIONS: { messages: Record<string, unknown>[]; tools: unknown[] | null }[] = [
  {
    messages: [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: 'What is 2 + 2?' },
      { role: 'assistant', content: '4' },
    ],
    tools: null,
  },
  {
    messages: [
      { role: 'user', content: 'Weather in Lyon?' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: { city: 'Lyon' } } }] },
      { role: 'tool', content: '{"temp": 21}', tool_call_id: 'c1', name: 'get_weather' },
      { role: 'assistant', content: 'It is 21 °C in Lyon.' },
    ],
    tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }],
  },
];

/**
 * Render the test conversations (with and without the generation prompt) within the render limits before the profile
 * is accepted: a template that loops or grows past them on a four-message conversation is refused here, instead of
 * holding the tokenizer worker (template-limits.ts). A template that raises (a role it does not take) is not refused:
 * the steps it cannot render are flagged when counted.
 */
function testRender(template: Template, cfg: Record<string, unknown>): void {
  const special: Record<string, unknown> = {};
  for (const k of SPECIAL_KEYS) {
    const t = tokenText(cfg[k]);
    if (t != null) special[k] = t;
  }
  for (const { messages, tools } of TEST_CONVERSATIONS) {
    for (const add_generation_prompt of [false, true]) {
      try {
        const inputChars = JSON.stringify(messages).length + JSON.stringify(tools).length;
        renderLimited(template, { ...special, messages, tools, documents: null, add_generation_prompt }, renderLimits(inputChars));
      } catch (e) {
        if (e instanceof TemplateLimitError) throw new ProfileError(`chat template refused: rendering a ${messages.length}-message test conversation, ${e.message}`);
      }
    }
  }
}

/** Check tokenizer.json's model section (before the template, so that its errors come first). */
function checkTokenizerJson(tj: unknown): asserts tj is Record<string, unknown> & { model: Record<string, unknown> } {
  if (!isObject(tj)) throw new ProfileError('tokenizer.json: not a JSON object');
  if (!isObject(tj.model)) throw new ProfileError('tokenizer.json: no "model" section (is this a tokenizer.json from a Hugging Face model?)');
  const modelType = tj.model.type ?? (isObject(tj.model.vocab) && Array.isArray(tj.model.merges) ? 'BPE' : undefined);
  if (typeof modelType !== 'string' || !SUPPORTED_MODELS.has(modelType)) {
    throw new ProfileError(`tokenizer.json: unsupported model type ${JSON.stringify(modelType ?? null)} (supported: ${[...SUPPORTED_MODELS].join(', ')})`);
  }
}

/** The tokenizer part of a profile: the (costly) tokenizers.js Tokenizer over the 11 MB tokenizer.json, and what is derived from the files. */
function compileTokenizer(tj: Record<string, unknown> & { model: Record<string, unknown> }, cfg: Record<string, unknown>, libraryCache: boolean): CompiledTokenizer {
  let tokenizer: Tokenizer;
  try {
    tokenizer = new Tokenizer(tj, cfg);
    if (!libraryCache) fastWordCache(tokenizer);
  } catch (e) {
    throw new ProfileError(`tokenizer.json: ${e instanceof Error ? e.message : String(e)}`);
  }

  const specialTokens: Record<string, unknown> = {};
  for (const k of SPECIAL_KEYS) specialTokens[k] = tokenText(cfg[k]);
  if (Array.isArray(cfg.additional_special_tokens)) specialTokens.additional_special_tokens = cfg.additional_special_tokens.map(tokenText);

  const addedTokens = new Map<string, number>();
  let plainAdded = true;
  for (const t of Array.isArray(tj.added_tokens) ? tj.added_tokens : []) {
    if (!isObject(t) || typeof t.content !== 'string' || typeof t.id !== 'number') continue;
    addedTokens.set(t.content, t.id);
    if (t.lstrip || t.rstrip || t.single_word || t.normalized) plainAdded = false;
  }
  const addedSplit = addedTokens.size ? new AddedSplitter(addedTokens.keys()) : null;
  const pre = JSON.stringify(tj.pre_tokenizer ?? null);
  const byteLevel = /"ByteLevel"/.test(pre) && isObject(tj.decoder) && /"ByteLevel"/.test(JSON.stringify(tj.decoder));
  const segmentable = byteLevel && plainAdded && !/"add_prefix_space":\s*true/.test(pre);

  const vocab = tj.model.vocab;
  const baseVocab = isObject(vocab) ? Object.keys(vocab).length : Array.isArray(vocab) ? vocab.length : 0;
  // a loop, not Math.max(...ids): 200,000 added tokens overflowed the stack ("Maximum call stack size exceeded")
  let maxAdded = -1;
  for (const id of addedTokens.values()) if (id > maxAdded) maxAdded = id;
  return {
    vocabSize: Math.max(baseVocab, maxAdded + 1),
    tokenizer,
    specialTokens,
    addedTokens,
    addedSplit,
    segmentable,
    byteLevel,
    encodePiece: libraryCache ? undefined : (fastEncoder(tokenizer) ?? undefined),
  };
}

/** Check and compile a profile; a ProfileError names the file and what is wrong. */
export async function loadProfile(src: ProfileSource): Promise<TokenizerProfile> {
  const tj = src.tokenizer;
  const cfg = src.config;
  if (!src.compiled) checkTokenizerJson(tj);
  if (!isObject(cfg)) throw new ProfileError('tokenizer_config.json: not a JSON object');
  const templateText = typeof src.template === 'string' && src.template.trim() ? src.template : configTemplate(cfg);
  if (!templateText) throw new ProfileError('tokenizer_config.json has no chat_template, and no chat_template.jinja was given');

  const marked = markGeneration(templateText);
  let template: Template;
  try {
    template = new Template(marked.text);
  } catch (e) {
    throw new ProfileError(`chat template does not parse: ${e instanceof Error ? e.message : String(e)}`);
  }
  testRender(template, cfg);
  const compiled = src.compiled ?? compileTokenizer(tj as Parameters<typeof compileTokenizer>[0], cfg, !!src.libraryCache);
  return {
    name: src.name ?? (typeof cfg.name_or_path === 'string' ? cfg.name_or_path : typeof cfg.tokenizer_class === 'string' ? cfg.tokenizer_class : 'custom'),
    templateHash: await sha256Hex(templateText),
    generationMarkers: marked.found,
    toolSupport: /\btools\b/.test(templateText),
    countingOnly: false,
    rendering: null,
    template,
    ...compiled,
  };
}

/**
 * Loads profiles from the files' text, keeping the last one's tokenizer part: a profile that changes only the chat
 * template (or the name) of the tokenizer.json and tokenizer_config.json loaded last reuses it instead of parsing the
 * 11 MB tokenizer.json and building its tokenizer again. One per tokenizer worker.
 */
export class ProfileLoader {
  private last: { tokenizerText: string; configText: string; compiled: CompiledTokenizer } | null = null;
  /** Loads that reused the last tokenizer part (tests). */
  reused = 0;

  async load(tokenizerText: string, configText: string, template: string | null, name: string | undefined, parse: (text: string, file: string) => unknown): Promise<TokenizerProfile> {
    const last = this.last;
    const compiled = last && last.tokenizerText === tokenizerText && last.configText === configText ? last.compiled : undefined;
    const tokenizer = compiled ? null : parse(tokenizerText, 'tokenizer.json');
    const config = parse(configText, 'tokenizer_config.json');
    const p = await loadProfile({ tokenizer, config, template, name, compiled });
    if (compiled) this.reused++;
    else this.last = { tokenizerText, configText, compiled: compiledPart(p) };
    return p;
  }
}

/** The part of a profile that depends on tokenizer.json and tokenizer_config.json alone, to pass as `compiled` to a later loadProfile. */
export function compiledPart(p: TokenizerProfile): CompiledTokenizer {
  const { vocabSize, tokenizer, specialTokens, addedTokens, addedSplit, segmentable, byteLevel, encodePiece } = p;
  return { vocabSize, tokenizer, specialTokens, addedTokens, addedSplit, segmentable, byteLevel, encodePiece };
}

export function profileInfo(p: TokenizerProfile): ProfileInfo {
  return { name: p.name, vocabSize: p.vocabSize, templateHash: p.templateHash, generationMarkers: p.generationMarkers, toolSupport: p.toolSupport, countingOnly: p.countingOnly, rendering: p.rendering };
}
