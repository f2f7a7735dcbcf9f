import { hash64 } from '../../util/hash';
import { withProviderFill } from '../chat-steps';
import { toolsText } from '../../wire/tools';
import { defineNormalizer, RecordError, type SourceRecord } from '../normalizer';
import { redactSecrets } from '../../record/redact';
import type { StepDraft, TrajectoryDraft } from '../../contract/step';
import { int, isObject, noteNaiveTimes, num, type Obj, parseJsonDeep, str, timeMs } from '../../contract/json';
import { callByShape, spanAttributesCall } from '../../wire/shapes';
import { safeMetaValue } from './loose-chat';

const OBSERVATION_TYPES = new Set(['GENERATION', 'SPAN', 'EVENT', 'AGENT', 'TOOL', 'CHAIN', 'RETRIEVER', 'EMBEDDING', 'EVALUATOR', 'GUARDRAIL', 'SCORE']);

function isObservation(v: unknown): v is Obj {
  return isObject(v) && typeof v.type === 'string' && OBSERVATION_TYPES.has(v.type) && ('traceId' in v || 'startTime' in v);
}

function isScore(v: unknown): v is Obj {
  return isObject(v) && !('type' in v) && typeof v.traceId === 'string' && typeof v.name === 'string' && ('value' in v || 'stringValue' in v) && ('dataType' in v || 'source' in v);
}

/** A trace with its observations: `{trace, observations}` or a trace that embeds them (the public API's GET /traces/{id}). */
function traceExport(v: unknown): { trace: Obj; observations: unknown[]; scores: unknown[] } | null {
  if (!isObject(v)) return null;
  if (isObject(v.trace) && Array.isArray(v.observations)) {
    return { trace: v.trace, observations: v.observations, scores: [...arr(v.scores), ...arr(v.trace.scores), ...corrections(v.corrections), ...corrections(v.trace.corrections)] };
  }
  if (Array.isArray(v.observations) && typeof v.id === 'string' && ('sessionId' in v || 'timestamp' in v || 'name' in v)) {
    return { trace: v, observations: v.observations, scores: [...arr(v.scores), ...corrections(v.corrections)] };
  }
  return null;
}

function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

interface Located {
  obs: Obj;
  line: number;
}

/** Score data types that are not a number to train on: a corrected output, free text, a category. */
const NOT_REWARD = new Set(['CORRECTION', 'TEXT', 'CATEGORICAL']);

/** A `corrections[]` entry (corrected output of a trace or observation) as a CORRECTION score. */
function corrections(v: unknown): Obj[] {
  return arr(v)
    .filter(isObject)
    .map((c) => ({ ...c, name: c.name ?? 'correction', dataType: 'CORRECTION', stringValue: c.longStringValue ?? c.stringValue ?? c.correctedOutput ?? c.output ?? c.value }));
}

/** The text of a corrected output: a CORRECTION score's `longStringValue` (a text too long for `stringValue`), else its `stringValue`. */
function correctionText(s: Obj): string | null {
  return safeMetaValue(s.longStringValue ?? s.stringValue ?? s.value);
}

/** The reward among scores: one named like a reward, else the first numeric one (corrections, text and categories are no reward). */
function rewardOf(scores: readonly unknown[]): number | null {
  const numeric = scores.filter((s): s is Obj => isObject(s) && num(s.value) !== null && !NOT_REWARD.has(String(s.dataType)));
  const named = numeric.find((s) => /^(reward|score|correct(ness)?|success|resolved)$/i.test(str(s.name) ?? ''));
  const pick = named ?? numeric[0];
  return pick ? num(pick.value) : null;
}

function usageOf(o: Obj): { prompt: number | null; completion: number | null } {
  const u = isObject(o.usageDetails) ? o.usageDetails : isObject(o.usage) ? o.usage : {};
  return {
    prompt: int(u.input ?? u.promptTokens ?? u.prompt_tokens ?? u.input_tokens ?? o.promptTokens),
    completion: int(u.output ?? u.completionTokens ?? u.completion_tokens ?? u.output_tokens ?? o.completionTokens),
  };
}

function generationStep(o: Obj, line: number): StepDraft {
  const input = parseJsonDeep(o.input, 6);
  const call = callByShape(input, o.output);
  const res = call.response;
  // an observation made from an OTel span keeps the span's attributes in its metadata
  const meta0 = parseJsonDeep(o.metadata);
  const span = spanAttributesCall(isObject(meta0) && isObject(meta0.attributes) ? meta0.attributes : {});
  const usage = usageOf(o);
  const started = timeMs(o.startTime);
  const ended = timeMs(o.endTime);
  const firstToken = timeMs(o.completionStartTime);
  const failed = o.level === 'ERROR';
  const metadata: Record<string, string> = { ...noteNaiveTimes(null, o.startTime, o.endTime, o.completionStartTime) };
  for (const k of ['id', 'name', 'parentObservationId', 'promptName', 'promptVersion', 'version', 'environment', 'level', 'statusMessage']) {
    const s = safeMetaValue(o[k]);
    if (s !== null) metadata[k === 'id' ? 'observation_id' : k] = s;
  }
  const params = safeMetaValue(o.modelParameters);
  if (params !== null) metadata.model_parameters = params;
  const meta = safeMetaValue(o.metadata);
  if (meta !== null) metadata.observation_metadata = meta;
  if (res.stop_reason) metadata.stop_reason = res.stop_reason;
  if (res.reasoning_hidden) metadata.reasoning_hidden = res.reasoning_hidden;
  if (call.request.tools_original) metadata.tools_original = call.request.tools_original;
  const response = res.message;
  return {
    messages: call.request.messages,
    tools: call.request.tools ?? (isObject(input) ? toolsText(parseJsonDeep(input.tools), input.functions) : null) ?? span.tools,
    response,
    model: str(o.model ?? o.providedModelName) ?? call.request.model,
    prompt_tokens: usage.prompt ?? res.prompt_tokens,
    completion_tokens: usage.completion ?? res.completion_tokens,
    started_at: started,
    ended_at: ended,
    latency_ms: num(o.latency) !== null ? num(o.latency)! * 1000 : started !== null && ended !== null ? ended - started : null,
    ttft_ms: num(o.timeToFirstToken) !== null ? num(o.timeToFirstToken)! * 1000 : started !== null && firstToken !== null ? firstToken - started : null,
    finish_reason: failed || (res.error && !response) ? 'error' : (res.finish_reason ?? span.finish_reason ?? (response?.tool_calls?.length ? 'tool_calls' : null)),
    status: failed || (res.error && !response) ? 'error' : 'ok',
    error: failed ? (str(o.statusMessage) ?? 'observation level ERROR') : response ? null : res.error,
    metadata,
    raw: JSON.stringify(redactSecrets(o)),
    source_line: line,
  };
}

/** Observations listed twice with the same id and content (an export written twice, overlapping pages) are read once. */
function once(observations: readonly Located[], state: { duplicates: number }): Located[] {
  const seen = new Map<string, string>();
  return observations.filter(({ obs }) => {
    const id = str(obs.id);
    if (id === null) return true;
    const text = hash64(JSON.stringify(obs));
    const first = seen.get(id);
    if (first === undefined) seen.set(id, text);
    else if (first === text) {
      state.duplicates++;
      return false;
    }
    return true;
  });
}

function traceDraft(trace: Obj | null, traceId: string | null, listed: readonly Located[], scores: readonly unknown[], state: LangfuseState): TrajectoryDraft | null {
  const observations = once(listed, state);
  const gens = observations.filter((x) => x.obs.type === 'GENERATION');
  if (!gens.length) return null;
  gens.sort((a, b) => (timeMs(a.obs.startTime) ?? 0) - (timeMs(b.obs.startTime) ?? 0));
  const allScores = [...scores, ...observations.filter((x) => x.obs.type === 'SCORE').map((x) => x.obs)];
  const steps = gens.map((g) => generationStep(g.obs, g.line));
  // a score on one generation is that step's; the others are the trace's, on its last step
  const byObservation = new Map<string, Obj[]>();
  const traceScores: Obj[] = [];
  for (const sc of allScores.filter(isObject)) {
    const oid = str(sc.observationId);
    const onGen = oid !== null && gens.some((g) => g.obs.id === oid);
    if (onGen) byObservation.set(oid, [...(byObservation.get(oid) ?? []), sc]);
    else traceScores.push(sc);
  }
  const applyScores = (step: StepDraft, list: readonly Obj[]) => {
    const r = rewardOf(list);
    if (r !== null) step.reward = r;
    const corr = list.filter((sc) => sc.dataType === 'CORRECTION').map(correctionText).find((t) => t);
    if (corr) step.metadata = { ...step.metadata, corrected_output: corr };
  };
  gens.forEach((g, i) => {
    applyScores(steps[i], byObservation.get(str(g.obs.id) ?? '') ?? []);
  });
  applyScores(steps[steps.length - 1], traceScores);
  const metadata: Record<string, string> = {};
  const t = trace ?? {};
  const put = (k: string, v: unknown) => {
    const s = safeMetaValue(v);
    if (s !== null && s !== '') metadata[k] = s;
  };
  put('session_id', t.sessionId);
  put('user_id', t.userId);
  put('trace_name', t.name);
  put('release', t.release);
  if (Array.isArray(t.tags) && t.tags.length) put('tags', JSON.stringify(t.tags));
  if (t.metadata !== undefined && t.metadata !== null) put('trace_metadata', t.metadata);
  if (allScores.length)
    put(
      'scores',
      JSON.stringify(
        allScores.map((s) =>
          isObject(s)
            ? {
                name: s.name,
                value: s.dataType === 'CORRECTION' ? undefined : s.value,
                // a categorical or boolean score's label; a correction's text is the step's corrected_output
                stringValue: s.dataType === 'CORRECTION' ? undefined : (s.stringValue ?? undefined),
                dataType: s.dataType ?? undefined,
                observationId: s.observationId ?? undefined,
                comment: s.comment ?? undefined,
              }
            : s,
        ),
      ),
    );
  for (const s of steps) s.metadata = { ...metadata, ...s.metadata };
  const tm = isObject(t.metadata) ? t.metadata : {};
  return {
    trajectory_uid: str(t.id) ?? traceId,
    common: { agent: str(tm.agent ?? t.name), data_source: str(tm.data_source ?? tm.dataset) },
    steps,
  };
}

interface LangfuseState {
  byTrace: Map<string, { observations: Located[]; scores: unknown[] }>;
  /** Observations listed twice with the same content, read once. */
  duplicates: number;
}

function bucket(state: LangfuseState, traceId: string) {
  let b = state.byTrace.get(traceId);
  if (!b) state.byTrace.set(traceId, (b = { observations: [], scores: [] }));
  return b;
}

/**
 * Langfuse exports: a trace with its observations (one record), or observations and scores as
 * separate records (a JSON array / JSONL), grouped by trace at the end of the file.
 */
export const langfuse = withProviderFill(
  defineNormalizer<LangfuseState>({
    id: 'langfuse',
    label: 'Langfuse trace export',
    detect(sample) {
      let hits = 0;
      for (const v of sample) {
        const x = isObject(v) && Array.isArray(v.data) ? v.data[0] : v;
        const t = traceExport(x);
        if (t && (t.observations.length === 0 || t.observations.some(isObservation))) hits++;
        else if (isObservation(x) || isScore(x)) hits++;
      }
      return hits ? 0.75 + 0.2 * (hits / sample.length) : 0;
    },
    createState: () => ({ byTrace: new Map(), duplicates: 0 }),
    normalize(record: SourceRecord, _ctx, state) {
      const v = record.value;
      const items = isObject(v) && Array.isArray(v.data) && !('observations' in v) ? v.data : [v];
      const out: TrajectoryDraft[] = [];
      for (const item of items) {
        const t = traceExport(item);
        if (t) {
          const located = t.observations.filter(isObject).map((obs) => ({ obs, line: record.line }));
          const d = traceDraft(t.trace, null, located, t.scores, state);
          if (d) out.push(d);
        } else if (isObservation(item)) {
          bucket(state, str(item.traceId) ?? '').observations.push({ obs: item, line: record.line });
        } else if (isScore(item)) {
          bucket(state, str(item.traceId) ?? '').scores.push(item);
        } else if (items.length === 1) {
          throw new RecordError('not a Langfuse trace, observation or score (expected {trace, observations} or objects with type and traceId)');
        }
      }
      return out;
    },
    flush(_ctx, state) {
      const out: TrajectoryDraft[] = [];
      for (const [traceId, b] of state.byTrace) {
        const d = traceDraft(null, traceId || null, b.observations, b.scores, state);
        if (d) out.push(d);
      }
      state.byTrace.clear();
      return out;
    },
    notes: (state) => (state.duplicates ? [`${state.duplicates} observation(s) were listed twice with the same id and content: duplicates, read once`] : []),
  }),
);
