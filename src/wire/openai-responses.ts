/**
 * OpenAI Responses API on the wire: input items → messages, output items → the response message,
 * status → finish reason, and reassembly of its SSE stream. The gateway, HAR / recorded-exchange import
 * and the Responses log normalizer all call it (decision 019).
 */
import { int, isObject, type Obj, parseJsonDeep, str, timeMs } from '../contract/json';
import { contentToText, normalizeArguments } from '../contract/message';
import type { ChatMessage, ToolCall } from '../contract/step';
import { sseObject } from './sse';
import { toolsOriginal, toolsText } from './tools';
import { emptyResponse, errorText, malformed, type StreamAccumulator, type WireRequest, type WireResponse } from './types';

/** A reasoning item's summary and content text ('' when it has none: an encrypted item holds no text to store). */
function reasoningText(item: Obj): string {
  const parts = [item.summary, item.content].flatMap((p) => (Array.isArray(p) ? p : []));
  return parts
    .map((p) => (isObject(p) ? str(p.text) : str(p)))
    .filter((t): t is string => !!t)
    .join('\n');
}

/** Output items with a reasoning item whose only content is `encrypted_content`. */
export function encryptedReasoning(items: unknown): boolean {
  const v = parseJsonDeep(items);
  return Array.isArray(v) && v.some((i) => isObject(i) && i.type === 'reasoning' && !!i.encrypted_content && !reasoningText(i));
}

/** Responses API items → chat messages: an assistant turn's reasoning, text and calls merge into one message. */
export function itemsToMessages(input: unknown): ChatMessage[] {
  const v = parseJsonDeep(input);
  // `input` is the user's text or an item list; text that reads as other JSON (a prompt that is a JSON document) is text
  if (typeof input === 'string' && !Array.isArray(v)) return [{ role: 'user', content: input }];
  if (!Array.isArray(v)) return [];
  const out: ChatMessage[] = [];
  // held in an object: TS does not track assignments made inside the closures below
  // Stryker disable next-line ObjectLiteral: `{}` leaves cur undefined, which every use treats as null
  const st: { cur: ChatMessage | null } = { cur: null };
  const flush = () => {
    if (st.cur) out.push(st.cur);
    st.cur = null;
  };
  const assistant = (): ChatMessage => (st.cur ??= { role: 'assistant', content: null });
  for (const item of v) {
    if (typeof item === 'string') {
      flush();
      out.push({ role: 'user', content: item });
      continue;
    }
    if (!isObject(item)) continue;
    const type = str(item.type) ?? (item.role ? 'message' : '');
    // Stryker disable next-line ConditionalExpression: only message items carry a role, so the type test cannot change the outcome
    if (type === 'message' && item.role === 'assistant') {
      const a = assistant();
      const { content } = contentToText(item.content);
      if (content) a.content = a.content ? `${a.content}\n${content}` : content;
    } else if (type === 'message') {
      flush();
      const { content, parts } = contentToText(item.content);
      const m: ChatMessage = { role: str(item.role) ?? 'user', content };
      if (parts !== null) m.parts = parts;
      out.push(m);
    } else if (type === 'reasoning') {
      if (st.cur && (st.cur.content || st.cur.tool_calls?.length)) flush();
      const a = assistant();
      const text = reasoningText(item);
      if (text) a.reasoning = a.reasoning ? `${a.reasoning}\n${text}` : text;
    } else if (type === 'function_call' || type === 'custom_tool_call') {
      const a = assistant();
      const call: ToolCall = {
        id: str(item.call_id ?? item.id),
        type: 'function',
        function: { name: str(item.name) ?? '', arguments: type === 'custom_tool_call' ? (str(item.input) ?? '') : normalizeArguments(item.arguments) },
      };
      a.tool_calls = [...(a.tool_calls ?? []), call];
    } else if (type === 'function_call_output' || type === 'custom_tool_call_output') {
      flush();
      const output = parseJsonDeep(item.output);
      const content = typeof item.output === 'string' ? item.output : Array.isArray(output) ? contentToText(output).content : str(output);
      out.push({ role: 'tool', content, tool_call_id: str(item.call_id) });
    }
  }
  flush();
  return out;
}

/** Several assistant messages of one response (e.g. two message items) as the single response message. */
export function mergeAssistant(ms: readonly ChatMessage[]): ChatMessage | null {
  if (ms.length <= 1) return ms[0] ?? null;
  const out: ChatMessage = { role: 'assistant', content: null };
  for (const m of ms) {
    if (m.content) out.content = out.content ? `${out.content}\n${m.content}` : m.content;
    if (m.reasoning) out.reasoning = out.reasoning ? `${out.reasoning}\n${m.reasoning}` : m.reasoning;
    if (m.tool_calls?.length) out.tool_calls = [...(out.tool_calls ?? []), ...m.tool_calls];
  }
  return out;
}

/** A Responses request body (`instructions` + `input`) → what it asked. */
export function responsesRequest(body: unknown): WireRequest {
  const b = isObject(body) ? body : {};
  const instructions = str(b.instructions);
  const input = itemsToMessages(b.input);
  return {
    model: str(b.model),
    stream: b.stream === true,
    messages: instructions ? [{ role: 'system', content: instructions }, ...input] : input,
    tools: toolsText(parseJsonDeep(b.tools)),
    tools_original: toolsOriginal(b.tools),
    previous_response_id: str(b.previous_response_id),
  };
}

/** A response's `status` → finish reason (`incomplete` says why in `incomplete_details.reason`). */
export function responsesFinishReason(res: Obj, response: ChatMessage | null): string | null {
  const status = str(res.status);
  if (status === 'failed' || (res.error !== undefined && res.error !== null)) return 'error';
  if (status === 'incomplete') {
    const reason = str(isObject(res.incomplete_details) ? res.incomplete_details.reason : null);
    return reason === 'max_output_tokens' || reason === null ? 'length' : reason;
  }
  if (status === 'completed' || status === null) return response?.tool_calls?.length ? 'tool_calls' : response ? 'stop' : null;
  return status;
}

/** A `response` object → the step's reading. */
export function responsesResponse(body: Obj): WireResponse {
  const a = emptyResponse();
  a.id = str(body.id);
  a.model = str(body.model);
  a.created = typeof body.created_at === 'number' && body.created_at > 0 ? timeMs(body.created_at) : null;
  a.message = mergeAssistant(itemsToMessages(body.output).filter((m) => m.role === 'assistant'));
  if (encryptedReasoning(body.output)) a.reasoning_hidden = 'encrypted';
  a.finish_reason = responsesFinishReason(body, a.message);
  if (isObject(body.usage)) {
    a.prompt_tokens = int(body.usage.input_tokens ?? body.usage.prompt_tokens);
    a.completion_tokens = int(body.usage.output_tokens ?? body.usage.completion_tokens);
  }
  if (body.error !== undefined && body.error !== null) a.error = errorText({ error: body.error }) ?? 'response failed';
  else if (str(body.status) === 'failed') a.error = 'response failed';
  return a;
}

export const DONE_EVENTS = new Set(['response.completed', 'response.failed', 'response.incomplete']);

/** Reassembles a Responses stream: the final `response` object of its done event; text deltas when the stream was cut before it. */
export function responsesAccumulator(): StreamAccumulator {
  let final: Obj | null = null;
  let text = '';
  let error: string | null = null;
  return {
    push(ev) {
      const e = sseObject(ev);
      if (!e) {
        if (ev.data.trim() !== '[DONE]') error ??= malformed(ev.data);
        return;
      }
      const type = str(e.type) ?? ev.event;
      if (type === 'response.output_text.delta') text += str(e.delta) ?? '';
      // Stryker disable next-line ConditionalExpression: DONE_EVENTS has no null; the test narrows the type only
      else if (type !== null && DONE_EVENTS.has(type) && isObject(e.response)) final = e.response;
      else if (type === 'error') error = errorText(e) ?? ev.data;
    },
    result() {
      const a = final ? responsesResponse(final) : { ...emptyResponse(), message: text ? { role: 'assistant', content: text } : null };
      a.error ??= error;
      if (a.error && !final) a.finish_reason = 'error';
      return a;
    },
  };
}
