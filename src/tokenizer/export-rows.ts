/**
 * Export with tokens (issue 19): which exported rows a trainer can render within `maxTokens`, where an over-long
 * row may be cut (a turn boundary, never inside a turn or a tool call), and each kept row's `input_ids` /
 * `assistant_masks`. Rows arrive in the exported message shape (the `sft` layout's `messages`, null fields kept),
 * so the ids are those `apply_chat_template(row.messages, tools=json.loads(row.tools))` gives for the written row.
 */
import type { TokenExportReport } from '../contract/reports';
import { parseTools } from './messages';
import type { TokenizerProfile } from './profile';
import { type ChatMessage, type LostContent, renderChat } from './render';
import { renderStep, stepIds } from './steps';

export interface ExportRowInput {
  messages: ChatMessage[] | null;
  tools: string | null;
}

export interface ExportTokenOptions {
  /** Rows rendering to more tokens than this are left out (or cut, with truncate 'turn'). */
  maxTokens?: number | null;
  /** 'drop' (default): leave over-long rows out; 'turn': keep the longest prefix ending at a turn boundary that fits. */
  truncate?: 'drop' | 'turn';
}

export const TOO_LONG = 'longer than max_tokens';
export const TEMPLATE_RAISED = 'template raised';

export interface RowPlan {
  /** Messages kept: null = all; 0 = row left out (see cause). */
  keep: number | null;
  /** Why the row is left out. */
  cause: string | null;
  nTokens: number;
  /** Tokens of the kept rendering the assistant mask marks. */
  nTrained: number;
  maskSource: 'generation' | 'turns' | null;
  lost: LostContent;
}

/** What the first pass of an export with tokens counts (the manifest's `tokens` section), in the page and the CLI. */
export type PlanTally = Pick<TokenExportReport, 'mask_source' | 'rows_in' | 'rows' | 'truncated' | 'excluded' | 'lost' | 'tokens' | 'trained_tokens'>;

export function newPlanTally(): PlanTally {
  return { rows_in: 0, rows: 0, truncated: 0, excluded: {}, lost: { reasoning: 0, tool_calls: 0, tool_results: 0, content: 0 }, tokens: 0, trained_tokens: 0, mask_source: null };
}

/** Count one row's plan into `t`; a row not written whole goes into `exceptions` as [row id, messages kept] (0 = left out). */
export function tallyRow(t: PlanTally, exceptions: [string, number][], id: string, d: RowPlan): void {
  t.rows_in++;
  if (d.keep !== null) exceptions.push([id, d.keep]);
  if (d.keep === 0) {
    t.excluded[d.cause as string] = (t.excluded[d.cause as string] ?? 0) + 1;
    return;
  }
  t.rows++;
  if (d.keep !== null) t.truncated++;
  t.tokens += d.nTokens;
  t.trained_tokens += d.nTrained;
  t.mask_source ??= d.maskSource;
  if (d.lost.reasoning) t.lost.reasoning++;
  if (d.lost.toolCalls) t.lost.tool_calls++;
  if (d.lost.toolResults) t.lost.tool_results++;
  if (d.lost.content) t.lost.content++;
}

/**
 * Prefix lengths that end at a turn boundary: after an assistant message without tool calls, or after the last
 * tool result answering a call (the next message is not a tool result). Never after an assistant message whose
 * calls are unanswered, never between the results of one call block.
 */
export function turnBoundaries(messages: ChatMessage[]): number[] {
  const out: number[] = [];
  let seenAssistant = false;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as ChatMessage;
    if (m.role === 'assistant') seenAssistant = true;
    const calls = Array.isArray(m.tool_calls) ? m.tool_calls.length : 0;
    const endOfTurn = (m.role === 'assistant' && calls === 0) || (m.role === 'tool' && messages[i + 1]?.role !== 'tool');
    if (endOfTurn && seenAssistant) out.push(i + 1);
  }
  return out;
}

function templateCause(error: string): string {
  return `${TEMPLATE_RAISED}: ${error.length > 200 ? `${error.slice(0, 199)}…` : error}`;
}

/** Decide one exported row: keep whole, cut at a turn boundary, or leave out (with the cause). */
export function planRow(p: TokenizerProfile, row: ExportRowInput, opts: ExportTokenOptions, cache?: Map<string, number[]>): RowPlan {
  const messages = row.messages ?? [];
  const tools = parseTools(row.tools);
  const render = (m: ChatMessage[]) => renderChat(p, m, { tools, cache });
  const whole = render(messages);
  const plan = (keep: number | null, cause: string | null, r: typeof whole): RowPlan => ({ keep, cause, nTokens: r.nTokens, nTrained: r.nAssistantTokens, maskSource: r.maskSource, lost: r.lost });
  if (whole.error) return plan(0, templateCause(whole.error), whole);
  const max = opts.maxTokens;
  if (max == null || whole.nTokens <= max) return plan(null, null, whole);
  if (opts.truncate === 'turn') {
    // the longest boundary prefix that fits; token counts grow with the prefix, so search, then check the neighbour
    const cuts = turnBoundaries(messages).filter((k) => k < messages.length);
    let lo = 0;
    let hi = cuts.length - 1;
    let best: { k: number; r: ReturnType<typeof render> } | null = null;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const k = cuts[mid] as number;
      const r = render(messages.slice(0, k));
      if (!r.error && r.nTokens <= max) {
        best = { k, r };
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (best) return plan(best.k, null, best.r);
  }
  return plan(0, TOO_LONG, whole);
}

export interface TokenRow {
  ids: number[];
  mask: number[] | null;
  error: string | null;
}

/** A written row's `input_ids` and `assistant_masks` (exactly the rendering planRow measured). */
export function tokenRow(p: TokenizerProfile, row: ExportRowInput, cache?: Map<string, number[]>): TokenRow {
  const r = renderChat(p, row.messages ?? [], { tools: parseTools(row.tools), cache });
  return { ids: r.ids, mask: r.assistantMask, error: r.error };
}

/** Rows' token columns flattened for transfer: offsets (n + 1), ids, masks (0 where the mask is not derivable). */
export interface TokenColumns {
  offsets: Int32Array;
  ids: Int32Array;
  masks: Int32Array;
  /** Per row: whether a mask was derived. */
  masked: Uint8Array;
}

export function tokenColumns(p: TokenizerProfile, rows: ExportRowInput[], maxTokens: number | null, cache?: Map<string, number[]>): TokenColumns {
  const per = rows.map((r) => tokenRow(p, r, cache));
  const offsets = new Int32Array(per.length + 1);
  for (let i = 0; i < per.length; i++) {
    const t = per[i] as TokenRow;
    // the plan left such rows out; meeting one means the pool changed between planning and writing
    if (t.error) throw new Error(`A row's chat template raised while writing (${t.error}): the pool changed during the export; export again.`);
    if (maxTokens != null && t.ids.length > maxTokens) throw new Error('A row grew past max_tokens while writing: the pool changed during the export; export again.');
    offsets[i + 1] = (offsets[i] as number) + t.ids.length;
  }
  const ids = new Int32Array(offsets[per.length] as number);
  const masks = new Int32Array(ids.length);
  const masked = new Uint8Array(per.length);
  per.forEach((t, i) => {
    ids.set(t.ids, offsets[i]);
    if (t.mask) {
      masks.set(t.mask, offsets[i]);
      masked[i] = 1;
    }
  });
  return { offsets, ids, masks, masked };
}

/** An rl_steps row as written (the exported message shape), with the sampler's ids where the step has them. */
export interface RlRowInput {
  trajectory_uid: string | null;
  prompt: ChatMessage[] | null;
  response: ChatMessage | null;
  tools: string | null;
  prompt_ids: number[] | null;
  response_ids: number[] | null;
}

/** What an rl_steps export with tokens did (decision 032): rows, ids made here or kept, tokens. */
export interface RlExportCounts {
  rows: number;
  retokenized: number;
  samplerIds: number;
  /** Prompts whose ids reused the previous step's. */
  reused: number;
  tokens: number;
  notRetokenized: Record<string, number>;
}

/** Per export: the previous step's rendering (reused where the next prompt extends it), the piece cache, the counts. */
export interface RlExportState extends RlExportCounts {
  prev: { uid: string; text: string; ids: number[] } | null;
  cache: Map<string, number[]>;
}

export const newRlExportState = (): RlExportState => ({ prev: null, cache: new Map(), rows: 0, retokenized: 0, samplerIds: 0, reused: 0, tokens: 0, notRetokenized: {} });

/** rl_steps' id columns for a chunk: flattened lists with validity, and per row 1 re-tokenized / 0 the sampler's / 2 none. */
export interface RlColumns {
  promptOffsets: Int32Array;
  promptIds: Int32Array;
  responseOffsets: Int32Array;
  responseIds: Int32Array;
  /** Per row: 1 when the row has ids (either list). */
  promptValid: Uint8Array;
  responseValid: Uint8Array;
  retokenized: Uint8Array;
}

/**
 * prompt_ids / response_ids for a chunk of rl_steps rows (issue 19, decision 032): a step with the sampler's ids keeps
 * them; a step with none gets the ids of its prompt rendered with the generation prompt and of its response (steps.ts
 * stepIds), marked re-tokenized. Rendered once per step; the prompt's ids reuse the previous step's where the prompt's
 * rendering extends it.
 */
export function rlTokenColumns(p: TokenizerProfile, rows: RlRowInput[], st: RlExportState): RlColumns {
  const prompts: (number[] | null)[] = [];
  const responses: (number[] | null)[] = [];
  const retokenized = new Uint8Array(rows.length);
  rows.forEach((row, i) => {
    st.rows++;
    const uid = row.trajectory_uid ?? '';
    if (row.prompt_ids != null || row.response_ids != null) {
      prompts.push(row.prompt_ids ?? null);
      responses.push(row.response_ids ?? null);
      retokenized[i] = 0;
      st.samplerIds++;
      st.prev = null;
      return;
    }
    const prompt = row.prompt ?? [];
    const r = renderStep(p, prompt, row.response ?? null, { tools: parseTools(row.tools), cache: st.cache, prev: st.prev?.uid === uid ? st.prev : null });
    const ids = stepIds(r, p, st.cache);
    st.prev = r.wholeText !== null && r.wholeIds ? { uid, text: r.wholeText, ids: r.wholeIds } : null;
    if (r.reused) st.reused++;
    if (ids) {
      prompts.push(ids.promptIds);
      responses.push(ids.responseIds);
      retokenized[i] = 1;
      st.retokenized++;
      st.tokens += ids.promptIds.length + ids.responseIds.length;
      return;
    }
    const cause = r.error ? templateCause(r.error) : !prompt.length ? 'empty prompt' : !row.response ? 'no response' : 'the prompt rendering is not where the conversation rendering starts';
    st.notRetokenized[cause] = (st.notRetokenized[cause] ?? 0) + 1;
    prompts.push(null);
    responses.push(null);
    retokenized[i] = 2;
  });
  const flat = (lists: (number[] | null)[]) => {
    const offsets = new Int32Array(lists.length + 1);
    const valid = new Uint8Array(lists.length);
    lists.forEach((l, i) => {
      offsets[i + 1] = (offsets[i] as number) + (l?.length ?? 0);
      valid[i] = l ? 1 : 0;
    });
    const ids = new Int32Array(offsets[lists.length] as number);
    lists.forEach((l, i) => {
      if (l) ids.set(l, offsets[i]);
    });
    return { offsets, ids, valid };
  };
  const a = flat(prompts);
  const b = flat(responses);
  return { promptOffsets: a.offsets, promptIds: a.ids, promptValid: a.valid, responseOffsets: b.offsets, responseIds: b.ids, responseValid: b.valid, retokenized };
}
