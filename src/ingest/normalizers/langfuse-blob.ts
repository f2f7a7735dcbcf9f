/**
 * Langfuse blob-storage exports (the S3 / Azure integration): one file per table and time window —
 * `observations` rows (`id, trace_id, type, parent_observation_id, start_time, end_time, input, output,
 * provided_model_name, model_parameters, usage_details, cost_details, completion_start_time, level,
 * status_message, metadata, prompt_name, prompt_version, …`), `traces` rows and `scores` rows, all
 * with ClickHouse's snake_case names. Every GENERATION is a step of its trace's trajectory, in start
 * order. The `traces` and `scores` files of the same import are read with the observations file:
 * a score on a generation is that step's reward, a trace-level score the last step's. ClickHouse
 * writes its times without a zone; Langfuse stores UTC, so they are read as UTC (`timeMs` reads a zone-less time so).
 */
import { hash64 } from '../../util/hash';
import { toolsText } from '../../wire/tools';
import { defineNormalizer, RecordError } from '../normalizer';
import { redactSecrets } from '../../record/redact';
import type { StepDraft, TrajectoryDraft } from '../../contract/step';
import { int, isObject, num, type Obj, parseJsonDeep, str, timeMs } from '../../contract/json';
import { callByShape } from '../../wire/shapes';
import { safeMetaValue } from './loose-chat';
import { scoreSample } from './score';

const TYPES = new Set(['GENERATION', 'SPAN', 'EVENT', 'AGENT', 'TOOL', 'CHAIN', 'RETRIEVER', 'EMBEDDING', 'EVALUATOR', 'GUARDRAIL']);

const isObservation = (v: unknown): v is Obj => isObject(v) && typeof v.trace_id === 'string' && typeof v.type === 'string' && TYPES.has(v.type) && 'start_time' in v;
const isScore = (v: unknown): v is Obj => isObject(v) && typeof v.trace_id === 'string' && typeof v.name === 'string' && 'value' in v && ('data_type' in v || 'source' in v) && !('type' in v);
const isTrace = (v: unknown): v is Obj => isObject(v) && typeof v.id === 'string' && 'timestamp' in v && !('trace_id' in v) && ('session_id' in v || 'user_id' in v || 'bookmarked' in v || 'public' in v);

export interface LangfuseBlobState {
  byTrace: Map<string, { obs: Obj; line: number }[]>;
  traces: Map<string, Obj>;
  scores: Map<string, Obj[]>;
  companionFiles: string[];
  others: number;
  /** Observation rows written twice (same id and content), read once. */
  duplicates: number;
  /** id → hash of each observation row read, to tell a repeated row from an update. */
  seen: Map<string, string>;
}

/** A ClickHouse Map column: an object, or (from Parquet) a list of [key, value] / {key, value}. */
function mapOf(v: unknown): Obj {
  const p = parseJsonDeep(v);
  if (isObject(p)) return p;
  const out: Obj = {};
  if (Array.isArray(p))
    for (const e of p) {
      if (Array.isArray(e) && e.length === 2) out[String(e[0])] = e[1];
      else if (isObject(e) && 'key' in e) out[String(e.key)] = e.value;
    }
  return out;
}

function scoreNumber(s: Obj): number | null {
  const t = str(s.data_type);
  if (t === 'CATEGORICAL' || t === 'CORRECTION') return null;
  return num(s.value);
}

function rewardOf(scores: readonly Obj[]): number | null {
  const numeric = scores.filter((s) => scoreNumber(s) !== null);
  const named = numeric.find((s) => /^(reward|score|correct(ness)?|success|resolved)$/i.test(str(s.name) ?? ''));
  const pick = named ?? numeric[0];
  return pick ? scoreNumber(pick) : null;
}

function step(o: Obj, line: number): StepDraft {
  const input = parseJsonDeep(o.input, 6);
  const usage = mapOf(o.usage_details);
  const started = timeMs(o.start_time);
  const ended = timeMs(o.end_time);
  const first = timeMs(o.completion_start_time);
  const call = callByShape(input, o.output);
  const res = call.response;
  const response = res.message;
  const failed = o.level === 'ERROR' || (res.error !== null && !response);
  const metadata: Record<string, string> = {};
  const put = (k: string, v: unknown) => {
    const s = safeMetaValue(v);
    if (s !== null && s !== '' && s !== '{}') metadata[k] = s;
  };
  put('observation_id', o.id);
  put('name', o.name);
  put('parent_observation_id', o.parent_observation_id);
  put('environment', o.environment);
  put('prompt_name', o.prompt_name);
  put('prompt_version', o.prompt_version);
  put('version', o.version);
  put('level', o.level);
  put('status_message', o.status_message);
  put('model_parameters', o.model_parameters);
  put('cost_details', o.cost_details);
  put('usage_details', Object.keys(usage).length ? usage : null);
  put('observation_metadata', Object.keys(mapOf(o.metadata)).length ? mapOf(o.metadata) : null);
  put('start_time', o.start_time);
  put('stop_reason', res.stop_reason);
  put('reasoning_hidden', res.reasoning_hidden);
  put('tools_original', call.request.tools_original);
  return {
    messages: call.request.messages,
    tools: call.request.tools ?? (isObject(input) ? toolsText(parseJsonDeep(input.tools), input.functions) : null),
    response,
    model: str(o.provided_model_name ?? o.model) ?? call.request.model,
    prompt_tokens: int(usage.input ?? usage.prompt_tokens ?? usage.input_tokens) ?? res.prompt_tokens,
    completion_tokens: int(usage.output ?? usage.completion_tokens ?? usage.output_tokens) ?? res.completion_tokens,
    started_at: started,
    ended_at: ended,
    latency_ms: started !== null && ended !== null ? ended - started : null,
    ttft_ms: started !== null && first !== null ? first - started : null,
    finish_reason: failed ? 'error' : (res.finish_reason ?? (response?.tool_calls?.length ? 'tool_calls' : null)),
    status: failed ? 'error' : 'ok',
    error: failed ? (str(o.status_message) ?? res.error ?? 'observation level ERROR') : null,
    metadata,
    raw: JSON.stringify(redactSecrets(o)),
    source_line: line,
  };
}

function trajectory(traceId: string, rows: { obs: Obj; line: number }[], st: LangfuseBlobState): TrajectoryDraft | null {
  const gens = rows.filter((r) => r.obs.type === 'GENERATION').sort((a, b) => (timeMs(a.obs.start_time) ?? 0) - (timeMs(b.obs.start_time) ?? 0));
  if (!gens.length) return null;
  const steps = gens.map((g) => step(g.obs, g.line));
  const scores = st.scores.get(traceId) ?? [];
  const onStep = new Map<string, Obj[]>();
  const onTrace: Obj[] = [];
  for (const s of scores) {
    const oid = str(s.observation_id);
    if (oid && gens.some((g) => g.obs.id === oid)) onStep.set(oid, [...(onStep.get(oid) ?? []), s]);
    else onTrace.push(s);
  }
  // a CORRECTION row's text (`long_string_value` when too long for `string_value`) is the step's corrected output
  const corrected = (list: readonly Obj[]) => list.filter((s) => s.data_type === 'CORRECTION').map((s) => safeMetaValue(s.long_string_value ?? s.string_value)).find((t) => t);
  const correct = (step: StepDraft, list: readonly Obj[]) => {
    const text = corrected(list);
    if (text) step.metadata = { ...step.metadata, corrected_output: text };
  };
  gens.forEach((g, i) => {
    const own = onStep.get(str(g.obs.id) ?? '');
    if (own) {
      steps[i].reward = rewardOf(own);
      correct(steps[i], own);
    }
  });
  const last = steps[steps.length - 1];
  last.reward = rewardOf(onTrace) ?? last.reward;
  correct(last, onTrace);
  const t = st.traces.get(traceId) ?? {};
  const common: Record<string, string> = {};
  const put = (k: string, v: unknown) => {
    const s = safeMetaValue(v);
    if (s !== null && s !== '' && s !== '[]' && s !== '{}') common[k] = s;
  };
  put('trace_id', traceId);
  put('session_id', t.session_id);
  put('user_id', t.user_id);
  put('trace_name', t.name);
  put('release', t.release);
  put('tags', t.tags);
  put('trace_metadata', Object.keys(mapOf(t.metadata)).length ? mapOf(t.metadata) : null);
  // no scores: '[]', which put leaves out
  put(
    'scores',
    scores.map((s) => ({
      name: s.name,
      value: s.data_type === 'CORRECTION' ? undefined : s.value,
      string_value: s.data_type === 'CORRECTION' ? undefined : (s.string_value ?? undefined),
      data_type: s.data_type,
      observation_id: s.observation_id ?? undefined,
      comment: s.comment ?? undefined,
    })),
  );
  for (const s of steps) s.metadata = { ...common, ...s.metadata };
  const tm = mapOf(t.metadata);
  return { trajectory_uid: traceId, common: { agent: str(tm.agent ?? t.name), data_source: str(tm.data_source ?? tm.dataset) }, steps };
}

function remember(v: unknown, st: LangfuseBlobState): boolean {
  if (isScore(v)) {
    const id = v.trace_id as string;
    st.scores.set(id, [...(st.scores.get(id) ?? []), v]);
    return true;
  }
  if (isTrace(v)) {
    st.traces.set(v.id as string, v);
    return true;
  }
  return false;
}

export const langfuseBlob = defineNormalizer<LangfuseBlobState>({
  id: 'langfuse-blob',
  label: 'Langfuse blob-storage export (observations / traces / scores)',
  detect: (sample) => scoreSample(sample, (v) => (isObservation(v) ? 0.97 : isScore(v) ? 0.9 : isTrace(v) ? 0.85 : 0)),
  // only the tables that attach to generations: other observation files (other time windows) are not read
  companions: { accepts: (sample) => sample.length > 0 && sample.every((v) => isScore(v) || isTrace(v)) },
  createState(ctx) {
    const st: LangfuseBlobState = { byTrace: new Map(), traces: new Map(), scores: new Map(), companionFiles: [], others: 0, duplicates: 0, seen: new Map() };
    for (const c of ctx.companions ?? []) {
      let used = 0;
      for (const v of c.records) if (remember(v, st)) used++;
      if (used) st.companionFiles.push(c.file);
    }
    return st;
  },
  normalize(record, _ctx, st) {
    const v = record.value;
    if (isObservation(v)) {
      const key = str(v.id);
      const text = hash64(JSON.stringify(v));
      if (key !== null && st.seen.get(key) === text) {
        st.duplicates++;
        return [];
      }
      if (key !== null && !st.seen.has(key)) st.seen.set(key, text);
      const id = v.trace_id as string;
      const rows = st.byTrace.get(id);
      if (rows) rows.push({ obs: v, line: record.line });
      else st.byTrace.set(id, [{ obs: v, line: record.line }]);
      return [];
    }
    if (remember(v, st)) {
      st.others++;
      return [];
    }
    throw new RecordError('not a Langfuse blob-export row (an observation with trace_id, type and start_time; a score; a trace)');
  },
  flush(_ctx, st) {
    const out: TrajectoryDraft[] = [];
    for (const [id, rows] of st.byTrace) {
      const t = trajectory(id, rows, st);
      if (t) out.push(t);
    }
    return out;
  },
  notes(st) {
    const out: string[] = [];
    if (st.companionFiles.length) out.push(`scores and trace details read from ${st.companionFiles.join(', ')}`);
    if (st.duplicates) out.push(`${st.duplicates} observation row(s) were written twice with the same content: duplicates, read once`);
    if (st.others && !st.byTrace.size) out.push(`${st.others} trace / score row(s) hold no LLM call: import them together with the observations export to attach them to its generations`);
    return out;
  },
});
