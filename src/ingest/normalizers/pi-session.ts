/**
 * Session files of one header line and message lines: Pi's sessions (`~/.pi/agent/sessions/--<path>--/<time>_<uuid>.jsonl`,
 * a `{type: "session", version, id, cwd}` header, entries chained by `id` / `parentId`) and the Hugging Face Hub's
 * Session Trace Simple Format (`{type: "session", harness, id}` then `{type: "message", message: {role, content,
 * reasoningContent, toolCalls, toolCallId}}`, in order). Each assistant message is one LLM call; its prompt is the
 * conversation on its branch before it (Pi: the `parentId` path from the root, a `compaction` on it replacing what it
 * summarised; STS: every message before it). Pi's assistant messages carry model, usage with cost and `stopReason`
 * (`aborted` / `error` make the step an error); `model_change` lines set the model of the calls after them.
 */
import { defineNormalizer, RecordError } from '../normalizer';
import type { ChatMessage, StepDraft, ToolCall, TrajectoryDraft } from '../../contract/step';
import { int, isObject, num, type Obj, str, timeMs } from '../../contract/json';
import { contentToText, normalizeArguments, splitInlineThink } from '../../contract/message';
import { providerFromModel } from '../chat-steps';
import { redactedJson } from '../../record/redact';
import { scoreSample } from './score';

const PI_ENTRY_TYPES = new Set([
  'message', 'model_change', 'thinking_level_change', 'compaction', 'branch_summary', 'custom', 'custom_message', 'label', 'session_info', 'usage', 'context_edit',
]);
const PI_ROLES = new Set(['user', 'assistant', 'toolResult', 'bashExecution', 'custom', 'branchSummary', 'compactionSummary', 'hookMessage', 'system']);
const FINISH: Record<string, string> = { stop: 'stop', length: 'length', toolUse: 'tool_calls', error: 'error', aborted: 'error' };

interface Line {
  v: Obj;
  line: number;
}

export interface SessionLinesState {
  header: Obj | null;
  lines: Line[];
}

const isHeader = (v: Obj) => v.type === 'session' && typeof v.id === 'string';
/** Pi's header: a version or a cwd; the STS header names the harness instead. */
const isPiHeader = (v: Obj) => isHeader(v) && ('version' in v || 'cwd' in v) && v.harness === undefined;
const isStsHeader = (v: Obj) => isHeader(v) && typeof v.harness === 'string' && !('version' in v);

function piScore(v: unknown): number | null {
  if (!isObject(v) || typeof v.type !== 'string') return 0;
  if (isPiHeader(v)) return 0.99;
  if (!PI_ENTRY_TYPES.has(v.type) || typeof v.id !== 'string' || !('parentId' in v)) return v.type === 'session' ? null : 0;
  if (v.type !== 'message') return 0.9;
  return isObject(v.message) && PI_ROLES.has(v.message.role as string) ? 0.97 : 0;
}

function stsScore(v: unknown): number | null {
  if (!isObject(v) || typeof v.type !== 'string') return 0;
  if (isStsHeader(v)) return 0.99;
  if (v.type !== 'message' || !isObject(v.message) || 'id' in v || 'parentId' in v) return v.type === 'session' ? null : 0;
  const m = v.message;
  return ['user', 'assistant', 'system', 'tool'].includes(m.role as string) && 'content' in m ? 0.9 : 0;
}

/** A Pi assistant message's content parts: text, thinking, toolCall. */
function piAssistant(m: Obj): ChatMessage {
  const text: string[] = [];
  const thinking: string[] = [];
  const calls: ToolCall[] = [];
  const parts = Array.isArray(m.content) ? m.content : [m.content];
  for (const p of parts) {
    if (typeof p === 'string') text.push(p);
    else if (isObject(p)) {
      if (p.type === 'text') text.push(str(p.text) ?? '');
      else if (p.type === 'thinking') thinking.push(str(p.thinking) ?? '');
      else if (p.type === 'toolCall') calls.push({ id: str(p.id), type: 'function', function: { name: str(p.name) ?? '', arguments: normalizeArguments(p.arguments) } });
    }
  }
  const msg: ChatMessage = { role: 'assistant', content: text.length ? text.join('') : null };
  if (thinking.length) msg.reasoning = thinking.join('\n');
  if (calls.length) msg.tool_calls = calls;
  if (Array.isArray(m.content)) msg.parts = JSON.stringify(m.content);
  return splitInlineThink(msg);
}

/** A Pi message as the model saw it (null for what is not sent to it). */
function piMessage(m: Obj): ChatMessage | null {
  switch (m.role) {
    case 'assistant':
      return piAssistant(m);
    case 'toolResult': {
      const { content, parts } = contentToText(m.content);
      return { role: 'tool', content, tool_call_id: str(m.toolCallId), name: str(m.toolName), parts };
    }
    case 'bashExecution':
      // a command the user ran with `!`; `!!` commands are kept out of the context
      if (m.excludeFromContext === true) return null;
      return { role: 'user', content: `${str(m.command) ?? ''}\n${str(m.output) ?? ''}`.trim(), name: 'bash' };
    case 'branchSummary':
    case 'compactionSummary':
      return { role: 'user', content: str(m.summary) };
    case 'system': {
      // newer sessions journal the system prompt: `content`, or its named `sections`; one that only declares tools says nothing
      const content = contentToText(m.content).content || (isObject(m.sections) ? Object.values(m.sections).map(String).join('\n\n') : '');
      return content ? { role: 'system', content } : null;
    }
    default: {
      const { content, parts } = contentToText(m.content);
      return { role: 'user', content, ...(parts ? { parts } : {}) };
    }
  }
}

function stsMessage(m: Obj): ChatMessage {
  const role = str(m.role) ?? 'user';
  const msg: ChatMessage = { role, content: contentToText(m.content).content };
  const reasoning = str(m.reasoningContent);
  if (reasoning) msg.reasoning = reasoning;
  if (Array.isArray(m.toolCalls)) {
    const calls = m.toolCalls.filter(isObject).map((c): ToolCall => {
      const fn = isObject(c.function) ? c.function : c;
      return { id: str(c.id), type: 'function', function: { name: str(fn.name) ?? '', arguments: normalizeArguments(fn.arguments) } };
    });
    if (calls.length) msg.tool_calls = calls;
  }
  if (m.toolCallId !== undefined) msg.tool_call_id = str(m.toolCallId);
  return role === 'assistant' ? splitInlineThink(msg) : msg;
}

/** Pi: the entries from the root to `id` along `parentId`. */
function pathTo(id: string | null, byId: Map<string, Line>): Line[] {
  const out: Line[] = [];
  const seen = new Set<string>();
  for (let cur = id; cur && !seen.has(cur); ) {
    seen.add(cur);
    const e = byId.get(cur);
    if (!e) break;
    out.push(e);
    cur = str(e.v.parentId);
  }
  return out.reverse();
}

/**
 * The context a call on this path saw: after the last compaction, its summary then the entries from `firstKeptEntryId`
 * (its `systemMessage`, when it has one, leads and replaces the system messages among them); `context_edit` entries on
 * the path omit or replace the content of the entries they target.
 */
function piContext(path: Line[]): { messages: ChatMessage[]; compacted: boolean; tools: Obj[] } {
  const edits = new Map<string, unknown>();
  for (const e of path) if (e.v.type === 'context_edit' && typeof e.v.targetId === 'string') edits.set(e.v.targetId, e.v.replacement ?? null);
  for (let i = path.length - 1; i >= 0; i--) {
    const v = path[i].v;
    if (v.type !== 'compaction') continue;
    const kept = str(v.firstKeptEntryId);
    const k = kept ? path.findIndex((e) => e.v.id === kept) : -1;
    // the kept entries come before the compaction line: the summary, them, then what follows it
    const head = k >= 0 && k < i ? path.slice(k, i) : [];
    const sys = isObject(v.systemMessage) ? v.systemMessage : null;
    const rest = [...head, ...path.slice(i + 1)];
    const lead = sys ? [piMessage(sys)].filter((m): m is ChatMessage => !!m) : [];
    const messages = messagesOf(sys ? rest.filter((e) => !(isObject(e.v.message) && e.v.message.role === 'system')) : rest, edits);
    return { messages: [...lead, { role: 'user', content: str(v.summary) }, ...messages], compacted: true, tools: toolsOf(sys ? [sys, ...systemsOf(path.slice(i + 1))] : systemsOf(path)) };
  }
  return { messages: messagesOf(path, edits), compacted: false, tools: toolsOf(systemsOf(path)) };
}

const systemsOf = (entries: Line[]): Obj[] => entries.map((e) => e.v.message).filter((m): m is Obj => isObject(m) && m.role === 'system');

/** The tools declared so far: each system message adds (`toolsAdded`, by name) and removes (`toolsRemoved: [{name}]`). */
function toolsOf(systems: Obj[]): Obj[] {
  const tools = new Map<string, Obj>();
  for (const m of systems) {
    for (const t of Array.isArray(m.toolsAdded) ? m.toolsAdded : []) if (isObject(t) && typeof t.name === 'string') tools.set(t.name, t);
    for (const t of Array.isArray(m.toolsRemoved) ? m.toolsRemoved : []) if (isObject(t) && typeof t.name === 'string') tools.delete(t.name);
  }
  return [...tools.values()].map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
}

function messagesOf(entries: Line[], edits: Map<string, unknown> = new Map()): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const e of entries) {
    let v = e.v;
    const id = str(v.id);
    if (id && edits.has(id)) {
      const r = edits.get(id);
      if (!isObject(r)) continue; // replacement null: left out of the context from the edit on
      v = v.type === 'message' && isObject(v.message) ? { ...v, message: { ...v.message, content: r.content } } : { ...v, content: r.content };
    }
    if (v.type === 'message' && isObject(v.message)) {
      // pi-ai leaves failed and aborted responses out of the next request
      if (v.message.role === 'assistant' && (v.message.stopReason === 'error' || v.message.stopReason === 'aborted')) continue;
      const m = piMessage(v.message);
      if (m) out.push(m);
    } else if (v.type === 'custom_message') {
      const { content } = contentToText(v.content);
      out.push({ role: 'user', content });
    } else if (v.type === 'branch_summary') out.push({ role: 'user', content: str(v.summary) });
  }
  return out;
}

function piSteps(state: SessionLinesState): TrajectoryDraft[] {
  const byId = new Map<string, Line>();
  for (const l of state.lines) if (typeof l.v.id === 'string') byId.set(l.v.id, l);
  const header = state.header ?? {};
  const steps: StepDraft[] = [];
  let model: string | null = null;
  let provider: string | null = null;
  let thinking: string | null = null;
  for (const l of state.lines) {
    const v = l.v;
    if (v.type === 'model_change') {
      model = str(v.modelId);
      provider = str(v.provider);
      continue;
    }
    if (v.type === 'thinking_level_change') thinking = str(v.thinkingLevel);
    if (v.type !== 'message' || !isObject(v.message) || v.message.role !== 'assistant') continue;
    const m = v.message;
    const { messages, compacted, tools } = piContext(pathTo(str(v.parentId), byId));
    const usage = isObject(m.usage) ? m.usage : {};
    const cost = isObject(usage.cost) ? num(usage.cost.total) : null;
    const input = int(usage.input);
    const stop = str(m.stopReason);
    const failed = stop === 'error' || stop === 'aborted';
    const meta: Record<string, string> = {};
    for (const [k, x] of [
      ['entry_id', v.id], ['api', m.api], ['stop_reason', stop], ['cache_read_tokens', usage.cacheRead], ['cache_write_tokens', usage.cacheWrite],
      ['cost_usd', cost], ['thinking_level', thinking], ['compacted', compacted ? 'true' : null], ['cwd', header.cwd],
    ] as const)
      if (x !== null && x !== undefined) meta[k] = String(x);
    const stepModel = str(m.model) ?? model;
    steps.push({
      messages,
      tools: tools.length ? JSON.stringify(tools) : null,
      response: piAssistant(m),
      model: stepModel,
      provider: str(m.provider) ?? provider ?? providerFromModel(stepModel),
      finish_reason: stop ? (FINISH[stop] ?? stop) : null,
      prompt_tokens: input === null ? null : input + (int(usage.cacheRead) ?? 0) + (int(usage.cacheWrite) ?? 0),
      completion_tokens: int(usage.output),
      ended_at: timeMs(m.timestamp) ?? timeMs(v.timestamp),
      status: failed ? 'error' : 'ok',
      error: failed ? (str(m.errorMessage) ?? (stop === 'aborted' ? 'the request was aborted' : 'the request failed')) : null,
      metadata: Object.keys(meta).length ? meta : null,
      source_line: l.line,
      raw: redactedJson(v),
    });
  }
  if (!steps.length) return [];
  return [{ trajectory_uid: str(header.id), common: { agent: 'pi' }, steps }];
}

function stsSteps(state: SessionLinesState): TrajectoryDraft[] {
  const header = state.header ?? {};
  const context: ChatMessage[] = [];
  const steps: StepDraft[] = [];
  for (const l of state.lines) {
    if (!isObject(l.v.message)) continue;
    const m = l.v.message;
    const msg = stsMessage(m);
    if (msg.role === 'assistant') {
      const model = str(m.model);
      steps.push({
        messages: [...context],
        response: msg,
        model,
        provider: providerFromModel(model),
        finish_reason: msg.tool_calls?.length ? 'tool_calls' : 'stop',
        ended_at: timeMs(m.timestamp),
        source_line: l.line,
        raw: redactedJson(l.v),
      });
    }
    context.push(msg);
  }
  if (!steps.length) return [];
  const meta: Record<string, string> = {};
  for (const [k, x] of [['harness', header.harness], ['session_name', header.name]] as const) if (typeof x === 'string') meta[k] = x;
  return [{ trajectory_uid: str(header.id), common: { agent: str(header.harness), metadata: Object.keys(meta).length ? meta : null }, steps }];
}

function collect(record: { value: unknown; line: number }, state: SessionLinesState, what: string): [] {
  const v = record.value;
  if (!isObject(v) || typeof v.type !== 'string') throw new RecordError(`expected a ${what} line with a "type"`);
  if (v.type === 'session') state.header ??= v;
  else state.lines.push({ v, line: record.line });
  return [];
}

export const piSession = defineNormalizer<SessionLinesState>({
  id: 'pi',
  label: 'Pi agent session (JSONL)',
  detect: (sample) => scoreSample(sample, piScore),
  createState: () => ({ header: null, lines: [] }),
  normalize: (record, _ctx, state) => collect(record, state, 'Pi session'),
  flush: (_ctx, state) => piSteps(state),
});

export const sessionTrace = defineNormalizer<SessionLinesState>({
  id: 'session-trace',
  label: 'Session Trace Simple Format (Hugging Face Hub)',
  detect: (sample) => scoreSample(sample, stsScore),
  createState: () => ({ header: null, lines: [] }),
  normalize: (record, _ctx, state) => collect(record, state, 'session trace'),
  flush: (_ctx, state) => stsSteps(state),
});
