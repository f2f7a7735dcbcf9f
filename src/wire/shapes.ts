/**
 * A recorded call's input and output read by their SHAPE, whatever framework wrote them: trace exports
 * (Langfuse, Phoenix, OTel) hold what the instrumented SDK saw — OpenAI chat or Responses bodies, Anthropic
 * messages, Gemini contents, AI SDK messages and results, LangChain messages — or a wrapper around one, or
 * text. Each value is matched against the provider shapes in a fixed order and read by that provider's wire
 * module; nothing here names a framework. A value that is only a request's settings (`text.format`,
 * `reasoning.effort`, `temperature`, …) is no response.
 */
import { isObject, type Obj, parseJsonDeep, str } from '../contract/json';
import { contentToText, openaiMessage } from '../contract/message';
import type { ChatMessage } from '../contract/step';
import { anthropicMessage, anthropicRequest, anthropicResponse } from './anthropic';
import { geminiContent, geminiMessages, geminiRequest, geminiResponse, isGeminiContent, isGeminiRequest, isGeminiResponse } from './gemini';
import { isLangchainMessage, isSerialized, langchainMessages, langchainResponse } from './langchain';
import { chatRequest, chatResponse } from './openai-chat';
import { itemsToMessages, mergeAssistant, responsesRequest, responsesResponse } from './openai-responses';
import { toolsOriginal, toolsText } from './tools';
import { emptyResponse, type WireRequest, type WireResponse } from './types';
import { aiSdkFinishReason, aiSdkMessages, aiSdkResponse, aiSdkTools, isAiSdkMessage, isAiSdkResult, isAiSdkToolCall, isUiMessage } from './vercel-ai';

/** Which provider shape a value had (null: none was recognized). */
export type Shape = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini' | 'ai-sdk' | 'langchain' | 'messages' | 'text';

/** Roles sources spell their own way (ShareGPT, LangChain class names, agents' logs) → chat roles. */
export const ROLE_ALIASES: Readonly<Record<string, string>> = {
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

/** Responses API input / output item types (a list with one of them is an item list). */
const RESPONSES_ITEMS = new Set([
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'reasoning',
  'web_search_call',
  'file_search_call',
  'computer_call',
  'computer_call_output',
  'local_shell_call',
  'mcp_call',
  'item_reference',
]);
const RESPONSES_PARTS = new Set(['input_text', 'output_text', 'input_image', 'input_file', 'refusal']);

function isResponsesItem(v: unknown): boolean {
  if (!isObject(v)) return false;
  if (typeof v.type === 'string' && RESPONSES_ITEMS.has(v.type)) return true;
  return (v.type === 'message' || 'role' in v) && Array.isArray(v.content) && v.content.some((p) => isObject(p) && RESPONSES_PARTS.has(p.type as string));
}

const ANTHROPIC_BLOCKS = new Set(['tool_use', 'tool_result', 'thinking', 'redacted_thinking', 'server_tool_use', 'web_search_tool_result']);
const hasAnthropicBlocks = (content: unknown): boolean => Array.isArray(content) && content.some((b) => isObject(b) && ANTHROPIC_BLOCKS.has(b.type as string));

/** Message content: text, a part list, or a part list as JSON text (a text reading as another JSON value stays text). */
function contentOf(c: unknown): unknown {
  if (typeof c !== 'string') return c;
  const p = decode(c);
  return Array.isArray(p) && p.length > 0 && p.every((b) => isObject(b) && typeof b.type === 'string') ? p : c;
}

/** JSON text of a structure → the structure; anything else as it is (a string stays the source's string). */
const decode = (v: unknown): unknown => parseJsonDeep(v, 6);

/**
 * A tool definition that a tracer appended to the input as a message (`{role: 'tool', content: {type:
 * 'function', function}}`, as Langfuse's LangChain handler does): a tool offered, not a tool's result.
 */
function toolDefinition(m: unknown): unknown | null {
  if (!isObject(m) || m.role !== 'tool' || m.tool_call_id !== undefined) return null;
  const c = decode(m.content);
  return isObject(c) && (isObject(c.function) || (typeof c.name === 'string' && ('parameters' in c || 'input_schema' in c))) ? c : null;
}

/** One message of no provider-specific shape: OpenAI-style, roles aliased, Anthropic blocks split. */
function plainMessage(m: unknown, fallbackRole: string): ChatMessage[] {
  const v = decode(m);
  if (!isObject(v)) return v === null || v === undefined ? [] : [{ role: fallbackRole, content: str(v) }];
  if (isGeminiContent(v)) return geminiContent(v, fallbackRole);
  const role = normalRole(v.role ?? (typeof v.type === 'string' && !('text' in v) ? v.type : undefined), fallbackRole);
  const raw = contentOf(v.content);
  if (hasAnthropicBlocks(raw)) return anthropicMessage(role, raw);
  const content = typeof raw === 'string' || Array.isArray(raw) || raw === null ? raw : (raw ?? v.text ?? null);
  return [openaiMessage({ ...v, role, content: isObject(content) ? JSON.stringify(content) : content })];
}

/** A list of messages: the whole list in the first shape any of them has (the shapes tie results to calls across messages). */
function listMessages(list: unknown[], fallbackRole: string): ChatMessage[] {
  const items = list.map(decode);
  if (items.some(isResponsesItem)) return itemsToMessages(items);
  if (items.some((m) => isAiSdkMessage(m) || isUiMessage(m))) return aiSdkMessages(items);
  if (items.some(isGeminiContent)) return geminiMessages(items);
  if (items.some(isLangchainMessage)) return langchainMessages(items);
  if (items.some((m) => isObject(m) && hasAnthropicBlocks(contentOf(m.content)))) {
    const out: ChatMessage[] = [];
    for (const m of items) out.push(...(isObject(m) && typeof m.role === 'string' && m.role !== 'system' ? anthropicMessage(m.role, contentOf(m.content)) : plainMessage(m, fallbackRole)));
    return out;
  }
  return items.flatMap((m) => plainMessage(m, fallbackRole));
}

function withTools(req: WireRequest, defs: unknown[]): WireRequest {
  if (!defs.length || req.tools) return req;
  return { ...req, tools: toolsText(defs), tools_original: toolsOriginal(defs) };
}

const request = (messages: ChatMessage[], extra: Partial<WireRequest> = {}): WireRequest => ({ model: null, stream: false, messages, tools: null, tools_original: null, previous_response_id: null, ...extra });

/**
 * Tool results that do not repeat their call's id (LangChain's `ToolMessage` as Langfuse's v2 handler wrote it,
 * `function` messages) answer the calls still open, first call first, as the position in the conversation says.
 */
export function tieToolResults(messages: ChatMessage[]): ChatMessage[] {
  const open: (string | null)[] = [];
  return messages.map((m) => {
    if (m.role === 'assistant') {
      open.length = 0;
      for (const c of m.tool_calls ?? []) open.push(c.id);
      return m;
    }
    if (m.role !== 'tool') return m;
    if (m.tool_call_id) {
      const i = open.indexOf(m.tool_call_id);
      if (i >= 0) open.splice(i, 1);
      return m;
    }
    const id = open.shift();
    return id ? { ...m, tool_call_id: id } : m;
  });
}

/** What a recorded input asked: its messages (system included), tools and model, by the input's shape. */
export function requestByShape(value: unknown): WireRequest & { shape: Shape | null } {
  const req = readRequest(value, 0);
  return { ...req, messages: tieToolResults(req.messages) };
}

function readRequest(value: unknown, depth: number): WireRequest & { shape: Shape | null } {
  let v = decode(value);
  if (v === null || v === undefined) return { ...request([]), shape: null };
  if (typeof v === 'string') return { ...request([{ role: 'user', content: v }]), shape: 'text' };
  if (Array.isArray(v)) {
    if (Array.isArray(v[0])) v = v[0] as unknown[]; // LangChain's batch: the first prompt's messages
    const list = v as unknown[];
    const defs = list.map(toolDefinition).filter((d) => d !== null);
    const msgs = list.filter((m) => toolDefinition(m) === null);
    return { ...withTools(request(listMessages(msgs, 'user')), defs), shape: shapeOfList(msgs) };
  }
  if (!isObject(v)) return { ...request([{ role: 'user', content: str(v) }]), shape: 'text' };
  if (isGeminiRequest(v)) return { ...geminiRequest(v), shape: 'gemini' };
  if ('input' in v && ('instructions' in v || typeof v.model === 'string') && !('messages' in v)) return { ...responsesRequest(v), shape: 'openai-responses' };
  const msgs = decode(v.messages);
  if (Array.isArray(msgs)) {
    const listShape = shapeOfList(msgs);
    // an Anthropic body: blocks in its messages, or the top-level `system` only Anthropic has
    if (listShape === 'anthropic' || (listShape === 'messages' && (typeof v.system === 'string' || Array.isArray(decode(v.system))))) return { ...anthropicRequest(v), shape: 'anthropic' };
    if (listShape === 'messages' && v.model !== undefined) return { ...chatRequest(v), shape: 'openai-chat' };
    // a wrapper around a list of another shape (the AI SDK's `{system, messages}`, a chain's `{messages}`)
    const inner = readRequest(msgs, depth + 1);
    const sys = v.system === undefined ? null : contentToText(decode(v.system)).content;
    return {
      ...inner,
      messages: sys ? [{ role: 'system', content: sys }, ...inner.messages] : inner.messages,
      tools: inner.tools ?? toolsText(decode(v.tools), decode(v.functions)),
      tools_original: inner.tools_original ?? toolsOriginal(decode(v.tools)),
      model: inner.model ?? str(v.model),
    };
  }
  if (isSerialized(v) || isLangchainMessage(v) || isAiSdkMessage(v) || isUiMessage(v) || isGeminiContent(v) || isResponsesItem(v)) return readRequest([v], depth + 1);
  // a wrapper: `{input}`, `{prompt}` (a string prompt, or the AI SDK's `{system, prompt}`), `{inputs}`, `{messages}` nested
  if (depth < 6 && !('role' in v) && !('content' in v)) {
    for (const k of ['input', 'prompt', 'inputs', 'messages', 'contents']) {
      if (v[k] === undefined) continue;
      const inner = readRequest(v[k], depth + 1);
      const sys = typeof v.system === 'string' && !inner.messages.some((m) => m.role === 'system') ? v.system : null;
      return sys ? { ...inner, messages: [{ role: 'system', content: sys }, ...inner.messages] } : inner;
    }
  }
  if ('role' in v || 'content' in v || 'text' in v) {
    const sys: ChatMessage[] = typeof v.system === 'string' && v.system ? [{ role: 'system', content: v.system }] : [];
    return { ...request([...sys, ...plainMessage(v, 'user')]), shape: 'messages' };
  }
  // JSON of no message shape: the text as the source wrote it
  return { ...request([{ role: 'user', content: typeof value === 'string' ? value : JSON.stringify(v) }]), shape: 'text' };
}

function shapeOfList(list: unknown[]): Shape {
  const items = list.map(decode);
  if (items.some(isResponsesItem)) return 'openai-responses';
  if (items.some((m) => isAiSdkMessage(m) || isUiMessage(m))) return 'ai-sdk';
  if (items.some(isGeminiContent)) return 'gemini';
  if (items.some(isLangchainMessage)) return 'langchain';
  if (items.some((m) => isObject(m) && hasAnthropicBlocks(contentOf(m.content)))) return 'anthropic';
  return 'messages';
}

/** The keys of a request's settings: an object of only these (the Responses API's `text`, `reasoning`, …) is no answer. */
const SETTINGS = new Set([
  'model', 'temperature', 'top_p', 'top_k', 'max_tokens', 'max_output_tokens', 'max_completion_tokens', 'text', 'reasoning', 'tools', 'tool_choice',
  'parallel_tool_calls', 'truncation', 'stream', 'store', 'metadata', 'service_tier', 'user', 'seed', 'stop', 'response_format', 'frequency_penalty',
  'presence_penalty', 'n', 'logprobs', 'top_logprobs', 'include', 'previous_response_id', 'prompt_cache_key', 'safety_identifier', 'background',
  'reasoning_effort', 'verbosity', 'modalities', 'prediction', 'stream_options', 'instructions', 'extra_headers', 'extra_body', 'timeout',
]);

/** A value that is only a request's settings (`{text: {format: {type: 'text'}}, reasoning: {effort: null}, temperature: 1}`); `text` as a string is an answer. */
export function isRequestSettings(v: unknown): boolean {
  if (!isObject(v)) return false;
  const keys = Object.keys(v);
  return keys.length > 0 && keys.every((k) => SETTINGS.has(k)) && typeof v.text !== 'string' && typeof v.reasoning !== 'string';
}

/** A response plus what the Responses API echoes of its request (`instructions`, `tools`), which an input list lacks. */
export interface ShapedResponse extends WireResponse {
  shape: Shape | null;
  /** The source's own stop reason when it is not an OpenAI one (Anthropic `stop_reason`, kept in metadata by callers). */
  stop_reason: string | null;
  /** A Responses object's `instructions` (the system prompt its input list does not repeat). */
  instructions: string | null;
  /** A Responses object's tool list, in the OpenAI chat shape, and as it was when that is a conversion. */
  tools: string | null;
  tools_original: string | null;
}

const shaped = (r: WireResponse, shape: Shape | null, extra: Partial<ShapedResponse> = {}): ShapedResponse => ({
  ...r,
  shape,
  stop_reason: null,
  instructions: null,
  tools: null,
  tools_original: null,
  ...extra,
});

const isChatCompletion = (v: Obj): boolean => Array.isArray(v.choices) && (v.choices.length === 0 || v.choices.some((c) => isObject(c) && ('message' in c || 'text' in c || 'finish_reason' in c)));
const isResponsesObject = (v: Obj): boolean => v.object === 'response' || (Array.isArray(v.output) && v.output.some((i) => isObject(i) && (isResponsesItem(i) || i.type === 'message')));
const isAnthropicMessage = (v: Obj): boolean => v.type === 'message' || (Array.isArray(v.content) && v.content.every((b) => isObject(b) && typeof b.type === 'string') && ('stop_reason' in v || hasAnthropicBlocks(v.content)) && !('role' in v && v.role !== 'assistant'));

/** The answer of a list of messages: its last assistant message (a list of only tool results or user turns answers nothing). */
function lastAnswer(msgs: ChatMessage[]): ChatMessage | null {
  return msgs.filter((x) => x.role === 'assistant').at(-1) ?? null;
}

/** What a recorded output answered: the response message, finish reason, usage and model, by the output's shape. */
export function responseByShape(value: unknown): ShapedResponse {
  const r = readResponse(value, 0);
  // an empty text beside tool calls is no text (the chat API's own answer has null there)
  if (r.message?.content === '' && r.message.tool_calls?.length) return { ...r, message: { ...r.message, content: null } };
  return r;
}

function readResponse(value: unknown, depth: number): ShapedResponse {
  const v = decode(value);
  if (v === null || v === undefined || v === '') return shaped(emptyResponse(), null);
  if (typeof v === 'string') return shaped({ ...emptyResponse(), message: { role: 'assistant', content: v } }, 'text');
  if (Array.isArray(v)) {
    if (v.length && v.every(isAiSdkToolCall)) return shaped(aiSdkResponse(v), 'ai-sdk');
    if (v.some((i) => isObject(i) && (isResponsesItem(i) || (i.type === 'message' && i.role === 'assistant')))) {
      const message = mergeAssistant(itemsToMessages(v).filter((m) => m.role === 'assistant'));
      return shaped({ ...emptyResponse(), message, finish_reason: message?.tool_calls?.length ? 'tool_calls' : null }, 'openai-responses');
    }
    if (Array.isArray(v[0]) && depth < 6) return readResponse(v.flat(), depth + 1);
    const message = lastAnswer(listMessages(v, 'assistant'));
    return shaped({ ...emptyResponse(), message, finish_reason: message?.tool_calls?.length ? 'tool_calls' : null }, shapeOfList(v));
  }
  if (!isObject(v)) return shaped({ ...emptyResponse(), message: { role: 'assistant', content: str(v) } }, 'text');
  if (isChatCompletion(v)) return shaped(chatResponse(v), 'openai-chat');
  if (isResponsesObject(v)) {
    return shaped(responsesResponse(v), 'openai-responses', { instructions: str(v.instructions), tools: toolsText(decode(v.tools)), tools_original: toolsOriginal(decode(v.tools)) });
  }
  if (isGeminiResponse(v)) return shaped(geminiResponse(v), 'gemini');
  if (isAnthropicMessage(v)) return shaped(anthropicResponse(v.type === undefined ? { ...v, type: 'message' } : v), 'anthropic', { stop_reason: str(v.stop_reason) });
  if (Array.isArray(v.generations) || isSerialized(v) || isLangchainMessage(v)) return shaped(langchainResponse(v), 'langchain');
  const calls = decode(v.tool_calls ?? v.toolCalls);
  if (isAiSdkResult(v) || (Array.isArray(calls) && calls.some(isAiSdkToolCall)) || isAiSdkMessage(v) || isUiMessage(v)) return shaped(aiSdkResponse(v), 'ai-sdk');
  if (isRequestSettings(v)) return shaped(emptyResponse(), null);
  // wrappers: `{message}` (a choice), `{messages}` (a chain's state), `{completion}`, `{output}`
  if (depth < 6 && !('role' in v) && !('content' in v)) {
    for (const k of ['message', 'messages', 'completion', 'output']) {
      if (v[k] === undefined) continue;
      const inner = readResponse(v[k], depth + 1);
      if (inner.message || inner.error) return { ...inner, finish_reason: inner.finish_reason ?? str(v.finish_reason ?? v.stop_reason) };
    }
  }
  if ('role' in v || 'content' in v || 'text' in v || 'reasoning_content' in v) {
    const [m] = plainMessage(v, 'assistant');
    const message = m && (m.content || m.reasoning || m.tool_calls?.length) ? { ...m, role: 'assistant' } : null;
    return shaped({ ...emptyResponse(), message, finish_reason: str(v.finish_reason) ?? (message?.tool_calls?.length ? 'tool_calls' : null) }, 'messages');
  }
  // a structured answer (an object the model generated, JSON mode): its JSON text as the source wrote it
  return shaped({ ...emptyResponse(), message: { role: 'assistant', content: typeof value === 'string' ? value : JSON.stringify(v) } }, 'text');
}

/**
 * What a span's attributes say of its call beside the content (OTLP spans, and the observations Langfuse
 * made of them, which keep them in `metadata.attributes`): the finish reason (`gen_ai.response.finish_reasons`,
 * the AI SDK's `ai.response.finishReason`) and the tools offered (`gen_ai.tool.definitions`, `ai.prompt.tools`).
 */
export function spanAttributesCall(a: Obj): { finish_reason: string | null; tools: string | null } {
  const reasons = decode(a['gen_ai.response.finish_reasons']);
  const given = str(Array.isArray(reasons) ? reasons[0] : reasons) ?? str(a['ai.response.finishReason']);
  const definitions = decode(a['gen_ai.tool.definitions']);
  return {
    finish_reason: given === 'tool_call' ? 'tool_calls' : aiSdkFinishReason(given),
    tools: Array.isArray(definitions) && definitions.length ? toolsText(definitions) : aiSdkTools(a['ai.prompt.tools']),
  };
}

/** Input and output of one call read by shape, with what the output echoes of the request filled in where the input lacks it. */
export function callByShape(input: unknown, output: unknown): { request: WireRequest & { shape: Shape | null }; response: ShapedResponse } {
  const req = requestByShape(input);
  const res = responseByShape(output);
  const messages = res.instructions && !req.messages.some((m) => m.role === 'system' || m.role === 'developer') ? [{ role: 'system', content: res.instructions }, ...req.messages] : req.messages;
  const tools = req.tools ? { tools: req.tools, tools_original: req.tools_original } : { tools: res.tools, tools_original: res.tools_original };
  return { request: { ...req, messages, ...tools, model: req.model ?? res.model }, response: res };
}
