/**
 * Gemini CLI chat recordings (`~/.gemini/tmp/<project>/chats/session-*.json`, also written by its forks): the older
 * layout is one JSON document `{sessionId, projectHash, startTime, lastUpdated, messages}`, the newer one JSON Lines
 * (a `{sessionId, projectHash, startTime, kind}` header, one line per message, `{$set: …}` updates, `{$rewindTo: id}`).
 * Every `type: "gemini"` message is one model call: `content` its text, `thoughts` its reasoning, `toolCalls[]` its
 * function calls with their results (google-genai `functionResponse` Parts, read by `wire/gemini`: the tool messages of
 * the calls after it), `tokens` its usage, `model`. A message
 * written again with the same `id` (its tool calls finished) replaces the earlier copy. A call's prompt is the
 * conversation before it: the user's messages, earlier answers and tool results (`info` / `error` / `warning` lines
 * are the CLI's own notices, not conversation). A rewind drops the messages from its id on from the prompts after it;
 * the calls made before it stay steps. Neither the system prompt nor the tool definitions are in the file.
 */
import { defineNormalizer, RecordError } from '../normalizer';
import { redactedJson } from '../redact';
import type { ChatMessage, StepDraft, ToolCall, TrajectoryDraft } from '../../contract/step';
import { int, isObject, type Obj, str, timeMs } from '../../contract/json';
import { normalizeArguments, splitInlineThink } from '../../contract/message';
import { geminiContent } from '../../wire/gemini';
import { scoreSample } from './score';

const NOTICES = new Set(['info', 'error', 'warning']);

interface Call {
  id: string;
  v: Obj;
  line: number;
  context: ChatMessage[];
}

export interface GeminiCliState {
  header: Obj | null;
  /** The conversation so far, in order (message id → its chat messages). */
  conversation: { id: string; messages: ChatMessage[] }[];
  calls: Map<string, Call>;
}

const isHeaderLike = (v: Obj) => typeof v.sessionId === 'string' && typeof v.projectHash === 'string';
/** The model's messages: `gemini`, or its forks' own name for them (IBM Bob Shell writes `bob-shell`) with the model's fields. */
const isModelMessage = (v: Obj) =>
  v.type === 'gemini' ||
  (typeof v.type === 'string' && v.type !== 'user' && !NOTICES.has(v.type) && typeof v.timestamp === 'string' && !('role' in v) && ('tokens' in v || 'toolCalls' in v || 'thoughts' in v));
const isMessage = (v: unknown): v is Obj =>
  isObject(v) && typeof v.id === 'string' && (v.type === 'user' || NOTICES.has(v.type as string) || isModelMessage(v)) && 'content' in v;

function recordScore(v: unknown): number | null {
  if (!isObject(v)) return 0;
  if (isHeaderLike(v)) return Array.isArray(v.messages) ? (v.messages.some((m) => isMessage(m) && isModelMessage(m)) ? 0.99 : 0.6) : 0.97;
  if (isObject(v.$set) || typeof v.$rewindTo === 'string') return 0.95;
  if (!isMessage(v)) return 0;
  if (isModelMessage(v)) return 0.97;
  // a user line alone looks like many chat logs: no opinion
  return typeof v.timestamp === 'string' ? null : 0;
}

/** A thought summary as Gemini writes it: `**Subject**` then the description. */
function thoughtText(t: unknown): string {
  if (!isObject(t)) return str(t) ?? '';
  const subject = str(t.subject);
  const description = str(t.description) ?? '';
  return subject ? `**${subject}**\n\n${description}`.trim() : description;
}

/**
 * Thought summaries without the snapshots some forks write while one streams (Bob Shell keeps every growing prefix of
 * a thought as its own entry): an entry the next one of the same subject repeats and extends is left out.
 */
function thoughtTexts(thoughts: unknown): string[] {
  const list = Array.isArray(thoughts) ? thoughts : [];
  const kept = list.filter((t, i) => {
    const next = list[i + 1];
    if (!isObject(t) || !isObject(next)) return true;
    return !(str(t.subject) === str(next.subject) && (str(next.description) ?? '').startsWith(str(t.description) ?? ''));
  });
  return kept.map(thoughtText).filter(Boolean);
}

/** `content` as a Part list: Gemini CLI writes a string or google-genai Parts. */
const partsOf = (content: unknown): unknown[] => (Array.isArray(content) ? content : typeof content === 'string' && content ? [{ text: content }] : []);

/** A gemini message → its answer and the tool results that followed it (each tool call's `result` Parts, read by the wire layer). */
function geminiMessages(v: Obj): { answer: ChatMessage; results: ChatMessage[] } {
  const [read] = geminiContent({ role: 'model', parts: partsOf(v.content) }, 'assistant');
  const calls: ToolCall[] = [];
  const results: ChatMessage[] = [];
  const answered = new Set<string>();
  for (const tc of Array.isArray(v.toolCalls) ? v.toolCalls : []) {
    if (!isObject(tc) || !str(tc.name)) continue;
    const call: ToolCall = { id: str(tc.id), type: 'function', function: { name: str(tc.name) as string, arguments: normalizeArguments(tc.args ?? {}) } };
    calls.push(call);
    let back = Array.isArray(tc.result) ? geminiContent({ role: 'user', parts: tc.result }, 'user', { calls: [call] }).filter((m) => m.role === 'tool') : [];
    // newer versions give every call of a batch the whole batch's responses: a call keeps the one with its id, once
    if (call.id && back.some((m) => m.tool_call_id === call.id)) back = back.filter((m) => m.tool_call_id === call.id);
    back = back.filter((m) => !m.tool_call_id || !answered.has(m.tool_call_id));
    for (const m of back) if (m.tool_call_id) answered.add(m.tool_call_id);
    // a call whose result was not kept: what the CLI displayed of it
    if (!back.length && !(call.id && answered.has(call.id))) back = [{ role: 'tool', content: str(tc.resultDisplay), tool_call_id: call.id, name: call.function.name }];
    results.push(...back);
  }
  const thoughts = thoughtTexts(v.thoughts);
  // forks write the model's inline <thinking> into content: it is reasoning (the same as thoughts[] when both are kept)
  const said = splitInlineThink({ role: 'assistant', content: read?.content ? read.content : null });
  const answer: ChatMessage = { role: 'assistant', content: said.content };
  // newer versions also keep the thought summaries as `thought` Parts of `content`: the same text, said once
  const reasoning = (thoughts.length ? thoughts : [read?.reasoning, said.reasoning].filter((x): x is string => !!x)).join('\n\n');
  if (reasoning) answer.reasoning = reasoning;
  if (calls.length) answer.tool_calls = calls;
  if (Array.isArray(v.content)) answer.parts = JSON.stringify(v.content);
  return { answer, results };
}

/** A user message: its Parts (text, and `functionResponse`s answering the calls still open) as chat messages. */
function userMessages(v: Obj, open: ToolCall[]): ChatMessage[] {
  return geminiContent({ role: 'user', parts: partsOf(v.content) }, 'user', { calls: [...open] });
}

function addMessage(state: GeminiCliState, v: Obj, line: number): void {
  const id = v.id as string;
  if (isModelMessage(v)) {
    const known = state.calls.get(id);
    if (known) {
      // the same message written again (its tool calls finished): the later copy wins
      known.v = v;
      const { answer, results } = geminiMessages(v);
      const slot = state.conversation.find((c) => c.id === id);
      if (slot) slot.messages = [answer, ...results];
      return;
    }
    state.calls.set(id, { id, v, line, context: state.conversation.flatMap((c) => c.messages) });
    const { answer, results } = geminiMessages(v);
    state.conversation.push({ id, messages: [answer, ...results] });
    return;
  }
  if (v.type !== 'user' || state.conversation.some((c) => c.id === id)) return;
  const all = state.conversation.flatMap((c) => c.messages);
  let msgs = userMessages(v, all.flatMap((m) => m.tool_calls ?? []));
  // results the call's own toolCalls already gave back are not said twice
  const answered = new Set(all.map((m) => m.tool_call_id ?? (m.role === 'tool' ? m.name : null)));
  msgs = msgs.filter((m) => m.role !== 'tool' || !answered.has(m.tool_call_id ?? m.name ?? null));
  if (msgs.length) state.conversation.push({ id, messages: msgs });
}

function build(state: GeminiCliState): TrajectoryDraft[] {
  const header = state.header ?? {};
  const steps: StepDraft[] = [];
  for (const call of state.calls.values()) {
    const v = call.v;
    const { answer } = geminiMessages(v);
    const tokens = isObject(v.tokens) ? v.tokens : {};
    const input = int(tokens.input);
    const output = int(tokens.output);
    const meta: Record<string, string> = {};
    for (const [k, x] of [
      ['message_id', v.id], ['cached_tokens', tokens.cached], ['thoughts_tokens', tokens.thoughts], ['tool_tokens', tokens.tool], ['total_tokens', tokens.total],
      ['project_hash', header.projectHash], ['kind', header.kind], ['session_summary', header.summary],
    ] as const)
      if (x !== null && x !== undefined && x !== '') meta[k] = String(x);
    const failed = Array.isArray(v.toolCalls) ? v.toolCalls.filter((t) => isObject(t) && t.status === 'error').length : 0;
    if (failed) meta.tool_errors = String(failed);
    steps.push({
      messages: call.context,
      response: answer,
      model: str(v.model),
      provider: 'google',
      finish_reason: answer.tool_calls?.length ? 'tool_calls' : 'stop',
      prompt_tokens: input === null ? null : input + (int(tokens.tool) ?? 0),
      completion_tokens: output === null ? null : output + (int(tokens.thoughts) ?? 0),
      ended_at: timeMs(v.timestamp),
      metadata: meta,
      source_line: call.line,
      raw: redactedJson(v),
    });
  }
  if (!steps.length) return [];
  // a fork names its model messages after itself (`bob-shell`): that is the agent
  const fork = [...state.calls.values()].map((c) => str(c.v.type)).find((t) => t && t !== 'gemini');
  return [{ trajectory_uid: str(header.sessionId), common: { agent: fork ?? 'gemini-cli' }, steps }];
}

export const geminiCli = defineNormalizer<GeminiCliState>({
  id: 'gemini-cli',
  label: 'Gemini CLI chat recording',
  detect: (sample) => scoreSample(sample, recordScore),
  createState: () => ({ header: null, conversation: [], calls: new Map() }),
  normalize(record, _ctx, state) {
    const v = record.value;
    if (!isObject(v)) throw new RecordError('expected a Gemini CLI chat record (an object)');
    if (isHeaderLike(v)) {
      state.header ??= v;
      if (Array.isArray(v.messages)) for (const m of v.messages) if (isMessage(m)) addMessage(state, m, record.line);
      return [];
    }
    if (isObject(v.$set)) {
      const set = v.$set;
      if (state.header) Object.assign(state.header, Object.fromEntries(Object.entries(set).filter(([k]) => k !== 'messages')));
      if (Array.isArray(set.messages)) for (const m of set.messages) if (isMessage(m)) addMessage(state, m, record.line);
      return [];
    }
    if (typeof v.$rewindTo === 'string') {
      const at = state.conversation.findIndex((c) => c.id === v.$rewindTo);
      if (at >= 0) state.conversation.length = at;
      return [];
    }
    if (!isMessage(v)) throw new RecordError('not a Gemini CLI message: expected {id, timestamp, type, content}');
    addMessage(state, v, record.line);
    return [];
  },
  flush: (_ctx, state) => build(state),
});
