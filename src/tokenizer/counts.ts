/**
 * Per-step token counts under a profile (the `token_counts` table): the prompt rendered with the
 * generation prompt, the whole conversation (prompt + response) rendered as the trainer renders an sft row.
 */
import { Int32, Table, tableToIPC, Utf8, vectorFromArray } from 'apache-arrow';
import { parseTools, templateMessage } from './messages';
import type { TokenizerProfile } from './profile';
import type { ChatMessage } from './render';
import { countTexts, renderTexts } from './steps';

export interface StepInput {
  step_id: string;
  trajectory_uid: string;
  messages: Record<string, unknown>[] | null;
  response: Record<string, unknown> | null;
  tools: string | null;
}

export interface TokenCountRow {
  step_id: string;
  trajectory_uid: string;
  n_prompt_tokens: number | null;
  n_response_tokens: number | null;
  n_tokens: number | null;
  template_error: string | null;
  lost_reasoning: number | null;
  lost_tool_calls: number | null;
  lost_tool_results: number | null;
  lost_content: number | null;
}

export interface CountStats {
  /** Text pieces (between special tokens) looked up, and how many had to be tokenized. */
  pieces: number;
  tokenized: number;
}

/**
 * Count one step. `cache` holds the token count of each distinct text piece (message contents sit between the
 * template's special tokens), so a history repeated across steps is tokenized once. The prompt's count is read off
 * the same rendering as the whole conversation's where the template allows it (steps.ts: one rendering per step).
 * `single: false` renders prompt and conversation separately (the reference the one-rendering path is tested against).
 */
export function countStep(p: TokenizerProfile, s: StepInput, cache: Map<string, number>, opts: { single?: boolean } = {}): TokenCountRow {
  const messages: ChatMessage[] = (s.messages ?? []).map(templateMessage);
  const tools = parseTools(s.tools);
  const r = renderTexts(p, messages, s.response ? templateMessage(s.response) : null, { tools, audit: true, single: opts.single });
  const { nPrompt, nWhole: nTokens } = countTexts(p, r, cache);
  return {
    step_id: s.step_id,
    trajectory_uid: s.trajectory_uid,
    n_prompt_tokens: nPrompt,
    n_response_tokens: nPrompt !== null && nTokens !== null && s.response ? nTokens - nPrompt : null,
    n_tokens: nTokens,
    template_error: r.error,
    // A counting-only profile has no chat template whose losses could be audited: unknown, not zero.
    lost_reasoning: p.countingOnly ? null : r.lost.reasoning,
    lost_tool_calls: p.countingOnly ? null : r.lost.toolCalls,
    lost_tool_results: p.countingOnly ? null : r.lost.toolResults,
    lost_content: p.countingOnly ? null : r.lost.content,
  };
}

/** token_counts rows as an Arrow IPC stream. */
export function countsIpc(out: (TokenCountRow & { content_hash: string })[], templateHash: string, profileKey: string): Uint8Array {
  const int = (k: 'n_prompt_tokens' | 'n_response_tokens' | 'n_tokens' | 'lost_reasoning' | 'lost_tool_calls' | 'lost_tool_results' | 'lost_content') =>
    vectorFromArray(
      out.map((r) => r[k]),
      new Int32(),
    );
  const txt = (values: (string | null)[]) => vectorFromArray(values, new Utf8());
  const t = new Table({
    step_id: txt(out.map((r) => r.step_id)),
    trajectory_uid: txt(out.map((r) => r.trajectory_uid)),
    n_prompt_tokens: int('n_prompt_tokens'),
    n_response_tokens: int('n_response_tokens'),
    n_tokens: int('n_tokens'),
    template_error: txt(out.map((r) => r.template_error)),
    lost_reasoning: int('lost_reasoning'),
    lost_tool_calls: int('lost_tool_calls'),
    lost_tool_results: int('lost_tool_results'),
    lost_content: int('lost_content'),
    template_hash: txt(out.map(() => templateHash)),
    profile_key: txt(out.map(() => profileKey)),
    // hash(...) as text: a UBIGINT does not survive a JS number (the pool casts it back)
    content_hash: txt(out.map((r) => r.content_hash)),
  });
  return tableToIPC(t, 'stream');
}
