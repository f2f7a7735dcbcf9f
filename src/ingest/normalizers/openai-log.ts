import { defineNormalizer, type NormalizeContext, RecordError, type SourceRecord } from '../normalizer';
import { addChunk, type ChunkStream, chatRequest, choiceMessage, isChunk, newStream, streamCompletion } from '../../wire/openai-chat';
import { redactSecrets } from '../../record/redact';
import { eventPayloads, looksLikeSse } from '../../wire/sse';
import type { StepDraft, TrajectoryDraft } from '../../contract/step';
import { int, isObject, metadataOf, noteNaiveTimes, num, type Obj, parseJsonDeep, str } from '../../contract/json';
import { errorText, timeSources, TIMING_KEYS, timingOf } from './log-fields';
import { scoreSample } from './score';

const OUTER_OWN = [
  'request', 'response', 'input', 'output', 'messages', 'choices', 'usage', 'model', 'tools', 'functions', 'error',
  'id', 'object', 'created', 'system_fingerprint', 'data_source', 'agent', 'reward', 'status_code', 'status',
  'headers', 'stream_chunks', ...TIMING_KEYS,
];
const REQUEST_OWN = ['messages', 'tools', 'functions', 'model', 'prompt', 'stream', 'stream_options', 'headers', 'body', 'user'];

export interface OpenAiLogState {
  streams: Map<string, ChunkStream>;
  last: string | null;
}

function body(v: unknown): unknown {
  const p = parseJsonDeep(v);
  if (isObject(p) && 'body' in p && !('messages' in p) && !('choices' in p)) {
    const b = parseJsonDeep(p.body);
    if (isObject(b) || typeof b === 'string') return b;
  }
  return p;
}

function anthropicCues(v: Obj): boolean {
  if (v.type === 'message' || 'stop_reason' in v || 'anthropic_version' in v) return true;
  if (typeof v.system === 'string' || Array.isArray(v.system)) return true;
  return Array.isArray(v.content) && v.content.some((b) => isObject(b) && typeof b.type === 'string' && b.type !== 'text');
}

/** Request and response of one logged call, whatever wrapper the logger used. */
function split(v: Obj): { req: Obj | null; res: unknown } | null {
  if ('request' in v || 'response' in v) {
    const req = 'request' in v ? body(v.request) : 'messages' in v ? v : null;
    return { req: isObject(req) ? req : null, res: body(v.response) };
  }
  const input = parseJsonDeep(v.input);
  const output = parseJsonDeep(v.output);
  if (Array.isArray(input) && isObject(output) && Array.isArray(output.choices)) return { req: { messages: input }, res: output };
  if ((isObject(input) && Array.isArray(input.messages)) || (isObject(output) && Array.isArray(output.choices))) {
    return { req: isObject(input) ? input : null, res: output };
  }
  // chunks are taken before a record is split (recordScore, normalize)
  if (Array.isArray(v.choices)) return { req: Array.isArray(v.messages) ? v : null, res: v };
  return null;
}

function recordScore(v: unknown): number | null {
  if (typeof v === 'string') {
    if (v.trim() === '[DONE]') return null;
    return looksLikeSse(v) && v.includes('chat.completion.chunk') ? 0.95 : 0;
  }
  if (!isObject(v)) return 0;
  if (isChunk(v)) return 0.95;
  if ('data' in v && typeof v.data === 'string' && v.data.includes('chat.completion')) return 0.9;
  const sp = split(v);
  if (!sp) return 0;
  const { req, res } = sp;
  if (typeof res === 'string') return looksLikeSse(res) && res.includes('choices') ? 0.95 : 0;
  if (isObject(res) && Array.isArray(res.choices)) return req ? 0.95 : 0.85;
  if (req && Array.isArray(req.messages) && !anthropicCues(req) && !(isObject(res) && anthropicCues(res))) {
    if (isObject(res) && (isObject(res.error) || res.type === 'error')) return res.type === 'error' ? 0.3 : 0.6;
    if (res === null || res === undefined) return 0.4;
  }
  return 0;
}

function assembleSse(text: string, line: number): Obj | null {
  let s: ChunkStream | null = null;
  let error: unknown = null;
  for (const p of eventPayloads(text)) {
    if (isChunk(p)) {
      const chunk = p as Obj;
      s ??= newStream(str(chunk.id) ?? '', line);
      addChunk(s, chunk);
    } else if (isObject(p) && p.error !== undefined) error = p.error;
  }
  if (!s) return error !== null ? { error } : null;
  if (error !== null) s.error = error;
  return streamCompletion(s);
}

function usageMetadata(usage: Obj): Record<string, string> {
  const out: Record<string, string> = {};
  const cached = num((usage.prompt_tokens_details as Obj | undefined)?.cached_tokens);
  const reasoning = num((usage.completion_tokens_details as Obj | undefined)?.reasoning_tokens);
  if (cached !== null) out.cached_tokens = String(cached);
  if (reasoning !== null) out.reasoning_tokens = String(reasoning);
  return out;
}

/** One logged call (request may be missing) → one trajectory draft per returned choice. */
function callDrafts(outer: Obj, req: Obj | null, resIn: unknown, line: number, raw?: string): TrajectoryDraft[] {
  let res = resIn;
  if (typeof res === 'string' && looksLikeSse(res)) res = assembleSse(res, line);
  const rq = req ?? {};
  const { messages, tools } = chatRequest(rq);
  const r = isObject(res) ? res : {};
  const errObj = r.error ?? (r.type === 'error' ? r : undefined) ?? outer.error;
  const statusCode = int(outer.status_code ?? r.status_code);
  const failed = (errObj !== undefined && errObj !== null) || (statusCode !== null && statusCode >= 400);
  const usage = isObject(r.usage) ? r.usage : isObject(outer.usage) ? outer.usage : {};
  const timing = timingOf(outer, r.created);
  const meta = { ...metadataOf(rq, REQUEST_OWN), ...metadataOf(outer, OUTER_OWN), ...usageMetadata(usage) };
  if (typeof r.id === 'string') meta.response_id = r.id;
  if (typeof r.system_fingerprint === 'string') meta.system_fingerprint = r.system_fingerprint;
  const common: StepDraft = {
    messages,
    model: str(r.model ?? rq.model ?? outer.model),
    provider: 'openai',
    agent: str(outer.agent),
    data_source: str(outer.data_source),
    tools,
    prompt_tokens: int(usage.prompt_tokens ?? usage.input_tokens),
    completion_tokens: int(usage.completion_tokens ?? usage.output_tokens),
    ...timing,
    reward: num(outer.reward),
    status: failed ? 'error' : 'ok',
    error: failed ? errorText(errObj ?? `HTTP ${statusCode}`) : null,
    metadata: noteNaiveTimes(Object.keys(meta).length ? meta : null, ...timeSources(outer)),
    source_line: line,
  };
  if (raw !== undefined) common.raw = raw;
  const choices = Array.isArray(r.choices) ? r.choices.filter(isObject) : [];
  if (!choices.length) return [{ link: true, steps: [{ ...common, response: null, finish_reason: failed ? 'error' : null }] }];
  return choices.map((c) => {
    const message = choiceMessage(c);
    return { link: true, steps: [{ ...common, response: message, finish_reason: failed ? 'error' : str(c.finish_reason) }] };
  });
}

function emitStream(s: ChunkStream, state: OpenAiLogState): TrajectoryDraft[] {
  state.streams.delete(s.id);
  if (state.last === s.id) state.last = null;
  const completion = streamCompletion(s);
  return callDrafts({}, null, completion, s.line ?? 0, JSON.stringify(redactSecrets(completion)));
}

function onChunk(chunk: Obj, record: SourceRecord, state: OpenAiLogState): TrajectoryDraft[] {
  const id = str(chunk.id) ?? state.last ?? '';
  let s = state.streams.get(id);
  if (!s) {
    s = newStream(id, record.line);
    state.streams.set(id, s);
  }
  addChunk(s, chunk);
  state.last = id;
  const usageOnly = isObject(chunk.usage) && Array.isArray(chunk.choices) && chunk.choices.length === 0;
  return usageOnly ? emitStream(s, state) : [];
}

/** OpenAI Chat Completions request/response logs, and recorded `chat.completion.chunk` streams. */
export const openaiLog = defineNormalizer<OpenAiLogState>({
  id: 'openai-log',
  label: 'OpenAI Chat Completions logs (request/response, SSE chunks)',
  detect: (sample) => scoreSample(sample, recordScore),
  createState: () => ({ streams: new Map(), last: null }),
  normalize(record, _ctx: NormalizeContext, state) {
    const v = record.value;
    const payloads = eventPayloads(v);
    if (typeof v === 'string' && payloads.filter(isChunk).length > 1) {
      return callDrafts({}, null, assembleSse(v, record.line), record.line);
    }
    const out: TrajectoryDraft[] = [];
    for (const p of payloads) {
      if (p === '[DONE]') {
        const s = state.last !== null ? state.streams.get(state.last) : undefined;
        if (s) out.push(...emitStream(s, state));
      } else if (isChunk(p)) out.push(...onChunk(p as Obj, record, state));
      else if (isObject(p) && p.error !== undefined && Object.keys(p).length === 1 && state.last !== null) {
        const s = state.streams.get(state.last);
        if (s) {
          s.error = p.error;
          out.push(...emitStream(s, state));
        }
      } else if (isObject(p)) {
        const sp = split(p);
        if (!sp) throw new RecordError('not an OpenAI chat log record: expected request/response, messages+choices or a chat.completion.chunk');
        out.push(...callDrafts(p, sp.req, sp.res, record.line));
      } else throw new RecordError(`unexpected ${typeof p} record in an OpenAI chat log`);
    }
    return out;
  },
  flush(_ctx, state) {
    return [...state.streams.values()].flatMap((s) => emitStream(s, state));
  },
});
