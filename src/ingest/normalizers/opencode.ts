/**
 * OpenCode sessions, in the two shapes it writes for others to read:
 * - `opencode run --format json` events, one a line (`step_start`, `text`, `reasoning`, `tool_use`, `step_finish`
 *   with tokens and cost, `error`): each step between `step_start` and `step_finish` is one call, its completed tool
 *   uses are its tool calls and their outputs the tool messages of the next call's prompt. The prompt given to
 *   `opencode run` is not in its output (flagged `prompt_missing`, grouped per session).
 * - `opencode export <session>`: `{info, messages: [{info, parts}]}`; a user message's text parts are its prompt, an
 *   assistant message's parts split at `step-start` into calls (each with its `step-finish` tokens, or the message's
 *   own when it holds one step), `tool` parts their calls and results, `reasoning` parts their reasoning.
 * - its storage folder (`~/.local/share/opencode/storage`, one JSON file per object: `session/<project>/<session>.json`,
 *   `message/<session>/<message>.json`, `part/<message>/<part>.json`): a folder import reads each session file with its
 *   messages and their parts (picked by path) as the export of that session; a message or part file reports that it was
 *   read with its session file, and alone says to import the folder. Versions from 2026 keep these in a SQLite
 *   database (`opencode.db`) instead, which is not read: `opencode export` it.
 */
import { defineNormalizer, type NormalizeContext, RecordError } from '../normalizer';
import { redactedJson } from '../../record/redact';
import type { ChatMessage, StepDraft, ToolCall, TrajectoryDraft } from '../../contract/step';
import { int, isObject, num, type Obj, str, timeMs } from '../../contract/json';
import { contentToText, normalizeArguments, splitInlineThink } from '../../contract/message';
import { providerFromModel } from '../chat-steps';
import { scoreSample } from './score';

const EVENT_TYPES = new Set(['step_start', 'text', 'reasoning', 'tool_use', 'step_finish', 'error']);

interface Step {
  parts: Obj[];
  finish: Obj | null;
  line: number;
  started: number | null;
}

export interface OpencodeState {
  session: string | null;
  steps: Step[];
  open: Step | null;
  errors: string[];
  exports: Obj[];
  storage: number;
  /** Session files of the storage folder (`session/<project>/<session>.json`), read with their messages and parts. */
  sessions: { v: Obj; line: number }[];
  /** A storage message or part on its own: the session it belongs to; a project file: its id. */
  sessionOf: string | null;
  project: string | null;
  /** The file this one is read with, once known (for the notes). */
  partner: string | null;
  /** `run` events' parts by id: a part sent again (updated, or repeated) replaces the earlier copy in its step. */
  seen: Map<string, { step: Step; at: number | 'finish' }>;
  repeats: number;
}

const isEvent = (v: unknown): v is Obj => isObject(v) && EVENT_TYPES.has(v.type as string) && (isObject(v.part) || (v.type === 'error' && typeof v.sessionID === 'string'));
const isExport = (v: unknown): v is Obj => isObject(v) && isObject(v.info) && Array.isArray(v.messages) && v.messages.every((m) => isObject(m) && isObject(m.info) && Array.isArray(m.parts));
/** One object of the storage folders: a part (`prt_…`) or a message (`msg_…`) with its session id. */
const isStorageObject = (v: unknown): v is Obj => isObject(v) && typeof v.sessionID === 'string' && typeof v.id === 'string' && /^(prt|msg)_/.test(v.id) && !('part' in v);
/** A session file of the storage folder (what `opencode export` calls `info`). */
const isStorageSession = (v: unknown): v is Obj => isObject(v) && typeof v.id === 'string' && /^ses_/.test(v.id) && typeof v.projectID === 'string' && isObject(v.time) && !('messages' in v);
/** `project/<id>.json`: the worktree a project id stands for; no calls. */
const isStorageProject = (v: unknown): v is Obj => isObject(v) && typeof v.id === 'string' && typeof v.worktree === 'string' && isObject(v.time) && !('sessionID' in v);

/** `a/b/ses_1.json` → `ses_1`. */
const baseId = (name: string) => name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1).replace(/\.json$/, '');
/** The folder a file is in, by name: `part/msg_1/prt_2.json` → `msg_1`. */
const parentOf = (name: string) => baseId(name.replace(/[/\\][^/\\]*$/, ''));

/**
 * The message and part files of a session in a storage folder, by their paths (`message/<session>/msg_*.json`,
 * `part/<message>/prt_*.json`); files picked without folders: every message and part (their sessionID sorts them out).
 */
function storageFilesOf(session: string, siblings: readonly string[]): string[] {
  const bare = (f: string) => !/[/\\]/.test(f);
  const messages = siblings.filter((f) => (parentOf(f) === session || bare(f)) && baseId(f).startsWith('msg_'));
  const ids = new Set(messages.map(baseId));
  const parts = siblings.filter((f) => baseId(f).startsWith('prt_') && (bare(f) || ids.has(parentOf(f))));
  return [...messages, ...parts];
}

function recordScore(v: unknown): number | null {
  if (isExport(v)) return 0.97;
  if (isStorageSession(v)) return 0.95;
  if (isStorageProject(v)) return 0.7;
  if (isEvent(v)) return typeof v.sessionID === 'string' || v.type === 'step_start' || v.type === 'step_finish' ? 0.96 : 0.8;
  if (isStorageObject(v)) return 0.9;
  return 0;
}

function usage(tokens: unknown): { prompt: number | null; completion: number | null; meta: [string, unknown][] } {
  const t = isObject(tokens) ? tokens : {};
  const cache = isObject(t.cache) ? t.cache : {};
  const input = int(t.input);
  const output = int(t.output);
  return {
    prompt: input === null ? null : input + (int(cache.read) ?? 0) + (int(cache.write) ?? 0),
    completion: output === null ? null : output + (int(t.reasoning) ?? 0),
    meta: [['reasoning_tokens', t.reasoning], ['cache_read_tokens', cache.read], ['cache_write_tokens', cache.write]],
  };
}

/** One call's parts → its answer and the tool messages that follow it. */
function callMessages(parts: readonly Obj[]): { answer: ChatMessage; results: ChatMessage[] } {
  const text: string[] = [];
  const reasoning: string[] = [];
  const calls: ToolCall[] = [];
  const results: ChatMessage[] = [];
  for (const p of parts) {
    if (p.type === 'text' && typeof p.text === 'string') text.push(p.text);
    else if (p.type === 'reasoning' && typeof p.text === 'string') reasoning.push(p.text);
    else if (p.type === 'tool') {
      const state = isObject(p.state) ? p.state : {};
      const id = str(p.callID) ?? str(p.id);
      const name = str(p.tool) ?? '';
      calls.push({ id, type: 'function', function: { name, arguments: normalizeArguments(state.input ?? {}) } });
      results.push({ role: 'tool', content: str(state.output) ?? str(state.error) ?? null, tool_call_id: id, name });
    }
  }
  const answer: ChatMessage = { role: 'assistant', content: text.length ? text.join('') : null };
  if (reasoning.length) answer.reasoning = reasoning.join('\n');
  if (calls.length) answer.tool_calls = calls;
  return { answer: splitInlineThink(answer), results };
}

function meta(pairs: [string, unknown][]): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const [k, v] of pairs) if (v !== null && v !== undefined && v !== '') out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  return Object.keys(out).length ? out : null;
}

function stepDraft(context: ChatMessage[], parts: Obj[], finish: Obj | null, extra: Partial<StepDraft> & { meta?: [string, unknown][] }): StepDraft {
  const { answer } = callMessages(parts);
  const u = usage(finish?.tokens);
  const reason = str(finish?.reason);
  return {
    messages: [...context],
    response: answer,
    finish_reason: reason === 'tool-calls' ? 'tool_calls' : reason ?? (answer.tool_calls?.length ? 'tool_calls' : 'stop'),
    prompt_tokens: u.prompt,
    completion_tokens: u.completion,
    ...extra,
    metadata: meta([['cost_usd', num(finish?.cost)], ['snapshot', finish?.snapshot], ...u.meta, ...(extra.meta ?? [])]),
  };
}

/** `opencode run --format json`: the steps in order, each prompted by the ones before. */
function runSteps(state: OpencodeState): TrajectoryDraft[] {
  const context: ChatMessage[] = [];
  const steps: StepDraft[] = [];
  for (const s of state.steps) {
    if (!s.parts.length && !s.finish) continue;
    const last = s.parts.at(-1);
    const time = isObject(last?.time) ? last.time : {};
    steps.push(stepDraft(context, s.parts, s.finish, { started_at: s.started, ended_at: timeMs(time.end), source_line: s.line, raw: redactedJson(s.parts), meta: [['prompt_missing', 'true']] }));
    const { answer, results } = callMessages(s.parts);
    context.push(answer, ...results);
  }
  if (!steps.length) return [];
  if (state.errors.length) {
    const last = steps[steps.length - 1];
    last.status = 'error';
    last.error = state.errors.join('; ');
  }
  return [{ trajectory_uid: state.session, prompt_uid: state.session ? `opencode:${state.session}` : null, common: { agent: 'opencode' }, steps }];
}

/** `opencode export`: every assistant message's steps, each prompted by the conversation before it. */
function exportSteps(doc: Obj, line: number): TrajectoryDraft | null {
  const info = doc.info as Obj;
  const context: ChatMessage[] = [];
  const steps: StepDraft[] = [];
  for (const m of doc.messages as Obj[]) {
    const mi = m.info as Obj;
    const parts = (m.parts as unknown[]).filter(isObject);
    if (mi.role !== 'assistant') {
      const text = parts.filter((p) => p.type === 'text').map((p) => p.text);
      const { content } = contentToText(text);
      if (content) context.push({ role: 'user', content });
      continue;
    }
    if (Array.isArray(mi.system) && !context.some((c) => c.role === 'system')) context.unshift({ role: 'system', content: mi.system.map(String).join('\n') });
    // a message holds one or more steps (calls), each opened by a step-start part
    const groups: Obj[][] = [];
    for (const p of parts) {
      if (p.type === 'step-start' || !groups.length) groups.push([]);
      if (p.type !== 'step-start') groups[groups.length - 1].push(p);
    }
    const model = str(mi.modelID);
    const time = isObject(mi.time) ? mi.time : {};
    const err = isObject(mi.error) ? mi.error : null;
    groups.forEach((g, i) => {
      const finish = g.find((p) => p.type === 'step-finish') ?? (groups.length === 1 ? { tokens: mi.tokens, cost: mi.cost, reason: mi.finish } : null);
      const calls = g.filter((p) => p.type !== 'step-finish' && p.type !== 'patch' && p.type !== 'snapshot');
      if (!calls.length && !finish) return;
      const failed = err !== null && i === groups.length - 1;
      steps.push(
        stepDraft(context, calls, finish, {
          model,
          provider: str(mi.providerID) ?? providerFromModel(model),
          started_at: i === 0 ? timeMs(time.created) : null,
          ended_at: i === groups.length - 1 ? timeMs(time.completed) : null,
          status: failed ? 'error' : 'ok',
          error: failed ? (str(isObject(err.data) ? err.data.message : null) ?? str(err.name) ?? 'the call failed') : null,
          source_line: line,
          raw: redactedJson({ info: mi, parts: g }),
          meta: [['message_id', mi.id], ['mode', mi.mode ?? mi.agent]],
        }),
      );
      const { answer, results } = callMessages(calls);
      context.push(answer, ...results);
    });
  }
  if (!steps.length) return null;
  return { trajectory_uid: str(info.id), common: { agent: 'opencode', metadata: meta([['session_title', info.title], ['directory', info.directory], ['parent_session', info.parentID]]) }, steps };
}

export const opencode = defineNormalizer<OpencodeState>({
  id: 'opencode',
  label: 'OpenCode (run --format json events, export)',
  detect: (sample) => scoreSample(sample, recordScore),
  createState: () => ({ session: null, steps: [], open: null, errors: [], exports: [], storage: 0, sessions: [], sessionOf: null, project: null, partner: null, seen: new Map(), repeats: 0 }),
  companions: {
    accepts: (sample) => sample.some(isStorageObject),
    pick: (_own, sample, siblings) => (isStorageSession(sample[0]) ? storageFilesOf(sample[0].id as string, siblings()) : []),
  },
  normalize(record, _ctx, state) {
    const v = record.value;
    if (isExport(v)) {
      const t = exportSteps(v, record.line);
      return t ? [t] : [];
    }
    if (isStorageSession(v)) {
      state.sessions.push({ v, line: record.line });
      return [];
    }
    if (isStorageObject(v)) {
      state.storage++;
      state.sessionOf ??= v.sessionID as string;
      return [];
    }
    if (isStorageProject(v)) {
      state.project = v.id as string;
      return [];
    }
    if (!isEvent(v)) throw new RecordError('not an OpenCode event: expected {type, sessionID, part}');
    state.session ??= str(v.sessionID);
    if (v.type === 'error') {
      const e = isObject(v.error) ? v.error : {};
      state.errors.push(str(isObject(e.data) ? e.data.message : null) ?? str(e.name) ?? 'error');
      return [];
    }
    const part = v.part as Obj;
    const again = typeof part.id === 'string' ? state.seen.get(part.id) : undefined;
    if (again) {
      if (again.at === 'finish') again.step.finish = part;
      else again.step.parts[again.at] = part;
      state.repeats++;
      return [];
    }
    if (v.type === 'step_start' || !state.open) {
      state.open = { parts: [], finish: null, line: record.line, started: timeMs(v.timestamp) };
      state.steps.push(state.open);
      if (v.type === 'step_start') return [];
    }
    const id = str(part.id);
    if (v.type === 'step_finish') {
      state.open.finish = part;
      if (id) state.seen.set(id, { step: state.open, at: 'finish' });
      state.open = null;
    } else {
      if (id) state.seen.set(id, { step: state.open, at: state.open.parts.length });
      state.open.parts.push(part);
    }
    return [];
  },
  flush: (ctx, state) => [...storageSteps(state, ctx), ...runSteps(state)],
  readWith(state, siblings) {
    // plain string tests: every message and part file of a large folder looks through all the others' names
    if (state.sessionOf) {
      const own = `${state.sessionOf}.json`;
      state.partner = siblings().find((f) => f === own || f.endsWith(`/${own}`) || f.endsWith(`\\${own}`)) ?? null;
    } else if (state.project) {
      const dir = `${state.project}/ses_`;
      state.partner = siblings().find((f) => f.includes(dir)) ?? null;
    }
    return state.partner;
  },
  notes(state) {
    const out: string[] = [];
    if (state.storage) {
      out.push(
        state.partner
          ? `an object of OpenCode's storage folder (a message or part): its session is read from ${state.partner}`
          : `${state.storage} record(s) are objects of OpenCode's storage folder (one message or part per file): import the storage folder (its session files read their messages and parts), or \`opencode export <session>\` output`,
      );
    }
    if (state.project) out.push("OpenCode's record of a project (project/<id>.json: its worktree): it holds no calls");
    if (state.repeats) out.push(`${state.repeats} event(s) sent a part again (same part id): the later copy replaced the earlier, no call counted twice`);
    return out;
  },
});

/** The storage folder's sessions: each session file with its messages and their parts, read as `opencode export` would write them. */
function storageSteps(state: OpencodeState, ctx: NormalizeContext): TrajectoryDraft[] {
  if (!state.sessions.length) return [];
  const objects = (ctx.companions ?? []).flatMap((c) => c.records).filter(isStorageObject);
  const byId = (a: Obj, b: Obj) => (String(a.id) < String(b.id) ? -1 : String(a.id) > String(b.id) ? 1 : 0);
  const created = (m: Obj) => (isObject(m.time) ? (num(m.time.created) ?? 0) : 0);
  const out: TrajectoryDraft[] = [];
  for (const { v, line } of state.sessions) {
    const mine = objects.filter((o) => o.sessionID === v.id);
    const messages = mine.filter((o) => String(o.id).startsWith('msg_')).sort((a, b) => created(a) - created(b) || byId(a, b));
    const parts = mine.filter((o) => String(o.id).startsWith('prt_')).sort(byId);
    const doc = { info: v, messages: messages.map((m) => ({ info: m, parts: parts.filter((p) => p.messageID === m.id) })) };
    const t = exportSteps(doc, line);
    if (t) out.push(t);
  }
  return out;
}
