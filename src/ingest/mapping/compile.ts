import { chatToSteps } from '../chat-steps';
import { toolsText } from '../../wire/tools';
import { defineNormalizer, type Normalizer, RecordError } from '../normalizer';
import type { ChatMessage, StepDraft, TrajectoryDraft } from '../../contract/step';
import { isObject, num, type Obj, parseJsonDeep, str, timeMs } from '../../contract/json';
import { contentToText, openaiMessage } from '../../contract/message';
import { assertMapping, type FieldSpec, type MappingSpec, type MessageListSpec, type MessageTemplate, type PathSpec, SCALAR_FIELDS, type Transform } from './spec';

/** Walk a dotted path; numeric keys index arrays, negative ones from the end; JSON strings on the way are parsed. */
export function getPath(v: unknown, path: string): unknown {
  let cur = v;
  for (const key of path.split('.')) {
    if (typeof cur === 'string') cur = parseJsonDeep(cur);
    if (Array.isArray(cur)) {
      const i = Number(key);
      if (!Number.isInteger(i)) return undefined;
      cur = cur[i < 0 ? cur.length + i : i];
    } else if (isObject(cur)) cur = cur[key];
    else return undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

function firstOf(v: unknown, path: PathSpec): unknown {
  for (const p of Array.isArray(path) ? path : [path]) {
    const x = getPath(v, p);
    if (x !== undefined && x !== null) return x;
  }
  return undefined;
}

function applyTransform(v: unknown, t: Transform): unknown {
  if (typeof t === 'number') return Array.isArray(v) ? v[t < 0 ? v.length + t : t] : v;
  if (t === 'json') return parseJsonDeep(v);
  if (t === 'first') return Array.isArray(v) ? v[0] : v;
  if (t === 'last') return Array.isArray(v) ? v[v.length - 1] : v;
  if (t === 'string') return str(v);
  if (t === 'number') return num(v);
  if (t === 'lower') return typeof v === 'string' ? v.toLowerCase() : v;
  if (t === 'join') return contentToText(v).content;
  if ('join' in t) return Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : contentToText(x).content)).join(t.join) : v;
  const key = str(v);
  return key !== null && key in t.map ? t.map[key] : 'default' in t ? t.default : v;
}

function asField(f: FieldSpec | PathSpec): FieldSpec {
  return typeof f === 'string' || Array.isArray(f) ? { path: f } : f;
}

export function evalField(v: unknown, spec: FieldSpec | PathSpec): unknown {
  const f = asField(spec);
  let out = f.path !== undefined ? firstOf(v, f.path) : undefined;
  if (out !== undefined && out !== null) for (const t of f.transforms ?? []) out = applyTransform(out, t);
  return out === undefined || out === null ? f.value : out;
}

function templateMessage(v: unknown, t: MessageTemplate): ChatMessage | null {
  const parts = Array.isArray(t.content) && t.content.some((c) => typeof c !== 'string') ? t.content : Array.isArray(t.content) && t.content.length > 1 ? t.content.map((c) => ({ path: c })) : [t.content];
  const texts = (parts as (FieldSpec | PathSpec)[])
    .map((c) => evalField(v, c))
    .map((x) => (typeof x === 'string' ? x : x === undefined || x === null ? '' : contentToText(x).content ?? ''))
    .filter((x) => x !== '');
  return texts.length ? { role: t.role, content: texts.join(t.separator ?? '\n\n') } : null;
}

function listMessages(v: unknown, s: MessageListSpec): ChatMessage[] {
  let list = firstOf(v, s.path);
  if (s.parse === 'json' || typeof list === 'string') list = parseJsonDeep(list);
  if (!Array.isArray(list)) return [];
  const out: ChatMessage[] = [];
  for (const item of list) {
    const m: Obj = isObject(item) ? item : { content: item };
    const rawRole = str(s.role ? firstOf(m, s.role) : m.role) ?? s.defaultRole ?? 'user';
    const role = s.roleMap?.[rawRole] ?? rawRole;
    if (s.roles && !s.roles.includes(role)) continue;
    const content = s.content ? firstOf(m, s.content) : m.content;
    out.push(openaiMessage({ ...m, role, content: s.parse === 'json' ? parseJsonDeep(content) : content }));
  }
  return out;
}

function messagesOf(v: unknown, spec: MappingSpec): ChatMessage[] {
  const m = spec.fields.messages;
  if (Array.isArray(m)) return m.map((t) => templateMessage(v, t)).filter((x): x is ChatMessage => x !== null);
  return listMessages(v, m);
}

function responseOf(v: unknown, spec: MappingSpec): ChatMessage | null | undefined {
  const r = spec.fields.response;
  if (r === undefined) return undefined;
  if (isObject(r) && 'role' in r) return templateMessage(v, r as unknown as MessageTemplate);
  const x = evalField(v, r as FieldSpec | PathSpec);
  if (x === undefined || x === null) return null;
  if (isObject(x)) return { ...openaiMessage(x), role: 'assistant' };
  return { role: 'assistant', content: contentToText(x).content };
}

const NUMERIC = new Set(['reward', 'prompt_tokens', 'completion_tokens', 'policy_version', 'latency_ms']);
const TIMES = new Set(['started_at', 'ended_at']);

function scalars(v: unknown, spec: MappingSpec): Partial<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const k of SCALAR_FIELDS) {
    const f = spec.fields[k];
    if (f === undefined) continue;
    const x = evalField(v, f);
    if (x === undefined || x === null) continue;
    if (NUMERIC.has(k)) out[k] = k === 'reward' || k === 'latency_ms' ? num(x) : num(x) === null ? null : Math.trunc(num(x)!);
    else if (TIMES.has(k)) out[k] = timeMs(x);
    else if (k === 'tools') out[k] = toolsText(parseJsonDeep(x));
    else out[k] = str(x);
  }
  return out;
}

/** First path segments the spec reads, so `metadata.rest` can keep the others. */
function readKeys(spec: MappingSpec): Set<string> {
  const keys = new Set<string>();
  const add = (p: unknown) => {
    for (const x of Array.isArray(p) ? p : [p]) if (typeof x === 'string') keys.add(x.split('.')[0]);
  };
  const visit = (v: unknown) => {
    if (typeof v === 'string' || Array.isArray(v)) return add(v);
    if (isObject(v)) {
      if ('path' in v) add(v.path);
      if ('content' in v && !('path' in v)) (Array.isArray(v.content) ? v.content : [v.content]).forEach(visit);
    }
  };
  const m = spec.fields.messages;
  if (Array.isArray(m)) m.forEach(visit);
  else add(m.path);
  visit(spec.fields.response);
  for (const k of SCALAR_FIELDS) visit(spec.fields[k]);
  add(spec.trajectory?.id);
  add(spec.trajectory?.steps);
  add(spec.metadata?.from);
  return keys;
}

function metadataOf(v: unknown, spec: MappingSpec, read: Set<string>): Record<string, string> | null {
  if (!spec.metadata || !isObject(v)) return null;
  const out: Record<string, string> = {};
  const put = (k: string, x: unknown) => {
    if (x !== undefined) out[k] = typeof x === 'string' ? x : JSON.stringify(x);
  };
  if (spec.metadata.from) {
    const from = getPath(v, spec.metadata.from);
    if (isObject(from)) for (const [k, x] of Object.entries(from)) put(k, x);
  }
  if (spec.metadata.rest) for (const [k, x] of Object.entries(v)) if (!read.has(k)) put(k, x);
  return Object.keys(out).length ? out : null;
}

function stepsFrom(v: unknown, spec: MappingSpec): StepDraft[] {
  const messages = messagesOf(v, spec);
  const response = responseOf(v, spec);
  const fields = scalars(v, spec);
  delete fields.trajectory_uid;
  delete fields.prompt_uid;
  const reward = fields.reward as number | null | undefined;
  delete fields.reward;
  if (!messages.length && !response) return [];
  const steps = response === undefined ? chatToSteps(messages) : [{ messages, response }];
  const out: StepDraft[] = steps.map((s) => ({ ...fields, ...s }) as StepDraft);
  if (reward !== undefined) out[out.length - 1].reward = reward;
  return out;
}

function draftOf(item: unknown, spec: MappingSpec, read: Set<string>): TrajectoryDraft | null {
  const top = scalars(item, spec);
  const uid = spec.trajectory?.id ? str(firstOf(item, spec.trajectory.id)) : ((top.trajectory_uid as string | undefined) ?? null);
  let steps: StepDraft[];
  if (spec.trajectory?.steps) {
    const list = getPath(item, spec.trajectory.steps);
    if (!Array.isArray(list)) throw new RecordError(`mapping "${spec.id}": no step list at "${spec.trajectory.steps}"`);
    steps = list.flatMap((s) => stepsFrom(s, spec));
  } else steps = stepsFrom(item, spec);
  if (!steps.length) return null;
  const metadata = metadataOf(item, spec, read);
  return {
    trajectory_uid: uid,
    prompt_uid: (top.prompt_uid as string | undefined) ?? null,
    common: metadata ? { metadata } : {},
    steps,
  };
}

function matches(v: unknown, spec: MappingSpec): boolean {
  if (spec.detect.required.some((p) => getPath(v, p) === undefined)) return false;
  return Object.entries(spec.detect.equals ?? {}).every(([p, want]) => getPath(v, p) === want);
}

/** A validated mapping as a normalizer, usable wherever a built-in one is. */
export function compileMapping(input: unknown): Normalizer<undefined> {
  assertMapping(input);
  const spec: MappingSpec = input;
  const read = readKeys(spec);
  const score = spec.detect.score ?? 0.85;
  return defineNormalizer<undefined>({
    id: spec.id,
    label: spec.label,
    detect(sample) {
      if (!sample.length) return 0;
      const hits = sample.filter((v) => matches(v, spec)).length;
      return hits ? score * (0.7 + 0.3 * (hits / sample.length)) : 0;
    },
    normalize(record) {
      const v: unknown = record.value;
      if (!matches(v, spec)) throw new RecordError(`mapping "${spec.id}": record lacks ${spec.detect.required.filter((p) => getPath(v, p) === undefined).join(', ') || 'an expected value'}`);
      const items = spec.records ? getPath(v, spec.records) : [v];
      if (!Array.isArray(items)) throw new RecordError(`mapping "${spec.id}": expected an array at "${spec.records}"`);
      const drafts = items.map((x) => draftOf(x, spec, read)).filter((d): d is TrajectoryDraft => d !== null);
      if (!drafts.length) throw new RecordError(`mapping "${spec.id}": no messages found at the mapped paths`);
      return drafts;
    },
  });
}
