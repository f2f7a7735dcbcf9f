import { defineNormalizer, RecordError } from '../normalizer';
import { eventPayloads, looksLikeSse } from '../sse';
import type { ChatMessage, ToolCall } from '../../contract/step';
import { int, isObject, metadataOf, noteNaiveTimes, num, type Obj, parseJsonDeep, str, timeMs } from '../../contract/json';
import { contentToText, normalizeArguments } from '../../contract/message';
import { errorText, timeSources, TIMING_KEYS, timingOf } from './log-fields';
import { scoreSample } from './score';

const OUTER_OWN = ['request', 'response', 'model', 'agent', 'data_source', 'reward', 'headers', 'status_code', ...TIMING_KEYS];
const REQUEST_OWN = ['input', 'instructions', 'tools', 'model', 'previous_response_id', 'stream', 'headers', 'body'];
const DONE_EVENTS = new Set(['response.completed', 'response.failed', 'response.incomplete']);

export interface ResponsesState {
  /** response id → the chain's first response id and the conversation up to and including that response. */
  chains: Map<string, { root: string; history: ChatMessage[] }>;
}

function reasoningText(item: Obj): string {
  const parts = [item.summary, item.content].flatMap((p) => (Array.isArray(p) ? p : []));
  const texts = parts.map((p) => (isObject(p) ? str(p.text) : str(p))).filter((t): t is string => !!t);
  return texts.length ? texts.join('\n') : item.encrypted_content ? '[encrypted reasoning]' : '';
}

/** Responses API items → chat messages: an assistant turn's reasoning, text and calls merge into one message. */
export function itemsToMessages(input: unknown): ChatMessage[] {
  const v = parseJsonDeep(input);
  if (typeof v === 'string') return [{ role: 'user', content: v }];
  if (!Array.isArray(v)) return [];
  const out: ChatMessage[] = [];
  // held in an object: TS does not track assignments made inside the closures below
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
    if (type === 'message' && item.role === 'assistant') {
      const a = assistant();
      const { content } = contentToText(item.content);
      if (content !== null) a.content = a.content ? `${a.content}\n${content}` : content;
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

function finishOf(res: Obj, response: ChatMessage | null): string | null {
  const status = str(res.status);
  if (status === 'failed' || res.error) return 'error';
  if (status === 'incomplete') {
    const reason = str(isObject(res.incomplete_details) ? res.incomplete_details.reason : null);
    return reason === 'max_output_tokens' ? 'length' : (reason ?? 'length');
  }
  if (status === 'completed' || status === null) return response?.tool_calls?.length ? 'tool_calls' : response ? 'stop' : null;
  return status;
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
    if (res.reasoning) meta.reasoning = JSON.stringify(res.reasoning);
    const cached = num(isObject(usage.input_tokens_details) ? usage.input_tokens_details.cached_tokens : null);
    const reasoningTokens = num(isObject(usage.output_tokens_details) ? usage.output_tokens_details.reasoning_tokens : null);
    if (cached !== null) meta.cached_tokens = String(cached);
    if (reasoningTokens !== null) meta.reasoning_tokens = String(reasoningTokens);
    const tools = parseJsonDeep(req.tools ?? res.tools);
    const finish = finishOf(res, response);
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
            tools: Array.isArray(tools) && tools.length ? JSON.stringify(tools) : null,
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
