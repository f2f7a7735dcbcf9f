import { defineNormalizer, RecordError } from '../normalizer';
import { DONE_EVENTS, encryptedReasoning, itemsToMessages, mergeAssistant, responsesFinishReason } from '../../wire/openai-responses';
import { eventPayloads, looksLikeSse } from '../../wire/sse';
import { toolsOriginal, toolsText } from '../../wire/tools';
import type { ChatMessage } from '../../contract/step';
import { int, isObject, metadataOf, noteNaiveTimes, num, type Obj, parseJsonDeep, str, timeMs } from '../../contract/json';
import { errorText, timeSources, TIMING_KEYS, timingOf } from './log-fields';
import { scoreSample } from './score';

const OUTER_OWN = ['request', 'response', 'model', 'agent', 'data_source', 'reward', 'headers', 'status_code', ...TIMING_KEYS];
const REQUEST_OWN = ['input', 'instructions', 'tools', 'model', 'previous_response_id', 'stream', 'headers', 'body'];

export interface ResponsesState {
  /** response id → the chain's first response id and the conversation up to and including that response. */
  chains: Map<string, { root: string; history: ChatMessage[] }>;
}

function isResponse(v: unknown): boolean {
  return isObject(v) && (v.object === 'response' || (Array.isArray(v.output) && typeof v.id === 'string' && v.id.startsWith('resp')));
}

function responseOf(v: unknown): Obj | null {
  const p = parseJsonDeep(v);
  if (typeof p === 'string' && looksLikeSse(p)) {
    const done = eventPayloads(p).filter((e) => isObject(e) && isResponse(e.response));
    const last = done.at(-1);
    return isObject(last) && isObject(last.response) ? last.response : null;
  }
  return isObject(p) && isResponse(p) ? p : null;
}

function split(v: Obj): { req: Obj; res: Obj | null; outer: Obj } | null {
  if (typeof v.type === 'string' && v.type.startsWith('response.')) return isObject(v.response) && isResponse(v.response) ? { req: {}, res: v.response, outer: {} } : null;
  if (isResponse(v)) return { req: {}, res: v, outer: {} };
  if ('request' in v || 'response' in v) {
    const req = parseJsonDeep(v.request);
    const res = responseOf(v.response);
    if (!res && !(isObject(req) && 'input' in req)) return null;
    return { req: isObject(req) ? req : {}, res, outer: v };
  }
  return null;
}

function recordScore(v: unknown): number | null {
  if (!isObject(v)) return 0;
  if (typeof v.type === 'string' && v.type.startsWith('response.')) return 0.9;
  const sp = split(v);
  if (!sp) return 0;
  return sp.res ? 0.95 : 0.6;
}

/** OpenAI Responses API objects and request/response logs; `previous_response_id` chains become one trajectory. */
export const openaiResponses = defineNormalizer<ResponsesState>({
  id: 'openai-responses',
  label: 'OpenAI Responses API (input/output items)',
  detect: (sample) => scoreSample(sample, recordScore),
  createState: () => ({ chains: new Map() }),
  normalize(record, _ctx, state) {
    const v = record.value;
    if (!isObject(v)) throw new RecordError('expected a Responses API object or a {request, response} record');
    if (typeof v.type === 'string' && v.type.startsWith('response.') && !DONE_EVENTS.has(v.type)) return [];
    const sp = split(v);
    if (!sp) throw new RecordError('not a Responses API record: expected object "response" with "output", or request "input"');
    const { req, outer } = sp;
    const res = sp.res ?? {};
    const resId = str(res.id);
    const prevId = str(req.previous_response_id ?? res.previous_response_id);
    const prev = prevId ? state.chains.get(prevId) : undefined;
    const instructions = str(req.instructions ?? res.instructions);
    const input = itemsToMessages(req.input);
    const output = itemsToMessages(res.output).filter((m) => m.role === 'assistant');
    const response = mergeAssistant(output);
    const history = [...(prev?.history ?? []), ...input];
    const messages: ChatMessage[] = instructions ? [{ role: 'system', content: instructions }, ...history] : history;
    const root = prev?.root ?? prevId ?? resId;
    if (resId) state.chains.set(resId, { root: root ?? resId, history: response ? [...history, response] : history });
    const usage = isObject(res.usage) ? res.usage : {};
    const meta: Record<string, string> = { ...metadataOf(req, REQUEST_OWN), ...metadataOf(outer, OUTER_OWN) };
    if (resId) meta.response_id = resId;
    if (prevId) meta.previous_response_id = prevId;
    if (encryptedReasoning(res.output)) meta.reasoning_hidden = 'encrypted';
    if (res.reasoning) meta.reasoning = JSON.stringify(res.reasoning);
    const cached = num(isObject(usage.input_tokens_details) ? usage.input_tokens_details.cached_tokens : null);
    const reasoningTokens = num(isObject(usage.output_tokens_details) ? usage.output_tokens_details.reasoning_tokens : null);
    if (cached !== null) meta.cached_tokens = String(cached);
    if (reasoningTokens !== null) meta.reasoning_tokens = String(reasoningTokens);
    const tools = parseJsonDeep(req.tools ?? res.tools);
    const original = toolsOriginal(tools);
    if (original) meta.tools_original = original;
    const finish = responsesFinishReason(res, response);
    const failed = finish === 'error' || (int(outer.status_code) ?? 0) >= 400;
    const timing = timingOf(outer, res.created_at);
    timing.ended_at ??= timeMs(res.completed_at);
    if (timing.latency_ms === null && timing.started_at !== null && timing.ended_at !== null) timing.latency_ms = timing.ended_at - timing.started_at;
    return [
      {
        trajectory_uid: root,
        link: true,
        steps: [
          {
            messages,
            response,
            model: str(res.model ?? req.model ?? outer.model),
            provider: 'openai',
            agent: str(outer.agent),
            data_source: str(outer.data_source),
            tools: toolsText(tools),
            finish_reason: failed ? 'error' : finish,
            prompt_tokens: int(usage.input_tokens ?? usage.prompt_tokens),
            completion_tokens: int(usage.output_tokens ?? usage.completion_tokens),
            ...timing,
            reward: num(outer.reward),
            status: failed ? 'error' : 'ok',
            error: failed ? errorText(res.error ?? outer.error ?? `HTTP ${outer.status_code}`) : null,
            metadata: noteNaiveTimes(Object.keys(meta).length ? meta : null, ...timeSources(outer)),
          },
        ],
      },
    ];
  },
});
