/**
 * A step's prompt and response under a profile from one rendering (decision 032): the prompt as
 * `apply_chat_template(prompt, add_generation_prompt=True)` renders it is read off the rendering of prompt + response,
 * where the template is verified to render that way, instead of rendering the conversation twice. And a step's prompt
 * ids reuse the previous step's ids where its rendering extends the previous step's rendered text.
 */
import type { TokenizerProfile } from './profile';
import { assistantTurnEnd, type ChatMessage, countTokens, encode, lostContent, type LostContent, renderText } from './render';

const suffixes = new WeakMap<TokenizerProfile, string | null>();

const PROBE_TOOLS = [{ type: 'function', function: { name: 'probe_tool', description: 'probe', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }];
const probeCall = (id: string) => ({ id, type: 'function', function: { name: 'probe_tool', arguments: { q: 'x' } } });

/** Probe conversations [prompt, response, tools]: the shapes agent steps have (a prompt ending with a user or tool turn). */
const PROBES: [ChatMessage[], ChatMessage, unknown[] | null][] = [
  [[{ role: 'user', content: 'hi' }], { role: 'assistant', content: 'hello' }, null],
  [
    [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'do it' },
      { role: 'assistant', content: '', reasoning_content: 'think a', tool_calls: [probeCall('c1')] },
      { role: 'tool', content: 'out', tool_call_id: 'c1' },
    ],
    { role: 'assistant', content: 'done', reasoning_content: 'think b' },
    PROBE_TOOLS,
  ],
  [
    [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b', reasoning_content: 'r' },
      { role: 'user', content: 'c' },
    ],
    { role: 'assistant', content: '', reasoning_content: 'r2', tool_calls: [probeCall('c2')] },
    PROBE_TOOLS,
  ],
];

/**
 * What `add_generation_prompt` appends (untrimmed), when this template renders prompt + response as the prompt's
 * generation-prompt rendering followed by the response, on every probe conversation it renders; null otherwise
 * (then a step's prompt is rendered on its own).
 */
export function promptSuffix(p: TokenizerProfile): string | null {
  if (suffixes.has(p)) return suffixes.get(p) ?? null;
  let suffix: string | null = null;
  try {
    const [first] = PROBES;
    const [m0] = first as (typeof PROBES)[number];
    const plain = renderText(p, m0);
    const withGen = renderText(p, m0, { addGenerationPrompt: true });
    const g = withGen.startsWith(plain) ? withGen.slice(plain.length) : '';
    let ok = g.trim().length > 0;
    for (const [prompt, response, tools] of PROBES) {
      if (!ok) break;
      let promptText: string;
      let whole: string;
      try {
        promptText = renderText(p, prompt, { tools, addGenerationPrompt: true });
        whole = renderText(p, [...prompt, response], { tools });
      } catch {
        if (prompt === m0) ok = false;
        continue; // a shape this template refuses: such steps raise and are rendered on their own
      }
      ok = cutAt(whole, g) === promptText.length && whole.startsWith(promptText);
    }
    suffix = ok ? g : null;
  } catch {
    suffix = null;
  }
  suffixes.set(p, suffix);
  return suffix;
}

/** Where the prompt ends in a rendering of prompt + response: after the last generation prompt. */
function cutAt(whole: string, suffix: string): number {
  const at = whole.lastIndexOf(suffix);
  return at < 0 ? -1 : at + suffix.length;
}

/** Whether the response's own text could contain the generation prompt (then the last one is not its header). */
function mentions(m: ChatMessage, needle: string): boolean {
  if (!needle) return false;
  const has = (v: unknown) => typeof v === 'string' && v.includes(needle);
  if (has(m.content) || has(m.reasoning_content) || has(m.name)) return true;
  return (m.tool_calls ?? []).some((c) => JSON.stringify(c ?? null).includes(needle));
}

/** Largest length of an added token's text (for checking that a cut is not inside one). */
const maxAdded = new WeakMap<TokenizerProfile, number>();
function longestAdded(p: TokenizerProfile): number {
  let n = maxAdded.get(p);
  if (n === undefined) {
    n = 0;
    // a loop, not a spread: a vocabulary can add 200,000 tokens, past the arguments a call can take
    for (const k of p.addedTokens.keys()) if (k.length > n) n = k.length;
    maxAdded.set(p, n);
  }
  return n;
}


/**
 * Whether `text` split at added tokens (as `encode` splits it) has a piece boundary at `at` that its prefix
 * `text.slice(0, at)` shares: an added token starts at `at`, and no added token crosses it.
 */
export function pieceBoundary(p: TokenizerProfile, text: string, at: number): boolean {
  if (!p.segmentable || !p.addedSplit) return false;
  if (at <= 0 || at >= text.length) return at === text.length;
  const span = longestAdded(p);
  const from = Math.max(0, at - span);
  let startsHere = false;
  for (let m = p.addedSplit.next(text, from); m && m.index < at + 1; m = p.addedSplit.next(text, m.index + m.length)) {
    const end = m.index + m.length;
    if (m.index < at && end > at) return false; // an added token crosses the cut
    if (m.index === at) startsHere = true;
  }
  return startsHere;
}

/** Ids of `text`, reusing `prev` (the ids of a rendering `text` extends) where the cut is a shared piece boundary. */
export function encodeExtending(p: TokenizerProfile, text: string, prev: { text: string; ids: number[] } | null, cache?: Map<string, number[]>): { ids: number[]; reused: boolean } {
  if (prev?.text.length && text.startsWith(prev.text) && pieceBoundary(p, text, prev.text.length)) {
    return { ids: prev.ids.concat(encode(p, text.slice(prev.text.length), cache)), reused: true };
  }
  return { ids: encode(p, text, cache), reused: false };
}

/** A step's renderings (steps.ts: one where the template allows), before any tokenizing. */
export interface StepTexts {
  /** Rendered prompt (with the generation prompt); null when there is no prompt or it raised. */
  promptText: string | null;
  /** Rendered prompt + response (the sft row); null when it raised. */
  wholeText: string | null;
  /** The template's exception (the whole conversation's, else the prompt's). */
  error: string | null;
  lost: LostContent;
  /** How many renderings it took (1 when the prompt was read off the whole rendering). */
  renders: number;
  /** Whether the prompt was read off the whole rendering (so the whole rendering starts with it). */
  cut: boolean;
}

export interface StepRendering extends StepTexts {
  /** The prompt's ids; null when there is no prompt or it raised. */
  promptIds: number[] | null;
  /** The whole rendering's ids; null when it raised. */
  wholeIds: number[] | null;
  /** Whether the prompt ids reused earlier ids (the previous step's rendering). */
  reused: boolean;
}

const NO_LOSS: LostContent = { reasoning: 0, toolCalls: 0, toolResults: 0, content: 0 };
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * Render one step: the prompt with the generation prompt and prompt + response, once where `promptSuffix` holds
 * (and the response does not itself contain the generation prompt), twice otherwise. `audit`: compute what the
 * rendering lost.
 */
export function renderTexts(p: TokenizerProfile, prompt: ChatMessage[], response: ChatMessage | null, opts: { tools: unknown[] | null; audit?: boolean; single?: boolean }): StepTexts {
  const { tools } = opts;
  const out: StepTexts = { promptText: null, wholeText: null, error: null, lost: { ...NO_LOSS }, renders: 0, cut: false };
  const full = response ? [...prompt, response] : prompt;
  let promptError: string | null = null;
  try {
    out.renders++;
    out.wholeText = full.length ? renderText(p, full, { tools }) : null;
    if (!full.length) throw new Error('Cannot apply chat template to an empty conversation');
  } catch (e) {
    out.wholeText = null;
    out.error = message(e);
  }
  if (prompt.length) {
    const g = opts.single === false ? null : promptSuffix(p);
    // only where the prompt ends with a user / tool turn (the probed shapes): templates such as Qwen3's render a last
    // assistant message differently (an empty think block) from the same message followed by another
    const lastRole = prompt[prompt.length - 1]?.role;
    const shape = lastRole === 'user' || lastRole === 'tool';
    const cut = g && shape && response && out.wholeText !== null && !mentions(response, g.trim()) ? cutAt(out.wholeText, g) : -1;
    if (cut > 0) {
      out.promptText = (out.wholeText as string).slice(0, cut);
      out.cut = true;
    } else {
      try {
        out.renders++;
        out.promptText = renderText(p, prompt, { tools, addGenerationPrompt: true });
      } catch (e) {
        promptError = message(e);
      }
    }
  }
  out.error ??= promptError;
  if (opts.audit && out.wholeText !== null) out.lost = lostContent(full, out.wholeText);
  return out;
}

/**
 * `renderTexts`, then the ids: the prompt's (reusing `prev`, the previous step of the same trajectory's prompt +
 * response rendering and ids, where this prompt extends it) and the whole rendering's (reusing the prompt's).
 */
export function renderStep(
  p: TokenizerProfile,
  prompt: ChatMessage[],
  response: ChatMessage | null,
  opts: { tools: unknown[] | null; cache?: Map<string, number[]>; prev?: { text: string; ids: number[] } | null; audit?: boolean; single?: boolean },
): StepRendering {
  const { cache } = opts;
  const out: StepRendering = { ...renderTexts(p, prompt, response, opts), promptIds: null, wholeIds: null, reused: false };
  if (out.promptText !== null) {
    const r = encodeExtending(p, out.promptText, opts.prev ?? null, cache);
    out.promptIds = r.ids;
    out.reused = r.reused;
  }
  if (out.wholeText !== null) {
    // the whole rendering extends the prompt's: its ids reuse the prompt's where the cut is a shared piece boundary
    const base = out.promptText !== null && out.promptIds ? { text: out.promptText, ids: out.promptIds } : (opts.prev ?? null);
    out.wholeIds = encodeExtending(p, out.wholeText, base, cache).ids;
  }
  return out;
}

/**
 * Token counts of a step's renderings without their ids (token_counts): the prompt's, and the whole rendering's as the
 * prompt's plus the rest's where the prompt is its prefix at a piece boundary. Equal to `renderStep`'s ids' lengths.
 */
export function countTexts(p: TokenizerProfile, t: StepTexts, cache?: Map<string, number>): { nPrompt: number | null; nWhole: number | null } {
  const nPrompt = t.promptText !== null ? countTokens(p, t.promptText, cache) : null;
  let nWhole: number | null = null;
  if (t.wholeText !== null) {
    const pt = t.promptText;
    const extendsPrompt = pt !== null && pt.length > 0 && (t.cut || t.wholeText.startsWith(pt)) && pieceBoundary(p, t.wholeText, pt.length);
    nWhole = extendsPrompt ? (nPrompt as number) + countTokens(p, t.wholeText.slice(pt.length), cache) : countTokens(p, t.wholeText, cache);
  }
  return { nPrompt, nWhole };
}

/**
 * rl_steps' re-tokenized ids for a step (issue 19): `prompt_ids` = the prompt rendered with the generation prompt,
 * `response_ids` = what follows it in the rendering of prompt + response, through the template's end of turn (what a
 * sampler stops on; the template's text after it, e.g. a newline, is not generated). Null when the template raised,
 * there is no response, or the prompt's rendering is not where the whole rendering starts.
 */
export function stepIds(r: StepRendering, p: TokenizerProfile, cache?: Map<string, number[]>): { promptIds: number[]; responseIds: number[] } | null {
  if (r.error || r.promptText === null || r.wholeText === null || !r.promptIds) return null;
  if (!r.wholeText.startsWith(r.promptText) || r.wholeText.length === r.promptText.length) return null;
  const end = assistantTurnEnd(p);
  let stop = r.wholeText.length;
  if (end) {
    const at = r.wholeText.lastIndexOf(end);
    if (at >= r.promptText.length) stop = at + end.length;
  }
  return { promptIds: r.promptIds, responseIds: encode(p, r.wholeText.slice(r.promptText.length, stop), cache) };
}
