/**
 * Per-step token counts under a profile (the `token_counts` table): the prompt rendered with the
 * generation prompt, the whole conversation (prompt + response) rendered as the trainer renders an sft row.
 */
import { parseTools, templateMessage } from './messages';
import type { TokenizerProfile } from './profile';
import { type ChatMessage, renderChat } from './render';

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
 * Count one step. `cache` holds token ids per distinct text piece (message contents sit between the
 * template's special tokens), so a history repeated across steps is tokenized once.
 */
export function countStep(p: TokenizerProfile, s: StepInput, cache: Map<string, number[]>): TokenCountRow {
  const messages: ChatMessage[] = (s.messages ?? []).map(templateMessage);
  const tools = parseTools(s.tools);
  const full = s.response ? [...messages, templateMessage(s.response)] : messages;
  const whole = renderChat(p, full, { tools, cache, noMask: true });
  const prompt = messages.length ? renderChat(p, messages, { tools, cache, noMask: true, addGenerationPrompt: true }) : null;
  const error = whole.error ?? prompt?.error ?? null;
  const nPrompt = prompt && !prompt.error ? prompt.nTokens : null;
  const nTokens = whole.error ? null : whole.nTokens;
  return {
    step_id: s.step_id,
    trajectory_uid: s.trajectory_uid,
    n_prompt_tokens: nPrompt,
    n_response_tokens: nPrompt !== null && nTokens !== null && s.response ? nTokens - nPrompt : null,
    n_tokens: nTokens,
    template_error: error,
    // A counting-only profile has no chat template whose losses could be audited: unknown, not zero.
    lost_reasoning: p.countingOnly ? null : whole.lost.reasoning,
    lost_tool_calls: p.countingOnly ? null : whole.lost.toolCalls,
    lost_tool_results: p.countingOnly ? null : whole.lost.toolResults,
    lost_content: p.countingOnly ? null : whole.lost.content,
  };
}
