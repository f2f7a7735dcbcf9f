/** Building the contract's ChatMessage from the shapes sources write (OpenAI chat messages, multi-part content, tool calls). */
import { isObject, parseJsonDeep, str } from './json';
import type { ChatMessage, ToolCall } from './step';

/** Tool-call arguments as one JSON text: objects are stringified, double-encoded strings unwrapped. */
export function normalizeArguments(args: unknown): string {
  if (args === undefined || args === null) return '{}';
  if (typeof args !== 'string') return JSON.stringify(args);
  const parsed = parseJsonDeep(args);
  if (typeof parsed === 'string') return parsed;
  return JSON.stringify(parsed);
}

export interface TextParts {
  content: string | null;
  parts: string | null;
}

const TEXT_PART_TYPES = new Set(['text', 'input_text', 'output_text', 'summary_text']);

/** Multi-part content joined into text; images become `[image]`; the original parts kept as JSON text. */
export function contentToText(content: unknown): TextParts {
  if (content === null || content === undefined) return { content: null, parts: null };
  if (typeof content === 'string') return { content, parts: null };
  if (!Array.isArray(content)) {
    if (isObject(content) && typeof content.text === 'string') return { content: content.text, parts: JSON.stringify([content]) };
    return { content: JSON.stringify(content), parts: null };
  }
  const texts: string[] = [];
  for (const p of content) {
    if (typeof p === 'string') texts.push(p);
    else if (isObject(p)) {
      const type = typeof p.type === 'string' ? p.type : '';
      if (TEXT_PART_TYPES.has(type) || (type === '' && typeof p.text === 'string')) texts.push(String(p.text ?? ''));
      else if (type.includes('image')) texts.push('[image]');
      else if (type.includes('audio')) texts.push('[audio]');
      else if (type === 'refusal') texts.push(String(p.refusal ?? ''));
      else if (typeof p.text === 'string') texts.push(p.text);
      else if (type) texts.push(`[${type}]`);
    }
  }
  return { content: texts.join('\n'), parts: JSON.stringify(content) };
}

export function toolCall(v: unknown, fallbackId: string | null = null): ToolCall | null {
  if (!isObject(v)) return null;
  const fn = isObject(v.function) ? v.function : v;
  const name = str(fn.name);
  if (name === null) return null;
  return {
    id: str(v.id) ?? str(v.call_id) ?? fallbackId,
    type: str(v.type) === 'function' || !v.type ? 'function' : String(v.type),
    function: { name, arguments: normalizeArguments(fn.arguments ?? fn.input ?? fn.args) },
  };
}

export function toolCalls(v: unknown): ToolCall[] | null {
  const arr = typeof v === 'string' ? parseJsonDeep(v) : v;
  if (!Array.isArray(arr)) return null;
  const out: ToolCall[] = [];
  for (const c of arr) {
    const t = toolCall(c);
    if (t) out.push(t);
  }
  return out.length ? out : null;
}

const THINK_OPEN = /^\s*<(think|thinking)>/;

/**
 * Reasoning that a model wrote inline (`<think>…</think>` before the answer, as DeepSeek-R1, Qwen3 and
 * their distillates emit it; also the form whose opening tag the chat template put in the prompt, so
 * the text starts inside the block; and Claude's prompted `<thinking>…</thinking>`) moved out of
 * `content` into `reasoning`. A block that never closes (cut off by max_tokens) is all reasoning.
 * Messages that already carry reasoning, or no tag, are returned unchanged. Every normalizer that
 * builds assistant text calls this (issue 16 defect 5).
 */
export function splitInlineThink(m: ChatMessage): ChatMessage {
  const c = m.content;
  if (m.role !== 'assistant' || typeof c !== 'string' || m.reasoning || !c.includes('think')) return m;
  const open = THINK_OPEN.exec(c);
  // only `<think>` is ever opened by the template: a text starting inside the block closes `</think>`
  const closeTag = `</${open?.[1] ?? 'think'}>`;
  const from = open ? open[0].length : 0;
  const close = c.indexOf(closeTag, from);
  if (!open && (close < 0 || c.lastIndexOf('<think>', close) >= 0)) return m;
  const reasoning = (close < 0 ? c.slice(from) : c.slice(from, close)).trim();
  const rest = close < 0 ? '' : c.slice(close + closeTag.length).replace(/^\s+/, '');
  return { ...m, content: rest || (m.tool_calls?.length || close < 0 ? null : rest), reasoning };
}

/** An OpenAI Chat Completions message (request or response side) as a ChatMessage. */
export function openaiMessage(m: unknown): ChatMessage {
  if (!isObject(m)) return { role: 'user', content: str(m) };
  const { content, parts } = contentToText(m.content);
  let calls = toolCalls(m.tool_calls);
  if (!calls && isObject(m.function_call)) {
    const t = toolCall({ type: 'function', function: m.function_call });
    calls = t ? [t] : null;
  }
  const reasoning = str(m.reasoning_content ?? m.reasoning ?? m.thinking);
  const msg: ChatMessage = { role: str(m.role) ?? 'user', content };
  if (reasoning !== null) msg.reasoning = reasoning;
  if (m.name !== undefined && m.name !== null) msg.name = str(m.name);
  if (m.tool_call_id !== undefined && m.tool_call_id !== null) msg.tool_call_id = str(m.tool_call_id);
  if (calls) msg.tool_calls = calls;
  if (parts !== null) msg.parts = parts;
  if (m.is_error === true) msg.is_error = true;
  return splitInlineThink(msg);
}

/** Plain text of an assistant message, for search: content, plus tool calls as `name(args)`. */
export function messageText(m: ChatMessage | null): string | null {
  if (!m) return null;
  const bits: string[] = [];
  if (m.content) bits.push(m.content);
  for (const c of m.tool_calls ?? []) bits.push(`${c.function.name}(${c.function.arguments})`);
  return bits.length ? bits.join('\n') : m.content;
}
