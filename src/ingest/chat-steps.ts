import { isAnthropicTool, openaiToolShape } from './anthropic-message';
import type { ChatMessage, StepDraft } from './step';
import { parseJsonDeep } from './util';

/**
 * A whole conversation → one step per assistant turn (one LLM call each): step k's context is every
 * message before the k-th assistant message, its response that message. A conversation with no
 * assistant turn is one step with no response (a prompt row).
 */
export function chatToSteps(messages: readonly ChatMessage[]): StepDraft[] {
  const steps: StepDraft[] = [];
  for (let i = 0; i < messages.length; i++) {
    if (messages[i].role === 'assistant') steps.push({ messages: messages.slice(0, i), response: messages[i] });
  }
  if (!steps.length) steps.push({ messages: [...messages], response: null });
  return steps;
}

/**
 * Tool definitions as JSON text in the OpenAI shape (OpenAI `tools`, legacy `functions`, Anthropic
 * `{name, input_schema}` converted), null when absent. `toolsOriginal` gives the list as the source had
 * it when a conversion changed it.
 */
export function toolsText(tools: unknown, functions?: unknown): string | null {
  const list = typeof tools === 'string' ? parseJsonDeep(tools) : tools;
  if (Array.isArray(list) && list.length) return list.some(isAnthropicTool) ? JSON.stringify(list.map(openaiToolShape)) : typeof tools === 'string' ? tools : JSON.stringify(list);
  if (typeof tools === 'string' && tools.trim().startsWith('[')) return tools;
  if (Array.isArray(functions) && functions.length) return JSON.stringify(functions.map((f) => ({ type: 'function', function: f })));
  return null;
}

/** The source's tool list as JSON text when `toolsText` converted it (Anthropic-shaped entries), else null. */
export function toolsOriginal(tools: unknown): string | null {
  const list = typeof tools === 'string' ? parseJsonDeep(tools) : tools;
  return Array.isArray(list) && list.some(isAnthropicTool) ? JSON.stringify(list) : null;
}
