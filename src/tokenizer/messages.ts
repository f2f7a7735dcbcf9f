/**
 * Pool messages (steps.messages / steps.response, the MESSAGE_TYPE struct) in the shape the `sft` export
 * writes them and chat templates read them: `content` always a string ('' for a tool-call-only turn),
 * reasoning as `reasoning_content`, developer → system, null optional fields kept as null (src/export/layouts).
 */
import type { ChatMessage } from './render';

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

export function templateMessage(m: Record<string, unknown>): ChatMessage {
  const role = str(m.role) ?? 'user';
  return {
    role: role === 'developer' ? 'system' : role,
    content: str(m.content) ?? '',
    reasoning_content: str(m.reasoning),
    name: str(m.name),
    tool_call_id: str(m.tool_call_id),
    tool_calls: Array.isArray(m.tool_calls) ? (m.tool_calls as ChatMessage['tool_calls']) : null,
    parts: str(m.parts),
  };
}

/** `steps.tools` (JSON text) as the list templates iterate; null when absent or not a JSON list. */
export function parseTools(tools: unknown): unknown[] | null {
  if (typeof tools !== 'string' || !tools.trim()) return null;
  // the steps of a trajectory repeat one tools text: parsed once (templates read the list, they do not change it)
  if (tools === lastTools.text) return lastTools.value;
  let value: unknown[] | null = null;
  try {
    const v = JSON.parse(tools);
    value = Array.isArray(v) && v.length ? v : null;
  } catch {
    value = null;
  }
  lastTools = { text: tools, value };
  return value;
}
let lastTools: { text: string | null; value: unknown[] | null } = { text: null, value: null };
