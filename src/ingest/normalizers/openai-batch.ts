/**
 * OpenAI Batch API files — the output (`{id, custom_id, response: {status_code, request_id, body}, error}`)
 * and the input (`{custom_id, method, url, body}`) — and their Anthropic Message Batches counterparts
 * (`{custom_id, result: {type, message}}` / `{custom_id, params}`). An output carries only responses:
 * dropped together with its input file (one import of several files), each response is joined with
 * its request by `custom_id` and the input adds no rows of its own; alone, the output is imported
 * with empty `messages` and the report says the requests are missing. An input alone is imported as
 * prompt rows (no response).
 */
import { defineNormalizer, type NormalizeContext, RecordError } from '../normalizer';
import type { StepDraft, TrajectoryDraft } from '../../contract/step';
import { isObject, type Obj, str } from '../../contract/json';
import { scoreSample } from './score';
import { Api, API_PATHS } from '../../wire';
import { apiOf, requestOf as readRequest, wireStep } from './wire-call';
import { errorText } from '../../wire';

interface Request {
  url: string | null;
  body: unknown;
  api: Api | null;
}

export interface BatchState {
  /** custom_id → the requests of the input files among the siblings (several: two batches reuse the id). */
  requests: Map<string, Request[]>;
  requestFiles: string[];
  /** custom_id → how many output files among the siblings answer it. */
  answered: Map<string, number>;
  answerFiles: string[];
  joined: number;
  missing: number;
  ambiguous: number;
  deferred: number;
}

const isOutput = (v: unknown): v is Obj =>
  isObject(v) && typeof v.custom_id === 'string' && (('response' in v && (v.response === null || (isObject(v.response) && 'status_code' in v.response))) || (isObject(v.result) && typeof v.result.type === 'string'));
const isInput = (v: unknown): v is Obj =>
  isObject(v) && typeof v.custom_id === 'string' && ((isObject(v.body) && typeof v.url === 'string') || (isObject(v.params) && Array.isArray(v.params.messages)));

function requestOf(v: Obj): Request {
  if (isObject(v.params)) return { url: `/v1/${API_PATHS.messages}`, body: v.params, api: Api.messages };
  const url = str(v.url);
  return { url, body: v.body, api: apiOf(url, v.body) };
}

function meta(pairs: [string, unknown][]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of pairs) if (v !== undefined && v !== null && v !== '') out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  return out;
}

function outputSteps(v: Obj, st: BatchState, ctx: NormalizeContext): TrajectoryDraft[] {
  const id = v.custom_id as string;
  // join only a pair the id is unique to: two batches dropped together may both use "request-1"
  const candidates = st.requests.get(id) ?? [];
  const ambiguous = candidates.length > 1 || (candidates.length === 1 && st.answered.has(id));
  const req = ambiguous ? null : (candidates[0] ?? null);
  if (req) st.joined++;
  else if (ambiguous) st.ambiguous++;
  else st.missing++;
  let body: unknown = null;
  let status: number | null = null;
  let outerError: string | null = null;
  const res = isObject(v.response) ? v.response : null;
  if (res) {
    body = res.body;
    status = typeof res.status_code === 'number' ? res.status_code : null;
  } else if (isObject(v.result)) {
    // Anthropic: succeeded | errored | canceled | expired
    const r = v.result;
    if (r.type === 'succeeded') body = r.message;
    else outerError = errorText(r.error) ?? str(r.type);
  }
  if (v.error !== null && v.error !== undefined) outerError = errorText({ error: v.error }) ?? str(v.error);
  if (isObject(body) && body.object === 'list' && Array.isArray(body.data)) throw new RecordError(`custom_id ${id}: an embeddings response, not an LLM call`);
  // without its request the API only decides the provider: parseResponse reads a body by its own shape
  // (a Messages `type: message`, a Responses `object: response`; chat and legacy completions share a reader)
  const api = req?.api ?? (isObject(v.result) || (isObject(body) && body.type === 'message') ? Api.messages : Api.chat);
  const common = meta([
    ['custom_id', id],
    ['batch_request_id', v.id],
    ['request_id', res?.request_id],
    ['status_code', status],
    ['url', req?.url],
    ['request_missing', req ? null : 'true'],
    ['request_ambiguous', ambiguous ? 'true' : null],
  ]);
  const choices = isObject(body) && Array.isArray(body.choices) ? body.choices : null;
  const bodies = choices?.length ? choices.map((c) => ({ ...(body as Obj), choices: [c] })) : [body];
  return bodies.map((b, i): TrajectoryDraft => {
    const { error, ...draft } = wireStep(api, req?.body ?? {}, b);
    const err = outerError ?? error ?? ((status ?? 0) >= 400 ? `HTTP ${status}` : null);
    const step: StepDraft = {
      ...draft,
      status: err ? 'error' : 'ok',
      error: err,
      finish_reason: draft.finish_reason ?? (err ? 'error' : null),
      // what the wire reading said of the call (tools as sent, hidden reasoning, where the time came from) with the line's own
      metadata: { ...draft.metadata, ...common, ...(bodies.length > 1 ? { choice_index: String(i), completion_tokens_all_choices: String(draft.completion_tokens ?? '') } : {}) },
    };
    // one usage for n choices: the completion tokens of one choice are not known
    if (bodies.length > 1) step.completion_tokens = null;
    // without its request the prompt is unknown: group the choices of this request only, never every request-less row
    return { steps: [step], prompt_uid: req ? null : `batch-${ctx.sourceId.slice(0, 12)}:${id}` };
  });
}

function inputSteps(v: Obj, st: BatchState): TrajectoryDraft[] {
  const id = v.custom_id as string;
  if (st.answered.get(id) === 1 && !st.requests.has(id)) {
    st.deferred++;
    return [];
  }
  const req = requestOf(v);
  if (!req.api) throw new RecordError(`custom_id ${id}: ${req.url} is not an LLM call (chat, responses, completions or messages)`);
  const r = readRequest(req.api, req.body);
  return [{ steps: [{ messages: r.messages, tools: r.tools, model: r.model, response: null, metadata: meta([['custom_id', id], ['url', req.url], ['response_missing', 'true']]) }] }];
}

export const openaiBatch = defineNormalizer<BatchState>({
  id: 'openai-batch',
  promptRows: true,
  label: 'OpenAI / Anthropic Batch API input or output (JSONL)',
  detect: (sample) => scoreSample(sample, (v) => (isOutput(v) ? 0.97 : isInput(v) ? 0.96 : 0)),
  companions: { accepts: (sample) => sample.length > 0 && sample.filter((v) => isOutput(v) || isInput(v)).length / sample.length >= 0.8 },
  createState(ctx) {
    const st: BatchState = { requests: new Map(), requestFiles: [], answered: new Map(), answerFiles: [], joined: 0, missing: 0, ambiguous: 0, deferred: 0 };
    for (const c of ctx.companions ?? []) {
      let inputs = 0;
      let outputs = 0;
      for (const v of c.records) {
        if (isInput(v)) {
          const id = v.custom_id as string;
          st.requests.set(id, [...(st.requests.get(id) ?? []), requestOf(v)]);
          inputs++;
        } else if (isOutput(v)) {
          const id = v.custom_id as string;
          st.answered.set(id, (st.answered.get(id) ?? 0) + 1);
          outputs++;
        }
      }
      if (inputs) st.requestFiles.push(c.file);
      if (outputs) st.answerFiles.push(c.file);
    }
    return st;
  },
  normalize(record, ctx, st) {
    const v = record.value;
    if (isOutput(v)) return outputSteps(v, st, ctx);
    if (isInput(v)) return inputSteps(v, st);
    throw new RecordError('expected a Batch API line with "custom_id" and a "response"/"result" (output) or "body"/"params" (input)');
  },
  flush: () => [],
  notes(st) {
    const out: string[] = [];
    if (st.joined) out.push(`${st.joined} response(s) joined with their request by custom_id from ${st.requestFiles.join(', ')}`);
    if (st.missing)
      out.push(`${st.missing} response(s) have no request: messages are empty. Import the Batch input file (custom_id, method, url, body) together with this output to read the requests.`);
    if (st.ambiguous)
      out.push(`${st.ambiguous} response(s) not joined: their custom_id is in more than one Batch file of this import (${[...st.requestFiles, ...st.answerFiles].join(', ')}); import each output with its own input`);
    if (st.deferred) out.push(`${st.deferred} request(s) are imported with their responses from ${st.answerFiles.join(', ')}, not as rows of this file`);
    return out;
  },
});
