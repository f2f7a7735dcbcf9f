/**
 * Codex CLI rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`): `{timestamp, type, payload}`
 * lines — `session_meta`, `turn_context`, `response_item` (Responses API items), `event_msg`
 * (`token_count` …), `compacted`. Each model call is one step: the run of model-output items
 * (reasoning, message, function/custom/shell calls) between two inputs, closed by the `token_count`
 * event that reports its usage. Its prompt is every item before it. Tool definitions are not in the file.
 */
import { defineNormalizer, RecordError } from '../normalizer';
import { redactSecrets } from '../../record/redact';
import type { ChatMessage, StepDraft } from '../../contract/step';
import { int, isObject, type Obj, str, timeMs } from '../../contract/json';
import { encryptedReasoning, itemsToMessages, mergeAssistant } from '../../wire/openai-responses';
import { scoreSample } from './score';

const LINE_TYPES = new Set(['session_meta', 'turn_context', 'response_item', 'event_msg', 'compacted']);
const OUTPUT_TYPES = new Set(['reasoning', 'function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call']);
const INPUT_TYPES = new Set(['function_call_output', 'custom_tool_call_output', 'local_shell_call_output']);

interface Run {
  items: Obj[];
  prompt: Obj[];
  line: number;
  started: number | null;
  ended: number | null;
  usage: Obj | null;
  model: string | null;
  turn: Obj;
  raw: unknown[];
}

export interface CodexState {
  meta: Obj;
  turn: Obj;
  context: Obj[];
  run: Run | null;
  steps: StepDraft[];
  compacted: number;
}

function recordScore(v: unknown): number | null {
  if (!isObject(v) || !LINE_TYPES.has(v.type as string)) return 0;
  if (!isObject(v.payload) && v.type !== 'compacted') return 0;
  if (v.type === 'session_meta') return 0.99;
  return typeof v.timestamp === 'string' ? 0.95 : 0.8;
}

/** Model output: reasoning, calls, and assistant messages (only message items have a role). */
function isOutput(item: Obj): boolean {
  return OUTPUT_TYPES.has(item.type as string) || item.role === 'assistant';
}

/** Shell and web-search calls in the function-call shape `itemsToMessages` reads (it reads freeform `custom_tool_call` items and their outputs itself). */
function asCallItem(item: Obj): Obj {
  if (item.type === 'local_shell_call') return { type: 'function_call', name: 'local_shell', arguments: JSON.stringify(item.action ?? {}), call_id: item.call_id ?? item.id };
  if (item.type === 'local_shell_call_output') return { type: 'function_call_output', call_id: item.call_id, output: item.output };
  if (item.type === 'web_search_call') return { type: 'function_call', name: 'web_search', arguments: JSON.stringify(item.action ?? {}), call_id: item.id };
  return item;
}

/** Items → chat messages; a freeform call's input is kept as a JSON string so arguments stay JSON text. */
function toMessages(items: Obj[]): ChatMessage[] {
  const freeform = new Map<string, string>();
  for (const it of items) if (it.type === 'custom_tool_call') freeform.set(str(it.call_id ?? it.id) ?? '', str(it.input) ?? '');
  const out = itemsToMessages(items.map(asCallItem));
  for (const m of out)
    for (const c of m.tool_calls ?? []) {
      const input = freeform.get(c.id ?? '');
      if (input !== undefined) c.function.arguments = JSON.stringify(input);
    }
  return out;
}

function responseOf(items: Obj[]): ChatMessage | null {
  return mergeAssistant(toMessages(items)); // a run holds model output only: every message is the assistant's
}

function systemOf(meta: Obj): ChatMessage[] {
  const bi = meta.base_instructions;
  const text = isObject(bi) ? str(bi.text) : str(bi);
  return text ? [{ role: 'system', content: text }] : [];
}

function meta(pairs: [string, unknown][]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of pairs) if (v !== undefined && v !== null && v !== '') out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  return out;
}

function close(st: CodexState): void {
  const r = st.run;
  if (!r) return;
  st.run = null;
  const response = responseOf(r.items)!; // a run has at least one output item, and each makes an assistant message
  const u = r.usage ?? {};
  const m = st.meta;
  const git = isObject(m.git) ? m.git : {};
  st.steps.push({
    messages: [...systemOf(m), ...toMessages(r.prompt)],
    response,
    model: r.model,
    provider: str(m.model_provider),
    finish_reason: response.tool_calls?.length ? 'tool_calls' : response.content ? 'stop' : null,
    prompt_tokens: int(u.input_tokens),
    completion_tokens: int(u.output_tokens),
    started_at: r.started,
    ended_at: r.ended,
    source_line: r.line,
    metadata: meta([
      ['session_id', m.id],
      ['cli_version', m.cli_version],
      ['originator', m.originator],
      ['cwd', r.turn.cwd ?? m.cwd],
      ['git_branch', git.branch],
      ['git_commit', git.commit_hash],
      ['reasoning_effort', r.turn.effort],
      ['approval_policy', r.turn.approval_policy],
      ['sandbox_policy', r.turn.sandbox_policy],
      ['cached_input_tokens', u.cached_input_tokens],
      ['reasoning_output_tokens', u.reasoning_output_tokens],
      ['reasoning_hidden', encryptedReasoning(r.items) ? 'encrypted' : null],
      ['compacted', st.compacted ? String(st.compacted) : null],
    ]),
    raw: JSON.stringify(redactSecrets(r.raw)),
  });
}

const ITEM_TYPES = new Set([...OUTPUT_TYPES, ...INPUT_TYPES, 'message']);

/** The rollout format before the `{timestamp, type, payload}` lines (Codex CLI until mid 2025): a meta line, `record_type` lines, bare items. */
function legacyLine(v: unknown): Obj | null {
  if (!isObject(v)) return null;
  // Stryker disable next-line StringLiteral: normalize reads every line type other than the four it names as a response item
  if (ITEM_TYPES.has(v.type as string)) return { type: 'response_item', payload: v };
  if (v.type === undefined && typeof v.id === 'string' && typeof v.timestamp === 'string') return { type: 'session_meta', timestamp: v.timestamp, payload: v };
  return null;
}

export const codex = defineNormalizer<CodexState>({
  id: 'codex',
  label: 'Codex CLI rollout (JSONL)',
  detect(sample) {
    const s = scoreSample(sample, recordScore);
    if (s || !sample.some((v) => isObject(v) && v.record_type === 'state')) return s;
    return scoreSample(sample, (v) => (isObject(v) && 'record_type' in v ? null : legacyLine(v) ? 0.9 : 0));
  },
  createState: () => ({ meta: {}, turn: {}, context: [], run: null, steps: [], compacted: 0 }),
  normalize(record, _ctx, st) {
    const line = record.value;
    if (isObject(line) && 'record_type' in line) return [];
    const v = isObject(line) && LINE_TYPES.has(line.type as string) ? line : legacyLine(line);
    if (!v) throw new RecordError('expected a Codex rollout line {timestamp, type, payload}');
    const p = isObject(v.payload) ? v.payload : {};
    const ts = timeMs(v.timestamp);
    if (v.type === 'session_meta') {
      // a resumed or forked session starts with the earlier session's meta: keep the first
      if (!st.meta.id) st.meta = isObject(p.meta) ? { ...p.meta, git: p.git } : p;
    } else if (v.type === 'turn_context') {
      close(st);
      st.turn = p;
    } else if (v.type === 'compacted') {
      close(st);
      st.compacted++;
      const history = Array.isArray(p.replacement_history) ? p.replacement_history.filter(isObject) : null;
      st.context = history ?? (typeof p.message === 'string' ? [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: p.message }] }] : []);
    } else if (v.type === 'event_msg') {
      if (p.type === 'token_count' && isObject(p.info) && st.run) {
        st.run.usage = isObject(p.info.last_token_usage) ? p.info.last_token_usage : null;
        st.run.ended = ts ?? st.run.ended;
        st.run.raw.push(v);
        close(st);
      }
    } else {
      if (isOutput(p)) {
        st.run ??= { items: [], prompt: [...st.context], line: record.line, started: ts, ended: ts, usage: null, model: str(st.turn.model), turn: st.turn, raw: [] };
        st.run.items.push(p);
        st.run.ended = ts ?? st.run.ended;
        st.run.raw.push(v);
      } else if (p.type === 'message' || INPUT_TYPES.has(p.type as string)) close(st);
      st.context.push(p);
    }
    return [];
  },
  flush(_ctx, st) {
    close(st);
    if (!st.steps.length) return [];
    return [{ trajectory_uid: str(st.meta.id), common: { agent: 'codex' }, steps: st.steps }];
  },
});
