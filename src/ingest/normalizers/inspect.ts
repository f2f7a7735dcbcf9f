/**
 * Inspect AI eval logs: a `.json` log (`{version, status, eval, plan, results, stats, samples}`), the
 * members of a `.eval` archive (`header.json`, then `samples/<id>_epoch_<n>.json`), or one sample on its
 * own. Each `model` event of a sample is one step (its `input`, `tools`, `output`); a sample logged
 * without events falls back to one step per assistant message. `attachment://` references and
 * `input_refs` ranges are resolved. The sample's score is the last step's reward (Inspect's own
 * value-to-float: C/yes/true = 1, P = 0.5, I/N/no/false = 0, numbers as they are); every score is kept
 * in metadata. Samples of one dataset id share a prompt group across epochs.
 */
import { defineNormalizer, RecordError } from '../normalizer';
import { redactSecrets } from '../../record/redact';
import type { ChatMessage, StepDraft, ToolCall, TrajectoryDraft } from '../../contract/step';
import { int, isObject, num, type Obj, str, timeMs } from '../../contract/json';
import { contentToText, normalizeArguments } from '../../contract/message';
import { chatToSteps } from '../chat-steps';

export interface InspectState {
  /** The eval spec of a `.eval` archive's header.json, for the sample members that follow it. */
  header: Obj | null;
  samples: number;
  headers: number;
  /** Samples of a log with no model event and no message (skipped, said in a note). */
  empty: number;
}

const isLog = (v: unknown): v is Obj => isObject(v) && isObject(v.eval) && typeof v.eval.task === 'string' && ('samples' in v || 'results' in v || 'plan' in v || 'status' in v);
const isSample = (v: unknown): v is Obj =>
  isObject(v) && 'id' in v && typeof v.epoch === 'number' && (Array.isArray(v.messages) || Array.isArray(v.events)) && ('scores' in v || 'output' in v || 'target' in v);

const STOP: Record<string, string> = { stop: 'stop', max_tokens: 'length', model_length: 'length', length: 'length', tool_calls: 'tool_calls', content_filter: 'content_filter' };
const LETTER: Record<string, number> = { c: 1, correct: 1, yes: 1, true: 1, p: 0.5, partial: 0.5, i: 0, incorrect: 0, n: 0, no: 0, false: 0 };

/** Replace `attachment://<hash>` strings by the sample's attachments. */
function resolve(v: unknown, att: Obj): unknown {
  if (typeof v === 'string') return v.startsWith('attachment://') ? (att[v.slice(13)] ?? v) : v;
  if (Array.isArray(v)) return v.map((x) => resolve(x, att));
  if (isObject(v)) {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v)) out[k] = resolve(x, att);
    return out;
  }
  return v;
}

function calls(v: unknown): ToolCall[] | null {
  if (!Array.isArray(v)) return null;
  const out: ToolCall[] = [];
  for (const c of v) {
    if (!isObject(c)) continue;
    const name = isObject(c.function) ? str(c.function.name) : str(c.function);
    if (!name) continue;
    out.push({ id: str(c.id), type: 'function', function: { name, arguments: normalizeArguments(isObject(c.function) ? c.function.arguments : c.arguments) } });
  }
  return out.length ? out : null;
}

/** An Inspect ChatMessage (content text or parts: text, reasoning, image…) as a chat message. */
function message(m: unknown): ChatMessage | null {
  if (!isObject(m)) return null;
  const role = str(m.role) ?? 'user';
  const parts = Array.isArray(m.content) ? m.content : null;
  // redacted reasoning holds encrypted text only: nothing to store (the part stays in `parts`, the step says reasoning_hidden)
  const reasoning = parts?.filter((p) => isObject(p) && p.type === 'reasoning' && p.redacted !== true).map((p) => str((p as Obj).reasoning) ?? '') ?? [];
  const rest = parts ? parts.filter((p) => !(isObject(p) && p.type === 'reasoning')) : m.content;
  const t = contentToText(rest);
  const out: ChatMessage = { role, content: t.content };
  if (parts?.some((p) => isObject(p) && p.type !== 'text')) out.parts = JSON.stringify(parts);
  if (reasoning.length) out.reasoning = reasoning.join('\n');
  const tc = calls(m.tool_calls);
  if (tc) out.tool_calls = tc;
  if (role === 'tool') {
    out.tool_call_id = str(m.tool_call_id);
    if (m.function) out.name = str(m.function);
    if (isObject(m.error)) {
      // the model was shown the error's message; the tool's own output (if any) follows it
      out.content = [str(m.error.message), out.content].filter((x) => x).join('\n') || out.content;
      out.is_error = true;
    }
  }
  return out;
}

const messages = (v: unknown): ChatMessage[] => (Array.isArray(v) ? v.map(message).filter((m): m is ChatMessage => m !== null) : []);

function toolsOf(v: unknown): string | null {
  if (!Array.isArray(v) || !v.length) return null;
  return JSON.stringify(v.filter(isObject).map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })));
}

export function scoreValue(v: unknown): number | null {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string') {
    const k = v.trim().toLowerCase();
    if (k in LETTER) return LETTER[k];
    return num(v);
  }
  return null;
}

/** The sample's reward: its only score, or the first whose value reads as a number. */
function rewardOf(scores: unknown): number | null {
  if (!isObject(scores)) return null;
  for (const s of Object.values(scores)) {
    const r = scoreValue(isObject(s) ? s.value : s);
    if (r !== null) return r;
  }
  return null;
}

/**
 * `model` events in order (nested subtask events included), split into the solver's calls and the
 * scorers' (model-graded scoring): a scorer span (`span_begin` of type scorer / scorers and its child
 * spans) or, in older logs, a `step` begin / end of type scorer.
 */
function modelEvents(events: unknown): { policy: Obj[]; scoring: Obj[] } {
  const out = { policy: [] as Obj[], scoring: [] as Obj[] };
  const scorerSpans = new Set<string>();
  let scorerSteps = 0;
  const walk = (list: unknown, inScorer: boolean) => {
    if (!Array.isArray(list)) return;
    for (const e of list) {
      if (!isObject(e)) continue;
      if (e.event === 'span_begin') {
        const parent = str(e.parent_id);
        if (e.type === 'scorer' || e.type === 'scorers' || (parent && scorerSpans.has(parent))) scorerSpans.add(str(e.id) ?? '');
      } else if (e.event === 'step' && e.type === 'scorer') scorerSteps += e.action === 'begin' ? 1 : e.action === 'end' ? -1 : 0;
      const scoring = inScorer || scorerSteps > 0 || (typeof e.span_id === 'string' && scorerSpans.has(e.span_id));
      if (e.event === 'model') (scoring ? out.scoring : out.policy).push(e);
      if (Array.isArray(e.events)) walk(e.events, scoring);
    }
  };
  walk(events, false);
  return out;
}

/** A model event's input: the messages, or `input_refs` ranges [start, end) into the sample's `events_data.messages`. */
function eventInput(e: Obj, pool: unknown[]): unknown[] {
  if (Array.isArray(e.input)) return e.input;
  if (!Array.isArray(e.input_refs)) return [];
  const out: unknown[] = [];
  for (const r of e.input_refs) if (Array.isArray(r) && r.length === 2) out.push(...pool.slice(Number(r[0]), Number(r[1])));
  return out;
}

function stepOf(e: Obj, pool: unknown[], provider: string | null): StepDraft {
  const output = isObject(e.output) ? e.output : {};
  const choice = Array.isArray(output.choices) && isObject(output.choices[0]) ? output.choices[0] : {};
  const response = message(isObject(choice.message) ? { ...choice.message, role: 'assistant' } : null);
  const usage = isObject(output.usage) ? output.usage : {};
  const stop = str(choice.stop_reason);
  const error = str(e.error) ?? str(output.error);
  const meta: Record<string, string> = {};
  for (const k of ['input_tokens_cache_read', 'input_tokens_cache_write', 'reasoning_tokens'] as const) if (usage[k] != null) meta[k] = String(usage[k]);
  if (isObject(e.config) && Object.keys(e.config).length) meta.generate_config = JSON.stringify(e.config);
  if (output.time != null) meta.model_time_s = String(output.time);
  const content = isObject(choice.message) ? choice.message.content : null;
  if (Array.isArray(content) && content.some((p) => isObject(p) && p.type === 'reasoning' && p.redacted === true)) meta.reasoning_hidden = 'redacted';
  const started = timeMs(e.timestamp);
  const ended = timeMs(e.completed);
  return {
    messages: messages(eventInput(e, pool)),
    response,
    tools: toolsOf(e.tools),
    model: str(output.model) ?? str(e.model),
    provider,
    finish_reason: stop === null || stop === 'unknown' ? null : (STOP[stop] ?? stop),
    prompt_tokens: int(usage.input_tokens),
    completion_tokens: int(usage.output_tokens),
    started_at: started,
    ended_at: ended,
    latency_ms: started !== null && ended !== null ? ended - started : null,
    status: error ? 'error' : 'ok',
    error,
    metadata: meta,
    raw: JSON.stringify(redactSecrets({ event: 'model', model: e.model, timestamp: e.timestamp, output: e.output })),
  };
}

function sampleTrajectories(raw: Obj, spec: Obj | null): TrajectoryDraft[] {
  const att = isObject(raw.attachments) ? raw.attachments : {};
  const s = resolve({ ...raw, attachments: undefined }, att) as Obj;
  const evalModel = str(spec?.model);
  const provider = evalModel?.includes('/') ? evalModel.split('/')[0] : null;
  const pool = isObject(s.events_data) && Array.isArray(s.events_data.messages) ? s.events_data.messages : [];
  const { policy: evs, scoring } = modelEvents(s.events);
  let steps: StepDraft[];
  if (evs.length) steps = evs.map((e) => stepOf(e, pool, provider));
  else {
    // logged without events: the final conversation, one step per assistant turn
    const chat = messages(s.messages);
    if (!chat.length) return []; // nothing was asked or answered: no step to make
    steps = chatToSteps(chat);
    const usage = isObject(s.output) && isObject(s.output.usage) ? s.output.usage : null;
    if (usage && steps.length === 1) {
      steps[0].prompt_tokens = int(usage.input_tokens);
      steps[0].completion_tokens = int(usage.output_tokens);
    }
  }
  const last = steps[steps.length - 1];
  last.reward = rewardOf(s.scores);
  const sampleError = isObject(s.error) ? str(s.error.message) : str(s.error);
  if (sampleError) {
    last.status = 'error';
    last.error = last.error ?? sampleError;
  }
  const task = str(spec?.task);
  const id = str(s.id);
  const meta: Record<string, string> = {};
  const put = (k: string, v: unknown) => {
    if (v !== undefined && v !== null && v !== '') meta[k] = typeof v === 'string' ? v : JSON.stringify(v);
  };
  put('task', task);
  put('eval_id', spec?.eval_id);
  put('run_id', spec?.run_id);
  put('sample_id', id);
  put('epoch', s.epoch);
  put('target', s.target);
  put('scores', s.scores);
  put('sample_metadata', isObject(s.metadata) && Object.keys(s.metadata).length ? s.metadata : null);
  put('limit', s.limit);
  put('sample_error', sampleError);
  const taskId = str(spec?.eval_id) ?? str(spec?.task_id) ?? str(spec?.run_id) ?? task ?? 'inspect';
  const uid = str(s.uuid) ?? `${taskId}:${id}:${str(s.epoch) ?? '1'}`;
  const common = {
    agent: isObject(spec?.solver) ? str((spec.solver as Obj).solver) : str(spec?.solver),
    data_source: isObject(spec?.dataset) ? str((spec.dataset as Obj).name) : null,
  };
  const out: TrajectoryDraft[] = [
    {
      trajectory_uid: uid,
      prompt_uid: id !== null ? `inspect:${task ?? taskId}:${id}` : null,
      common: { ...common, metadata: meta },
      steps: steps.map((st) => ({ ...st, metadata: { ...meta, ...st.metadata } })),
    },
  ];
  // model-graded scoring: real LLM calls, but the grader's, not the solver's — a trajectory of their own
  if (scoring.length) {
    const linked = { ...meta, parent_trajectory_uid: uid, role: 'scorer' };
    out.push({
      trajectory_uid: `${uid}:scoring`,
      common: { ...common, agent: 'scorer', metadata: linked },
      steps: scoring.map((e) => {
        const st = stepOf(e, pool, provider);
        return { ...st, metadata: { ...linked, ...st.metadata } };
      }),
    });
  }
  return out;
}

export const inspect = defineNormalizer<InspectState>({
  id: 'inspect',
  label: 'Inspect AI eval log (.json, .eval members)',
  detect(sample) {
    if (sample.some(isLog)) return 0.98;
    const hits = sample.filter(isSample).length;
    return hits ? 0.9 * (hits / sample.length) : 0;
  },
  createState: () => ({ header: null, samples: 0, headers: 0, empty: 0 }),
  normalize(record, _ctx, st) {
    const v = record.value;
    if (isLog(v)) {
      st.header = v.eval as Obj;
      st.headers++;
      if (!Array.isArray(v.samples)) return []; // a header: its samples follow as records of their own
      const samples = v.samples.filter(isObject);
      st.samples += samples.length;
      return samples.flatMap((s) => {
        const out = sampleTrajectories(s, st.header);
        if (!out.length) st.empty++;
        return out;
      });
    }
    if (isSample(v)) {
      st.samples++;
      const out = sampleTrajectories(v, st.header);
      if (!out.length) throw new RecordError(`sample ${str(v.id)}: no model event and no messages`);
      return out;
    }
    throw new RecordError('expected an Inspect eval log ({eval, samples}) or one of its samples ({id, epoch, messages, scores})');
  },
  flush: () => [],
  notes: (st) => [
    ...(st.headers && !st.samples ? ['the eval log holds no samples (written with samples left out, or the eval did not run any): nothing to import'] : []),
    ...(st.empty ? [`${st.empty} sample(s) of the eval log with no model event and no messages: skipped`] : []),
  ],
});
