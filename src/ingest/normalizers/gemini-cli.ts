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
 *
 * Also `gemini -p … --output-format stream-json` (one event a line: `init` with the session and model, `message` of the
 * user or the model — the model's in `delta` pieces —, `tool_use`, `tool_result`, `result` with the run's totals): a
 * call is the model's text and tool uses up to the results they wait for; the prompt is the user's message and what
 * came before. The stream gives usage only for the whole run (in metadata), not per call.
 */
import { defineNormalizer, RecordError } from '../normalizer';
import { redactedJson } from '../../record/redact';
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

interface StreamCall {
  text: string[];
  calls: ToolCall[];
  line: number;
  started: number | null;
  ended: number | null;
  context: ChatMessage[];
}

export interface GeminiCliState {
  header: Obj | null;
  /** The conversation so far, in order (message id → its chat messages). */
  conversation: { id: string; messages: ChatMessage[] }[];
  calls: Map<string, Call>;
  /** `--output-format stream-json`: the run's events read so far. */
  stream: { init: Obj | null; result: Obj | null; context: ChatMessage[]; results: ChatMessage[]; open: StreamCall | null; done: StreamCall[]; errors: string[] };
}

const STREAM_TYPES = new Set(['init', 'message', 'tool_use', 'tool_result', 'result', 'error']);
/** A stream-json event: typed, timestamped, no message id (a chat recording's lines have one). */
const isStreamEvent = (v: Obj) => STREAM_TYPES.has(v.type as string) && typeof v.timestamp === 'string' && !('id' in v) && !('part' in v) && !('message' in v);

function streamScore(v: Obj): number | null {
  if (!isStreamEvent(v)) return 0;
  if (v.type === 'init') return typeof v.session_id === 'string' && typeof v.model === 'string' ? 0.95 : 0;
  if (v.type === 'tool_use') return typeof v.tool_name === 'string' && typeof v.tool_id === 'string' ? 0.95 : 0;
  if (v.type === 'tool_result') return typeof v.tool_id === 'string' && typeof v.status === 'string' ? 0.95 : 0;
  if (v.type === 'result') return isObject(v.stats) ? 0.9 : 0;
  if (v.type === 'message') return (v.role === 'user' || v.role === 'assistant') && typeof v.content === 'string' ? null : 0;
  return null;
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
  if (isStreamEvent(v)) return streamScore(v);
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
  createState: () => ({ header: null, conversation: [], calls: new Map(), stream: { init: null, result: null, context: [], results: [], open: null, done: [], errors: [] } }),
  normalize(record, _ctx, state) {
    const v = record.value;
    if (!isObject(v)) throw new RecordError('expected a Gemini CLI chat record (an object)');
    if (isStreamEvent(v)) {
      streamEvent(state.stream, v, record.line);
      return [];
    }
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
  flush: (_ctx, state) => [...build(state), ...streamSteps(state.stream)],
});

type StreamState = GeminiCliState['stream'];

/** The call being read; a new one once the results of the last have come back. */
function openCall(s: StreamState, line: number, at: number | null): StreamCall {
  if (s.open && s.results.length) closeCall(s);
  if (!s.open) {
    s.context.push(...s.results);
    s.results = [];
    s.open = { text: [], calls: [], line, started: at, ended: at, context: [...s.context] };
  }
  return s.open;
}

function closeCall(s: StreamState): void {
  const c = s.open;
  s.open = null;
  if (!c) return;
  s.done.push(c);
  s.context.push(streamAnswer(c));
}

function streamAnswer(c: StreamCall): ChatMessage {
  const answer: ChatMessage = { role: 'assistant', content: c.text.length ? c.text.join('') : null };
  if (c.calls.length) answer.tool_calls = c.calls;
  return splitInlineThink(answer);
}

function streamEvent(s: StreamState, v: Obj, line: number): void {
  const at = timeMs(v.timestamp);
  if (v.type === 'init') s.init ??= v;
  else if (v.type === 'result') s.result = v;
  else if (v.type === 'error') s.errors.push(str(v.message) ?? str(v.error) ?? 'error');
  else if (v.type === 'message' && v.role === 'user') {
    closeCall(s);
    s.context.push(...s.results, { role: 'user', content: str(v.content) });
    s.results = [];
  } else if (v.type === 'message' && v.role === 'assistant') {
    const c = openCall(s, line, at);
    c.text.push(str(v.content) ?? '');
    c.ended = at;
  } else if (v.type === 'tool_use') {
    const c = openCall(s, line, at);
    c.calls.push({ id: str(v.tool_id), type: 'function', function: { name: str(v.tool_name) ?? '', arguments: normalizeArguments(v.parameters ?? {}) } });
    c.ended = at;
  } else if (v.type === 'tool_result') {
    const err = isObject(v.error) ? (str(v.error.message) ?? JSON.stringify(v.error)) : str(v.error);
    // a failed tool's output is empty and its error says what happened
    const m: ChatMessage = { role: 'tool', content: str(v.output) || err, tool_call_id: str(v.tool_id) };
    if (v.status === 'error') m.is_error = true;
    s.results.push(m);
  }
}

function streamSteps(s: StreamState): TrajectoryDraft[] {
  closeCall(s);
  if (!s.done.length) return [];
  const stats = isObject(s.result?.stats) ? s.result.stats : {};
  const run: Record<string, string> = {};
  for (const [k, x] of [['run_input_tokens', stats.input_tokens], ['run_output_tokens', stats.output_tokens], ['run_total_tokens', stats.total_tokens], ['run_duration_ms', stats.duration_ms], ['run_status', s.result?.status]] as const)
    if (x !== undefined && x !== null) run[k] = String(x);
  const model = str(s.init?.model);
  const steps: StepDraft[] = s.done.map((c, i) => {
    const answer = streamAnswer(c);
    const failed = i === s.done.length - 1 && (s.errors.length > 0 || (s.result !== null && s.result.status === 'error'));
    return {
      messages: c.context,
      response: answer,
      model,
      provider: 'google',
      finish_reason: answer.tool_calls?.length ? 'tool_calls' : 'stop',
      started_at: c.started,
      ended_at: c.ended,
      status: failed ? 'error' : 'ok',
      error: failed ? s.errors.join('; ') || 'the run ended with an error' : null,
      metadata: Object.keys(run).length ? run : null,
      source_line: c.line,
      raw: redactedJson({ text: c.text, calls: c.calls }),
    };
  });
  return [{ trajectory_uid: str(s.init?.session_id), common: { agent: 'gemini-cli' }, steps }];
}
