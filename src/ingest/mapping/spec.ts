/**
 * Formats by configuration: a declarative JSON mapping from a source record to step fields.
 * `validateMapping` checks a spec and names every problem by its path, so a user editing the JSON
 * in a notebook knows what to fix.
 */

/** A dotted path (`a.b.0.c`, `-1` = last element), or alternatives tried in order. */
export type PathSpec = string | string[];

export type Transform =
  | 'json'
  | 'join'
  | 'first'
  | 'last'
  | 'string'
  | 'number'
  | 'lower'
  | number
  | { join: string }
  | { map: Record<string, unknown>; default?: unknown };

export interface FieldSpec {
  path?: PathSpec;
  /** A constant, used when `path` is absent or finds nothing. */
  value?: unknown;
  transforms?: Transform[];
}

/** A list of messages read from an array in the record. */
export interface MessageListSpec {
  path: PathSpec;
  role?: PathSpec;
  content?: PathSpec;
  roleMap?: Record<string, string>;
  defaultRole?: string;
  parse?: 'json';
  /** Keep items only when they have this role after mapping (e.g. drop `tool` chatter). */
  roles?: string[];
}

/** One message built from fields of the record (`{role: 'user', content: ['instruction', 'input']}`). */
export interface MessageTemplate {
  role: string;
  content: FieldSpec | PathSpec | (FieldSpec | PathSpec)[];
  /** Separator when content lists several fields; empty ones are skipped. Default "\n\n". */
  separator?: string;
}

export type MessagesSpec = MessageListSpec | MessageTemplate[];

export const SCALAR_FIELDS = [
  'reward',
  'model',
  'provider',
  'agent',
  'data_source',
  'trajectory_uid',
  'prompt_uid',
  'channel',
  'finish_reason',
  'prompt_tokens',
  'completion_tokens',
  'policy_version',
  'started_at',
  'ended_at',
  'latency_ms',
  'tools',
] as const;
export type ScalarField = (typeof SCALAR_FIELDS)[number];

export interface MappingFields extends Partial<Record<ScalarField, FieldSpec | PathSpec>> {
  messages: MessagesSpec;
  /** The assistant message answered; without it, every assistant turn of `messages` is a step. */
  response?: MessageTemplate | FieldSpec | PathSpec;
}

export interface MappingSpec {
  id: string;
  label: string;
  detect: { required: string[]; equals?: Record<string, unknown>; score?: number };
  /** Path to an array when one record holds many. */
  records?: string;
  /** Several steps per record: `steps` is the array of step objects; fields are read from each step, `id` from the record. */
  trajectory?: { id?: PathSpec; steps?: string };
  fields: MappingFields;
  /** Metadata: spread an object found at `from`, and/or keep the record's keys the mapping does not read (`rest`). */
  metadata?: { from?: string; rest?: boolean };
}

export class MappingError extends Error {
  constructor(
    message: string,
    readonly problems: string[],
  ) {
    super(message);
    this.name = 'MappingError';
  }
}

type Problems = string[];

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `"${v.length > 40 ? `${v.slice(0, 40)}…` : v}"`;
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}

function onlyKeys(v: Record<string, unknown>, known: readonly string[], at: string, p: Problems): void {
  for (const k of Object.keys(v)) if (!known.includes(k)) p.push(`${at}.${k}: unknown key (known: ${known.join(', ')})`);
}

function checkPath(v: unknown, at: string, p: Problems): void {
  if (typeof v === 'string' && v.trim()) return;
  if (Array.isArray(v) && v.length && v.every((x) => typeof x === 'string' && x.trim())) return;
  p.push(`${at}: expected a dotted path string or a list of them, got ${describe(v)}`);
}

function checkTransform(t: unknown, at: string, p: Problems): void {
  if (typeof t === 'number' && Number.isInteger(t)) return;
  if (typeof t === 'string' && ['json', 'join', 'first', 'last', 'string', 'number', 'lower'].includes(t)) return;
  if (isObj(t) && typeof t.join === 'string' && Object.keys(t).length === 1) return;
  if (isObj(t) && isObj(t.map)) {
    onlyKeys(t, ['map', 'default'], at, p);
    return;
  }
  p.push(`${at}: unknown transform ${describe(t)} (use "json", "join", "first", "last", "string", "number", "lower", an index, {join: sep} or {map: {...}, default?})`);
}

function checkField(v: unknown, at: string, p: Problems): void {
  if (typeof v === 'string' || Array.isArray(v)) {
    checkPath(v, at, p);
    return;
  }
  if (!isObj(v)) {
    p.push(`${at}: expected a path or {path, value, transforms}, got ${describe(v)}`);
    return;
  }
  onlyKeys(v, ['path', 'value', 'transforms'], at, p);
  if (v.path !== undefined) checkPath(v.path, `${at}.path`, p);
  else if (!('value' in v)) p.push(`${at}: needs "path" or "value"`);
  if (v.transforms !== undefined) {
    if (!Array.isArray(v.transforms)) p.push(`${at}.transforms: expected a list, got ${describe(v.transforms)}`);
    else
      v.transforms.forEach((t, i) => {
        checkTransform(t, `${at}.transforms[${i}]`, p);
      });
  }
}

function checkTemplate(v: unknown, at: string, p: Problems): void {
  if (!isObj(v)) {
    p.push(`${at}: expected {role, content}, got ${describe(v)}`);
    return;
  }
  onlyKeys(v, ['role', 'content', 'separator'], at, p);
  if (typeof v.role !== 'string' || !v.role) p.push(`${at}.role: expected a role name such as "user", got ${describe(v.role)}`);
  if (v.content === undefined) p.push(`${at}.content: missing (a path, a field spec or a list of them)`);
  else if (Array.isArray(v.content) && v.content.some((c) => typeof c !== 'string'))
    v.content.forEach((c, i) => {
      checkField(c, `${at}.content[${i}]`, p);
    });
  else checkField(v.content, `${at}.content`, p);
  if (v.separator !== undefined && typeof v.separator !== 'string') p.push(`${at}.separator: expected a string`);
}

function checkMessages(v: unknown, at: string, p: Problems): void {
  if (Array.isArray(v)) {
    if (!v.length) p.push(`${at}: an empty list of message templates`);
    v.forEach((m, i) => {
      checkTemplate(m, `${at}[${i}]`, p);
    });
    return;
  }
  if (!isObj(v)) {
    p.push(`${at}: expected {path, role, content, roleMap} or a list of {role, content} templates, got ${describe(v)}`);
    return;
  }
  onlyKeys(v, ['path', 'role', 'content', 'roleMap', 'defaultRole', 'parse', 'roles'], at, p);
  checkPath(v.path, `${at}.path`, p);
  if (v.role !== undefined) checkPath(v.role, `${at}.role`, p);
  if (v.content !== undefined) checkPath(v.content, `${at}.content`, p);
  if (v.roleMap !== undefined && (!isObj(v.roleMap) || Object.values(v.roleMap).some((x) => typeof x !== 'string')))
    p.push(`${at}.roleMap: expected an object of role names, e.g. {"human": "user", "gpt": "assistant"}`);
  if (v.parse !== undefined && v.parse !== 'json') p.push(`${at}.parse: only "json" is supported, got ${describe(v.parse)}`);
  if (v.roles !== undefined && (!Array.isArray(v.roles) || v.roles.some((r) => typeof r !== 'string'))) p.push(`${at}.roles: expected a list of role names`);
}

/** Every problem of a spec, each as `path: what is wrong`; empty when the spec is usable. */
export function validateMapping(spec: unknown): string[] {
  const p: Problems = [];
  if (!isObj(spec)) return [`mapping: expected a JSON object, got ${describe(spec)}`];
  onlyKeys(spec, ['$schema', 'id', 'label', 'detect', 'records', 'trajectory', 'fields', 'metadata', 'description'], 'mapping', p);
  if (typeof spec.id !== 'string' || !/^[a-z0-9][a-z0-9._-]*$/.test(spec.id)) p.push(`mapping.id: expected a lower-case id like "my-format", got ${describe(spec.id)}`);
  if (typeof spec.label !== 'string' || !spec.label) p.push(`mapping.label: expected a human-readable name, got ${describe(spec.label)}`);
  const d = spec.detect;
  if (!isObj(d)) p.push(`mapping.detect: expected {required: [paths], equals?: {path: value}}, got ${describe(d)}`);
  else {
    onlyKeys(d, ['required', 'equals', 'score'], 'mapping.detect', p);
    if (!Array.isArray(d.required) || !d.required.length || d.required.some((x) => typeof x !== 'string'))
      p.push('mapping.detect.required: expected a non-empty list of paths that every record of the format has');
    if (d.equals !== undefined && !isObj(d.equals)) p.push('mapping.detect.equals: expected an object of {path: value}');
    if (d.score !== undefined && (typeof d.score !== 'number' || d.score <= 0 || d.score > 1)) p.push(`mapping.detect.score: expected a number in (0, 1], got ${describe(d.score)}`);
  }
  if (spec.records !== undefined) checkPath(spec.records, 'mapping.records', p);
  if (spec.trajectory !== undefined) {
    if (!isObj(spec.trajectory)) p.push('mapping.trajectory: expected {id?, steps?}');
    else {
      onlyKeys(spec.trajectory, ['id', 'steps'], 'mapping.trajectory', p);
      if (spec.trajectory.id !== undefined) checkPath(spec.trajectory.id, 'mapping.trajectory.id', p);
      if (spec.trajectory.steps !== undefined) checkPath(spec.trajectory.steps, 'mapping.trajectory.steps', p);
    }
  }
  const f = spec.fields;
  if (!isObj(f)) p.push(`mapping.fields: expected an object with at least "messages", got ${describe(f)}`);
  else {
    onlyKeys(f, ['messages', 'response', ...SCALAR_FIELDS], 'mapping.fields', p);
    if (f.messages === undefined) p.push('mapping.fields.messages: missing (where the conversation or prompt is)');
    else checkMessages(f.messages, 'mapping.fields.messages', p);
    if (f.response !== undefined) {
      if (isObj(f.response) && 'role' in f.response) checkTemplate(f.response, 'mapping.fields.response', p);
      else checkField(f.response, 'mapping.fields.response', p);
    }
    for (const k of SCALAR_FIELDS) if (f[k] !== undefined) checkField(f[k], `mapping.fields.${k}`, p);
  }
  if (spec.metadata !== undefined) {
    if (!isObj(spec.metadata)) p.push('mapping.metadata: expected {from?: path, rest?: boolean}');
    else {
      onlyKeys(spec.metadata, ['from', 'rest'], 'mapping.metadata', p);
      if (spec.metadata.from !== undefined) checkPath(spec.metadata.from, 'mapping.metadata.from', p);
      if (spec.metadata.rest !== undefined && typeof spec.metadata.rest !== 'boolean') p.push('mapping.metadata.rest: expected true or false');
    }
  }
  return p;
}

export function assertMapping(spec: unknown): asserts spec is MappingSpec {
  const problems = validateMapping(spec);
  if (problems.length) {
    const id = isObj(spec) && typeof spec.id === 'string' ? ` "${spec.id}"` : '';
    throw new MappingError(`format mapping${id} is not valid — fix these and load it again:\n${problems.map((x) => `  - ${x}`).join('\n')}`, problems);
  }
}
