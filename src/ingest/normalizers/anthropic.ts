import {
  type AnthropicStream,
  addEvent,
  anthropicFinishReason,
  assistantMessage,
  hasRedactedThinking,
  isStreamEvent,
  newAnthropicStream,
  anthropicRequest,
  streamMessage,
} from '../../wire/anthropic';
import { defineNormalizer, RecordError } from '../normalizer';
import { redactSecrets } from '../../record/redact';
import { eventPayloads, looksLikeSse } from '../../wire/sse';
import type { StepDraft, TrajectoryDraft } from '../../contract/step';
import { int, isObject, metadataOf, noteNaiveTimes, num, type Obj, parseJsonDeep, str } from '../../contract/json';
import { errorText, timeSources, TIMING_KEYS, timingOf } from './log-fields';
import { scoreSample } from './score';

const OUTER_OWN = ['request', 'response', 'input', 'output', 'model', 'agent', 'data_source', 'reward', 'status_code', 'headers', ...TIMING_KEYS];
const REQUEST_OWN = ['messages', 'system', 'tools', 'model', 'stream', 'headers', 'body', 'response'];
const CACHE_KEYS = ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'];

export interface AnthropicState {
  stream: AnthropicStream | null;
}

/** A Messages API response: an assistant message with content blocks (`type: "message"` alone is any session log's line). */
function isMessage(v: unknown): boolean {
  return isObject(v) && Array.isArray(v.content) && (v.role === 'assistant' || 'stop_reason' in v) && (v.type === 'message' || 'stop_reason' in v || typeof v.id === 'string');
}

function isError(v: unknown): v is Obj {
  return isObject(v) && v.type === 'error' && isObject(v.error);
}

function hasBlocks(req: Obj): boolean {
  const msgs = parseJsonDeep(req.messages);
  if (!Array.isArray(msgs)) return false;
  return msgs.some(
    (m) =>
      isObject(m) &&
      Array.isArray(m.content) &&
      m.content.some((b) => isObject(b) && ['tool_use', 'tool_result', 'thinking', 'redacted_thinking'].includes(String(b.type))),
  );
}

function requestCues(req: Obj): boolean {
  if ('anthropic_version' in req || 'anthropic_beta' in req) return true;
  if (!Array.isArray(parseJsonDeep(req.messages))) return false;
  return typeof req.system === 'string' || Array.isArray(req.system) || hasBlocks(req) || (Array.isArray(req.tools) && req.tools.some((t) => isObject(t) && 'input_schema' in t));
}

function unwrap(v: unknown): unknown {
  const p = parseJsonDeep(v);
  if (isObject(p) && isObject(p.body) && !('messages' in p) && !('content' in p)) return p.body;
  return p;
}

/** Request and response of one logged call, or null when the record is not one. */
function split(v: Obj): { req: Obj | null; res: unknown } | null {
  if ('request' in v || 'response' in v) {
    const req = 'request' in v ? unwrap(v.request) : 'messages' in v ? v : null;
    return { req: isObject(req) ? req : null, res: unwrap(v.response) };
  }
  const input = unwrap(v.input);
  const output = unwrap(v.output);
  if (isObject(input) && 'messages' in input && (isMessage(output) || isError(output) || typeof output === 'string')) return { req: input, res: output };
  if (isMessage(v) || isError(v)) return { req: null, res: v };
  if (requestCues(v)) return { req: v, res: null };
  return null;
}

function recordScore(v: unknown): number | null {
  const ps = eventPayloads(v);
  if (typeof v === 'string' && ps.length > 1) return ps.some(isStreamEvent) ? 0.95 : 0;
  const p = ps[0];
  if (isStreamEvent(p)) return p.type === 'ping' ? null : 0.95;
  if (!isObject(p)) return 0;
  const sp = split(p);
  if (!sp) return 0;
  const { req, res } = sp;
  if (isMessage(res)) return 0.95;
  if (typeof res === 'string') return looksLikeSse(res) && res.includes('message_start') ? 0.95 : 0;
  if (req && requestCues(req)) return 0.92;
  if (isError(res)) return req ? 0.7 : 0.5;
  return 0;
}

function assembleSse(text: string, line: number): Obj | null {
  const s = newAnthropicStream(line);
  for (const p of eventPayloads(text)) if (isStreamEvent(p)) addEvent(s, p);
  return s.events ? streamMessage(s) : null;
}

function callDraft(outer: Obj, req: Obj | null, resIn: unknown, line: number, raw?: string): TrajectoryDraft {
  let res = resIn;
  if (typeof res === 'string' && looksLikeSse(res)) res = assembleSse(res, line);
  const rq = req ?? {};
  const r = isObject(res) ? res : {};
  const errObj = r.type === 'error' ? r : (r.error ?? outer.error);
  const statusCode = int(outer.status_code);
  const failed = (errObj !== undefined && errObj !== null) || (statusCode !== null && statusCode >= 400);
  const usage = isObject(r.usage) ? r.usage : {};
  const cacheMeta: Record<string, string> = {};
  let prompt: number | null = null;
  for (const k of CACHE_KEYS) {
    const n = int(usage[k]);
    if (n === null) continue;
    cacheMeta[k] = String(n);
    prompt = (prompt ?? 0) + n;
  }
  // a record that is itself the request (`{model, system, messages, …}`): its messages are not metadata
  const meta = { ...metadataOf(rq, REQUEST_OWN), ...metadataOf(outer, rq === outer ? [...OUTER_OWN, ...REQUEST_OWN] : OUTER_OWN), ...cacheMeta };
  if (typeof r.id === 'string') meta.response_id = r.id;
  if (typeof r.stop_reason === 'string') meta.stop_reason = r.stop_reason;
  if (typeof r.stop_sequence === 'string') meta.stop_sequence = r.stop_sequence;
  const request = anthropicRequest(rq);
  const toolErrors = request.messages.filter((m) => m.role === 'tool' && m.is_error).length;
  if (toolErrors) meta.tool_result_errors = String(toolErrors);
  if (request.tools_original) meta.tools_original = request.tools_original;
  if (hasRedactedThinking(r.content)) meta.reasoning_hidden = 'redacted';
  const step: StepDraft = {
    messages: request.messages,
    response: isMessage(r) || Array.isArray(r.content) ? assistantMessage(r.content) : null,
    model: str(r.model ?? rq.model ?? outer.model),
    provider: 'anthropic',
    agent: str(outer.agent),
    data_source: str(outer.data_source),
    tools: request.tools,
    finish_reason: failed ? 'error' : anthropicFinishReason(r.stop_reason),
    prompt_tokens: prompt,
    completion_tokens: int(usage.output_tokens),
    reward: num(outer.reward),
    status: failed ? 'error' : 'ok',
    error: failed ? errorText(errObj ?? `HTTP ${statusCode}`) : null,
    metadata: noteNaiveTimes(Object.keys(meta).length ? meta : null, ...timeSources(outer)),
    source_line: line,
    ...timingOf(outer),
  };
  if (raw !== undefined) step.raw = raw;
  return { link: true, steps: [step] };
}

function emit(state: AnthropicState): TrajectoryDraft[] {
  const s = state.stream;
  state.stream = null;
  if (!s) return [];
  const m = streamMessage(s);
  return [callDraft({}, null, s.error !== null ? { type: 'error', error: s.error, partial: m } : m, s.line ?? 0, JSON.stringify(redactSecrets(m)))];
}

/** Anthropic Messages API request/response logs and recorded SSE streams. */
export const anthropic = defineNormalizer<AnthropicState>({
  id: 'anthropic',
  label: 'Anthropic Messages logs (request/response, SSE events)',
  detect: (sample) => scoreSample(sample, recordScore),
  createState: () => ({ stream: null }),
  normalize(record, _ctx, state) {
    const v = record.value;
    const payloads = eventPayloads(v);
    if (typeof v === 'string' && payloads.length > 1) {
      const m = assembleSse(v, record.line);
      if (!m) throw new RecordError('SSE text holds no Anthropic message events');
      return [callDraft({}, null, m, record.line)];
    }
    const out: TrajectoryDraft[] = [];
    for (const p of payloads) {
      if (isStreamEvent(p)) {
        if (p.type === 'message_start' && state.stream) out.push(...emit(state));
        state.stream ??= newAnthropicStream(record.line);
        addEvent(state.stream, p);
        if (state.stream.done) out.push(...emit(state));
      } else if (isObject(p)) {
        const sp = split(p);
        if (!sp) throw new RecordError('not an Anthropic Messages log record: expected request/response, a message object or stream events');
        out.push(callDraft(p, sp.req, sp.res, record.line));
      } else if (p !== '[DONE]') throw new RecordError(`unexpected ${typeof p} record in an Anthropic log`);
    }
    return out;
  },
  flush: (_ctx, state) => emit(state),
});
