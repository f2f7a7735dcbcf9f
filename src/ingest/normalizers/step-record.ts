import { defineNormalizer, RecordError } from '../normalizer';
import type { ChatMessage, StepDraft, ToolCall } from '../../contract/step';
import { int, isObject, num, type Obj, parseJsonDeep, str } from '../../contract/json';

const OPTIONAL_KEYS = ['reasoning', 'name', 'tool_call_id', 'parts'] as const;

function text(v: unknown): string | null {
  return v === undefined || v === null ? null : typeof v === 'string' ? v : JSON.stringify(v);
}

function toolCallOf(v: unknown): ToolCall | null {
  if (!isObject(v)) return null;
  const fn = isObject(v.function) ? v.function : {};
  return { id: str(v.id), type: str(v.type) ?? 'function', function: { name: str(fn.name) ?? '', arguments: text(fn.arguments) ?? '' } };
}

/** Our own message shape, copied field by field: keys present stay present (null included), so a round trip is exact. */
function messageOf(v: unknown): ChatMessage {
  if (!isObject(v)) return { role: 'user', content: str(v) };
  const m: ChatMessage = { role: str(v.role) ?? 'user', content: text(v.content) };
  for (const k of OPTIONAL_KEYS) if (k in v) m[k] = text(v[k]);
  if ('tool_calls' in v) {
    const calls = parseJsonDeep(v.tool_calls);
    m.tool_calls = Array.isArray(calls) ? calls.map(toolCallOf).filter((c): c is ToolCall => c !== null) : null;
  }
  if ('is_error' in v) m.is_error = v.is_error === null ? null : v.is_error === true || v.is_error === 'true';
  return m;
}

/** MAP(VARCHAR, VARCHAR) as it may arrive: an object, Arrow's list of {key, value} or [key, value], or JSON text. */
function metadataOf(v: unknown): Record<string, string> | null {
  const p = parseJsonDeep(v);
  const out: Record<string, string> = {};
  if (Array.isArray(p)) {
    for (const e of p) {
      if (Array.isArray(e) && e.length === 2) out[String(e[0])] = text(e[1]) ?? '';
      else if (isObject(e) && 'key' in e) out[String(e.key)] = text(e.value) ?? '';
    }
  } else if (isObject(p)) for (const [k, val] of Object.entries(p)) out[k] = text(val) ?? '';
  else return null;
  return out;
}

function timeOf(v: unknown): number | null {
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'string' && !/^\d+(\.\d+)?$/.test(v)) {
    const t = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(v) ? v : `${v.replace(' ', 'T')}Z`);
    return Number.isNaN(t) ? null : t;
  }
  return num(v);
}

function numbers(v: unknown): number[] | null {
  const p = parseJsonDeep(v);
  if (!Array.isArray(p) && !ArrayBuffer.isView(p)) return null;
  return Array.from(p as ArrayLike<unknown>, (x) => Number(x));
}

function isStepRow(v: unknown): v is Obj {
  return isObject(v) && typeof v.step_id === 'string' && typeof v.trajectory_uid === 'string' && 'step_index' in v && 'messages' in v;
}

/** Re-import of the workbench's own `steps` export (JSONL or Parquet): every field as it was, ids included. */
export const stepRecord = defineNormalizer({
  id: 'step-record',
  label: 'Workbench step records (export round trip)',
  detect(sample) {
    const hits = sample.filter(isStepRow).length;
    return hits === 0 ? 0 : 0.9 + 0.09 * (hits / sample.length);
  },
  normalize(record) {
    const v = record.value;
    if (!isStepRow(v)) throw new RecordError('not a step record: needs step_id, trajectory_uid, step_index and messages');
    const msgs = parseJsonDeep(v.messages);
    const response = parseJsonDeep(v.response);
    const status = str(v.status);
    const step: StepDraft = {
      step_id: String(v.step_id),
      trajectory_uid: String(v.trajectory_uid),
      prompt_uid: str(v.prompt_uid) ?? undefined,
      step_index: int(v.step_index) ?? 0,
      is_last: typeof v.is_last === 'boolean' ? v.is_last : null,
      channel: str(v.channel) ?? 'train',
      policy_version: int(v.policy_version),
      agent: str(v.agent),
      data_source: str(v.data_source),
      model: str(v.model),
      provider: str(v.provider),
      messages: Array.isArray(msgs) ? msgs.map(messageOf) : [],
      tools: text(v.tools),
      response: isObject(response) ? messageOf(response) : null,
      response_text: str(v.response_text),
      finish_reason: str(v.finish_reason),
      prompt_tokens: int(v.prompt_tokens),
      completion_tokens: int(v.completion_tokens),
      prompt_ids: numbers(v.prompt_ids),
      response_ids: numbers(v.response_ids),
      rollout_log_probs: numbers(v.rollout_log_probs),
      reward: num(v.reward),
      started_at: timeOf(v.started_at),
      ended_at: timeOf(v.ended_at),
      latency_ms: num(v.latency_ms),
      ttft_ms: num(v.ttft_ms),
      status: status === 'error' ? 'error' : 'ok',
      error: str(v.error),
      metadata: metadataOf(v.metadata),
      raw: 'raw' in v ? str(v.raw) : undefined,
      source_format: str(v.source_format) ?? undefined,
      source_line: int(v.source_line) ?? undefined,
      // the id its source gave, when the export carries it (decision 011)
      source_trajectory_id: str(v.source_trajectory_id) ?? undefined,
    };
    return [{ trajectory_uid: step.trajectory_uid, prompt_uid: step.prompt_uid, steps: [step] }];
  },
});
