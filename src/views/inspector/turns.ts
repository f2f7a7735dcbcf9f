/**
 * A trajectory's steps as one conversation: each step contributes the context messages not seen in
 * earlier steps, then its response. When a step's context is not a continuation of the previous one
 * (a truncated or rewritten history) its whole context is shown again, marked as such.
 */
import type { ChatMessage } from '../../contract/step';

export interface InspectorStep {
  step_id: string;
  trajectory_uid: string;
  prompt_uid: string | null;
  step_index: number;
  is_last: boolean | null;
  messages: ChatMessage[] | null;
  response: ChatMessage | null;
  reward: number | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  latency_ms: number | null;
  finish_reason: string | null;
  status: string | null;
  error: string | null;
  model: string | null;
  agent: string | null;
  raw: string | null;
  quality: string | null;
  trainable: boolean | null;
  tags: string[] | null;
  note: string | null;
}

export type Turn =
  | { kind: 'earlier'; step: number; messages: ChatMessage[] }
  | { kind: 'context'; step: number; message: ChatMessage; restated: boolean }
  | { kind: 'response'; step: number; message: ChatMessage | null };

function sameMessage(a: ChatMessage, b: ChatMessage): boolean {
  return a.role === b.role && (a.content ?? null) === (b.content ?? null) && (a.tool_call_id ?? null) === (b.tool_call_id ?? null);
}

export function conversationTurns(steps: InspectorStep[]): Turn[] {
  const out: Turn[] = [];
  let seen: ChatMessage[] = [];
  steps.forEach((s, i) => {
    const msgs = s.messages ?? [];
    const continues = seen.length <= msgs.length && seen.every((m, j) => sameMessage(m, msgs[j]));
    const fresh = continues ? msgs.slice(seen.length) : msgs;
    // what the step's prompt repeats from earlier steps stays behind "N earlier messages"
    if (continues && seen.length) out.push({ kind: 'earlier', step: i, messages: seen });
    for (const m of fresh) out.push({ kind: 'context', step: i, message: m, restated: !continues });
    out.push({ kind: 'response', step: i, message: s.response });
    seen = s.response ? [...msgs, s.response] : msgs;
  });
  return out;
}

/** Tool-call arguments pretty-printed when they are JSON, as they are otherwise. */
export function prettyJson(text: string | null | undefined): string {
  if (text === null || text === undefined) return '';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** Each tool result by the tool_call_id it answers, across the whole trajectory. */
export function toolResults(turns: Turn[]): Map<string, ChatMessage> {
  const out = new Map<string, ChatMessage>();
  for (const t of turns) if (t.kind === 'context' && t.message.role === 'tool' && t.message.tool_call_id) out.set(t.message.tool_call_id, t.message);
  return out;
}

/** Each tool call by its id, with the name of the function it called. */
export function toolCalls(turns: Turn[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const t of turns) {
    const m = t.kind === 'earlier' ? null : t.message;
    for (const c of m?.tool_calls ?? []) if (c.id) out.set(c.id, c.function?.name ?? '?');
  }
  return out;
}
