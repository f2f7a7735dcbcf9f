/**
 * Cline task folders, and its forks' (Roo Code, Kilo Code): `tasks/<task id>/api_conversation_history.json` is
 * the conversation sent to the model (Anthropic-shaped turns; every assistant turn is one call, newer versions add
 * `modelInfo` and `metrics.tokens`), `ui_messages.json` the UI's log of the same task (its `say: "api_req_started"`
 * rows carry each call's tokens, cost and start time). The two files of one task are one trajectory: the history
 * makes the steps and reads its `ui_messages.json` (the sibling in the same folder) for usage and times; the UI log
 * on its own makes no step and says where the calls are. A tool result Cline sends back as user text
 * (`[read_file for 'x'] Result: …`) answers the open call of that name when the turn before made native tool calls;
 * with XML tool calls (older versions) it is what the model saw, a user message. The system prompt and the tool
 * definitions are not in the folder.
 */
import { assistantMessage, userMessages } from '../../wire/anthropic';
import { defineNormalizer, folderOf, type NormalizeContext, RecordError } from '../normalizer';
import { redactedJson } from '../../record/redact';
import type { ChatMessage, StepDraft, TrajectoryDraft } from '../../contract/step';
import { int, isObject, type Obj, parseJsonDeep, str, timeMs } from '../../contract/json';
import { providerFromModel } from '../chat-steps';
import { scoreSample } from './score';

/** `[read_file for 'src/a.ts'] Result:` / `[execute_command for 'npm test'] Result:` / `[attempt_completion] Result:` */
const RESULT_HEAD = /^\[(\w+)(?: for [^\]]*)?\] Result:\s?/;
const CLINE_MARKS = /<environment_details>|^<task>|^\[\w+(?: for [^\]]*)?\] Result:|^<feedback>|^\[TASK RESUMPTION\]/;

interface Message {
  v: Obj;
  line: number;
}

export interface ClineState {
  history: Message[];
  /** This import is a UI log (ui_messages.json) only. */
  uiOnly: boolean;
  metadataOnly: boolean;
  joined: string | null;
  /** The task's conversation file, when this UI log or metadata file came in the same import. */
  partner: string | null;
  notes: string[];
}

function texts(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.filter((b) => isObject(b) && b.type === 'text' && typeof b.text === 'string').map((b) => (b as Obj).text as string);
}

function isUiRow(v: unknown): v is Obj {
  return isObject(v) && typeof v.ts === 'number' && (v.type === 'say' || v.type === 'ask') && typeof (v.say ?? v.ask) === 'string';
}

function isTurn(v: unknown): v is Obj {
  return isObject(v) && (v.role === 'user' || v.role === 'assistant') && (typeof v.content === 'string' || Array.isArray(v.content));
}

/** `task_metadata.json`: the files in context and the models used; no calls. */
const isTaskMetadata = (v: unknown): v is Obj => isObject(v) && Array.isArray(v.files_in_context) && (Array.isArray(v.model_usage) || Array.isArray(v.environment_history));

function recordScore(v: unknown): number | null {
  if (isUiRow(v) || isTaskMetadata(v)) return 0.97;
  if (!isTurn(v)) return 0;
  if (isObject(v.modelInfo) || isObject(v.metrics)) return 0.97;
  if (v.role === 'user' && texts(v.content).some((t) => CLINE_MARKS.test(t.trimStart()))) return 0.95;
  return null; // a plain Anthropic-shaped turn: the marked ones decide
}

/** A user turn as the model saw it; text results of native calls become tool messages answering them. */
function userTurn(content: unknown, open: { id: string | null; name: string }[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (open.length && Array.isArray(content)) {
    const rest: unknown[] = [];
    for (const b of content) {
      const text = isObject(b) && b.type === 'text' && typeof b.text === 'string' ? b.text : null;
      const head = text ? RESULT_HEAD.exec(text) : null;
      const i = head ? open.findIndex((c) => c.name === head[1]) : -1;
      // a result that names no open call answers the first one still open
      const call = head ? open.splice(Math.max(i, 0), 1)[0] : undefined;
      if (call && text && head) out.push({ role: 'tool', content: text.slice(head[0].length), tool_call_id: call.id, name: head[1] });
      else rest.push(b);
    }
    content = rest;
    if (!rest.length) return out;
  }
  return [...out, ...userMessages(content)];
}

/** `api_req_started` rows of a UI log: one per call, in order (a cancelled or failed request stays one). */
function apiRequests(rows: readonly unknown[]): Obj[] {
  const out: Obj[] = [];
  for (const r of rows) {
    if (!isUiRow(r) || r.say !== 'api_req_started') continue;
    const info = parseJsonDeep(r.text);
    out.push({ ts: r.ts, ...(isObject(info) ? info : {}) });
  }
  return out;
}


/** The UI log of this task: the companion in the same folder (a folder import names files by their path in it), or the only one when the files came without folders. */
function uiCompanion(ctx: NormalizeContext): { file: string; records: unknown[] } | null {
  const logs = (ctx.companions ?? []).filter((c) => c.records.some(isUiRow));
  const own = folderOf(ctx.file);
  const same = logs.filter((c) => folderOf(c.file) === own);
  if (same.length === 1) return same[0];
  return !own && logs.length === 1 ? logs[0] : null;
}

function agentOf(path: string): string {
  if (/roo-?cline|roo-?code/i.test(path)) return 'roo-code';
  if (/kilo-?code/i.test(path)) return 'kilo-code';
  return 'cline';
}

function build(state: ClineState, ctx: NormalizeContext): TrajectoryDraft[] {
  if (!state.history.length) return [];
  const ui = uiCompanion(ctx);
  const requests = ui ? apiRequests(ui.records) : [];
  if (ui) state.joined = ui.file;
  const context: ChatMessage[] = [];
  const steps: StepDraft[] = [];
  let open: { id: string | null; name: string }[] = [];
  for (const { v, line } of state.history) {
    if (v.role === 'assistant') {
      const answer = assistantMessage(v.content);
      const info = isObject(v.modelInfo) ? v.modelInfo : {};
      const tokens = isObject(v.metrics) && isObject(v.metrics.tokens) ? v.metrics.tokens : {};
      const req = requests[steps.length] ?? {};
      const model = str(info.modelId);
      const inUi = int(req.tokensIn);
      const prompt = inUi !== null ? inUi + (int(req.cacheWrites) ?? 0) + (int(req.cacheReads) ?? 0) : int(tokens.prompt) === null ? null : (int(tokens.prompt) ?? 0) + (int(tokens.cached) ?? 0);
      const meta: Record<string, string> = {};
      for (const [k, x] of [
        ['mode', info.mode], ['cost_usd', req.cost], ['cache_writes', req.cacheWrites], ['cache_reads', req.cacheReads ?? tokens.cached],
        ['cancel_reason', req.cancelReason], ['streaming_failed', req.streamingFailedMessage], ['is_summary', v.isSummary],
      ] as const)
        if (x !== null && x !== undefined && x !== '') meta[k] = typeof x === 'string' ? x : JSON.stringify(x);
      const failed = !!req.cancelReason || !!req.streamingFailedMessage;
      steps.push({
        messages: [...context],
        response: answer,
        model,
        provider: str(info.providerId) ?? providerFromModel(model),
        finish_reason: answer.tool_calls?.length ? 'tool_calls' : 'stop',
        prompt_tokens: prompt,
        completion_tokens: int(req.tokensOut) ?? int(tokens.completion),
        started_at: timeMs(req.ts),
        ended_at: timeMs(v.ts),
        status: failed ? 'error' : 'ok',
        error: failed ? String(req.streamingFailedMessage ?? req.cancelReason) : null,
        metadata: Object.keys(meta).length ? meta : null,
        source_line: line,
        raw: redactedJson(v),
      });
      context.push(answer);
      open = (answer.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name }));
    } else {
      context.push(...userTurn(v.content, open));
      open = [];
    }
  }
  if (ui && requests.length !== steps.length) {
    state.notes.push(`${ui.file} lists ${requests.length} API request(s) for ${steps.length} assistant turn(s): usage joined by order, the rest left empty`);
  }
  if (!steps.length) return [];
  const path = ctx.file;
  const task = /(?:^|[/\\])(\d{10,})[/\\][^/\\]*$/.exec(path)?.[1] ?? null;
  return [{ trajectory_uid: task, common: { agent: agentOf(path) }, steps }];
}

export const cline = defineNormalizer<ClineState>({
  id: 'cline',
  label: 'Cline / Roo Code / Kilo Code task (api_conversation_history.json, ui_messages.json)',
  detect: (sample) => scoreSample(sample, recordScore),
  createState: () => ({ history: [], uiOnly: false, metadataOnly: false, joined: null, partner: null, notes: [] }),
  companions: { accepts: (sample) => sample.some(isUiRow), sameFolder: true },
  normalize(record, _ctx, state) {
    const v = record.value;
    if (isUiRow(v)) {
      if (!state.history.length) state.uiOnly = true;
      return [];
    }
    if (isTaskMetadata(v)) {
      state.metadataOnly = true;
      return [];
    }
    if (!isTurn(v)) throw new RecordError('not a Cline conversation turn: expected {role, content}');
    state.history.push({ v, line: record.line });
    return [];
  },
  flush: (ctx, state) => build(state, ctx),
  readWith(state, siblings, ctx) {
    if (state.history.length || !(state.uiOnly || state.metadataOnly)) return null;
    const own = folderOf(ctx.file);
    state.partner = siblings().find((f) => folderOf(f) === own && /(^|[/\\])api_conversation_history\.json$/.test(f)) ?? null;
    return state.partner;
  },
  notes(state) {
    const out = [...state.notes];
    if (state.joined) out.push(`usage, cost and start times read from ${state.joined}`);
    if (state.uiOnly && !state.history.length) {
      out.push(
        state.partner
          ? "this is the task's UI log (ui_messages.json): its usage, cost and start times are in the steps of its conversation"
          : "this is a task's UI log (ui_messages.json): its calls are in api_conversation_history.json of the same task folder — import both files, or the folder",
      );
    }
    if (state.metadataOnly && !state.history.length) out.push("this is a task's metadata (task_metadata.json: files in context, models used): it holds no calls");
    return out;
  },
});
