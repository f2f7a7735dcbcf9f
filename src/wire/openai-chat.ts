/**
 * OpenAI Chat Completions (and legacy completions) on the wire: request → messages, response → message,
 * finish reason, and the one reassembly of `chat.completion.chunk` streams into the `chat.completion`
 * object a non-streaming call returns. The gateway, HAR / recorded-exchange import and the OpenAI log
 * normalizer all call it (decision 019).
 */
import { int, isObject, type Obj, parseJsonDeep, str, timeMs } from '../contract/json';
import { openaiMessage, splitInlineThink } from '../contract/message';
import type { ChatMessage } from '../contract/step';
import { sseObject } from './sse';
import { toolsOriginal, toolsText } from './tools';
import { emptyResponse, errorText, malformed, type StreamAccumulator, type WireRequest, type WireResponse } from './types';

interface ToolAcc {
  id: string | null;
  type: string;
  name: string;
  args: string;
}

interface ChoiceAcc {
  role: string;
  content: string;
  reasoning: string;
  refusal: string;
  hasContent: boolean;
  tools: Map<number, ToolAcc>;
  finish: string | null;
  /** `logprobs.content` entries, in order. */
  logprobs: Obj[];
  /** vLLM `return_token_ids`: the generated token ids. */
  tokenIds: number[] | null;
}

export interface ChunkStream {
  id: string;
  model: string | null;
  created: number | null;
  fingerprint: string | null;
  choices: Map<number, ChoiceAcc>;
  usage: Obj | null;
  error: unknown;
  /** vLLM `return_token_ids`: the prompt's token ids. */
  promptIds: number[] | null;
  chunks: number;
  /** Source line of the first chunk. */
  line: number | null;
}

export function isChunk(v: unknown): boolean {
  if (!isObject(v)) return false;
  if (v.object === 'chat.completion.chunk') return true;
  return Array.isArray(v.choices) && v.choices.some((c) => isObject(c) && isObject(c.delta));
}

export function newStream(id: string, line: number | null): ChunkStream {
  return { id, model: null, created: null, fingerprint: null, choices: new Map(), usage: null, error: null, promptIds: null, chunks: 0, line };
}

function choiceAcc(s: ChunkStream, index: number): ChoiceAcc {
  let c = s.choices.get(index);
  if (!c) {
    c = { role: 'assistant', content: '', reasoning: '', refusal: '', hasContent: false, tools: new Map(), finish: null, logprobs: [], tokenIds: null };
    s.choices.set(index, c);
  }
  return c;
}

function addToolDelta(c: ChoiceAcc, d: Obj): void {
  // Some OpenAI-compatible servers omit `index`: a new id opens a call, no id continues the last one.
  let index = typeof d.index === 'number' ? d.index : -1;
  if (index < 0 && typeof d.id === 'string') for (const [k, t] of c.tools) if (t.id === d.id) index = k;
  if (index < 0) index = typeof d.id === 'string' && d.id ? c.tools.size : Math.max(0, c.tools.size - 1);
  let t = c.tools.get(index);
  if (!t) {
    t = { id: null, type: 'function', name: '', args: '' };
    c.tools.set(index, t);
  }
  if (typeof d.id === 'string' && d.id) t.id = d.id;
  if (typeof d.type === 'string') t.type = d.type;
  const fn = isObject(d.function) ? d.function : {};
  const name = str(fn.name);
  if (name && name !== t.name) t.name += name;
  const args = fn.arguments;
  if (typeof args === 'string') t.args += args;
  else if (args !== undefined && args !== null) t.args += JSON.stringify(args);
}

export function addChunk(s: ChunkStream, chunk: Obj): void {
  s.chunks++;
  s.model ??= str(chunk.model);
  if (typeof chunk.created === 'number') s.created ??= chunk.created;
  s.fingerprint ??= str(chunk.system_fingerprint);
  if (isObject(chunk.usage)) s.usage = chunk.usage;
  if (chunk.error !== undefined && chunk.error !== null) s.error = chunk.error;
  s.promptIds ??= ints(chunk.prompt_token_ids);
  if (!Array.isArray(chunk.choices)) return;
  for (const ch of chunk.choices) {
    if (!isObject(ch)) continue;
    const c = choiceAcc(s, typeof ch.index === 'number' ? ch.index : 0);
    const d = isObject(ch.delta) ? ch.delta : isObject(ch.message) ? ch.message : {};
    if (typeof d.role === 'string' && d.role) c.role = d.role;
    if (typeof d.content === 'string') {
      c.content += d.content;
      c.hasContent = true;
    }
    if (typeof ch.text === 'string') {
      // legacy completions streams (`text_completion`) put the text on the choice
      c.content += ch.text;
      c.hasContent = true;
    }
    const r = d.reasoning_content ?? d.reasoning;
    if (typeof r === 'string') c.reasoning += r;
    if (typeof d.refusal === 'string') c.refusal += d.refusal;
    if (Array.isArray(d.tool_calls)) for (const t of d.tool_calls) if (isObject(t)) addToolDelta(c, t);
    if (isObject(d.function_call)) addToolDelta(c, { index: 0, function: d.function_call });
    if (typeof ch.finish_reason === 'string' && ch.finish_reason) c.finish = ch.finish_reason;
    if (isObject(ch.logprobs) && Array.isArray(ch.logprobs.content)) c.logprobs.push(...ch.logprobs.content.filter(isObject));
    const ids = ints(ch.token_ids);
    if (ids) c.tokenIds = [...(c.tokenIds ?? []), ...ids];
    s.promptIds ??= ints(ch.prompt_token_ids);
  }
}

/** The stream as the `chat.completion` object a non-streaming call would have returned. */
export function streamCompletion(s: ChunkStream): Obj {
  const choices = [...s.choices.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([index, c]) => {
      const message: Obj = { role: c.role, content: c.hasContent ? c.content : null };
      if (c.reasoning) message.reasoning_content = c.reasoning;
      if (c.refusal) message.refusal = c.refusal;
      if (c.tools.size) {
        message.tool_calls = [...c.tools.entries()]
          .sort((a, b) => a[0] - b[0])
          .map(([, t]) => ({ id: t.id, type: t.type, function: { name: t.name, arguments: t.args } }));
      }
      const choice: Obj = { index, message, finish_reason: c.finish };
      if (c.logprobs.length) choice.logprobs = { content: c.logprobs };
      if (c.tokenIds) choice.token_ids = c.tokenIds;
      return choice;
    });
  const out: Obj = { id: s.id, object: 'chat.completion', created: s.created, model: s.model, choices };
  if (s.promptIds) out.prompt_token_ids = s.promptIds;
  if (s.fingerprint) out.system_fingerprint = s.fingerprint;
  if (s.usage) out.usage = s.usage;
  if (s.error !== null) out.error = s.error;
  out.stream_chunks = s.chunks;
  return out;
}

function ints(v: unknown): number[] | null {
  return Array.isArray(v) && v.every((x) => Number.isInteger(x)) ? (v as number[]) : null;
}

/** A Chat Completions request body (or a legacy completions one, `prompt`) → what it asked. */
export function chatRequest(body: unknown): WireRequest {
  const b = isObject(body) ? body : {};
  // logs often hold the lists as JSON text
  const list = parseJsonDeep(b.messages);
  let messages: ChatMessage[] = Array.isArray(list) ? list.map(openaiMessage) : [];
  if (!messages.length && b.prompt !== undefined && b.prompt !== null) {
    messages = [{ role: 'user', content: Array.isArray(b.prompt) ? b.prompt.map((x) => str(x) ?? '').join('\n') : str(b.prompt) }];
  }
  const tools = parseJsonDeep(b.tools);
  return { model: str(b.model), stream: b.stream === true, messages, tools: toolsText(tools, parseJsonDeep(b.functions)), tools_original: toolsOriginal(tools), previous_response_id: null };
}

/** One choice of a completion → the assistant message (`message`, or a legacy completion's `text`); null when it says nothing. */
export function choiceMessage(choice: Obj): ChatMessage | null {
  let m: ChatMessage | null = null;
  if (isObject(choice.message)) m = openaiMessage({ ...choice.message, role: 'assistant' });
  else if (typeof choice.text === 'string') m = splitInlineThink({ role: 'assistant', content: choice.text });
  // a choice that carried no text, reasoning or tool call (only a role, or only an error) made no response
  if (m && m.content === null && !m.reasoning && !m.tool_calls?.length) return null;
  return m;
}

/** vLLM `return_tokens_as_token_ids` spells each token as `token_id:123`. */
function logprobTokens(entries: Obj[], a: WireResponse): void {
  if (!entries.length) return;
  a.log_probs = entries.map((e) => Number(e.logprob));
  const ids = entries.map((e) => /^token_id:(\d+)$/.exec(String(e.token ?? ''))?.[1]);
  if (ids.every((x) => x !== undefined)) a.response_ids = ids.map(Number);
}

/** A `chat.completion` (or `text_completion`) body → the step's reading of its first choice. */
export function chatResponse(body: Obj): WireResponse {
  const a = emptyResponse();
  a.id = str(body.id);
  a.model = str(body.model);
  a.created = typeof body.created === 'number' && body.created > 0 ? timeMs(body.created) : null;
  const choice = Array.isArray(body.choices) && isObject(body.choices[0]) ? body.choices[0] : null;
  if (choice) {
    a.message = choiceMessage(choice);
    a.finish_reason = str(choice.finish_reason);
    logprobTokens(isObject(choice.logprobs) && Array.isArray(choice.logprobs.content) ? choice.logprobs.content.filter(isObject) : [], a);
    a.response_ids = ints(choice.token_ids) ?? a.response_ids;
  }
  a.prompt_ids = ints(body.prompt_token_ids) ?? (choice ? ints(choice.prompt_token_ids) : null);
  if (isObject(body.usage)) {
    a.prompt_tokens = int(body.usage.prompt_tokens ?? body.usage.input_tokens);
    a.completion_tokens = int(body.usage.completion_tokens ?? body.usage.output_tokens);
  }
  a.error = errorText({ error: body.error }); // null when there is none
  return a;
}

/** Reassembles a Chat Completions stream from its SSE events (`[DONE]` ignored). */
export function chatAccumulator(): StreamAccumulator {
  const s = newStream('', null);
  let bad: string | null = null;
  return {
    push(ev) {
      if (ev.data.trim() === '[DONE]') return;
      const c = sseObject(ev);
      if (!c) bad ??= malformed(ev.data);
      else {
        if (!s.id && typeof c.id === 'string') s.id = c.id;
        addChunk(s, c);
      }
    },
    result() {
      const a = chatResponse(streamCompletion(s));
      a.id = s.id || null;
      a.error ??= bad;
      return a;
    },
  };
}
