/**
 * Chat messages from tracing tools (Langfuse, Phoenix, agents' logs), whose inputs and outputs are
 * whatever the instrumented SDK saw: OpenAI messages, Anthropic blocks, LangChain `type: human`,
 * `{messages: …}` wrappers, JSON strings of any of those, or plain text.
 */
import { redactSecrets, redactString } from '../redact';
import type { ChatMessage } from '../../contract/step';
import { isObject, type Obj, parseJsonDeep, str } from '../../contract/json';
import { contentToText, openaiMessage } from '../../contract/message';
import { anthropicMessage } from '../../wire/anthropic';

export const ROLE_ALIASES: Record<string, string> = {
  human: 'user',
  HumanMessage: 'user',
  ai: 'assistant',
  AIMessage: 'assistant',
  AIMessageChunk: 'assistant',
  model: 'assistant',
  bot: 'assistant',
  gpt: 'assistant',
  agent: 'assistant',
  SystemMessage: 'system',
  ToolMessage: 'tool',
  function: 'tool',
  observation: 'tool',
};

export function normalRole(r: unknown, fallback = 'user'): string {
  const s = str(r);
  if (!s) return fallback;
  return ROLE_ALIASES[s] ?? s.toLowerCase();
}

function hasAnthropicBlocks(content: unknown): boolean {
  return Array.isArray(content) && content.some((b) => isObject(b) && (b.type === 'tool_use' || b.type === 'tool_result' || b.type === 'thinking'));
}

/** One message-like object → chat messages (Anthropic tool results split into `tool` messages). */
export function looseMessage(m: unknown, fallbackRole = 'user'): ChatMessage[] {
  const v = parseJsonDeep(m);
  if (!isObject(v)) return v === null || v === undefined ? [] : [{ role: fallbackRole, content: str(v) }];
  // LangChain serialised messages: {lc, type: 'constructor', id: [..., 'HumanMessage'], kwargs: {content}}
  if (isObject(v.kwargs) && Array.isArray(v.id)) return looseMessage({ ...v.kwargs, role: v.id[v.id.length - 1] }, fallbackRole);
  const role = normalRole(v.role ?? (typeof v.type === 'string' && !('text' in v) ? v.type : undefined), fallbackRole);
  const content = parseJsonDeep(v.content);
  if (hasAnthropicBlocks(content)) return anthropicMessage(role, content);
  const msg = openaiMessage({ ...v, role, content: typeof content === 'string' || Array.isArray(content) || content === null ? content : (v.content ?? v.text ?? null) });
  return [msg];
}

function unwrap(v: unknown): unknown {
  let cur = parseJsonDeep(v, 6);
  for (let i = 0; i < 6 && isObject(cur); i++) {
    const next = cur.messages ?? cur.input ?? cur.prompt ?? cur.inputs;
    if (next === undefined) break;
    cur = parseJsonDeep(next, 6);
  }
  return cur;
}

/** A recorded input → the request messages. LangChain's batch shape `[[...messages]]` takes the first batch. */
export function looseMessages(v: unknown, system?: unknown): ChatMessage[] {
  const out: ChatMessage[] = [];
  const top = parseJsonDeep(v, 6);
  const sys = contentToText(parseJsonDeep(system ?? (isObject(top) && 'messages' in top ? top.system : undefined))).content;
  if (sys) out.push({ role: 'system', content: sys });
  let cur = unwrap(top);
  if (Array.isArray(cur) && Array.isArray(cur[0])) cur = cur[0];
  if (Array.isArray(cur)) for (const m of cur) out.push(...looseMessage(m, 'user'));
  else if (isObject(cur)) {
    if (typeof cur.system === 'string') out.push({ role: 'system', content: cur.system });
    out.push(...looseMessage(cur, 'user'));
  } else if (cur !== null && cur !== undefined) out.push({ role: 'user', content: str(cur) });
  return out;
}

/** A recorded output → the assistant message (completion object, choices list, message list or text). */
export function looseResponse(v: unknown): ChatMessage | null {
  let cur = parseJsonDeep(v, 6);
  if (cur === null || cur === undefined) return null;
  if (isObject(cur) && Array.isArray(cur.choices)) cur = cur.choices[0];
  if (isObject(cur) && isObject(cur.message)) cur = cur.message;
  if (isObject(cur) && Array.isArray(cur.generations)) cur = cur.generations.flat()[0];
  if (isObject(cur) && 'completion' in cur && !('content' in cur)) cur = cur.completion;
  if (isObject(cur) && Array.isArray(cur.messages)) cur = cur.messages;
  if (Array.isArray(cur)) {
    const msgs = cur.flatMap((m) => looseMessage(m, 'assistant'));
    const assistant = msgs.filter((m) => m.role === 'assistant');
    return assistant[assistant.length - 1] ?? msgs[msgs.length - 1] ?? null;
  }
  if (isObject(cur) && hasAnthropicBlocks(cur.content)) return anthropicMessage('assistant', cur.content)[0];
  const msgs = looseMessage(cur as Obj | string, 'assistant');
  const m = msgs[0];
  return m ? { ...m, role: 'assistant' } : null;
}

/** A metadata value as text with credentials removed (JSON text is parsed so secret-named keys are caught too). */
export function safeMetaValue(v: unknown): string | null {
  const p = parseJsonDeep(v);
  if (isObject(p) || Array.isArray(p)) return JSON.stringify(redactSecrets(p));
  const s = str(p);
  return s === null ? null : redactString(s);
}
