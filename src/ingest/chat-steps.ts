import type { ChatMessage, StepDraft } from './step';

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

/** Tool definitions as JSON text (OpenAI `tools`, legacy `functions`), null when absent. */
export function toolsText(tools: unknown, functions?: unknown): string | null {
  if (Array.isArray(tools) && tools.length) return JSON.stringify(tools);
  if (typeof tools === 'string' && tools.trim().startsWith('[')) return tools;
  if (Array.isArray(functions) && functions.length) return JSON.stringify(functions.map((f) => ({ type: 'function', function: f })));
  return null;
}
