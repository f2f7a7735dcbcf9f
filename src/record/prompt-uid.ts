/**
 * A prompt's identity (`prompt_uid`, docs/schema.md): the same for every rollout of one prompt, whichever source
 * recorded it. Import (ingest/finalize.ts) and capture (gateway/core/capture.ts) both name prompts with it, so a
 * prompt captured live and the same prompt imported from a file fall into one GRPO group.
 */
import type { ChatMessage } from '../contract/step';
import { hash64 } from '../util/hash';

/** Identity of a message for history matching: role, content and tool calls. */
export function messageKey(m: ChatMessage): string {
  const calls = m.tool_calls?.map((c) => `${c.function.name}:${c.function.arguments}`).join('|') ?? '';
  return `${m.role}\u0001${(m.content ?? '').trim()}\u0001${calls}\u0001${m.tool_call_id ?? ''}`;
}

/** Prefix of the prompt_uid of a trajectory whose prompt is blank: a group of its own (docs/decisions/011). */
export const EMPTY_PROMPT_PREFIX = 'p-empty-';

/**
 * The prompt's identity text: system prompt(s) plus the first user turn (docs/schema.md, `prompt_uid`); null
 * when all of that is blank (no text, no parts), which would otherwise put unrelated trajectories into
 * one GRPO group. The first user turn ends it: later turns of the same conversation keep the same prompt.
 */
export function promptText(messages: readonly ChatMessage[]): string | null {
  const bits: string[] = [];
  let text = false;
  const say = (m: ChatMessage) => {
    const c = (m.content ?? '').trim();
    if (c) text = true;
    else if (m.parts) text = true; // multi-part content without text (an image): its parts are the prompt
    return c || (m.parts ? `parts:${m.parts}` : '');
  };
  for (const m of messages) {
    if (m.role === 'system' || m.role === 'developer') bits.push(`s:${say(m)}`);
    else if (m.role === 'user') {
      bits.push(`u:${say(m)}`);
      break;
    }
  }
  if (bits.length === 0 && messages.length) {
    const k = messageKey(messages[0]);
    if (k.replace(/[\u0001\s]/g, '') !== messages[0].role) return k;
  }
  return text ? bits.join('\n') : null;
}

/** Prompt identity (see promptText); a blank prompt gets `p-empty-…` of `trajectory` (its own group), or of nothing when none is given. */
export function promptUid(messages: readonly ChatMessage[], trajectory = ''): string {
  const t = promptText(messages);
  return t === null ? `${EMPTY_PROMPT_PREFIX}${hash64(trajectory)}` : `p-${hash64(t)}`;
}
