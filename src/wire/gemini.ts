/**
 * Gemini (`generateContent`, google-genai SDKs, Vertex AI, Google ADK) on the wire: `contents[].parts[]` →
 * ChatMessages, a `GenerateContentResponse` (or ADK's `LlmResponse`) → the response, `usageMetadata`,
 * `finishReason`, function declarations → OpenAI-shaped tools. Traces hold both spellings of every key: the
 * REST API and the JS SDK write camelCase (`functionCall`, `usageMetadata`), the Python SDK's `model_dump()`
 * (which ADK writes into its spans) snake_case (`function_call`, `usage_metadata`); both are read.
 */
import { asObject, int, isObject, type Obj, parseJsonDeep, str } from '../contract/json';
import { normalizeArguments } from '../contract/message';
import type { ChatMessage, ToolCall } from '../contract/step';
import { sseObject } from './sse';
import { emptyResponse, malformed, type StreamAccumulator, type WireRequest, type WireResponse } from './types';

/** A key in either spelling: `fileData` / `file_data`. */
export function field(o: Obj, camel: string): unknown {
  if (o[camel] !== undefined) return o[camel];
  return o[camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)];
}

/** `finishReason` → OpenAI-style finish reason (the enum in any case; unknown values lowercased). */
const FINISH: Readonly<Record<string, string>> = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
  MALFORMED_FUNCTION_CALL: 'error',
  UNEXPECTED_TOOL_CALL: 'error',
};

export function geminiFinishReason(v: unknown, hasCalls = false): string | null {
  const s = str(v);
  if (!s || s === 'FINISH_REASON_UNSPECIFIED') return null;
  const mapped = FINISH[s.toUpperCase()] ?? s.toLowerCase();
  // Gemini ends a turn that calls functions with STOP
  return mapped === 'stop' && hasCalls ? 'tool_calls' : mapped;
}

/** `usageMetadata` → prompt / completion tokens; thinking tokens are output the model generated, as in OpenAI's count. */
export function geminiUsage(u: unknown): { prompt: number | null; completion: number | null } {
  const o = asObject(parseJsonDeep(u));
  if (!o) return { prompt: null, completion: null };
  const candidates = int(field(o, 'candidatesTokenCount'));
  const thoughts = int(field(o, 'thoughtsTokenCount'));
  return { prompt: int(field(o, 'promptTokenCount')), completion: candidates === null && thoughts === null ? null : (candidates ?? 0) + (thoughts ?? 0) };
}

const ROLES: Readonly<Record<string, string>> = { model: 'assistant', user: 'user', function: 'tool', tool: 'tool', system: 'system' };

/** What a non-text part stands for in the text (`[image]`, `[executable_code]`); the part list is kept in `parts`. */
function marker(p: Obj): string | null {
  const data = asObject(field(p, 'inlineData')) ?? asObject(field(p, 'fileData'));
  if (data) {
    const mime = str(field(data, 'mimeType')) ?? '';
    return mime.startsWith('image/') ? '[image]' : mime.startsWith('audio/') ? '[audio]' : mime.startsWith('video/') ? '[video]' : '[file]';
  }
  for (const k of ['executableCode', 'codeExecutionResult', 'videoMetadata']) if (field(p, k) !== undefined) return `[${k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}]`;
  return null;
}

/** A function response's text: the `response` struct as JSON (what the model is shown), a string as it is. */
function responseText(fr: Obj): string | null {
  const r = fr.response;
  if (r === undefined || r === null) return null;
  return typeof r === 'string' ? r : JSON.stringify(r);
}

/** Calls made and not yet answered, so a function response without an id answers the call it belongs to. */
export interface OpenCalls {
  calls: ToolCall[];
}

function answer(open: OpenCalls, name: string | null, id: string | null): string | null {
  const i = id !== null ? open.calls.findIndex((c) => c.id === id) : open.calls.findIndex((c) => c.function.name === name);
  // with no id and no call of that name, the only open call is the one answered
  const at = i < 0 && id === null && open.calls.length === 1 ? 0 : i;
  if (at < 0) return id;
  const [call] = open.calls.splice(at, 1);
  return id ?? call.id;
}

/**
 * One `Content` (`{role, parts}`) → chat messages. A model turn is one assistant message (text, `thought`
 * parts as reasoning, function calls); function responses become `tool` messages (first, in order) and the
 * other parts of the turn one message of its role.
 */
export function geminiContent(content: unknown, fallbackRole = 'user', open: OpenCalls = { calls: [] }): ChatMessage[] {
  const c = asObject(parseJsonDeep(content));
  if (!c) return typeof content === 'string' ? [{ role: fallbackRole, content }] : [];
  const role = ROLES[str(c.role) ?? ''] ?? (str(c.role) || fallbackRole);
  const parts = Array.isArray(c.parts) ? c.parts : [];
  const text: string[] = [];
  const thoughts: string[] = [];
  const calls: ToolCall[] = [];
  const tools: ChatMessage[] = [];
  let marked = false;
  for (const p of parts) {
    if (typeof p === 'string') {
      text.push(p);
      continue;
    }
    if (!isObject(p)) continue;
    const fc = asObject(field(p, 'functionCall'));
    const fr = asObject(field(p, 'functionResponse'));
    if (fc) calls.push({ id: str(fc.id), type: 'function', function: { name: str(fc.name) ?? '', arguments: normalizeArguments(fc.args ?? {}) } });
    else if (fr) {
      const m: ChatMessage = { role: 'tool', content: responseText(fr), tool_call_id: answer(open, str(fr.name), str(fr.id)) };
      if (fr.name !== undefined) m.name = str(fr.name);
      tools.push(m);
    } else if (typeof p.text === 'string') (p.thought === true ? thoughts : text).push(p.text);
    else {
      const mk = marker(p);
      if (mk) {
        text.push(mk);
        marked = true;
      }
    }
  }
  open.calls.push(...calls);
  const rest = text.length || thoughts.length || calls.length || !tools.length;
  if (!rest) return tools;
  const m: ChatMessage = { role: role === 'tool' ? 'user' : role, content: text.length ? text.join('') : null };
  if (thoughts.length) m.reasoning = thoughts.join('');
  if (calls.length) m.tool_calls = calls;
  if (marked) m.parts = JSON.stringify(parts);
  return [...tools, m];
}

/** `systemInstruction`: a string, a `Content`, or a list of parts. */
function systemText(v: unknown): string | null {
  const s = parseJsonDeep(v);
  if (typeof s === 'string') return s || null;
  const parts = Array.isArray(s) ? s : isObject(s) && Array.isArray(s.parts) ? s.parts : null;
  if (!parts) return null;
  const texts = parts.map((p) => (typeof p === 'string' ? p : isObject(p) ? str(p.text) : null)).filter((t): t is string => t !== null);
  return texts.length ? texts.join('') : null;
}

/** A `contents` list (plus the system instruction, when there is one) → chat messages, function responses tied to their calls. */
export function geminiMessages(contents: unknown, systemInstruction?: unknown): ChatMessage[] {
  const out: ChatMessage[] = [];
  const sys = systemText(systemInstruction);
  if (sys) out.push({ role: 'system', content: sys });
  const list = parseJsonDeep(contents);
  const open: OpenCalls = { calls: [] };
  for (const c of Array.isArray(list) ? list : isObject(list) ? [list] : []) out.push(...geminiContent(c, 'user', open));
  return out;
}

/** A Gemini `Schema` (its `type` enum upper-case: `OBJECT`, `STRING`) as JSON Schema, which spells the types in lower case. */
function jsonSchema(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(jsonSchema);
  if (!isObject(v)) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) out[k] = k === 'type' && typeof x === 'string' && /^[A-Z]+$/.test(x) ? x.toLowerCase() : jsonSchema(x);
  return out;
}

/** `tools: [{functionDeclarations: [...]}]` → the OpenAI tool shape (JSON text), null when there are none. */
export function geminiTools(tools: unknown): string | null {
  const list = parseJsonDeep(tools);
  if (!Array.isArray(list)) return null;
  const out: unknown[] = [];
  for (const t of list) {
    if (!isObject(t)) continue;
    const decls = field(t, 'functionDeclarations');
    for (const d of Array.isArray(decls) ? decls : []) {
      if (!isObject(d)) continue;
      const fn: Obj = { name: d.name };
      if (d.description !== undefined) fn.description = d.description;
      const params = d.parameters ?? field(d, 'parametersJsonSchema');
      if (params !== undefined) fn.parameters = jsonSchema(parseJsonDeep(params));
      out.push({ type: 'function', function: fn });
    }
  }
  return out.length ? JSON.stringify(out) : null;
}

/** A request: REST `{contents, systemInstruction, tools}`, or the `{model, config: {system_instruction, tools}, contents}` ADK traces. */
export function geminiRequest(body: unknown): WireRequest {
  const b = asObject(parseJsonDeep(body)) ?? {};
  const config = asObject(b.config) ?? asObject(field(b, 'generationConfig')) ?? {};
  const system = field(b, 'systemInstruction') ?? field(config, 'systemInstruction');
  const rawTools = b.tools ?? config.tools;
  const tools = geminiTools(rawTools);
  return {
    model: str(b.model),
    stream: false,
    messages: geminiMessages(b.contents, system),
    tools,
    tools_original: tools ? JSON.stringify(parseJsonDeep(rawTools)) : null,
    previous_response_id: null,
  };
}

/**
 * A `GenerateContentResponse` (`candidates[0].content`) or an ADK `LlmResponse` (`content` at the top, with
 * `error_code` / `error_message`) → the step's reading.
 */
export function geminiResponse(body: unknown): WireResponse {
  const a = emptyResponse();
  const b = asObject(parseJsonDeep(body));
  if (!b) return a;
  const candidates = b.candidates;
  const cand = Array.isArray(candidates) ? asObject(candidates[0]) : b;
  a.id = str(field(b, 'responseId'));
  a.model = str(field(b, 'modelVersion'));
  if (cand) {
    const msgs = geminiContent(cand.content, 'assistant');
    const m = msgs.find((x) => x.role === 'assistant') ?? msgs.at(-1) ?? null;
    a.message = m && (m.content !== null || m.reasoning || m.tool_calls?.length) ? { ...m, role: 'assistant' } : null;
    a.finish_reason = geminiFinishReason(field(cand, 'finishReason'), !!a.message?.tool_calls?.length);
  }
  const usage = geminiUsage(field(b, 'usageMetadata'));
  a.prompt_tokens = usage.prompt;
  a.completion_tokens = usage.completion;
  const feedback = asObject(field(b, 'promptFeedback'));
  const blocked = feedback ? str(field(feedback, 'blockReason')) : null;
  const code = str(field(b, 'errorCode'));
  if (code || b.error !== undefined) a.error = str(field(b, 'errorMessage')) ?? str(asObject(b.error)?.message ?? b.error) ?? code;
  else if (blocked && !a.message) a.error = `prompt blocked: ${blocked}`;
  if (a.error) a.finish_reason ??= 'error';
  return a;
}

/**
 * Reassembles a `streamGenerateContent` response (SSE with `alt=sse`, or the JSON array the endpoint returns
 * without it): each chunk is a `GenerateContentResponse`; the first candidate's parts are joined in order,
 * the last finish reason and usage are the call's.
 */
export function geminiAccumulator(): StreamAccumulator & { chunk(c: unknown): void } {
  const parts: unknown[] = [];
  let last: Obj | null = null;
  let first: Obj | null = null;
  let finish: unknown;
  let usage: unknown;
  let bad: string | null = null;
  const chunk = (c: unknown) => {
    const o = asObject(c);
    if (!o) return;
    first ??= o;
    last = o;
    const cand = Array.isArray(o.candidates) ? asObject(o.candidates[0]) : null;
    const content = asObject(cand?.content);
    if (Array.isArray(content?.parts)) parts.push(...content.parts);
    finish = field(cand ?? {}, 'finishReason') ?? finish;
    usage = field(o, 'usageMetadata') ?? usage;
  };
  return {
    chunk,
    push(ev) {
      const o = sseObject(ev);
      if (o) chunk(o);
      else if (ev.data.trim()) bad ??= malformed(ev.data);
    },
    result() {
      if (!first) return { ...emptyResponse(), error: bad };
      const f = first as Obj;
      const l = last as Obj | null;
      const whole: Obj = { candidates: [{ content: { role: 'model', parts }, finishReason: finish }], usageMetadata: usage, modelVersion: field(f, 'modelVersion'), responseId: field(f, 'responseId') };
      if (l && (l.error !== undefined || field(l, 'promptFeedback') !== undefined)) Object.assign(whole, { error: l.error, promptFeedback: field(l, 'promptFeedback') });
      const a = geminiResponse(whole);
      a.error ??= bad;
      return a;
    },
  };
}

/** A value with the Gemini request shape: `contents` of `{role, parts}` turns. */
export function isGeminiRequest(v: unknown): boolean {
  return isObject(v) && Array.isArray(v.contents) && v.contents.some(isGeminiContent);
}

/** A value with the Gemini response shape: `candidates[].content`, or ADK's `{content: {parts}}` with usage / finish reason. */
export function isGeminiResponse(v: unknown): boolean {
  if (!isObject(v)) return false;
  if (Array.isArray(v.candidates)) return v.candidates.some((c) => isObject(c) && ('content' in c || field(c, 'finishReason') !== undefined));
  return isGeminiContent(v.content);
}

/** One `{role?, parts: [...]}` turn. */
export function isGeminiContent(v: unknown): boolean {
  return isObject(v) && Array.isArray(v.parts) && !('content' in v) && v.parts.every((p) => typeof p === 'string' || isObject(p));
}
