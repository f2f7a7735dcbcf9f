/**
 * Reassembles an upstream answer (a JSON body, or the SSE events of a stream) into the final
 * assistant message and its accounting, for the step record. One assembler per wire API.
 */
import { addEvent, anthropicFinishReason, assistantMessage, newAnthropicStream, streamMessage } from '../ingest/anthropic-message';
import type { ChatMessage, ToolCall } from '../contract/step';
import { int, isObject, type Obj, str } from '../contract/json';
import { contentToText, openaiMessage, splitInlineThink } from '../contract/message';
import type { SseEvent } from './sse';

export const Api = { chat: 'chat', responses: 'responses', messages: 'messages' } as const;
export type Api = (typeof Api)[keyof typeof Api];

export interface Assembled {
  id: string | null;
  model: string | null;
  message: ChatMessage | null;
  finish_reason: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  prompt_ids: number[] | null;
  response_ids: number[] | null;
  log_probs: number[] | null;
  /** An error the upstream reported inside a 200 stream (Anthropic `error` event, Responses `response.failed`). */
  error: string | null;
}

export interface StreamAssembler {
  push(ev: SseEvent): void;
  result(): Assembled;
}

function empty(): Assembled {
  return {
    id: null, model: null, message: null, finish_reason: null, prompt_tokens: null, completion_tokens: null,
    prompt_ids: null, response_ids: null, log_probs: null, error: null,
  };
}

function parse(data: string): Obj | null {
  try {
    const v: unknown = JSON.parse(data);
    return isObject(v) ? v : null;
  } catch {
    return null;
  }
}

/** What a stream event that is not JSON is recorded as (the agent still gets the bytes unchanged). */
function malformed(data: string): string | null {
  return data.trim() ? `malformed SSE event from the upstream: ${data.slice(0, 120)}` : null;
}

function ints(v: unknown): number[] | null {
  return Array.isArray(v) && v.every((x) => Number.isInteger(x)) ? (v as number[]) : null;
}

/** vLLM `return_tokens_as_token_ids` spells each token as `token_id:123`. */
function logprobTokens(entries: Obj[], a: Assembled): void {
  if (!entries.length) return;
  a.log_probs = [...(a.log_probs ?? []), ...entries.map((e) => Number(e.logprob))];
  const ids = entries.map((e) => /^token_id:(\d+)$/.exec(String(e.token ?? ''))?.[1]);
  if (ids.every((x) => x !== undefined) && !a.response_ids?.length) a.response_ids = [...(a.response_ids ?? []), ...ids.map(Number)];
}


// ---------- OpenAI chat/completions ----------

function chatJson(body: Obj): Assembled {
  const a = empty();
  a.id = str(body.id);
  a.model = str(body.model);
  const choice = Array.isArray(body.choices) && isObject(body.choices[0]) ? body.choices[0] : null;
  if (choice) {
    a.message = isObject(choice.message) ? openaiMessage(choice.message) : null;
    a.finish_reason = str(choice.finish_reason);
    const lp = isObject(choice.logprobs) && Array.isArray(choice.logprobs.content) ? choice.logprobs.content.filter(isObject) : [];
    logprobTokens(lp, a);
    const ids = ints(choice.token_ids);
    if (ids) a.response_ids = ids;
  }
  a.prompt_ids = ints(body.prompt_token_ids) ?? (choice ? ints(choice.prompt_token_ids) : null);
  if (isObject(body.usage)) {
    a.prompt_tokens = int(body.usage.prompt_tokens);
    a.completion_tokens = int(body.usage.completion_tokens);
  }
  return a;
}

function chatStream(): StreamAssembler {
  const a = empty();
  let content = '';
  let reasoning = '';
  let sawContent = false;
  const calls: { id: string | null; name: string; args: string }[] = [];
  return {
    push(ev) {
      if (ev.data === '[DONE]') return;
      const c = parse(ev.data);
      if (!c) {
        a.error ??= malformed(ev.data);
        return;
      }
      if (isObject(c.error)) a.error = str(c.error.message) ?? JSON.stringify(c.error);
      a.id ??= str(c.id);
      a.model ??= str(c.model);
      if (isObject(c.usage)) {
        a.prompt_tokens = int(c.usage.prompt_tokens);
        a.completion_tokens = int(c.usage.completion_tokens);
      }
      const p = ints(c.prompt_token_ids);
      if (p) a.prompt_ids = p;
      for (const ch of Array.isArray(c.choices) ? c.choices.filter(isObject) : []) {
        if ((int(ch.index) ?? 0) !== 0) continue;
        const d = isObject(ch.delta) ? ch.delta : {};
        if (typeof d.content === 'string') {
          content += d.content;
          sawContent = true;
        }
        const r = d.reasoning_content ?? d.reasoning;
        if (typeof r === 'string') reasoning += r;
        for (const t of Array.isArray(d.tool_calls) ? d.tool_calls.filter(isObject) : []) {
          const i = int(t.index) ?? calls.length;
          calls[i] ??= { id: null, name: '', args: '' };
          const fn = isObject(t.function) ? t.function : {};
          if (typeof t.id === 'string') calls[i].id = t.id;
          if (typeof fn.name === 'string') calls[i].name += fn.name;
          if (typeof fn.arguments === 'string') calls[i].args += fn.arguments;
        }
        if (ch.finish_reason) a.finish_reason = str(ch.finish_reason);
        const lp = isObject(ch.logprobs) && Array.isArray(ch.logprobs.content) ? ch.logprobs.content.filter(isObject) : [];
        logprobTokens(lp, a);
        const ids = ints(ch.token_ids);
        if (ids) a.response_ids = [...(a.response_ids ?? []), ...ids];
      }
    },
    result() {
      const msg: ChatMessage = { role: 'assistant', content: sawContent || !calls.length ? content : null };
      if (reasoning) msg.reasoning = reasoning;
      const tc: ToolCall[] = calls.filter(Boolean).map((t) => ({ id: t.id, type: 'function', function: { name: t.name, arguments: t.args } }));
      if (tc.length) msg.tool_calls = tc;
      a.message = splitInlineThink(msg); // as chatJson (openaiMessage) and every import path do
      return a;
    },
  };
}

// ---------- Anthropic messages (blocks, stop reasons and stream events: ingest/anthropic-message.ts, shared with import) ----------

function anthropicUsage(u: unknown, a: Assembled): void {
  if (!isObject(u)) return;
  const input = int(u.input_tokens);
  if (input !== null) a.prompt_tokens = input + (int(u.cache_read_input_tokens) ?? 0) + (int(u.cache_creation_input_tokens) ?? 0);
  const out = int(u.output_tokens);
  if (out !== null) a.completion_tokens = out;
}

function messagesJson(body: Obj): Assembled {
  const a = empty();
  a.id = str(body.id);
  a.model = str(body.model);
  a.message = assistantMessage(Array.isArray(body.content) ? body.content : []);
  a.finish_reason = anthropicFinishReason(body.stop_reason);
  anthropicUsage(body.usage, a);
  return a;
}

function messagesStream(): StreamAssembler {
  const s = newAnthropicStream(null);
  let malformedError: string | null = null;
  return {
    push(ev) {
      const e = parse(ev.data);
      if (!e) {
        malformedError ??= malformed(ev.data);
        return;
      }
      addEvent(s, typeof e.type === 'string' ? e : { ...e, type: ev.event });
    },
    result() {
      const a = messagesJson(streamMessage(s));
      const err = s.error;
      a.error = err !== null ? (isObject(err) ? (str(err.message) ?? JSON.stringify(err)) : str(err)) : malformedError;
      return a;
    },
  };
}

// ---------- OpenAI responses ----------

function responsesJson(body: Obj): Assembled {
  const a = empty();
  a.id = str(body.id);
  a.model = str(body.model);
  const texts: string[] = [];
  const reasoning: string[] = [];
  const calls: ToolCall[] = [];
  for (const item of Array.isArray(body.output) ? body.output.filter(isObject) : []) {
    if (item.type === 'message') texts.push(contentToText(item.content).content ?? '');
    else if (item.type === 'reasoning') {
      const s = contentToText(item.summary).content;
      if (s) reasoning.push(s);
    } else if (item.type === 'function_call') {
      calls.push({ id: str(item.call_id) ?? str(item.id), type: 'function', function: { name: str(item.name) ?? '', arguments: str(item.arguments) ?? '{}' } });
    }
  }
  const msg: ChatMessage = { role: 'assistant', content: texts.length || !calls.length ? texts.join('') : null };
  if (reasoning.length) msg.reasoning = reasoning.join('\n');
  if (calls.length) msg.tool_calls = calls;
  a.message = msg;
  const status = str(body.status);
  a.finish_reason = status === 'incomplete' ? 'length' : status === 'failed' ? 'error' : calls.length ? 'tool_calls' : 'stop';
  if (isObject(body.error)) a.error = str(body.error.message) ?? JSON.stringify(body.error);
  if (isObject(body.usage)) {
    a.prompt_tokens = int(body.usage.input_tokens);
    a.completion_tokens = int(body.usage.output_tokens);
  }
  return a;
}

function responsesStream(): StreamAssembler {
  let final: Obj | null = null;
  let text = '';
  let error: string | null = null;
  return {
    push(ev) {
      const e = parse(ev.data);
      if (!e) {
        error ??= malformed(ev.data);
        return;
      }
      const type = str(e.type) ?? ev.event;
      if (type === 'response.output_text.delta') text += str(e.delta) ?? '';
      else if ((type === 'response.completed' || type === 'response.incomplete' || type === 'response.failed') && isObject(e.response)) final = e.response;
      else if (type === 'error') error = str(e.message) ?? ev.data;
    },
    result() {
      const a = final ? responsesJson(final) : { ...empty(), message: { role: 'assistant', content: text } };
      a.error ??= error;
      return a;
    },
  };
}

export function assembleJson(api: Api, body: unknown): Assembled {
  if (!isObject(body)) return { ...empty(), error: 'upstream answered with a body that is not a JSON object' };
  return api === 'chat' ? chatJson(body) : api === 'messages' ? messagesJson(body) : responsesJson(body);
}

export function streamAssembler(api: Api): StreamAssembler {
  return api === 'chat' ? chatStream() : api === 'messages' ? messagesStream() : responsesStream();
}

/** The human-readable error of an upstream error body (OpenAI `{error:{message}}`, Anthropic `{type:'error', error:{message}}`). */
export function errorText(status: number, body: string): string {
  const j = parse(body);
  const e = j && isObject(j.error) ? j.error : null;
  const msg = e ? str(e.message) : j ? str(j.message) ?? str(j.detail) : null;
  return `upstream HTTP ${status}: ${msg ?? body.slice(0, 500)}`;
}
