import { hash64 } from '../../util/hash';
import { withProviderFill } from '../chat-steps';
import { toolsOriginal, toolsText } from '../../wire/tools';
import { defineNormalizer, RecordError, type SourceRecord } from '../normalizer';
import { redactSecrets } from '../../record/redact';
import type { ChatMessage, StepDraft, ToolCall, TrajectoryDraft } from '../../contract/step';
import { int, isObject, noteNaiveTimes, type Obj, parseJsonDeep, str, timeMs } from '../../contract/json';
import { contentToText, normalizeArguments, splitInlineThink } from '../../contract/message';
import { callByShape } from '../../wire/shapes';
import { normalRole, safeMetaValue } from './loose-chat';

/** Flat dotted attributes (`llm.input_messages.0.message.role`) and nested ones → one nested object. */
export function expandAttributes(attrs: unknown): Obj {
  const out: Obj = {};
  if (!isObject(attrs)) return out;
  for (const [key, value] of Object.entries(attrs)) {
    const path = key.split('.');
    let cur: Obj = out;
    for (let i = 0; i < path.length - 1; i++) {
      const next = cur[path[i]];
      cur = isObject(next) ? next : (cur[path[i]] = {}) as Obj;
    }
    const last = path[path.length - 1];
    const prev = cur[last];
    if (isObject(value) || (Array.isArray(value) && value.some((x) => isObject(x) || Array.isArray(x)))) {
      const expanded = expandAttributes(Array.isArray(value) ? { ...value } : value);
      cur[last] = isObject(prev) ? { ...prev, ...expanded } : expanded;
    } else cur[last] = value;
  }
  return out;
}

/** `{0: a, 1: b}` (what expansion makes of indexed keys) or an array → array in index order. */
function list(v: unknown): unknown[] {
  const p = parseJsonDeep(v);
  if (Array.isArray(p)) return p;
  if (!isObject(p)) return [];
  // index keys are integer keys, which Object.keys lists in ascending numeric order
  return Object.keys(p)
    .filter((k) => /^\d+$/.test(k))
    .map((k) => p[k]);
}

function inner(v: unknown, key: string): Obj {
  if (!isObject(v)) return {};
  return isObject(v[key]) ? v[key] : v;
}

function oiToolCalls(v: unknown): ToolCall[] | null {
  const calls: ToolCall[] = [];
  for (const c of list(v)) {
    const tc = inner(c, 'tool_call');
    const fn = isObject(tc.function) ? tc.function : {};
    const name = str(fn.name);
    if (name !== null) calls.push({ id: str(tc.id), type: 'function', function: { name, arguments: normalizeArguments(fn.arguments) } });
  }
  return calls.length ? calls : null;
}

/** An OpenInference message (`{message: {role, content | contents, tool_calls, tool_call_id}}`) → ChatMessage (no role: the user's). */
function oiMessage(v: unknown): ChatMessage {
  const m = inner(v, 'message');
  const msg: ChatMessage = { role: normalRole(m.role), content: str(m.content) };
  const contents = list(m.contents);
  if (msg.content === null && contents.length) {
    const parts = contents.map((c) => {
      const mc = inner(c, 'message_content');
      return mc.type === 'image' ? { type: 'image_url', image_url: inner(mc.image, 'image') } : { type: 'text', text: str(mc.text) ?? '' };
    });
    const t = contentToText(parts);
    msg.content = t.content;
    if (parts.some((p) => p.type !== 'text')) msg.parts = t.parts;
  }
  const calls = oiToolCalls(m.tool_calls);
  if (calls) msg.tool_calls = calls;
  if (m.tool_call_id !== undefined) msg.tool_call_id = str(m.tool_call_id);
  if (m.name !== undefined) msg.name = str(m.name);
  return splitInlineThink(msg);
}

function toolsOf(llm: Obj): string | null {
  const tools = list(llm.tools).map((t) => parseJsonDeep(inner(t, 'tool').json_schema ?? t));
  return toolsText(tools);
}

function toolsSource(llm: Obj): string | null {
  return toolsOriginal(list(llm.tools).map((t) => parseJsonDeep(inner(t, 'tool').json_schema ?? t)));
}

function spanKind(span: Obj, a: Obj): string | null {
  const oi = isObject(a.openinference) && isObject(a.openinference.span) ? a.openinference.span.kind : undefined;
  return str(oi ?? span.span_kind ?? span.spanKind)?.toUpperCase() ?? null;
}

function attrsOf(span: Obj): Obj {
  const flatColumns: Obj = {};
  // Stryker disable next-line ConditionalExpression: taking every key does the same: the other span keys (name, context, start_time, status_message, …) cut after 11 characters are '' or a tail no step field reads
  // Stryker disable next-line StringLiteral: startsWith('') takes every key, equivalent for the reason above
  for (const [k, v] of Object.entries(span)) if (k.startsWith('attributes.')) flatColumns[k.slice(11)] = v;
  return expandAttributes({ ...flatColumns, ...(isObject(span.attributes) ? span.attributes : {}) });
}

function traceIdOf(span: Obj): string | null {
  const c = isObject(span.context) ? span.context : {};
  return str(c.trace_id ?? span.trace_id ?? span.traceId ?? span['context.trace_id']);
}

function isSpan(v: unknown): v is Obj {
  if (!isObject(v)) return false;
  const hasId = traceIdOf(v) !== null;
  const kind = str(v.span_kind ?? v.spanKind);
  if (hasId && kind && kind.toUpperCase() === kind) return true;
  const a = v.attributes;
  if (isObject(a) && ('openinference.span.kind' in a || 'openinference' in a || 'llm.input_messages.0.message.role' in a)) return true;
  return 'attributes.openinference.span.kind' in v;
}

function spanStep(span: Obj, line: number): StepDraft {
  const a = attrsOf(span);
  const llm = isObject(a.llm) ? a.llm : {};
  const input = isObject(a.input) ? a.input : {};
  const output = isObject(a.output) ? a.output : {};
  const inMsgs = list(llm.input_messages);
  const outMsgs = list(llm.output_messages);
  // the content attributes when the instrumentation wrote them, else the raw input / output values read by their shape
  const call = callByShape(input.value, output.value);
  const messages = inMsgs.length ? inMsgs.map((m) => oiMessage(m)) : call.request.messages;
  const response = outMsgs.length ? { ...oiMessage(outMsgs[0]), role: 'assistant' } : call.response.message;
  const tokens = isObject(llm.token_count) ? llm.token_count : {};
  const started = timeMs(span.start_time ?? span.startTime);
  const ended = timeMs(span.end_time ?? span.endTime);
  const status = isObject(span.status) ? span.status : {};
  const code = str(span.status_code ?? status.status_code ?? status.code)?.toUpperCase();
  const failed = code === 'ERROR' || code === '2' || code === 'STATUS_CODE_ERROR';
  const exception = (Array.isArray(span.events) ? span.events : []).find((e) => isObject(e) && e.name === 'exception') as Obj | undefined;
  const metadata: Record<string, string> = { ...noteNaiveTimes(null, span.start_time ?? span.startTime, span.end_time ?? span.endTime) };
  const put = (k: string, v: unknown) => {
    const s = safeMetaValue(v);
    if (s !== null && s !== '') metadata[k] = s;
  };
  const ctxObj = isObject(span.context) ? span.context : {};
  put('span_name', span.name);
  put('span_id', ctxObj.span_id ?? span.span_id ?? span.spanId);
  put('parent_id', span.parent_id ?? span.parentId);
  put('session_id', isObject(a.session) ? a.session.id : undefined);
  put('user_id', isObject(a.user) ? a.user.id : undefined);
  put('invocation_parameters', llm.invocation_parameters);
  put('metadata', a.metadata);
  put('tools_original', toolsSource(llm) ?? (toolsOf(llm) ? null : call.request.tools_original));
  put('tags', isObject(a.tag) ? a.tag.tags : undefined);
  if (!outMsgs.length) put('reasoning_hidden', call.response.reasoning_hidden);
  return {
    messages,
    response,
    tools: toolsOf(llm) ?? call.request.tools,
    model: str(llm.model_name) ?? call.request.model,
    provider: str(llm.provider ?? llm.system),
    prompt_tokens: int(tokens.prompt) ?? call.response.prompt_tokens,
    completion_tokens: int(tokens.completion) ?? call.response.completion_tokens,
    finish_reason: failed ? 'error' : (call.response.finish_reason ?? (response?.tool_calls?.length ? 'tool_calls' : response ? 'stop' : null)),
    started_at: started,
    ended_at: ended,
    latency_ms: started !== null && ended !== null ? ended - started : null,
    status: failed ? 'error' : 'ok',
    error: failed ? (str(span.status_message ?? status.message) || str(exception ? inner(expandAttributes(exception.attributes), 'exception').message : null) || 'span status ERROR') : null,
    metadata,
    raw: JSON.stringify(redactSecrets(span)),
    source_line: line,
  };
}

interface PhoenixState {
  byTrace: Map<string, { start: number; step: StepDraft }[]>;
  /** span id → hash of the span read, to tell a span listed twice from another span. */
  seen: Map<string, string>;
  duplicates: number;
}

/**
 * Arize Phoenix / OpenInference spans (JSONL or JSON array, flat dotted or nested attributes): every
 * LLM span is a step; steps are grouped by trace and ordered by start time at the end of the file,
 * since span exports are often newest first.
 */
export const phoenix = withProviderFill(
  defineNormalizer<PhoenixState>({
    id: 'phoenix',
    label: 'Arize Phoenix / OpenInference spans',
    detect(sample) {
      const hits = sample.filter(isSpan).length;
      return hits ? 0.75 + 0.2 * (hits / sample.length) : 0;
    },
    createState: () => ({ byTrace: new Map(), seen: new Map(), duplicates: 0 }),
    normalize(record: SourceRecord, _ctx, state) {
      const v = record.value;
      const spans = isObject(v) && Array.isArray(v.spans) ? v.spans : isObject(v) && Array.isArray(v.data) ? v.data : [v];
      for (const span of spans) {
        if (!isObject(span)) continue;
        if (!isSpan(span) && spans.length === 1) throw new RecordError('not an OpenInference span (expected context.trace_id, span_kind and attributes)');
        if (spanKind(span, attrsOf(span)) !== 'LLM') continue;
        // a span listed twice with the same content (an export written twice) is one call
        const ctxObj = isObject(span.context) ? span.context : {};
        const spanId = str(ctxObj.span_id ?? span.span_id ?? span.spanId);
        const text = hash64(JSON.stringify(span));
        if (spanId !== null && state.seen.get(spanId) === text) {
          state.duplicates++;
          continue;
        }
        if (spanId !== null && !state.seen.has(spanId)) state.seen.set(spanId, text);
        const trace = traceIdOf(span) ?? '';
        const bucket = state.byTrace.get(trace) ?? [];
        state.byTrace.set(trace, bucket);
        const step = spanStep(span, record.line);
        bucket.push({ start: step.started_at ?? 0, step });
      }
      return [];
    },
    flush(_ctx, state) {
      const out: TrajectoryDraft[] = [];
      for (const [trace, bucket] of state.byTrace) {
        bucket.sort((x, y) => x.start - y.start);
        out.push({ trajectory_uid: trace || null, steps: bucket.map((b) => b.step) });
      }
      state.byTrace.clear();
      return out;
    },
    notes: (state) => (state.duplicates ? [`${state.duplicates} span(s) were listed twice with the same content: duplicates, read once`] : []),
  }),
);
