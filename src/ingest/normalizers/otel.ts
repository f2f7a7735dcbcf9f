/** OpenTelemetry GenAI spans (OTLP JSON) → steps. */
import { withProviderFill } from '../chat-steps';
import { toolsOriginal, toolsText } from '../../wire/tools';
import { defineNormalizer, RecordError } from '../normalizer';
import { redactSecrets } from '../../record/redact';
import type { ChatMessage, StepDraft, TrajectoryDraft } from '../../contract/step';
import { int, isObject, type Obj, parseJsonDeep, str, timeMs } from '../../contract/json';
import { contentToText, normalizeArguments, openaiMessage } from '../../contract/message';
import { geminiRequest, geminiResponse } from '../../wire/gemini';
import { requestByShape } from '../../wire/shapes';
import { aiSdkFinishReason, aiSdkResponse, aiSdkTools } from '../../wire/vercel-ai';
import { safeMetaValue } from './loose-chat';

/** OTLP AnyValue → plain value. */
function anyValue(v: unknown): unknown {
  if (!isObject(v)) return v;
  if ('stringValue' in v) return v.stringValue;
  if ('intValue' in v) return int(v.intValue);
  if ('doubleValue' in v) return typeof v.doubleValue === 'number' ? v.doubleValue : Number(v.doubleValue);
  if ('boolValue' in v) return v.boolValue;
  if ('bytesValue' in v) return v.bytesValue;
  if (isObject(v.arrayValue)) return Array.isArray(v.arrayValue.values) ? v.arrayValue.values.map(anyValue) : [];
  if (isObject(v.kvlistValue)) return attributes(v.kvlistValue.values);
  return v;
}

/** OTLP `[{key, value}]` (or an already flat object) → flat object. */
export function attributes(list: unknown): Obj {
  if (isObject(list)) return list;
  const out: Obj = {};
  if (Array.isArray(list)) for (const a of list) if (isObject(a) && typeof a.key === 'string') out[a.key] = anyValue(a.value);
  return out;
}

const LLM_OPERATIONS = new Set(['chat', 'text_completion', 'completion', 'generate_content']);

function isLlmSpan(a: Obj): boolean {
  const op = str(a['gen_ai.operation.name']);
  if (op) return LLM_OPERATIONS.has(op);
  return 'gen_ai.request.model' in a || 'gen_ai.response.model' in a || 'gen_ai.prompt.0.role' in a || 'gen_ai.prompt.0.content' in a;
}

/** Semantic-conventions message (`{role, parts: [{type, content|name|arguments|response}]}`) → chat messages. */
function partsMessage(m: unknown, defaultRole: string): ChatMessage[] {
  if (!isObject(m)) return [{ role: defaultRole, content: str(m) }];
  if (!Array.isArray(m.parts)) return [openaiMessage({ role: defaultRole, ...m })];
  const role = str(m.role) ?? defaultRole;
  const texts: unknown[] = [];
  const out: ChatMessage[] = [];
  const msg: ChatMessage = { role, content: null };
  for (const p of m.parts) {
    if (!isObject(p)) continue;
    if (p.type === 'tool_call') (msg.tool_calls ??= []).push({ id: str(p.id), type: 'function', function: { name: str(p.name) ?? '', arguments: normalizeArguments(p.arguments) } });
    else if (p.type === 'tool_call_response') out.push({ role: 'tool', content: str(p.response ?? p.result ?? p.content), tool_call_id: str(p.id) });
    else if (p.type === 'reasoning') msg.reasoning = (msg.reasoning ? `${msg.reasoning}\n` : '') + (str(p.content) ?? '');
    else texts.push(p.type === 'text' ? { type: 'text', text: str(p.content ?? p.text) ?? '' } : p);
  }
  if (texts.length) {
    const { content, parts } = contentToText(texts);
    msg.content = content;
    if (texts.some((t) => isObject(t) && t.type !== 'text')) msg.parts = parts;
  }
  if (texts.length || msg.tool_calls || msg.reasoning || !out.length) out.unshift(msg);
  return out;
}

function jsonList(v: unknown): unknown[] | null {
  const p = parseJsonDeep(v);
  return Array.isArray(p) ? p : null;
}

/** `gen_ai.prompt.N.*` / `gen_ai.completion.N.*` flat attributes → message objects, in index order. */
function indexedMessages(a: Obj, prefix: string): Obj[] {
  const byIndex = new Map<number, Obj>();
  for (const [k, v] of Object.entries(a)) {
    if (!k.startsWith(prefix)) continue;
    const m = /^(\d+)\.(.+)$/.exec(k.slice(prefix.length));
    if (!m) continue;
    const msg = byIndex.get(Number(m[1])) ?? {};
    byIndex.set(Number(m[1]), msg);
    const call = /^tool_calls\.(\d+)\.(.+)$/.exec(m[2]);
    if (call) {
      const calls = ((msg.tool_calls as Obj[] | undefined) ??= []);
      const c = (calls[Number(call[1])] ??= { type: 'function', function: {} });
      if (call[2] === 'id') c.id = v;
      else (c.function as Obj)[call[2]] = v;
    } else msg[m[2]] = v;
  }
  return [...byIndex.entries()].sort((x, y) => x[0] - y[0]).map(([, m]) => ({ ...m, tool_calls: (m.tool_calls as unknown[] | undefined)?.filter(Boolean) }));
}

const EVENT_ROLE: Record<string, string> = {
  'gen_ai.system.message': 'system',
  'gen_ai.user.message': 'user',
  'gen_ai.assistant.message': 'assistant',
  'gen_ai.tool.message': 'tool',
};

function eventBody(ev: Obj): Obj {
  const a = attributes(ev.attributes);
  const inner = parseJsonDeep(anyValue(ev.body) ?? a['gen_ai.event.content'] ?? a.body);
  const body = isObject(inner) ? inner : {};
  const merged: Obj = { ...a, ...body };
  for (const k of ['message', 'tool_calls']) if (typeof merged[k] === 'string') merged[k] = parseJsonDeep(merged[k]);
  return merged;
}

function eventMessage(role: string, b: Obj): ChatMessage {
  const m = openaiMessage({ ...b, role: str(b.role) ?? role, content: parseJsonDeep(b.content) });
  if (role === 'tool' && !m.tool_call_id && b.id !== undefined) m.tool_call_id = str(b.id);
  return m;
}

interface SpanCall {
  messages: ChatMessage[];
  response: ChatMessage | null;
  finish: string | null;
  /** What a framework's own attributes say that the GenAI ones may not (frameworkCall). */
  fromContent?: boolean;
  tools?: string | null;
  model?: string | null;
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
}

const hasValue = (v: unknown) => v !== undefined && v !== null && v !== '' && v !== '{}';

/**
 * A call's content that frameworks record in their own attributes beside the GenAI ones: the Vercel AI SDK
 * (`ai.prompt.messages` or `ai.prompt`, `ai.response.text` / `.toolCalls` / `.reasoning` / `.finishReason`,
 * `ai.prompt.tools`, `ai.usage.*`) and Google ADK (`gcp.vertex.agent.llm_request` / `llm_response`: Gemini
 * contents and responses). Each is read by its shape in the wire layer.
 */
function frameworkCall(a: Obj): SpanCall | null {
  if (hasValue(a['ai.prompt.messages']) || hasValue(a['ai.response.text']) || hasValue(a['ai.response.toolCalls'])) {
    const req = requestByShape(a['ai.prompt.messages'] ?? a['ai.prompt']);
    const res = aiSdkResponse({
      text: a['ai.response.text'] ?? '',
      toolCalls: a['ai.response.toolCalls'] ?? [],
      reasoningText: a['ai.response.reasoning'],
      finishReason: a['ai.response.finishReason'] ?? a['ai.finishReason'],
    });
    return {
      messages: req.messages,
      response: res.message,
      finish: res.finish_reason,
      fromContent: true,
      tools: aiSdkTools(a['ai.prompt.tools']),
      model: str(a['ai.response.model'] ?? a['ai.model.id']),
      prompt_tokens: int(a['ai.usage.inputTokens'] ?? a['ai.usage.promptTokens']),
      completion_tokens: int(a['ai.usage.outputTokens'] ?? a['ai.usage.completionTokens']),
    };
  }
  if (hasValue(a['gcp.vertex.agent.llm_request']) || hasValue(a['gcp.vertex.agent.llm_response'])) {
    const req = geminiRequest(a['gcp.vertex.agent.llm_request']);
    const res = geminiResponse(a['gcp.vertex.agent.llm_response']);
    return {
      messages: req.messages,
      response: res.message,
      finish: res.finish_reason,
      fromContent: true,
      tools: req.tools,
      model: req.model ?? res.model,
      prompt_tokens: res.prompt_tokens,
      completion_tokens: res.completion_tokens,
    };
  }
  return null;
}

function spanMessages(a: Obj, events: Obj[]): SpanCall {
  const input = jsonList(a['gen_ai.input.messages']);
  if (input) {
    const messages: ChatMessage[] = [];
    const sys = jsonList(a['gen_ai.system_instructions']);
    if (sys) messages.push(...partsMessage({ role: 'system', parts: sys }, 'system'));
    for (const m of input) messages.push(...partsMessage(m, 'user'));
    const output = jsonList(a['gen_ai.output.messages']) ?? [];
    const first = isObject(output[0]) ? output[0] : null;
    return { messages, response: first ? partsMessage(first, 'assistant')[0] : null, finish: first ? str(first.finish_reason) : null };
  }
  const framework = frameworkCall(a);
  if (framework) return framework;
  const messages: ChatMessage[] = [];
  let response: ChatMessage | null = null;
  let finish: string | null = null;
  for (const ev of events) {
    const name = str(ev.name) ?? '';
    if (EVENT_ROLE[name]) messages.push(eventMessage(EVENT_ROLE[name], eventBody(ev)));
    else if (name === 'gen_ai.choice' && !response) {
      const b = eventBody(ev);
      const msg = isObject(b.message) ? b.message : b;
      response = { ...eventMessage('assistant', msg), role: 'assistant' };
      finish = str(b.finish_reason);
    }
  }
  if (messages.length || response) return { messages, response, finish };
  const prompts = indexedMessages(a, 'gen_ai.prompt.');
  const completions = indexedMessages(a, 'gen_ai.completion.');
  const first = completions[0];
  return {
    messages: prompts.map(openaiMessage),
    response: first ? { ...openaiMessage(first), role: 'assistant' } : null,
    finish: first ? str(first.finish_reason) : null,
  };
}

function toolDefinitions(a: Obj): string | null {
  const defs = jsonList(a['gen_ai.tool.definitions'] ?? a['llm.tools']);
  // semantic-conventions definitions are flat, like the Responses API's: toolsText nests them under `function`
  if (defs?.length) return toolsText(defs);
  const fns = indexedMessages(a, 'llm.request.functions.');
  if (!fns.length) return null;
  return JSON.stringify(fns.map((f) => ({ type: 'function', function: { ...f, parameters: parseJsonDeep(f.parameters), tool_calls: undefined } })));
}

const ERROR_CODES = new Set([2, '2', 'STATUS_CODE_ERROR', 'ERROR']);

/**
 * The current conventions record a call's content on one `gen_ai.client.inference.operation.details`
 * event (a span event or an OTLP log record) whose attributes are the `gen_ai.*` content attributes.
 */
export const DETAILS_EVENT = 'gen_ai.client.inference.operation.details';

function spanStep(span: Obj, resource: Obj, line: number): StepDraft {
  const events = Array.isArray(span.events) ? span.events.filter(isObject) : [];
  const details = events.find((e) => e.name === DETAILS_EVENT);
  // span attributes win over the event's (the event repeats model / usage)
  const a = { ...(details ? attributes(details.attributes) : {}), ...attributes(span.attributes) };
  const call = spanMessages(a, events);
  const status = isObject(span.status) ? span.status : {};
  const exception = events.find((e) => e.name === 'exception');
  const failed = ERROR_CODES.has(status.code as string) || a['error.type'] !== undefined;
  const started = timeMs(str(span.startTimeUnixNano));
  const ended = timeMs(str(span.endTimeUnixNano));
  // an array attribute, or the same array as JSON text (exporters that flatten attributes to strings)
  const reasons = parseJsonDeep(a['gen_ai.response.finish_reasons']);
  const attribute = Array.isArray(reasons) ? str(reasons[0]) : str(reasons);
  // a framework's own content says more than its GenAI attribute (ADK writes Gemini's `stop` also for a turn that calls tools)
  const given = call.fromContent ? (call.finish ?? attribute) : (attribute ?? call.finish);
  // the conventions spell a tool-call stop `tool_call`, the AI SDK `tool-calls`; the step record uses OpenAI's `tool_calls`
  const finish = given === 'tool_call' ? 'tool_calls' : aiSdkFinishReason(given);
  const metadata: Record<string, string> = {};
  const put = (k: string, v: unknown) => {
    const s = safeMetaValue(v);
    if (s !== null) metadata[k] = s;
  };
  const definitions = jsonList(a['gen_ai.tool.definitions']);
  put('tools_original', definitions ? toolsOriginal(definitions) : null);
  put('span_name', span.name);
  put('span_id', span.spanId);
  put('parent_span_id', span.parentSpanId || null);
  put('service_name', resource['service.name']);
  for (const [k, v] of Object.entries(a)) if (/^gen_ai\.(request\.(?!model)|conversation\.id|response\.id)/.test(k)) put(k, v);
  return {
    messages: call.messages,
    response: call.response,
    tools: toolDefinitions(a) ?? call.tools ?? null,
    model: str(a['gen_ai.response.model'] ?? a['gen_ai.request.model']) ?? call.model ?? null,
    // ADK names itself as the GenAI system; the provider then comes from the model name
    provider: str(a['gen_ai.provider.name'] ?? (a['gen_ai.system'] === 'gcp.vertex.agent' ? null : a['gen_ai.system'])),
    agent: str(a['gen_ai.agent.name'] ?? resource['service.name']),
    prompt_tokens: int(a['gen_ai.usage.input_tokens'] ?? a['gen_ai.usage.prompt_tokens']) ?? call.prompt_tokens ?? null,
    completion_tokens: int(a['gen_ai.usage.output_tokens'] ?? a['gen_ai.usage.completion_tokens']) ?? call.completion_tokens ?? null,
    finish_reason: finish ?? (failed ? 'error' : null),
    started_at: started,
    ended_at: ended,
    latency_ms: started !== null && ended !== null ? ended - started : null,
    status: failed ? 'error' : 'ok',
    error: failed ? ((str(status.message) || null) ?? str(exception ? attributes(exception.attributes)['exception.message'] : null) ?? str(a['error.type']) ?? 'span status ERROR') : null,
    metadata,
    source_line: line,
    raw: JSON.stringify(redactSecrets(span)),
  };
}

interface LocatedSpan {
  span: Obj;
  resource: Obj;
}

/** OTLP log records (`resourceLogs`) that are GenAI events, as span-event-shaped objects (`name`, `attributes`, `body`). */
function genAiLogEvents(v: unknown): { spanId: string; traceId: string; resource: Obj; event: Obj }[] {
  if (!isObject(v) || !Array.isArray(v.resourceLogs)) return [];
  const out: { spanId: string; traceId: string; resource: Obj; event: Obj }[] = [];
  for (const rl of v.resourceLogs) {
    if (!isObject(rl)) continue;
    const resource = attributes(isObject(rl.resource) ? rl.resource.attributes : undefined);
    const scopes = rl.scopeLogs ?? rl.instrumentationLibraryLogs;
    for (const sl of Array.isArray(scopes) ? scopes : []) {
      if (!isObject(sl) || !Array.isArray(sl.logRecords)) continue;
      for (const log of sl.logRecords) {
        if (!isObject(log)) continue;
        const a = attributes(log.attributes);
        const name = str(log.eventName) || str(a['event.name']);
        if (!name || !(name === DETAILS_EVENT || name in EVENT_ROLE || name === 'gen_ai.choice')) continue;
        out.push({ spanId: str(log.spanId) ?? '', traceId: str(log.traceId) ?? '', resource, event: { name, attributes: a, body: log.body, timeUnixNano: log.timeUnixNano } });
      }
    }
  }
  return out;
}

function spansOf(v: unknown): LocatedSpan[] {
  if (!isObject(v)) return [];
  if (Array.isArray(v.resourceSpans)) {
    const out: LocatedSpan[] = [];
    for (const rs of v.resourceSpans) {
      if (!isObject(rs)) continue;
      const resource = attributes(isObject(rs.resource) ? rs.resource.attributes : undefined);
      const scopes = rs.scopeSpans ?? rs.instrumentationLibrarySpans;
      for (const ss of Array.isArray(scopes) ? scopes : []) {
        if (!isObject(ss) || !Array.isArray(ss.spans)) continue;
        for (const span of ss.spans) if (isObject(span)) out.push({ span, resource });
      }
    }
    return out;
  }
  if (typeof v.traceId === 'string' && 'attributes' in v && 'startTimeUnixNano' in v) return [{ span: v, resource: {} }];
  return [];
}

interface OtelState {
  /** LLM spans by span id, with the line they came from. */
  spans: Map<string, { span: Obj; resource: Obj; line: number }>;
  /** GenAI log events by span id (they may come before or after their span, in another record). */
  logs: Map<string, { traceId: string; resource: Obj; line: number; events: Obj[] }>;
  order: number;
}

/**
 * OpenTelemetry GenAI telemetry (OTLP JSON: `resourceSpans` and `resourceLogs`, one export request a
 * line or one document): every LLM span is a step, the trace is the trajectory. The call's content
 * comes from the span's attributes (`gen_ai.input.messages` / `gen_ai.output.messages` with `parts`),
 * its `gen_ai.client.inference.operation.details` event, the older per-message events
 * (`gen_ai.user.message`, `gen_ai.choice`, …) as span events or as log records joined by span id, or
 * the pre-1.28 `gen_ai.prompt.N.*` attributes. Spans and logs are collected over the file and emitted
 * at its end, each trace's steps in start order.
 */
export const otel = withProviderFill(
  defineNormalizer<OtelState>({
    id: 'otel',
    label: 'OpenTelemetry GenAI spans and events (OTLP JSON)',
    detect(sample) {
      const hits = sample.filter((v) => isObject(v) && (Array.isArray(v.resourceSpans) || (Array.isArray(v.resourceLogs) && genAiLogEvents(v).length > 0))).length;
      if (hits) return 0.9 + 0.08 * (hits / sample.length);
      const spans = sample.filter((v) => spansOf(v).length).length;
      return spans ? 0.7 * (spans / sample.length) : 0;
    },
    createState: () => ({ spans: new Map(), logs: new Map(), order: 0 }),
    normalize(record, _ctx, state) {
      const v = record.value;
      const located = spansOf(v);
      const isExport = isObject(v) && (Array.isArray(v.resourceSpans) || Array.isArray(v.resourceLogs));
      if (!located.length && !isExport) throw new RecordError('no OTLP spans or logs here: expected {resourceSpans: [{scopeSpans: [{spans}]}]} or {resourceLogs: …}');
      for (const { span, resource } of located) {
        if (!isLlmSpan(attributes(span.attributes))) continue;
        const id = str(span.spanId) || `#${state.order++}`;
        state.spans.set(id, { span, resource, line: record.line });
      }
      for (const l of genAiLogEvents(v)) {
        const id = l.spanId || `#${state.order++}`;
        let entry = state.logs.get(id);
        if (!entry) state.logs.set(id, (entry = { traceId: l.traceId, resource: l.resource, line: record.line, events: [] }));
        entry.events.push(l.event);
      }
      return [];
    },
    flush(_ctx, state) {
      const byTrace = new Map<string, { start: number; step: StepDraft }[]>();
      const add = (trace: string, step: StepDraft) => {
        const list = byTrace.get(trace) ?? [];
        byTrace.set(trace, list);
        list.push({ start: step.started_at ?? 0, step });
      };
      for (const [id, { span, resource, line }] of state.spans) {
        const logs = state.logs.get(id);
        state.logs.delete(id);
        const events = [...(Array.isArray(span.events) ? span.events.filter(isObject) : []), ...(logs?.events ?? [])];
        add(str(span.traceId) ?? '', spanStep({ ...span, events }, resource, line));
      }
      // events whose span is not in the file: the event is the call (its attributes name model and usage)
      for (const [id, { traceId, resource, line, events }] of state.logs) {
        const t = events.map((e) => str(e.timeUnixNano)).find((x) => x) ?? null;
        add(traceId, spanStep({ traceId, spanId: id.startsWith('#') ? null : id, name: events[0]?.name, startTimeUnixNano: t, endTimeUnixNano: t, attributes: {}, events }, resource, line));
      }
      state.spans.clear();
      state.logs.clear();
      const out: TrajectoryDraft[] = [];
      for (const [trace, list] of byTrace) {
        list.sort((x, y) => x.start - y.start);
        out.push({ trajectory_uid: trace || null, steps: list.map((x) => x.step) });
      }
      return out;
    },
  }),
);
