import type { ChatMessage, ToolCall } from './step';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Obj = Record<string, unknown>;

export function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

export function num(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

export function int(v: unknown): number | null {
  const n = num(v);
  return n === null ? null : Math.trunc(n);
}

/** Parse a string that may hold JSON, possibly encoded more than once; non-JSON strings come back as they are. */
export function parseJsonDeep(v: unknown, maxDepth = 4): unknown {
  let cur = v;
  for (let i = 0; i < maxDepth && typeof cur === 'string'; i++) {
    const t = cur.trim();
    if (!(t.startsWith('{') || t.startsWith('[') || t.startsWith('"'))) break;
    try {
      cur = JSON.parse(t);
    } catch {
      break;
    }
  }
  return cur;
}

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

const THINK_OPEN = /^\s*<think>/;
const THINK_CLOSE = '</think>';

/**
 * Reasoning that a model wrote inline (`<think>…</think>` before the answer, as DeepSeek-R1, Qwen3 and
 * their distillates emit it; also the form whose opening tag the chat template put in the prompt, so
 * the text starts inside the block) moved out of `content` into `reasoning`. A block that never closes
 * (cut off by max_tokens) is all reasoning. Messages that already carry reasoning, or no tag, are
 * returned unchanged. Every normalizer that builds assistant text calls this (issue 16 defect 5).
 */
export function splitInlineThink(m: ChatMessage): ChatMessage {
  const c = m.content;
  if (m.role !== 'assistant' || typeof c !== 'string' || m.reasoning || !c.includes('think>')) return m;
  const open = THINK_OPEN.exec(c);
  const from = open ? open[0].length : 0;
  const close = c.indexOf(THINK_CLOSE, from);
  if (!open && (close < 0 || c.lastIndexOf('<think>', close) >= 0)) return m;
  const reasoning = (close < 0 ? c.slice(from) : c.slice(from, close)).trim();
  const rest = close < 0 ? '' : c.slice(close + THINK_CLOSE.length).replace(/^\s+/, '');
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

/** The source's other top-level keys as MAP(VARCHAR, VARCHAR): strings as they are, other values as JSON text. */
export function metadataOf(obj: Obj, exclude: Iterable<string>): Record<string, string> | null {
  const skip = new Set(exclude);
  const out: Record<string, string> = {};
  let n = 0;
  for (const [k, v] of Object.entries(obj)) {
    if (skip.has(k) || v === undefined) continue;
    out[k] = typeof v === 'string' ? v : JSON.stringify(v);
    n++;
  }
  return n ? out : null;
}

/** An ISO-like date-time with no zone (`2026-11-28T14:02:11.514322`, `2026-11-28 14:02:11`): local time of an unknown place. */
const NAIVE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?$/;

export function isNaiveTime(v: unknown): boolean {
  return typeof v === 'string' && NAIVE_TIME.test(v.trim());
}

/** The metadata note for steps whose source wrote timestamps without a zone (DESIGN: never shift silently). */
export const NAIVE_TIME_NOTE = { key: 'time_zone', value: 'none in source: timestamps kept as written, stored as UTC' } as const;

/** `meta` plus the naive-time note when any of `values` is a timestamp without a zone. */
export function noteNaiveTimes(meta: Record<string, string> | null, ...values: unknown[]): Record<string, string> | null {
  if (!values.some(isNaiveTime)) return meta;
  return { ...(meta ?? {}), [NAIVE_TIME_NOTE.key]: NAIVE_TIME_NOTE.value };
}

/**
 * Epoch milliseconds of a timestamp: numbers by magnitude (s / ms / µs / ns), ISO text with its zone.
 * Text without a zone is read as UTC, so it keeps the wall-clock value it was written with instead of
 * being shifted by whatever zone the browser runs in (`Date.parse` reads it as local time); callers
 * add `noteNaiveTimes` to say so.
 */
export function timeMs(v: unknown): number | null {
  if (v === null || v === undefined || v === '') return null;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return null;
    if (v > 1e17) return v / 1e6; // nanoseconds
    if (v > 1e14) return v / 1e3; // microseconds
    if (v < 1e11) return v * 1000; // seconds
    return v;
  }
  if (typeof v === 'string') {
    if (/^\d+(\.\d+)?$/.test(v)) return timeMs(Number(v));
    if (isNaiveTime(v)) {
      const [date, time] = v.trim().replace(',', '.').split(/[T ]/);
      const [hms, frac = ''] = time.split('.');
      const t = Date.parse(`${date}T${hms.length === 5 ? `${hms}:00` : hms}.${(frac + '000').slice(0, 3)}Z`);
      return Number.isNaN(t) ? null : t;
    }
    const t = Date.parse(v);
    return Number.isNaN(t) ? null : t;
  }
  return null;
}

/** Walk a dotted path (`a.b.0.c`) into a value. */
export function at(v: unknown, path: string): unknown {
  let cur = v;
  for (const key of path.split('.')) {
    if (cur === null || cur === undefined) return undefined;
    if (Array.isArray(cur)) cur = cur[Number(key)];
    else if (isObject(cur)) cur = cur[key];
    else return undefined;
  }
  return cur;
}
