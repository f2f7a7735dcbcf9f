/**
 * A trajectory's steps as one conversation: each step contributes the context messages not seen in
 * earlier steps, then its response. When a step's context is not a continuation of the previous one
 * (a truncated or rewritten history) its whole context is shown again, marked as such.
 */
import type { ChatMessage } from '../../ingest/step';

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
