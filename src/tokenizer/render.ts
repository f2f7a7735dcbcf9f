/**
 * Render a conversation with a profile's chat template the way transformers' `apply_chat_template` does,
 * tokenize it, and say what the trainer will train on (assistant mask) and what the rendering lost.
 */
import { GEN_END, GEN_START, type TokenizerProfile } from './profile';
import { renderLimited, renderLimits } from './template-limits';

/** A message as chat templates read it (the export shape: `content` a string, reasoning as `reasoning_content`). */
export interface ChatMessage {
  role: string;
  content: string | null;
  reasoning_content?: string | null;
  name?: string | null;
  tool_call_id?: string | null;
  tool_calls?: { id?: string | null; type?: string | null; function: { name: string; arguments: unknown } }[] | null;
  [k: string]: unknown;
}

export interface RenderOptions {
  tools?: unknown[] | null;
  addGenerationPrompt?: boolean;
  /** Extra template variables (e.g. enable_thinking), as `apply_chat_template(**kwargs)`. */
  extra?: Record<string, unknown>;
  /** Token ids per text piece between added tokens; shared across calls so a repeated history is tokenized once. */
  cache?: Map<string, number[]>;
  /** Skip the assistant mask (counting only). */
  noMask?: boolean;
}

export interface LostContent {
  /** Assistant messages whose reasoning the rendering does not contain. */
  reasoning: number;
  /** Tool calls whose function name the rendering does not contain. */
  toolCalls: number;
  /** Tool results (role tool) whose content the rendering does not contain. */
  toolResults: number;
  /** Other messages (system / user / assistant) whose content the rendering does not contain. */
  content: number;
}

export interface RenderResult {
  /** Rendered text (generation markers removed); null when the template raised. */
  text: string | null;
  ids: number[];
  /** 1 on tokens the assistant generated (TRL assistant_only_loss), null when not derivable. */
  assistantMask: number[] | null;
  /** 'generation': the template's {% generation %} blocks (exactly transformers' return_assistant_tokens_mask); 'turns': assistant turns found from the template's own generation prompt and end of turn. */
  maskSource: 'generation' | 'turns' | null;
  nTokens: number;
  nAssistantTokens: number;
  /** The template's exception message, when it raised. */
  error: string | null;
  lost: LostContent;
}

export class TemplateError extends Error {
  override name = 'TemplateError';
}

/**
 * The variables transformers renders a chat template with (apply_chat_template → render_jinja_template).
 * raise_exception and strftime_now are @huggingface/jinja's own globals (it refuses to redeclare them):
 * raise_exception throws an Error with the template's message, as transformers' TemplateError carries it.
 */
function templateContext(p: TokenizerProfile, messages: unknown[], opts: RenderOptions): Record<string, unknown> {
  const ctx: Record<string, unknown> = {};
  // special_tokens_map holds only the tokens that are set
  for (const [k, v] of Object.entries(p.specialTokens)) if (v != null) ctx[k] = v;
  Object.assign(ctx, {
    messages,
    tools: opts.tools ?? null,
    documents: null,
    add_generation_prompt: opts.addGenerationPrompt ?? false,
    ...opts.extra,
  });
  return ctx;
}

/** The template's output for a conversation, generation markers still in. Throws TemplateError. */
export function renderRaw(p: TokenizerProfile, messages: unknown[], opts: RenderOptions = {}): string {
  if (!messages.length) throw new TemplateError('Cannot apply chat template to an empty conversation');
  try {
    // within limits that grow with the conversation (template-limits.ts): a template past them is this step's error
    const inputChars = JSON.stringify(messages).length + (opts.tools ? JSON.stringify(opts.tools).length : 0);
    return renderLimited(p.template, templateContext(p, messages, opts), renderLimits(inputChars));
  } catch (e) {
    if (e instanceof TemplateError) throw e;
    throw new TemplateError(e instanceof Error ? e.message : String(e));
  }
}

/** Token ids of text as `tokenizer(text, add_special_tokens=False)` gives them, pieces cached. */
export function encode(p: TokenizerProfile, text: string, cache?: Map<string, number[]>): number[] {
  if (!p.segmentable || !p.addedSplit) return p.tokenizer.encode(text, { add_special_tokens: false }).ids;
  const out: number[] = [];
  for (const piece of p.addedSplit.split(text)) {
    if (!piece) continue;
    const added = p.addedTokens.get(piece);
    if (added !== undefined) {
      out.push(added);
      continue;
    }
    let ids = cache?.get(piece);
    if (!ids) {
      ids = p.encodePiece ? p.encodePiece(piece) : p.tokenizer.encode(piece, { add_special_tokens: false }).ids;
      cache?.set(piece, ids);
    }
    for (const id of ids) out.push(id);
  }
  return out;
}

/**
 * `encode(p, text).length` without building the ids: per text piece (between added tokens) a count, from `cache` where
 * the piece was counted before. What token_counts needs; the pieces are those `encode` splits, so the sums are equal.
 */
export function countTokens(p: TokenizerProfile, text: string, cache?: Map<string, number>): number {
  if (!p.segmentable || !p.addedSplit) return p.tokenizer.encode(text, { add_special_tokens: false }).ids.length;
  let n = 0;
  for (const piece of p.addedSplit.split(text)) {
    if (!piece) continue;
    if (p.addedTokens.has(piece)) {
      n++;
      continue;
    }
    let c = cache?.get(piece);
    if (c === undefined) {
      c = (p.encodePiece ? p.encodePiece(piece) : p.tokenizer.encode(piece, { add_special_tokens: false }).ids).length;
      cache?.set(piece, c);
    }
    n += c;
  }
  return n;
}

const utf8 = new TextEncoder();
const idBytes = new WeakMap<TokenizerProfile, Map<number, number>>();

/** UTF-8 byte length of each token's text (byte-level BPE: one vocabulary character per byte). */
function tokenByteLengths(p: TokenizerProfile, ids: number[]): number[] | null {
  if (!p.byteLevel) return null;
  let memo = idBytes.get(p);
  if (!memo) {
    memo = new Map();
    for (const [content, id] of p.addedTokens) memo.set(id, utf8.encode(content).length);
    idBytes.set(p, memo);
  }
  const out = new Array<number>(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i] as number;
    let n = memo.get(id);
    if (n === undefined) {
      n = [...(p.tokenizer.id_to_token(id) ?? '')].length;
      memo.set(id, n);
    }
    out[i] = n;
  }
  return out;
}

/** Strip generation sentinels; their character spans in the stripped text. */
function generationSpans(raw: string): { text: string; spans: [number, number][] } {
  const spans: [number, number][] = [];
  let text = '';
  let open = -1;
  let last = 0;
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i];
    if (ch !== GEN_START && ch !== GEN_END) continue;
    text += raw.slice(last, i);
    last = i + 1;
    if (ch === GEN_START) open = text.length;
    else if (open >= 0) {
      spans.push([open, text.length]);
      open = -1;
    }
  }
  text += raw.slice(last);
  if (open >= 0) spans.push([open, text.length]);
  return { text, spans };
}

const turnMarks = new WeakMap<TokenizerProfile, { head: string; end: string } | null>();

/**
 * The template's own assistant header (what add_generation_prompt appends) and end of turn (what follows
 * an assistant message's content), found by rendering two probe conversations.
 */
function assistantTurnMarks(p: TokenizerProfile): { head: string; end: string } | null {
  if (turnMarks.has(p)) return turnMarks.get(p) ?? null;
  let marks: { head: string; end: string } | null = null;
  try {
    const user = [{ role: 'user', content: 'hi' }];
    const without = generationSpans(renderRaw(p, user)).text;
    const withPrompt = generationSpans(renderRaw(p, user, { addGenerationPrompt: true })).text;
    const probe = '\uE00Aprobe';
    const full = generationSpans(renderRaw(p, [...user, { role: 'assistant', content: probe }])).text;
    const at = full.lastIndexOf(probe);
    const head = withPrompt.startsWith(without) ? withPrompt.slice(without.length).trim() : '';
    const end = at >= 0 ? full.slice(at + probe.length).trim() : '';
    if (head && end) marks = { head, end };
  } catch {
    marks = null;
  }
  turnMarks.set(p, marks);
  return marks;
}

function turnSpans(p: TokenizerProfile, text: string): [number, number][] | null {
  const m = assistantTurnMarks(p);
  if (!m) return null;
  const spans: [number, number][] = [];
  let from = 0;
  for (;;) {
    const h = text.indexOf(m.head, from);
    if (h < 0) break;
    let start = h + m.head.length;
    while (start < text.length && /\s/.test(text[start] as string)) start++;
    const e = text.indexOf(m.end, start);
    const end = e < 0 ? text.length : e + m.end.length;
    if (end > start) spans.push([start, end]);
    from = end;
  }
  return spans;
}

/** The rendered text (generation markers removed). Throws TemplateError. */
export function renderText(p: TokenizerProfile, messages: unknown[], opts: RenderOptions = {}): string {
  return generationSpans(renderRaw(p, messages, opts)).text;
}

/** The template's assistant end of turn (trimmed, e.g. `<|im_end|>`), found by probing; null when not found. */
export function assistantTurnEnd(p: TokenizerProfile): string | null {
  return assistantTurnMarks(p)?.end ?? null;
}

/** Mask tokens overlapping each character span, as transformers does with char_to_token(start) … char_to_token(end - 1). */
function spansToMask(text: string, spans: [number, number][], byteLens: number[]): number[] | null {
  const total = byteLens.reduce((a, b) => a + b, 0);
  if (total !== utf8.encode(text).length) return null;
  const starts = new Array<number>(byteLens.length);
  let acc = 0;
  for (let i = 0; i < byteLens.length; i++) {
    starts[i] = acc;
    acc += byteLens[i] as number;
  }
  const tokenAt = (byte: number): number => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= byte) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const mask = new Array<number>(byteLens.length).fill(0);
  for (const [s, e] of spans) {
    if (e <= s) continue;
    const bs = utf8.encode(text.slice(0, s)).length;
    const be = bs + utf8.encode(text.slice(s, e)).length;
    const a = tokenAt(bs);
    const b = tokenAt(be - 1);
    for (let t = a; t <= b; t++) mask[t] = 1;
  }
  return mask;
}

function norm(s: unknown): string {
  return typeof s === 'string' ? s.trim() : '';
}

/** What the messages have that the rendered text does not. */
export function lostContent(messages: ChatMessage[], text: string): LostContent {
  const lost: LostContent = { reasoning: 0, toolCalls: 0, toolResults: 0, content: 0 };
  for (const m of messages) {
    const content = norm(m.content);
    if (m.role === 'tool') {
      if (content && !text.includes(content)) lost.toolResults++;
      continue;
    }
    if (content && !text.includes(content)) lost.content++;
    if (m.role !== 'assistant') continue;
    const reasoning = norm(m.reasoning_content);
    if (reasoning && !text.includes(reasoning)) lost.reasoning++;
    for (const c of m.tool_calls ?? []) {
      const name = norm(c?.function?.name);
      if (name && !text.includes(name)) lost.toolCalls++;
    }
  }
  return lost;
}

const NO_LOSS: LostContent = { reasoning: 0, toolCalls: 0, toolResults: 0, content: 0 };

/** Render, tokenize, mask and audit one conversation. Never throws for a template exception: see `error`. */
export function renderChat(p: TokenizerProfile, messages: ChatMessage[], opts: RenderOptions = {}): RenderResult {
  let raw: string;
  try {
    raw = renderRaw(p, messages, opts);
  } catch (e) {
    return { text: null, ids: [], assistantMask: null, maskSource: null, nTokens: 0, nAssistantTokens: 0, error: e instanceof Error ? e.message : String(e), lost: { ...NO_LOSS } };
  }
  const { text, spans } = generationSpans(raw);
  const ids = encode(p, text, opts.cache);
  let assistantMask: number[] | null = null;
  let maskSource: RenderResult['maskSource'] = null;
  if (!opts.noMask) {
    const lens = tokenByteLengths(p, ids);
    const chosen = p.generationMarkers ? spans : turnSpans(p, text);
    if (lens && chosen) {
      assistantMask = spansToMask(text, chosen, lens);
      if (assistantMask) maskSource = p.generationMarkers ? 'generation' : 'turns';
    }
  }
  return {
    text,
    ids,
    assistantMask,
    maskSource,
    nTokens: ids.length,
    nAssistantTokens: assistantMask ? assistantMask.reduce((a, b) => a + b, 0) : 0,
    error: null,
    lost: lostContent(messages, text),
  };
}

/** One token (or a few, where a UTF-8 character spans tokens) of a rendering, for display. */
export interface TokenPiece {
  text: string;
  /** Token ids this piece covers. */
  ids: number[];
  /** Whether the trainer trains on it (assistant mask). */
  trained: boolean;
}

/**
 * The rendered text cut at token boundaries (byte-level tokenizers; null otherwise). Tokens that split a
 * UTF-8 character are merged with the next so every piece is whole text.
 */
export function tokenPieces(p: TokenizerProfile, r: RenderResult): TokenPiece[] | null {
  if (r.text === null) return null;
  const lens = tokenByteLengths(p, r.ids);
  if (!lens) return null;
  const bytes = utf8.encode(r.text);
  if (lens.reduce((a, b) => a + b, 0) !== bytes.length) return null;
  const strict = new TextDecoder('utf-8', { fatal: true });
  const out: TokenPiece[] = [];
  let at = 0;
  let from = 0;
  let ids: number[] = [];
  let trained = false;
  for (let i = 0; i < r.ids.length; i++) {
    ids.push(r.ids[i] as number);
    trained ||= r.assistantMask?.[i] === 1;
    at += lens[i] as number;
    try {
      const text = strict.decode(bytes.subarray(from, at));
      out.push({ text, ids, trained });
      from = at;
      ids = [];
      trained = false;
    } catch {
      // a character continues in the next token
    }
  }
  return out;
}
