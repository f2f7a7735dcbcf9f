/**
 * Anthropic Messages on the wire: request blocks → ChatMessages, response → message, `stop_reason` →
 * finish reason, tool definitions, usage, and reassembly of its SSE event stream. The one place these
 * are written; the gateway, HAR / recorded-exchange import and the Anthropic log normalizer all call it
 * (decisions 014, 019).
 */
import { int, isObject, type Obj, parseJsonDeep, str } from '../contract/json';
import { contentToText, normalizeArguments, splitInlineThink } from '../contract/message';
import type { ChatMessage, ToolCall } from '../contract/step';
import { sseObject } from './sse';
import { toolsOriginal, toolsText } from './tools';
import { emptyResponse, errorText, malformed, type StreamAccumulator, type WireRequest, type WireResponse } from './types';

/**
 * `stop_reason` → OpenAI-style `finish_reason`. `pause_turn` (a long server-tool turn the API paused;
 * the client resends to continue) maps to `stop` like the turn ends it stands for; the original value
 * is kept in `metadata.stop_reason` by the callers that have metadata.
 */
export const STOP_REASON: Readonly<Record<string, string>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  refusal: 'content_filter',
};

/** The finish reason for an Anthropic `stop_reason` (unknown values pass through as they are). */
export function anthropicFinishReason(stop: unknown): string | null {
  const s = str(stop);
  return s ? (STOP_REASON[s] ?? s) : null;
}

/** Content blocks: a list, or (logs) its JSON text; a text whose JSON is not a block list (`["a", "b"]`) is text. */
function blocks(content: unknown): unknown[] | null {
  if (Array.isArray(content)) return content;
  const c = parseJsonDeep(content);
  return Array.isArray(c) && c.length > 0 && c.every((b) => isObject(b) && typeof b.type === 'string') ? c : null;
}

/** Whether a turn's blocks include `redacted_thinking` (reasoning whose text is encrypted). */
export function hasRedactedThinking(content: unknown): boolean {
  const bs = blocks(content);
  return !!bs?.some((b) => isObject(b) && b.type === 'redacted_thinking');
}

/** An assistant turn's blocks: text → content, thinking → reasoning, tool_use → tool_calls; the blocks kept in `parts`. */
export function assistantMessage(content: unknown): ChatMessage {
  const bs = blocks(content);
  if (!bs) return splitInlineThink({ role: 'assistant', content: str(content) });
  const text: string[] = [];
  const reasoning: string[] = [];
  const calls: ToolCall[] = [];
  for (const b of bs) {
    if (typeof b === 'string') text.push(b);
    if (!isObject(b)) continue;
    if (b.type === 'text') text.push(str(b.text) ?? '');
    else if (b.type === 'thinking') reasoning.push(str(b.thinking) ?? '');
    else if (b.type === 'redacted_thinking') {
      // encrypted: no text to store (the block stays in `parts`; responses say so in reasoning_hidden)
    }
    else if (b.type === 'tool_use' || b.type === 'server_tool_use' || b.type === 'mcp_tool_use') {
      calls.push({ id: str(b.id), type: 'function', function: { name: str(b.name) ?? '', arguments: normalizeArguments(b.input ?? {}) } });
    } else if (typeof b.type === 'string') text.push(`[${b.type}]`);
  }
  const msg: ChatMessage = { role: 'assistant', content: text.length ? text.join('') : null, parts: JSON.stringify(bs) };
  if (reasoning.length) msg.reasoning = reasoning.join('\n');
  if (calls.length) msg.tool_calls = calls;
  // prompted reasoning written inline (`<thinking>…</thinking>`) when the turn has no thinking block
  return splitInlineThink(msg);
}

/** A user turn: each tool_result block becomes a `tool` message (in order, first), other blocks one user message. */
export function userMessages(content: unknown): ChatMessage[] {
  const bs = blocks(content);
  if (!bs) return [{ role: 'user', content: str(content) }];
  const out: ChatMessage[] = [];
  const rest: unknown[] = [];
  for (const b of bs) {
    if (isObject(b) && b.type === 'tool_result') {
      const m: ChatMessage = { role: 'tool', content: contentToText(b.content).content, tool_call_id: str(b.tool_use_id), parts: JSON.stringify([b]) };
      if (b.is_error === true) m.is_error = true;
      out.push(m);
    } else rest.push(b);
  }
  if (rest.length || !out.length) {
    const { content: text, parts } = contentToText(rest);
    out.push({ role: 'user', content: text, parts });
  }
  return out;
}

export function systemMessage(system: unknown): ChatMessage | null {
  const s = parseJsonDeep(system);
  if (s === undefined || s === null || s === '') return null;
  if (typeof s === 'string') return { role: 'system', content: s };
  const { content, parts } = contentToText(s);
  return { role: 'system', content, parts };
}

/** One Anthropic message (role + content blocks) → chat messages. */
export function anthropicMessage(role: string, content: unknown): ChatMessage[] {
  if (role === 'assistant') return [assistantMessage(content)];
  if (role === 'system') return [systemMessage(content) ?? { role: 'system', content: null }];
  return userMessages(content).map((m) => (m.role === 'user' ? { ...m, role } : m));
}

/** A Messages API request's context (`system` + `messages`) as ChatMessages. */
export function requestMessages(req: Obj): ChatMessage[] {
  const out: ChatMessage[] = [];
  const sys = systemMessage(req.system);
  if (sys) out.push(sys);
  const msgs = parseJsonDeep(req.messages);
  if (!Array.isArray(msgs)) return out;
  for (const m of msgs) {
    if (!isObject(m)) continue;
    if (m.role === 'assistant') out.push(assistantMessage(m.content));
    else if (m.role === 'system') out.push({ role: 'system', content: contentToText(m.content).content });
    else out.push(...userMessages(m.content));
  }
  return out;
}

interface BlockAcc {
  block: Obj;
  json: string;
}

/** State of one streamed message: the `message_start` object filled in by later events. */
export interface AnthropicStream {
  message: Obj;
  blocks: Map<number, BlockAcc>;
  error: unknown;
  done: boolean;
  line: number | null;
  events: number;
}

export function newAnthropicStream(line: number | null): AnthropicStream {
  return { message: { type: 'message', role: 'assistant' }, blocks: new Map(), error: null, done: false, line, events: 0 };
}

export const STREAM_EVENTS = new Set(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop', 'ping', 'error']);

export function isStreamEvent(v: unknown): v is Obj {
  return isObject(v) && STREAM_EVENTS.has(v.type as string) && (v.type !== 'error' || isObject(v.error));
}

export function addEvent(s: AnthropicStream, e: Obj): void {
  s.events++;
  const index = typeof e.index === 'number' ? e.index : 0;
  switch (e.type) {
    case 'message_start':
      if (isObject(e.message)) s.message = { ...e.message }; // its content is replaced by the blocks (streamMessage)
      break;
    case 'content_block_start':
      s.blocks.set(index, { block: isObject(e.content_block) ? { ...e.content_block } : { type: 'text', text: '' }, json: '' });
      break;
    case 'content_block_delta': {
      const d = isObject(e.delta) ? e.delta : {};
      let b = s.blocks.get(index);
      if (!b) {
        b = { block: { type: d.type === 'input_json_delta' ? 'tool_use' : d.type === 'thinking_delta' ? 'thinking' : 'text' }, json: '' };
        s.blocks.set(index, b);
      }
      const append = (k: string, v: unknown) => {
        if (typeof v === 'string') b.block[k] = (typeof b.block[k] === 'string' ? b.block[k] : '') + v;
      };
      if (d.type === 'text_delta') append('text', d.text);
      else if (d.type === 'thinking_delta') append('thinking', d.thinking);
      else if (d.type === 'signature_delta') append('signature', d.signature);
      else if (d.type === 'input_json_delta' && typeof d.partial_json === 'string') b.json += d.partial_json;
      else if (d.type === 'citations_delta' && d.citation !== undefined) {
        b.block.citations = [...(Array.isArray(b.block.citations) ? b.block.citations : []), d.citation];
      }
      break;
    }
    case 'message_delta': {
      const d = isObject(e.delta) ? e.delta : {};
      for (const [k, v] of Object.entries(d)) if (v !== null) s.message[k] = v;
      if (isObject(e.usage)) s.message.usage = { ...(isObject(s.message.usage) ? s.message.usage : {}), ...e.usage };
      break;
    }
    case 'message_stop':
      s.done = true;
      break;
    case 'error':
      s.error = e.error;
      s.done = true;
      break;
  }
}

/** The streamed message as the object a non-streaming call would have returned. */
export function streamMessage(s: AnthropicStream): Obj {
  const content = [...s.blocks.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([, b]) => {
      // only input_json_delta fills `json`, and only tool-use blocks (tool_use, server_tool_use, mcp_tool_use) get one
      if (!b.json.trim()) return b.block;
      let input: unknown = b.json;
      try {
        input = JSON.parse(b.json);
      } catch {
        // a stream cut off mid-arguments: keep the fragment text
      }
      return { ...b.block, input };
    });
  const out: Obj = { ...s.message, content };
  if (s.error !== null) out.error = s.error;
  return out;
}

/** A Messages API request body → what it asked. */
export function anthropicRequest(body: unknown): WireRequest {
  const b = isObject(body) ? body : {};
  return {
    model: str(b.model),
    stream: b.stream === true,
    messages: requestMessages(b),
    tools: toolsText(b.tools),
    tools_original: toolsOriginal(b.tools),
    previous_response_id: null,
  };
}

/** Prompt tokens: `input_tokens` plus the cache reads and writes Anthropic counts apart (all were prompt). */
export function anthropicPromptTokens(u: unknown): number | null {
  if (!isObject(u)) return null;
  const input = int(u.input_tokens);
  if (input === null) return null;
  return input + (int(u.cache_read_input_tokens) ?? 0) + (int(u.cache_creation_input_tokens) ?? 0);
}

/** A Messages API response body (`type: 'message'`, or `type: 'error'`) → the step's reading. */
export function anthropicResponse(body: Obj): WireResponse {
  const a = emptyResponse();
  if (body.type === 'error') {
    a.error = errorText(body) ?? 'error';
    return a;
  }
  a.id = str(body.id);
  a.model = str(body.model);
  a.message = Array.isArray(parseJsonDeep(body.content)) || typeof body.content === 'string' ? assistantMessage(body.content) : null;
  if (hasRedactedThinking(body.content)) a.reasoning_hidden = 'redacted';
  a.finish_reason = anthropicFinishReason(body.stop_reason);
  a.prompt_tokens = anthropicPromptTokens(body.usage);
  a.completion_tokens = isObject(body.usage) ? int(body.usage.output_tokens) : null;
  if (body.error !== undefined && body.error !== null) a.error = errorText({ error: body.error }) ?? 'stream error';
  return a;
}

/** Reassembles a Messages stream from its SSE events (the event name fills in a payload without `type`). */
export function anthropicAccumulator(): StreamAccumulator & { stream: AnthropicStream } {
  const s = newAnthropicStream(null);
  let bad: string | null = null;
  return {
    stream: s,
    push(ev) {
      const e = sseObject(ev);
      if (!e) {
        if (ev.data.trim() !== '[DONE]') bad ??= malformed(ev.data);
        return;
      }
      addEvent(s, typeof e.type === 'string' ? e : { ...e, type: ev.event });
    },
    result() {
      const a = anthropicResponse(streamMessage(s));
      a.error ??= bad;
      return a;
    },
  };
}
