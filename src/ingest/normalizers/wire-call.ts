/**
 * A recorded LLM API call (request body + response body, JSON or SSE text) → the pieces of a step.
 * Used by the recording formats (HAR, request/response logs) that carry raw HTTP bodies.
 */
import { addEvent, anthropicFinishReason, assistantMessage, newAnthropicStream, requestMessages, streamMessage, systemMessage, userMessages } from '../anthropic-message';
import { toolsOriginal, toolsText } from '../chat-steps';
import { addChunk, newStream, streamCompletion } from '../openai-stream';
import type { ChatMessage, StepDraft } from '../../contract/step';
import { int, isObject, type Obj, parseJsonDeep, str } from '../../contract/json';
import { contentToText, normalizeArguments, openaiMessage } from '../../contract/message';

export const Api = {
  chat: 'openai-chat',
  completions: 'openai-completions',
  responses: 'openai-responses',
  anthropic: 'anthropic',
} as const;
export type Api = (typeof Api)[keyof typeof Api];

/** Which API a call used, from its URL path first and its request body second; null = not an LLM call. */
export function apiOf(url: string | null, body: unknown): Api | null {
  const path = (url ?? '').split(/[?#]/)[0].replace(/\/+$/, '');
  if (path.endsWith('/chat/completions')) return Api.chat;
  if (path.endsWith('/messages')) return Api.anthropic;
  if (path.endsWith('/responses')) return Api.responses;
  if (path.endsWith('/completions')) return Api.completions;
  if (!isObject(body) || typeof body.model !== 'string') return null;
  if (Array.isArray(body.messages)) return guessChatOrAnthropic(body);
  if ('input' in body) return Api.responses;
  if ('prompt' in body) return Api.completions;
  return null;
}

function guessChatOrAnthropic(body: Obj): Api {
  if (typeof body.system === 'string' || Array.isArray(body.system)) return Api.anthropic;
  const anthropicBlocks = (body.messages as unknown[]).some(
    (m) => isObject(m) && Array.isArray(m.content) && m.content.some((b) => isObject(b) && (b.type === 'tool_use' || b.type === 'tool_result')),
  );
  return anthropicBlocks ? Api.anthropic : Api.chat;
}

export const PROVIDER: Record<Api, string> = {
  'openai-chat': 'openai',
  'openai-completions': 'openai',
  'openai-responses': 'openai',
  anthropic: 'anthropic',
};

export interface WireRequest {
  messages: ChatMessage[];
  tools: string | null;
  /** The tool list as sent, when `tools` is a conversion of it (Anthropic shape). */
  tools_original: string | null;
  model: string | null;
  stream: boolean;
}

export function parseRequest(api: Api, body: unknown): WireRequest {
  const b = isObject(body) ? body : {};
  const base = { model: str(b.model), stream: b.stream === true, tools_original: toolsOriginal(b.tools) };
  if (api === Api.anthropic) return { ...base, messages: requestMessages(b), tools: toolsText(b.tools) };
  if (api === Api.responses) return { ...base, messages: responsesInput(b.instructions, b.input), tools: toolsText(b.tools) };
  if (api === Api.completions) return { ...base, messages: b.prompt === undefined ? [] : [{ role: 'user', content: promptText(b.prompt) }], tools: null };
  const messages = Array.isArray(b.messages) ? b.messages.map(openaiMessage) : [];
  return { ...base, messages, tools: toolsText(b.tools, b.functions) };
}

function promptText(p: unknown): string | null {
  if (Array.isArray(p)) return p.map((x) => str(x) ?? '').join('\n');
  return str(p);
}

// ── Anthropic (the conversions live in anthropic-message.ts, shared with the gateway and the log normalizer) ──

/** Anthropic `system` + `messages` (content blocks) → OpenAI-style messages; tool results become `tool` messages. */
export function anthropicMessages(system: unknown, messages: unknown): ChatMessage[] {
  return requestMessages({ system, messages });
}

/** One Anthropic message (role + content blocks) → chat messages. */
export function anthropicMessage(role: string, content: unknown): ChatMessage[] {
  if (role === 'assistant') return [assistantMessage(content)];
  if (role === 'system') return [systemMessage(content) ?? { role: 'system', content: null }];
  return userMessages(content).map((m) => (m.role === 'user' && role !== 'user' ? { ...m, role } : m));
}

function anthropicResponse(r: Obj): WireResponse {
  const response = assistantMessage(r.content);
  const usage = isObject(r.usage) ? r.usage : {};
  return {
    response,
    finish_reason: anthropicFinishReason(r.stop_reason),
    prompt_tokens: anthropicPromptTokens(usage),
    completion_tokens: int(usage.output_tokens),
    model: str(r.model),
    error: null,
  };
}

function anthropicPromptTokens(u: Obj): number | null {
  const base = int(u.input_tokens);
  if (base === null) return null;
  return base + (int(u.cache_read_input_tokens) ?? 0) + (int(u.cache_creation_input_tokens) ?? 0);
}

/** Anthropic `messages` stream events reassembled (anthropic-message.ts, shared with the Anthropic log normalizer). */
function anthropicStream(events: SseEvent[]): WireResponse {
  const s = newAnthropicStream(null);
  for (const e of events) {
    const d = parseJsonDeep(e.data);
    if (isObject(d)) addEvent(s, typeof d.type === 'string' ? d : { ...d, type: e.event });
  }
  const r = anthropicResponse(streamMessage(s));
  return { ...r, error: s.error !== null ? (errorText({ error: s.error }) ?? 'stream error') : null };
}

// ── OpenAI Responses API ─────────────────────────────────────────────────────

function responsesInput(instructions: unknown, input: unknown): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (typeof instructions === 'string' && instructions) out.push({ role: 'system', content: instructions });
  if (typeof input === 'string') out.push({ role: 'user', content: input });
  else if (Array.isArray(input)) out.push(...responsesItems(input, 'user'));
  return out;
}

/** Responses API items (messages, function calls, their outputs, reasoning) → chat messages. */
function responsesItems(items: unknown[], defaultRole: string): ChatMessage[] {
  const out: ChatMessage[] = [];
  let pendingReasoning: string | null = null;
  const lastAssistant = (): ChatMessage => {
    const last = out[out.length - 1];
    if (last && last.role === 'assistant') return last;
    const m: ChatMessage = { role: 'assistant', content: null };
    out.push(m);
    return m;
  };
  for (const it of items) {
    if (!isObject(it)) continue;
    const type = str(it.type) ?? 'message';
    if (type === 'message') {
      const { content, parts } = contentToText(it.content);
      const m: ChatMessage = { role: str(it.role) ?? defaultRole, content };
      if (parts && !(Array.isArray(it.content) && it.content.every((p) => isObject(p) && String(p.type).endsWith('text')))) m.parts = parts;
      if (pendingReasoning && m.role === 'assistant') m.reasoning = pendingReasoning;
      pendingReasoning = null;
      out.push(m);
    } else if (type === 'function_call' || type === 'custom_tool_call') {
      const m = lastAssistant();
      (m.tool_calls ??= []).push({ id: str(it.call_id ?? it.id), type: 'function', function: { name: str(it.name) ?? '', arguments: normalizeArguments(it.arguments ?? it.input) } });
    } else if (type === 'function_call_output' || type === 'custom_tool_call_output') {
      out.push({ role: 'tool', content: contentToText(it.output).content, tool_call_id: str(it.call_id) });
    } else if (type === 'reasoning') {
      const summary = Array.isArray(it.summary) ? contentToText(it.summary).content : null;
      if (summary) pendingReasoning = summary;
    }
  }
  if (pendingReasoning) lastAssistant().reasoning = pendingReasoning;
  return out;
}

function responsesResponse(r: Obj): WireResponse {
  const msgs = responsesItems(Array.isArray(r.output) ? r.output : [], 'assistant');
  const response = msgs.find((m) => m.role === 'assistant') ?? null;
  const usage = isObject(r.usage) ? r.usage : {};
  const status = str(r.status);
  const hasCalls = !!response?.tool_calls?.length;
  return {
    response,
    finish_reason: status === 'incomplete' ? 'length' : hasCalls ? 'tool_calls' : status === 'failed' ? 'error' : response ? 'stop' : null,
    prompt_tokens: int(usage.input_tokens),
    completion_tokens: int(usage.output_tokens),
    model: str(r.model),
    error: status === 'failed' ? (errorText(r) ?? 'response failed') : null,
  };
}

function responsesStream(events: SseEvent[]): WireResponse {
  let text = '';
  for (const e of events) {
    const d = parseJsonDeep(e.data);
    if (!isObject(d)) continue;
    const type = str(d.type) ?? e.event;
    if ((type === 'response.completed' || type === 'response.incomplete' || type === 'response.failed') && isObject(d.response)) return responsesResponse(d.response);
    if (type === 'response.output_text.delta') text += str(d.delta) ?? '';
    if (type === 'error') return { ...emptyResponse(), error: errorText(d) ?? 'stream error' };
  }
  return { ...emptyResponse(), response: { role: 'assistant', content: text }, finish_reason: null };
}

// ── OpenAI Chat Completions / legacy completions ─────────────────────────────

function chatResponse(r: Obj): WireResponse {
  const choice = Array.isArray(r.choices) && isObject(r.choices[0]) ? r.choices[0] : {};
  const usage = isObject(r.usage) ? r.usage : {};
  let response: ChatMessage | null = null;
  if (isObject(choice.message)) response = { ...openaiMessage(choice.message), role: 'assistant' };
  else if (choice.text !== undefined) response = { role: 'assistant', content: str(choice.text) };
  return {
    response,
    finish_reason: str(choice.finish_reason),
    prompt_tokens: int(usage.prompt_tokens ?? usage.input_tokens),
    completion_tokens: int(usage.completion_tokens ?? usage.output_tokens),
    model: str(r.model),
    error: null,
  };
}

/** `chat.completion.chunk` (and legacy `text_completion`) events reassembled (openai-stream.ts, shared with the OpenAI log normalizer). */
function chatStream(events: SseEvent[]): WireResponse {
  const s = newStream('wire', null);
  for (const e of events) {
    if (e.data.trim() === '[DONE]') continue;
    const d = parseJsonDeep(e.data);
    if (isObject(d)) addChunk(s, d);
  }
  const r = chatResponse(streamCompletion(s));
  const m = r.response;
  // a stream that carried no text, reasoning or tool call (only a role, or only an error) made no response
  if (m && m.content === null && !m.reasoning && !m.tool_calls?.length) r.response = null;
  return { ...r, error: s.error !== null ? errorText({ error: s.error }) : null };
}

// ── Shared ───────────────────────────────────────────────────────────────────

export interface WireResponse {
  response: ChatMessage | null;
  finish_reason: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  model: string | null;
  error: string | null;
}

function emptyResponse(): WireResponse {
  return { response: null, finish_reason: null, prompt_tokens: null, completion_tokens: null, model: null, error: null };
}

export interface SseEvent {
  event: string | null;
  data: string;
}

/** Server-sent events text → events (`event:` name and the joined `data:` lines). */
export function parseSse(text: string): SseEvent[] {
  const out: SseEvent[] = [];
  for (const block of text.replace(/\r\n?/g, '\n').split(/\n\n+/)) {
    let event: string | null = null;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length) out.push({ event, data: data.join('\n') });
  }
  return out;
}

export function looksLikeSse(text: string): boolean {
  return /^(?:event:|data:|:)/m.test(text.slice(0, 2000)) && !/^\s*[{[]/.test(text);
}

export function errorText(v: unknown): string | null {
  if (typeof v === 'string') return v || null;
  if (Array.isArray(v)) return v.length ? errorText(v[0]) : null;
  if (!isObject(v)) return null;
  if (isObject(v.error)) return str(v.error.message) ?? JSON.stringify(v.error);
  if (typeof v.error === 'string') return v.error;
  if (typeof v.message === 'string') return v.message;
  if (typeof v.detail === 'string') return v.detail;
  return null;
}

/** A response body (parsed JSON, or SSE / JSON text) → the assistant message, usage and error. */
export function parseResponse(api: Api, body: unknown): WireResponse {
  if (typeof body === 'string') {
    if (looksLikeSse(body)) {
      const events = parseSse(body);
      if (api === Api.anthropic) return anthropicStream(events);
      if (api === Api.responses) return responsesStream(events);
      return chatStream(events);
    }
    const parsed = parseJsonDeep(body);
    if (typeof parsed === 'string') return { ...emptyResponse(), error: body.trim() ? body.slice(0, 2000) : null };
    body = parsed;
  }
  if (!isObject(body)) return { ...emptyResponse(), error: Array.isArray(body) ? errorText(body) : null };
  if (isObject(body.error) || (typeof body.error === 'string' && !('choices' in body))) return { ...emptyResponse(), error: errorText(body) };
  if (body.type === 'error') return { ...emptyResponse(), error: errorText(body) };
  if (api === Api.anthropic || body.type === 'message') return anthropicResponse(body);
  if (api === Api.responses || body.object === 'response') return responsesResponse(body);
  return chatResponse(body);
}

/** Request + response of one call as a step draft (without timing and status, which the recording knows). */
export function wireStep(api: Api, requestBody: unknown, responseBody: unknown): StepDraft & { error: string | null } {
  const req = parseRequest(api, requestBody);
  const res = parseResponse(api, responseBody);
  return {
    messages: req.messages,
    tools: req.tools,
    model: res.model ?? req.model,
    provider: PROVIDER[api],
    response: res.response,
    finish_reason: res.finish_reason ?? (res.error ? 'error' : null),
    prompt_tokens: res.prompt_tokens,
    completion_tokens: res.completion_tokens,
    error: res.error,
    ...(req.tools_original ? { metadata: { tools_original: req.tools_original } } : {}),
  };
}
