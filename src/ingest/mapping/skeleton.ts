/**
 * "Start from this file": a first mapping guessed from a record's key paths — where the
 * conversation, its roles and contents, the reward and the id probably are. The user edits the rest.
 */
import type { FieldSpec, MappingSpec, MessageListSpec, MessageTemplate } from './spec';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const LIST_KEYS = ['messages', 'conversations', 'conversation', 'dialog', 'dialogue', 'turns', 'history', 'chat', 'transcript', 'utterances', 'exchanges'];
const ROLE_KEYS = ['role', 'from', 'speaker', 'author', 'sender', 'who', 'type', 'actor', 'participant', 'user'];
const CONTENT_KEYS = ['content', 'value', 'text', 'message', 'body', 'utterance', 'said', 'msg', 'parts'];
const PROMPT_KEYS = ['prompt', 'instruction', 'question', 'query', 'input', 'problem', 'request', 'task'];
const RESPONSE_KEYS = ['response', 'output', 'answer', 'completion', 'solution', 'reply', 'target', 'chosen'];
const REWARD_KEYS = ['reward', 'score', 'return', 'rating', 'csat', 'grade', 'success', 'resolved'];
const ID_KEYS = ['trajectory_id', 'trajectory_uid', 'session_id', 'conversation_id', 'episode_id', 'trace_id', 'run_id', 'chat_id', 'thread_id', 'ticket', 'ticket_id', 'uuid', 'id'];
const MODEL_KEYS = ['model', 'model_name', 'model_id'];

const ROLE_NAMES: Record<string, string> = {
  user: 'user', human: 'user', customer: 'user', client: 'user', player: 'user', question: 'user', prompter: 'user', usr: 'user',
  assistant: 'assistant', gpt: 'assistant', bot: 'assistant', model: 'assistant', ai: 'assistant', agent: 'assistant', chatbot: 'assistant', support: 'assistant', answer: 'assistant',
  system: 'system', sys: 'system', instructions: 'system',
  tool: 'tool', function: 'tool', observation: 'tool', ipython: 'tool', environment: 'tool', env: 'tool',
};

/** Every key path of a value (arrays looked into at their first element), depth-limited. */
export function keyPaths(v: unknown, depth = 4, prefix = ''): string[] {
  const out: string[] = [];
  const walk = (x: unknown, at: string, d: number) => {
    if (at) out.push(at);
    if (d <= 0) return;
    if (Array.isArray(x)) {
      if (x.length) walk(x[0], at ? `${at}.0` : '0', d - 1);
    } else if (isObj(x)) for (const [k, y] of Object.entries(x)) walk(y, at ? `${at}.${k}` : k, d - 1);
  };
  walk(v, prefix, depth);
  return out;
}

function pick(o: Obj, keys: readonly string[], ok: (v: unknown) => boolean): string | null {
  const lower = new Map(Object.keys(o).map((k) => [k.toLowerCase(), k]));
  for (const k of keys) {
    const real = lower.get(k);
    if (real !== undefined && ok(o[real])) return real;
  }
  return null;
}

const isText = (v: unknown) => typeof v === 'string' || (Array.isArray(v) && v.length > 0) || isObj(v);
const isScalarId = (v: unknown) => (typeof v === 'string' && v.length > 0) || typeof v === 'number';
const isNumberish = (v: unknown) => typeof v === 'number' || typeof v === 'boolean' || (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)));

/** An array of message-like objects: the list, and which keys hold role and content. */
function findList(o: Obj, depth = 2, at = ''): { path: string; role: string | null; content: string | null; items: Obj[] } | null {
  const candidates: { path: string; items: Obj[] }[] = [];
  for (const [k, v] of Object.entries(o)) {
    const path = at ? `${at}.${k}` : k;
    if (Array.isArray(v) && v.length && v.every(isObj)) candidates.push({ path, items: v as Obj[] });
  }
  candidates.sort((a, b) => rank(a.path) - rank(b.path));
  for (const c of candidates) {
    const first = c.items[0];
    const content = pick(first, CONTENT_KEYS, isText);
    if (!content) continue;
    const role = pick(first, ROLE_KEYS, (v) => typeof v === 'string');
    return { path: c.path, role, content, items: c.items };
  }
  if (depth > 1)
    for (const [k, v] of Object.entries(o)) {
      if (!isObj(v)) continue;
      const hit = findList(v, depth - 1, at ? `${at}.${k}` : k);
      if (hit) return hit;
    }
  return null;
}

function listAt(record: unknown, records: string | undefined, path: string): Obj[] {
  let cur: unknown = record;
  const keys = [...(records ? [records, '0'] : []), ...path.split('.')];
  for (const k of keys) cur = Array.isArray(cur) ? cur[Number(k)] : isObj(cur) ? cur[k] : undefined;
  return Array.isArray(cur) ? cur.filter(isObj) : [];
}

function rank(path: string): number {
  const i = LIST_KEYS.indexOf(path.split('.').pop()!.toLowerCase());
  return i < 0 ? LIST_KEYS.length : i;
}

/** A path to a scalar among `keys`, at the top or one object down (`metrics.reward`). */
function findScalar(o: Obj, keys: readonly string[], ok: (v: unknown) => boolean): string | null {
  const top = pick(o, keys, ok);
  if (top) return top;
  for (const [k, v] of Object.entries(o)) {
    if (!isObj(v)) continue;
    const inner = pick(v, keys, ok);
    if (inner) return `${k}.${inner}`;
  }
  return null;
}

function slug(name: string): string {
  const stem = name.replace(/\.(gz|jsonl|json|ndjson|sse|txt|traj|har)$/gi, '').replace(/\.(jsonl|json)$/i, '');
  const s = stem.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+|-+$/g, '');
  return `my-${s || 'format'}`.slice(0, 60);
}

/**
 * A starting mapping for records shaped like the sample's first record (role names are collected
 * from the whole sample); `name` (the file name) gives its id and label.
 */
export function skeletonMapping(sample: readonly unknown[], name = 'sample'): MappingSpec {
  const record = sample[0];
  const spec: MappingSpec = { id: slug(name), label: `Records like ${name}`, detect: { required: [] }, fields: { messages: [] } };
  if (!isObj(record)) {
    spec.fields.messages = [{ role: 'user', content: 'value' }];
    spec.detect.required = ['value'];
    return spec;
  }
  let item: Obj = record;
  let list = findList(item);
  if (!list) {
    // a record holding many records: {runs: [{…, turns: [...]}]}
    for (const [k, v] of Object.entries(record)) {
      if (Array.isArray(v) && v.length && isObj(v[0]) && findList(v[0] as Obj)) {
        spec.records = k;
        item = v[0] as Obj;
        list = findList(item);
        break;
      }
    }
  }
  const required: string[] = [];
  if (list) {
    const m: MessageListSpec = { path: list.path };
    if (list.role && list.role !== 'role') m.role = list.role;
    if (list.content !== 'content') m.content = list.content!;
    const roleKey = list.role ?? 'role';
    const items = [list.items, ...sample.slice(1).map((r) => listAt(r, spec.records, list!.path))].flat();
    const seen = [...new Set(items.map((x) => x[roleKey]).filter((r): r is string => typeof r === 'string'))];
    const roleMap: Record<string, string> = {};
    for (const r of seen) {
      const to = ROLE_NAMES[r.toLowerCase()];
      if (to && to !== r) roleMap[r] = to;
    }
    if (Object.keys(roleMap).length) m.roleMap = roleMap;
    if (!list.role) m.defaultRole = 'user';
    spec.fields.messages = m;
    required.push(`${list.path}`);
    const resp = pick(item, RESPONSE_KEYS, (v) => typeof v === 'string');
    if (resp) spec.fields.response = { path: resp };
  } else {
    const prompt = pick(item, PROMPT_KEYS, isText);
    const resp = pick(item, RESPONSE_KEYS, isText);
    const sys = pick(item, ['system', 'system_prompt'], (v) => typeof v === 'string');
    const templates: MessageTemplate[] = [];
    if (sys) templates.push({ role: 'system', content: sys });
    const firstText = Object.entries(item).find(([, v]) => typeof v === 'string' && v.length > 20)?.[0];
    const promptKey = prompt ?? firstText ?? Object.keys(item)[0] ?? 'prompt';
    templates.push({ role: 'user', content: promptKey });
    spec.fields.messages = templates;
    required.push(promptKey);
    if (resp && resp !== promptKey) {
      spec.fields.response = { path: resp };
      required.push(resp);
    }
  }
  const reward = findScalar(item, REWARD_KEYS, isNumberish);
  if (reward) spec.fields.reward = { path: reward, transforms: ['number'] } satisfies FieldSpec;
  const id = pick(item, ID_KEYS, isScalarId);
  if (id) spec.fields.trajectory_uid = id;
  const model = findScalar(item, MODEL_KEYS, (v) => typeof v === 'string');
  if (model) spec.fields.model = model;
  spec.detect.required = spec.records ? [`${spec.records}.0.${required[0]}`] : required;
  spec.metadata = { rest: true };
  return spec;
}
