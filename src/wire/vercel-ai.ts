/**
 * The Vercel AI SDK's messages and results, as its telemetry (`ai.prompt.messages`, `ai.response.toolCalls`),
 * its `generateText` / `streamText` results (`response.messages`, `steps`) and apps' stored chats hold them.
 * Model messages: content parts `text`, `reasoning`, `tool-call` (`{toolCallId, toolName, args}` in v4,
 * `input` from v5), `tool-result` (`result` + `isError` in v4, a typed `output` from v5), `image`, `file`.
 * UI messages (`useChat`): v4 `tool-invocation` parts, v5 `tool-<name>` / `dynamic-tool` parts that carry
 * the call and its result together.
 */
import { asObject, int, isObject, type Obj, parseJsonDeep, str } from '../contract/json';
import { normalizeArguments } from '../contract/message';
import type { ChatMessage, ToolCall } from '../contract/step';
import { toolsText } from './tools';
import { emptyResponse, type WireResponse } from './types';

/** A tool call as the SDK writes it: `{toolCallId, toolName, args | input}` (a `tool-call` part, a result's `toolCalls[]`). */
export function aiSdkToolCall(v: unknown): ToolCall | null {
  const c = asObject(v);
  if (!c || typeof c.toolName !== 'string') return null;
  return { id: str(c.toolCallId), type: 'function', function: { name: c.toolName, arguments: normalizeArguments(c.input ?? c.args ?? {}) } };
}

/** `{toolCallId, toolName}` with its arguments: the one key pair no other provider shape uses. */
export function isAiSdkToolCall(v: unknown): boolean {
  return isObject(v) && typeof v.toolName === 'string' && 'toolCallId' in v;
}

interface ToolOutput {
  text: string | null;
  error: boolean;
}

const asText = (v: unknown): string | null => (v === undefined || v === null ? null : typeof v === 'string' ? v : JSON.stringify(v));

/** A tool result's value: v5 `output: {type: 'text' | 'json' | 'error-text' | 'error-json' | 'content' | 'execution-denied', value}`, v4 `result` (+ `isError`). */
export function toolOutput(part: Obj): ToolOutput {
  const out = asObject(part.output);
  if (out && typeof out.type === 'string' && ('value' in out || out.type === 'execution-denied')) {
    const error = out.type.startsWith('error') || out.type === 'execution-denied';
    if (out.type === 'content' && Array.isArray(out.value)) {
      const texts = out.value.map((p) => (isObject(p) ? (p.type === 'text' ? (str(p.text) ?? '') : `[${str(p.mediaType)?.split('/')[0] ?? str(p.type) ?? 'media'}]`) : (str(p) ?? '')));
      return { text: texts.join('\n'), error };
    }
    if (out.type === 'execution-denied') return { text: str(out.reason) ?? 'execution denied', error };
    return { text: asText(out.value), error };
  }
  const value = 'output' in part ? part.output : part.result;
  return { text: asText(value), error: part.isError === true };
}

function toolMessage(part: Obj): ChatMessage {
  const o = toolOutput(part);
  const m: ChatMessage = { role: 'tool', content: o.text, tool_call_id: str(part.toolCallId) };
  if (typeof part.toolName === 'string') m.name = part.toolName;
  if (o.error) m.is_error = true;
  return m;
}

const MEDIA = (p: Obj): string => {
  const mime = str(p.mediaType ?? p.mimeType) ?? '';
  return p.type === 'image' || mime.startsWith('image/') ? '[image]' : mime.startsWith('audio/') ? '[audio]' : '[file]';
};

/** One model message (`{role, content}`) → chat messages; a `tool` message's results become one `tool` message each. */
function modelMessage(m: Obj): ChatMessage[] {
  const role = str(m.role) ?? 'user';
  const content = m.content;
  if (typeof content === 'string' || content === null || content === undefined) return [{ role, content: str(content) }];
  if (!Array.isArray(content)) return [{ role, content: asText(content) }];
  const text: string[] = [];
  const reasoning: string[] = [];
  const calls: ToolCall[] = [];
  const results: ChatMessage[] = [];
  let media = false;
  for (const p of content) {
    if (typeof p === 'string') text.push(p);
    if (!isObject(p)) continue;
    if (p.type === 'text') text.push(str(p.text) ?? '');
    else if (p.type === 'reasoning') reasoning.push(str(p.text ?? p.reasoning) ?? '');
    else if (p.type === 'tool-call') {
      const c = aiSdkToolCall(p);
      if (c) calls.push(c);
    } else if (p.type === 'tool-result') results.push(toolMessage(p));
    else if (p.type === 'image' || p.type === 'file') {
      text.push(MEDIA(p));
      media = true;
    }
    // redacted-reasoning, tool-approval-request / -response and source parts carry no text for the context
  }
  if (role === 'tool') return results;
  const msg: ChatMessage = { role, content: text.length ? text.join('') : null };
  if (reasoning.length) msg.reasoning = reasoning.join('\n');
  if (calls.length) msg.tool_calls = calls;
  if (media) msg.parts = JSON.stringify(content);
  // a provider-executed tool's result sits in the assistant turn after its call
  return [msg, ...results];
}

/** A UI tool part: v5 `tool-<name>` / `dynamic-tool` (`state`, `input`, `output`, `errorText`), v4 `tool-invocation`. */
function uiToolPart(p: Obj): { call: ToolCall; result: ChatMessage | null } | null {
  const inv = p.type === 'tool-invocation' ? asObject(p.toolInvocation) : p;
  if (!inv) return null;
  const name = str(inv.toolName) ?? (typeof p.type === 'string' && p.type.startsWith('tool-') ? p.type.slice(5) : null);
  if (!name) return null;
  const id = str(inv.toolCallId);
  const call: ToolCall = { id, type: 'function', function: { name, arguments: normalizeArguments(inv.input ?? inv.args ?? {}) } };
  const state = str(inv.state);
  let result: ChatMessage | null = null;
  if (state === 'output-available' || state === 'result') result = { role: 'tool', content: asText(inv.output ?? inv.result), tool_call_id: id, name };
  else if (state === 'output-error') result = { role: 'tool', content: str(inv.errorText), tool_call_id: id, name, is_error: true };
  return { call, result };
}

const isUiToolPart = (p: Obj): boolean => typeof p.type === 'string' && (p.type === 'tool-invocation' || p.type === 'dynamic-tool' || (p.type.startsWith('tool-') && 'toolCallId' in p));

/** One UI message (`{id, role, parts}`) → chat messages: each step of an assistant message (`step-start`) is a turn followed by its tool results. */
function uiMessage(m: Obj): ChatMessage[] {
  const role = str(m.role) ?? 'user';
  const parts = Array.isArray(m.parts) ? m.parts : [];
  const out: ChatMessage[] = [];
  let cur: ChatMessage | null = null;
  let pending: ChatMessage[] = [];
  const flush = () => {
    if (cur) out.push(cur);
    out.push(...pending);
    cur = null;
    pending = [];
  };
  const turn = (): ChatMessage => (cur ??= { role, content: null });
  for (const p of parts) {
    if (!isObject(p)) continue;
    if (p.type === 'step-start') flush();
    else if (p.type === 'text' || p.type === 'reasoning') {
      // text after a tool's result is the next step's, also where the SDK wrote no step-start
      if (pending.length) flush();
      const t = turn();
      const s = str(p.text ?? p.reasoning) ?? '';
      if (p.type === 'text') t.content = (t.content ?? '') + s;
      else t.reasoning = t.reasoning ? `${t.reasoning}\n${s}` : s;
    } else if (isUiToolPart(p)) {
      const x = uiToolPart(p);
      if (!x) continue;
      const t = turn();
      t.tool_calls = [...(t.tool_calls ?? []), x.call];
      if (x.result) pending.push(x.result);
    } else if (p.type === 'file') {
      const t = turn();
      t.content = (t.content ?? '') + MEDIA(p);
    }
  }
  flush();
  // v4 UI messages also carry the text in `content`
  if (!out.length && typeof m.content === 'string') out.push({ role, content: m.content });
  return out;
}

/** A UI message: `parts` of the SDK's UI part types (a model message has `content`). */
export function isUiMessage(v: unknown): boolean {
  return isObject(v) && typeof v.role === 'string' && Array.isArray(v.parts) && v.parts.some((p) => isObject(p) && typeof p.type === 'string' && (p.type === 'text' || p.type === 'step-start' || isUiToolPart(p)));
}

const AI_PART_TYPES = new Set(['tool-call', 'tool-result', 'reasoning', 'redacted-reasoning', 'tool-approval-request', 'tool-approval-response']);

/** A model message with a part only the AI SDK writes (`tool-call`, `tool-result`, `reasoning`, …). */
export function isAiSdkMessage(v: unknown): boolean {
  return isObject(v) && typeof v.role === 'string' && Array.isArray(v.content) && v.content.some((p) => isObject(p) && typeof p.type === 'string' && AI_PART_TYPES.has(p.type));
}

/** AI SDK messages (model or UI, either version) → chat messages. */
export function aiSdkMessages(list: unknown): ChatMessage[] {
  const v = parseJsonDeep(list);
  const items = Array.isArray(v) ? v : isObject(v) ? [v] : [];
  const out: ChatMessage[] = [];
  for (const m of items) {
    if (!isObject(m)) continue;
    out.push(...(isUiMessage(m) ? uiMessage(m) : modelMessage(m)));
  }
  return out;
}

/** `ai.prompt.tools`: a list of tool definitions, each as JSON text (`inputSchema` from v5, `parameters` in v4) → OpenAI-shaped JSON text. */
export function aiSdkTools(v: unknown): string | null {
  const list = parseJsonDeep(v);
  if (!Array.isArray(list) || !list.length) return null;
  return toolsText(
    list.map((t) => {
      const d = parseJsonDeep(t);
      if (!isObject(d)) return d;
      const { inputSchema, ...rest } = d;
      return inputSchema !== undefined && rest.parameters === undefined ? { ...rest, parameters: inputSchema } : d;
    }),
  );
}

const FINISH: Readonly<Record<string, string>> = { 'tool-calls': 'tool_calls', 'content-filter': 'content_filter', unknown: '' };

/** The SDK's `finishReason` (`tool-calls`, `content-filter`, …) → OpenAI-style. */
export function aiSdkFinishReason(v: unknown): string | null {
  const s = str(v);
  if (!s) return null;
  return (FINISH[s] ?? s) || null;
}

/** `usage`: v4 `promptTokens` / `completionTokens`, v5 `inputTokens` / `outputTokens`. */
export function aiSdkUsage(u: unknown): { prompt: number | null; completion: number | null } {
  const o = asObject(parseJsonDeep(u)) ?? {};
  return { prompt: int(o.inputTokens ?? o.promptTokens), completion: int(o.outputTokens ?? o.completionTokens) };
}

/** The calls of a result or telemetry attribute: a list (or its JSON text) of `{toolCallId, toolName, args | input}`. */
function callsOf(v: unknown): ToolCall[] {
  const list = parseJsonDeep(v);
  return Array.isArray(list) ? list.map(aiSdkToolCall).filter((c): c is ToolCall => c !== null) : [];
}

/**
 * One call's answer as the SDK reports it → the step's reading: a result or step (`text`, `reasoning[Text]`,
 * `toolCalls`, v5 `content`, `finishReason`, `usage`, `response: {id, modelId, messages}`), a bare
 * `toolCalls` list, response messages, or an assistant message whose `tool_calls` are the SDK's.
 */
export function aiSdkResponse(value: unknown): WireResponse {
  const a = emptyResponse();
  const v = parseJsonDeep(value);
  if (Array.isArray(v)) {
    const calls = callsOf(v);
    if (calls.length) a.message = { role: 'assistant', content: null, tool_calls: calls };
    else a.message = aiSdkMessages(v).filter((m) => m.role === 'assistant').at(-1) ?? null;
  } else if (isObject(v)) {
    const res = asObject(v.response);
    if (Array.isArray(v.content) && !('role' in v)) a.message = aiSdkMessages([{ role: 'assistant', content: v.content }])[0] ?? null;
    else if (typeof v.role === 'string') {
      const m = aiSdkMessages([{ ...v, tool_calls: undefined }])[0] ?? { role: 'assistant', content: null };
      const calls = callsOf(v.tool_calls ?? v.toolCalls);
      a.message = { ...m, role: 'assistant', ...(calls.length ? { tool_calls: [...(m.tool_calls ?? []), ...calls] } : {}) };
    } else if ('text' in v || 'toolCalls' in v) {
      const calls = callsOf(v.toolCalls);
      const reasoning = typeof v.reasoningText === 'string' ? v.reasoningText : typeof v.reasoning === 'string' ? v.reasoning : null;
      a.message = { role: 'assistant', content: typeof v.text === 'string' && (v.text || !calls.length) ? v.text : null };
      if (reasoning) a.message.reasoning = reasoning;
      if (calls.length) a.message.tool_calls = calls;
    } else if (res && Array.isArray(res.messages)) a.message = aiSdkMessages(res.messages).filter((m) => m.role === 'assistant').at(-1) ?? null;
    a.finish_reason = aiSdkFinishReason(v.finishReason);
    const usage = aiSdkUsage(v.usage);
    a.prompt_tokens = usage.prompt;
    a.completion_tokens = usage.completion;
    a.id = str(res?.id);
    a.model = str(res?.modelId);
  } else if (typeof v === 'string') a.message = { role: 'assistant', content: v };
  if (a.message && !a.message.content && !a.message.reasoning && !a.message.tool_calls?.length) a.message = null;
  // an empty text beside tool calls is no text
  if (a.message?.content === '' && a.message.tool_calls?.length) a.message = { ...a.message, content: null };
  a.finish_reason ??= a.message?.tool_calls?.length ? 'tool_calls' : null;
  return a;
}

/** A value with an AI SDK result's shape: `toolCalls` of SDK calls, or `finishReason` beside `text` / `content` / `response.messages`. */
export function isAiSdkResult(v: unknown): boolean {
  if (!isObject(v)) return false;
  if (Array.isArray(v.toolCalls) && (v.toolCalls.length === 0 || v.toolCalls.some(isAiSdkToolCall))) return 'text' in v || 'finishReason' in v;
  return typeof v.finishReason === 'string' && ('text' in v || Array.isArray(v.content) || (isObject(v.response) && Array.isArray(v.response.messages)));
}
