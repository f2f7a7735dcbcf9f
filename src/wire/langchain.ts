/**
 * LangChain / LangGraph messages as traces and checkpoints hold them: message dicts (`type: ai | human | tool |
 * system`, `tool_calls: [{name, args, id}]`, `additional_kwargs.tool_calls` in the OpenAI shape,
 * `response_metadata`, `usage_metadata`), the serialized form (`{lc: 1, type: 'constructor', id: [..,
 * 'AIMessage'], kwargs}`), the `{role, content, tool_calls, additional_kwargs}` dicts Langfuse's callback
 * handler writes, and an `LLMResult` (`generations[][].message`, `llm_output`). Content may be text or a
 * provider's blocks (Anthropic `tool_use` / `thinking`, OpenAI `reasoning`, LangChain's standard blocks).
 */
import { asObject, int, isObject, type Obj, parseJsonDeep, str } from '../contract/json';
import { contentToText, normalizeArguments, splitInlineThink, toolCall } from '../contract/message';
import type { ChatMessage, ToolCall } from '../contract/step';
import { anthropicFinishReason } from './anthropic';
import { emptyResponse, type WireResponse } from './types';

/** Message types (the dict's `type`, or the class named last in a serialized `id`) → chat roles. */
const ROLES: Readonly<Record<string, string>> = {
  ai: 'assistant',
  AIMessage: 'assistant',
  AIMessageChunk: 'assistant',
  human: 'user',
  HumanMessage: 'user',
  HumanMessageChunk: 'user',
  system: 'system',
  SystemMessage: 'system',
  SystemMessageChunk: 'system',
  tool: 'tool',
  ToolMessage: 'tool',
  ToolMessageChunk: 'tool',
  function: 'tool',
  FunctionMessage: 'tool',
  chat: 'user',
  ChatMessage: 'user',
  remove: 'remove',
};

/** The serialized form: `{lc: 1, type: 'constructor', id: ['langchain', …, 'AIMessage'], kwargs}`. */
export function isSerialized(v: unknown): v is Obj & { id: unknown[]; kwargs: Obj } {
  return isObject(v) && v.type === 'constructor' && Array.isArray(v.id) && isObject(v.kwargs) && typeof v.id.at(-1) === 'string';
}

/** `messages_to_dict`'s form, which chat histories store: `{type: 'human', data: {content, …}}`. */
function isStored(v: unknown): v is Obj & { data: Obj } {
  return isObject(v) && typeof v.type === 'string' && v.type in ROLES && isObject(v.data) && 'content' in v.data && !('content' in v);
}

/** A LangChain message dict or its serialized form (a role-keyed dict is one only with LangChain's own keys). */
export function isLangchainMessage(v: unknown): boolean {
  if (isSerialized(v)) return /Message(Chunk)?$/.test(String(v.id.at(-1)));
  if (isStored(v)) return true;
  if (!isObject(v) || !('content' in v)) return false;
  if (typeof v.type === 'string' && v.type in ROLES && !('role' in v)) return true;
  return isObject(v.additional_kwargs) || isObject(v.response_metadata) || (Array.isArray(v.tool_calls) && v.tool_calls.some((c) => isObject(c) && 'args' in c && !isObject(c.function)));
}

/** `{name, args, id}` (LangChain's parsed calls), an `invalid_tool_calls` entry (args as text), or an OpenAI-shaped call. */
function lcToolCall(v: unknown): ToolCall | null {
  const c = asObject(v);
  if (!c) return null;
  if (isObject(c.function)) return toolCall(c);
  const name = str(c.name);
  if (name === null) return null;
  return { id: str(c.id), type: 'function', function: { name, arguments: normalizeArguments(c.args ?? c.input ?? c.arguments) } };
}

const calls = (v: unknown): ToolCall[] => (Array.isArray(v) ? v.map(lcToolCall).filter((c): c is ToolCall => c !== null) : []);

/** Text, reasoning and (Anthropic / standard-block) tool calls of a content block list. */
function blocks(content: unknown[]): { text: string | null; reasoning: string[]; calls: ToolCall[]; parts: string | null } {
  const reasoning: string[] = [];
  const found: ToolCall[] = [];
  const rest: unknown[] = [];
  for (const b of content) {
    if (!isObject(b)) {
      rest.push(b);
      continue;
    }
    if (b.type === 'thinking') reasoning.push(str(b.thinking) ?? '');
    else if (b.type === 'reasoning') {
      const summary = Array.isArray(b.summary) ? b.summary.map((s) => (isObject(s) ? str(s.text) : str(s))).filter((s): s is string => !!s) : [];
      const text = str(b.reasoning) ?? (summary.length ? summary.join('\n') : null);
      if (text) reasoning.push(text);
    } else if (b.type === 'tool_use' || b.type === 'tool_call' || b.type === 'function_call') {
      const c = lcToolCall({ id: b.id ?? b.call_id, name: b.name, args: b.input ?? b.args ?? b.arguments });
      if (c) found.push(c);
    } else if (b.type === 'redacted_thinking' || b.type === 'tool_call_chunk' || b.type === 'input_json_delta') {
      // no text of their own (a redacted block's content is encrypted)
    } else rest.push(b);
  }
  const t = contentToText(rest);
  return { text: rest.length ? t.content : null, reasoning, calls: found, parts: rest.some((b) => isObject(b) && b.type !== 'text') ? t.parts : null };
}

/** The message dict inside the serialized or the stored form (the kwargs' own `type` is the short one, `ai`). */
function unwrap(v: unknown): unknown {
  if (isSerialized(v)) return { ...v.kwargs, type: v.kwargs.type ?? v.id.at(-1) };
  if (isStored(v)) return { ...v.data, type: v.data.type ?? v.type };
  return v;
}

/**
 * One LangChain message → chat messages (one, or none for a `remove` marker). Tool calls come from
 * `tool_calls` first (LangChain's own parse, which every provider fills), then `additional_kwargs.tool_calls`
 * (the OpenAI shape older versions and Langfuse's handler keep), then the content's blocks, then a
 * legacy `function_call`.
 */
export function langchainMessage(v: unknown): ChatMessage[] {
  const m = asObject(unwrap(v));
  if (!m) return [];
  const kind = str(m.role) ?? str(m.type) ?? 'user';
  const role = ROLES[kind] ?? kind.toLowerCase();
  if (role === 'remove') return [];
  const extra = asObject(m.additional_kwargs) ?? {};
  // content is text or a block list; text that looks like JSON is still text
  const content = m.content;
  const b = Array.isArray(content) ? blocks(content) : { text: str(content), reasoning: [], calls: [], parts: null };
  let found = calls(m.tool_calls);
  if (!found.length) found = calls(parseJsonDeep(extra.tool_calls));
  if (!found.length) found = b.calls;
  if (!found.length && isObject(extra.function_call)) found = calls([{ function: extra.function_call }]);
  if (role === 'assistant') found.push(...calls(m.invalid_tool_calls));
  const msg: ChatMessage = { role, content: b.text };
  const reasoning = [...b.reasoning];
  const extraReasoning = extra.reasoning_content ?? (isObject(extra.reasoning) ? null : extra.reasoning);
  if (typeof extraReasoning === 'string' && extraReasoning) reasoning.push(extraReasoning);
  else if (isObject(extra.reasoning) && Array.isArray(extra.reasoning.summary)) reasoning.push(...blocks([{ type: 'reasoning', summary: extra.reasoning.summary }]).reasoning);
  if (reasoning.length) msg.reasoning = reasoning.join('\n');
  if (found.length && role === 'assistant') msg.tool_calls = found;
  if (b.parts) msg.parts = b.parts;
  const name = m.name ?? extra.name;
  if (name !== undefined && name !== null) msg.name = str(name);
  if (role === 'tool') {
    msg.tool_call_id = str(m.tool_call_id);
    if (m.status === 'error') msg.is_error = true;
  }
  return [splitInlineThink(msg)];
}

/** A list of LangChain messages (also a batch `[[…]]`, which is the first prompt's) → chat messages. */
export function langchainMessages(v: unknown): ChatMessage[] {
  let list = parseJsonDeep(v);
  if (Array.isArray(list) && Array.isArray(list[0])) list = list[0];
  return Array.isArray(list) ? list.flatMap(langchainMessage) : isObject(list) ? langchainMessage(list) : [];
}

/** An AI message's finish reason: OpenAI-style `finish_reason`, Anthropic `stop_reason`, Gemini `finish_reason` in caps. */
function finishOf(meta: Obj | null, info: Obj | null): string | null {
  const f = str(meta?.finish_reason ?? info?.finish_reason);
  if (f) return /^[A-Z_]+$/.test(f) ? (f === 'STOP' ? 'stop' : f === 'MAX_TOKENS' ? 'length' : f.toLowerCase()) : f;
  return anthropicFinishReason(meta?.stop_reason ?? info?.stop_reason);
}

/** `usage_metadata` (`input_tokens` / `output_tokens`), or a provider's usage in `response_metadata` / `llm_output`. */
function usageOf(...sources: unknown[]): { prompt: number | null; completion: number | null } {
  for (const s of sources) {
    const u = asObject(s);
    if (!u) continue;
    const prompt = int(u.input_tokens ?? u.prompt_tokens ?? u.prompt_token_count);
    const completion = int(u.output_tokens ?? u.completion_tokens ?? u.candidates_token_count);
    if (prompt !== null || completion !== null) return { prompt, completion };
  }
  return { prompt: null, completion: null };
}

/** An AI message (dict or serialized) or an `LLMResult` → the step's reading. */
export function langchainResponse(value: unknown): WireResponse {
  const a = emptyResponse();
  let v = parseJsonDeep(value);
  let info: Obj | null = null;
  let llmOutput: Obj | null = null;
  if (isObject(v) && Array.isArray(v.generations)) {
    llmOutput = asObject(v.llm_output);
    // the first prompt's first generation, as the request side reads the first prompt of a batch
    const gen = asObject(v.generations.flat()[0]);
    info = asObject(gen?.generation_info);
    v = gen?.message ?? (typeof gen?.text === 'string' ? { type: 'ai', content: gen.text } : null);
  }
  const m = asObject(unwrap(v));
  if (!m) return a;
  const [msg] = langchainMessage(m.role === undefined && m.type === undefined ? { ...m, type: 'ai' } : m);
  a.message = msg && (msg.content || msg.reasoning || msg.tool_calls?.length) ? { ...msg, role: 'assistant' } : null;
  const meta = asObject(m.response_metadata);
  a.finish_reason = finishOf(meta, info) ?? (a.message?.tool_calls?.length ? 'tool_calls' : null);
  if (a.finish_reason === 'stop' && a.message?.tool_calls?.length) a.finish_reason = 'tool_calls';
  const usage = usageOf(m.usage_metadata, meta?.token_usage, meta?.usage, meta?.usage_metadata, llmOutput?.token_usage, llmOutput?.usage);
  a.prompt_tokens = usage.prompt;
  a.completion_tokens = usage.completion;
  a.model = str(meta?.model_name ?? meta?.model ?? llmOutput?.model_name);
  a.id = str(meta?.id ?? m.id);
  return a;
}
