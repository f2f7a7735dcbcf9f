/**
 * Claude Code session transcripts (`~/.claude/projects/<project>/<session>.jsonl`, subagents in
 * `agent-<id>.jsonl`): one line per entry, `user` / `assistant` entries chained by `parentUuid`.
 * Claude Code writes one line per content block of an API response, all with the same `message.id`:
 * those lines are merged into one step. A step's prompt is the conversation along the `parentUuid`
 * chain up to its first line. Sidechains (Task subagents) become trajectories of their own, linked to
 * the session in `metadata`; a Task call's step names its subagent's trajectory and what the subagent reported (tokens,
 * time, tool uses, usage). A `/compact` boundary restarts the chain: the calls after it are prompted by the summary turn
 * (flagged `compacted`). `<synthetic>` assistant lines are Claude Code's own, not calls. Neither the system prompt nor
 * the tool definitions are in the file.
 *
 * One format's reader; merging per-message lines and the parent chain are one pass.
 */
import { assistantMessage, hasRedactedThinking, STOP_REASON, userMessages } from '../../wire/anthropic';
import { defineNormalizer, type NormalizeContext, RecordError } from '../normalizer';
import { redactSecrets } from '../../record/redact';
import type { ChatMessage, StepDraft, TrajectoryDraft } from '../../contract/step';
import { int, isObject, type Obj, str, timeMs } from '../../contract/json';
import { contentToText } from '../../contract/message';
import { scoreSample } from './score';

interface Entry {
  v: Obj;
  line: number;
  order: number;
}

export interface ClaudeCodeState {
  entries: Entry[];
  byUuid: Map<string, Entry>;
  summaries: Map<string, string>;
  /** `--output-format stream-json`: the last entry of each thread (main, or a subagent's tool call id). */
  threads: Map<string, string>;
  init: Obj | null;
  result: Obj | null;
  /** `<synthetic>` assistant lines: written by Claude Code itself (an API error, "No response requested."), no call. */
  synthetic: number;
  /** A subagent's file without its session: the session file that holds the Task call (for the notes). */
  unlinked: string | null;
}

/** A line of `claude -p --output-format stream-json` (also the Agent SDK's messages): `session_id`, no `parentUuid`. */
function isStreamJson(v: Obj): boolean {
  if (typeof v.session_id !== 'string' || 'parentUuid' in v) return false;
  if (v.type === 'user' || v.type === 'assistant') return isObject(v.message) && 'parent_tool_use_id' in v;
  return v.type === 'system' || v.type === 'result';
}

const ENTRY_TYPES = new Set(['user', 'assistant', 'system', 'summary', 'file-history-snapshot', 'queue-operation', 'attachment', 'progress', 'result']);

function recordScore(v: unknown): number | null {
  if (!isObject(v) || !ENTRY_TYPES.has(v.type as string)) return 0;
  if (v.type === 'summary' && typeof v.leafUuid === 'string') return 0.9;
  if ((v.type === 'user' || v.type === 'assistant') && typeof v.uuid === 'string' && 'parentUuid' in v && isObject(v.message)) return typeof v.sessionId === 'string' ? 0.98 : 0.9;
  if (isStreamJson(v)) return v.type === 'system' && v.subtype !== 'init' ? null : 0.95;
  if (v.type === 'result' || v.type === 'system') return null;
  if (typeof v.uuid === 'string' && 'parentUuid' in v) return 0.9;
  return null; // snapshots and queue entries: no opinion
}

const messageId = (e: Entry): string | null => (isObject(e.v.message) ? str(e.v.message.id) : null);
const isAssistant = (e: Entry) => e.v.type === 'assistant' && isObject(e.v.message);
const isSynthetic = (e: Entry) => isObject(e.v.message) && e.v.message.model === '<synthetic>';

function blocksOf(e: Entry): unknown[] {
  const m = e.v.message as Obj;
  const c = m.content;
  return Array.isArray(c) ? c : c === undefined || c === null ? [] : [{ type: 'text', text: str(c) }];
}

/** The blocks of one API response spread over several lines, each once (older versions repeat earlier blocks). */
function mergedBlocks(group: Entry[]): unknown[] {
  const seen = new Set<string>();
  const out: unknown[] = [];
  for (const e of group)
    for (const b of blocksOf(e)) {
      const k = JSON.stringify(b);
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(b);
    }
  return out;
}

/** Entries from the root to `e` (inclusive) along `parentUuid`. */
function chainTo(e: Entry | undefined, byUuid: Map<string, Entry>): Entry[] {
  const out: Entry[] = [];
  const seen = new Set<Entry>();
  for (let cur = e; cur && !seen.has(cur); cur = byUuid.get(cur.v.parentUuid as string)) {
    seen.add(cur);
    out.push(cur);
  }
  return out.reverse();
}

/** Chain entries → chat messages: consecutive lines of one assistant response merge; tool results a branch left out are put back after their call. */
function chainMessages(chain: Entry[], results: Map<string, ChatMessage>, cache: Map<string, ChatMessage[]>): ChatMessage[] {
  const out: ChatMessage[] = [];
  // every step repeats the conversation before it: convert each entry once and share the messages
  const once = (key: string, make: () => ChatMessage[]) => {
    let m = cache.get(key);
    if (!m) cache.set(key, (m = make()));
    return m;
  };
  for (let i = 0; i < chain.length; i++) {
    const e = chain[i];
    if (e.v.type === 'user' && isObject(e.v.message)) {
      const content = e.v.message.content;
      out.push(...once(`u${e.order}`, () => userMessages(content)));
      continue;
    }
    if (!isAssistant(e) || isSynthetic(e)) continue;
    const group = [e];
    const id = messageId(e);
    while (id && i + 1 < chain.length && isAssistant(chain[i + 1]) && messageId(chain[i + 1]) === id) group.push(chain[++i]);
    out.push(...once(`a${e.order}:${group.length}`, () => [assistantMessage(mergedBlocks(group))]));
  }
  // parallel tool calls: a result whose line branched off the chain still answers its call
  // only tool messages carry a tool_call_id
  const answered = new Set(out.map((m) => m.tool_call_id));
  const fixed: ChatMessage[] = [];
  for (let i = 0; i < out.length; i++) {
    fixed.push(out[i]);
    // Stryker disable next-line ArrayDeclaration: iterating a string instead of no calls finds no result either (no id)
    const calls = out[i].tool_calls ?? [];
    while (i + 1 < out.length && out[i + 1].role === 'tool') fixed.push(out[++i]);
    for (const c of calls) {
      const r = results.get(c.id ?? '');
      if (r && !answered.has(c.id)) {
        fixed.push(r);
        answered.add(c.id);
      }
    }
  }
  return fixed;
}

function usageOf(group: Entry[]): Obj {
  let best: Obj = {};
  for (const e of group) {
    const u = (e.v.message as Obj).usage;
    if (isObject(u) && (int(u.output_tokens) ?? -1) >= (int(best.output_tokens) ?? -1)) best = u;
  }
  return best;
}

function meta(pairs: [string, unknown][]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of pairs) {
    if (v === undefined || v === null || v === '') continue;
    out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  return out;
}

/** The first user text of a chain (a sidechain's task prompt). */
function firstUserText(chain: Entry[]): string | null {
  const e = chain.find((x) => x.v.type === 'user' && isObject(x.v.message));
  return e ? contentToText((e.v.message as Obj).content).content : null;
}

/**
 * A subagent's own file (`<session>/subagents/agent-<id>.jsonl`, or `agent-<id>.jsonl` beside the session) does not
 * hold the Task call that started it; its session file does. Imported together (a dropped project folder), the
 * session file is read for that link: the name `<sessionId>.jsonl` among the other files.
 */
function sessionFileOf(sample: readonly unknown[], siblings: () => readonly string[]): string[] {
  const side = sample.find((v): v is Obj => isObject(v) && v.isSidechain === true && typeof v.sessionId === 'string' && typeof v.agentId === 'string');
  if (!side) return [];
  const want = `${side.sessionId as string}.jsonl`;
  return siblings().filter((f) => f === want || f.endsWith(`/${want}`) || f.endsWith(`\\${want}`));
}

function build(state: ClaudeCodeState, ctx?: NormalizeContext): TrajectoryDraft[] {
  const { entries, byUuid } = state;
  // the session's own lines when this is a subagent's file read with it: only for the links to its Task call
  const linked = [
    ...entries,
    ...(ctx?.companions ?? []).flatMap((c) => c.records.filter((v): v is Obj => isObject(v) && v.isSidechain === false).map((v, i) => ({ v, line: 0, order: -1 - i }))),
  ];
  const results = new Map<string, ChatMessage>();
  for (const e of entries) {
    if (e.v.type !== 'user' || !isObject(e.v.message)) continue;
    // only tool results have a tool_call_id
    for (const m of userMessages(e.v.message.content)) if (m.tool_call_id) results.set(m.tool_call_id, m);
  }
  // Task / Agent calls of the main chains: prompt text → tool call id, to link the sidechains they started
  const taskCalls = new Map<string, string>();
  // newer versions name the subagent in the Task result (`toolUseResult.agentId`): tool call id ⇄ agent id
  const agentOfCall = new Map<string, string>();
  const callOfAgent = new Map<string, string>();
  // what a Task call's subagent reported back: its tokens, time and tool uses (usage when the version writes it)
  const subagentRun = new Map<string, [string, unknown][]>();
  for (const e of linked) {
    const r = e.v.toolUseResult;
    if (e.v.type !== 'user' || !isObject(r) || typeof r.agentId !== 'string' || !isObject(e.v.message) || !Array.isArray(e.v.message.content)) continue;
    for (const b of e.v.message.content)
      if (isObject(b) && typeof b.tool_use_id === 'string') {
        agentOfCall.set(b.tool_use_id, r.agentId);
        callOfAgent.set(r.agentId, b.tool_use_id);
        subagentRun.set(b.tool_use_id, [['subagent_total_tokens', r.totalTokens], ['subagent_duration_ms', r.totalDurationMs], ['subagent_tool_uses', r.totalToolUseCount], ['subagent_usage', r.usage]]);
      }
  }
  // `/compact`: a compact_boundary restarts the parentUuid chain; the calls after it see the summary turn instead of what it replaced
  const compactions = new Map<string, Obj>();
  for (const e of entries) if (e.v.type === 'system' && e.v.subtype === 'compact_boundary') compactions.set(e.v.uuid as string, e.v);
  for (const e of linked)
    if (isAssistant(e) && e.v.isSidechain !== true)
      for (const b of blocksOf(e))
        if (isObject(b) && b.type === 'tool_use' && isObject(b.input) && typeof b.input.prompt === 'string') taskCalls.set(b.input.prompt.trim(), str(b.id) ?? '');

  // session titles: a summary line names the leaf of the conversation it summarises
  const titles = new Map<Entry, string>();
  for (const [leaf, title] of state.summaries) for (const e of chainTo(byUuid.get(leaf), byUuid)) titles.set(e, title);

  const converted = new Map<string, ChatMessage[]>();
  const groups = new Map<string, Entry[]>();
  for (const e of entries) {
    if (!isAssistant(e) || isSynthetic(e)) continue;
    const key = messageId(e) ?? (e.v.uuid as string); // every entry has a uuid (normalize)
    const g = groups.get(key);
    if (g) g.push(e);
    else groups.set(key, [e]);
  }
  const trajectories = new Map<string, TrajectoryDraft>();
  for (const group of groups.values()) {
    const inGroup = new Set(group);
    const first = group.find((e) => !inGroup.has(byUuid.get(e.v.parentUuid as string) as Entry)) ?? group[0];
    const last = group[group.length - 1];
    const chain = chainTo(byUuid.get(first.v.parentUuid as string), byUuid);
    const messages = chainMessages(chain, results, converted);
    const msg = last.v.message as Obj;
    const response = assistantMessage(mergedBlocks(group));
    const usage = usageOf(group);
    const stop = [...group].reverse().map((e) => str((e.v.message as Obj).stop_reason)).find((s) => s !== null) ?? null;
    const input = int(usage.input_tokens);
    const session = str(first.v.sessionId);
    const side = first.v.isSidechain === true;
    const root = chain[0] ?? first;
    let uid = session;
    const links: [string, unknown][] = [];
    if (side) {
      const whole = [...chain, first];
      const agentId = str(first.v.agentId);
      uid = `${session ?? 'session'}:${agentId ? `agent-${agentId}` : `sidechain-${root.v.uuid}`}`;
      const prompt = firstUserText(whole)?.trim();
      const named = str(root.v.parentToolUseId);
      const call = named ?? (agentId ? callOfAgent.get(agentId) : null) ?? (prompt ? taskCalls.get(prompt) : null);
      links.push(['parent_trajectory_uid', session], ['agent_id', agentId], ['parent_tool_call_id', call]);
      if (!call && agentId && !entries.some((x) => x.v.isSidechain === false)) state.unlinked = `${session ?? 'its session'}.jsonl`;
    } else {
      const subagents = response.tool_calls?.map((c) => agentOfCall.get(c.id as string)).filter((a): a is string => !!a) ?? [];
      if (subagents.length) links.push(['subagent_trajectory_uids', subagents.map((a) => `${session ?? 'session'}:agent-${a}`)]);
      const runs = response.tool_calls?.map((c) => subagentRun.get(c.id as string)).filter((r): r is [string, unknown][] => !!r) ?? [];
      if (runs.length === 1) links.push(...runs[0]);
      else if (runs.length > 1) links.push(['subagent_runs', runs.map((r) => Object.fromEntries(r))]);
    }
    const boundary = chain.find((x) => compactions.has(x.v.uuid as string));
    if (boundary) {
      const cm = isObject(boundary.v.compactMetadata) ? boundary.v.compactMetadata : {};
      links.push(['compacted', 'true'], ['compact_trigger', cm.trigger], ['compact_pre_tokens', cm.preTokens]);
    }
    // no sessionId: one trajectory per conversation (root line), not one per step
    const key = uid ?? `root-${root.v.uuid}`;
    let t = trajectories.get(key);
    if (!t) {
      t = { trajectory_uid: uid, common: { agent: 'claude-code' }, steps: [] };
      trajectories.set(key, t);
    }
    const metadata = meta([
      ['session_id', session],
      ['is_sidechain', side ? 'true' : null],
      ...links,
      ['message_id', messageId(first)],
      ['request_id', first.v.requestId],
      ['uuid', last.v.uuid],
      ['cwd', first.v.cwd],
      ['git_branch', first.v.gitBranch],
      ['version', first.v.version],
      ['cache_creation_input_tokens', usage.cache_creation_input_tokens],
      ['cache_read_input_tokens', usage.cache_read_input_tokens],
      ['service_tier', usage.service_tier],
      ['stop_reason', stop],
      // Claude Code 2.x writes each block's line before the API says why it stopped: every line has stop_reason null
      ['finish_reason_inferred', stop === null ? 'true' : null],
      ['reasoning_hidden', hasRedactedThinking(mergedBlocks(group)) ? 'redacted' : null],
      ['session_title', titles.get(last)],
    ]);
    const step: StepDraft = {
      messages,
      response,
      model: str(msg.model),
      provider: str(first.v.requestId)?.startsWith('req_') ? 'anthropic' : null,
      finish_reason: stop === null ? (response.tool_calls?.length ? 'tool_calls' : 'stop') : (STOP_REASON[stop] ?? stop),
      prompt_tokens: input === null ? null : input + (int(usage.cache_creation_input_tokens) ?? 0) + (int(usage.cache_read_input_tokens) ?? 0),
      completion_tokens: int(usage.output_tokens),
      started_at: timeMs(first.v.timestamp),
      ended_at: timeMs(last.v.timestamp),
      status: first.v.isApiErrorMessage === true ? 'error' : 'ok',
      metadata,
      source_line: first.line,
      raw: JSON.stringify(redactSecrets(group.map((e) => e.v))),
    };
    t.steps.push(step);
  }
  // stream-json: the run's init (tools, model, version) and result (cost, turns, outcome) describe the session
  const run = meta([
    ['claude_code_version', state.init?.claude_code_version],
    ['tool_names', state.init?.tools],
    ['permission_mode', state.init?.permissionMode],
    ['result_subtype', state.result?.subtype],
    ['result_is_error', state.result?.is_error],
    ['num_turns', state.result?.num_turns],
    ['total_cost_usd', state.result?.total_cost_usd],
    ['duration_ms', state.result?.duration_ms],
  ]);
  const out = [...trajectories.values()]; // each made for a step
  if (Object.keys(run).length)
    for (const t of out)
      for (const s of t.steps) {
        s.metadata = { ...run, ...s.metadata };
        // `-p` does not echo the prompt it was given: say so rather than let every such run share one empty prompt group
        if (!s.messages.some((m) => m.role === 'user' && m.content)) {
          s.metadata.prompt_missing = 'true';
          t.prompt_uid ??= `claude-code:${t.trajectory_uid}`;
        }
      }
  return out;
}

export const claudeCode = defineNormalizer<ClaudeCodeState>({
  id: 'claude-code',
  label: 'Claude Code session transcript (JSONL)',
  detect: (sample) => scoreSample(sample, recordScore),
  createState: () => ({ entries: [], byUuid: new Map(), summaries: new Map(), threads: new Map(), init: null, result: null, synthetic: 0, unlinked: null }),
  normalize(record, _ctx, state) {
    const value = record.value;
    if (!isObject(value) || typeof value.type !== 'string') throw new RecordError('expected a Claude Code transcript entry with a "type"');
    let v: Obj = value;
    if (isStreamJson(v)) {
      if (v.type === 'system') {
        if (v.subtype === 'init') state.init = v;
        return [];
      }
      if (v.type === 'result') {
        state.result = v;
        return [];
      }
      // no parentUuid in this output: each thread (the main one, each subagent's) is a chain in line order
      const thread = str(v.parent_tool_use_id) ?? '';
      const uuid = `stream-${record.index}`;
      const parentUuid = state.threads.get(thread) ?? null;
      state.threads.set(thread, uuid);
      v = { ...v, uuid, parentUuid, sessionId: v.session_id, isSidechain: thread !== '', agentId: thread || undefined, parentToolUseId: thread || undefined };
    }
    if (v.type === 'summary') {
      const leaf = str(v.leafUuid);
      const text = str(v.summary);
      if (leaf && text) state.summaries.set(leaf, text);
      return [];
    }
    const uuid = str(v.uuid);
    if (!uuid) return []; // snapshots, queue operations: not part of the conversation
    if (state.byUuid.has(uuid)) return []; // a resumed session repeats earlier entries
    if (v.type === 'assistant' && isObject(v.message) && v.message.model === '<synthetic>') state.synthetic++;
    const e: Entry = { v, line: record.line, order: state.entries.length };
    state.entries.push(e);
    state.byUuid.set(uuid, e);
    return [];
  },
  companions: { accepts: (sample) => sample.some((v) => isObject(v) && v.isSidechain === false), pick: (_own, sample, siblings) => sessionFileOf(sample, siblings) },
  flush(ctx, state) {
    return build(state, ctx);
  },
  notes: (state) => [
    ...(state.synthetic ? [`${state.synthetic} <synthetic> assistant line(s) were written by Claude Code, not the model (an API error, an interruption): no call, no step`] : []),
    ...(state.unlinked
      ? [`a subagent's transcript without its session: the Task call that started it (parent_tool_call_id) is in ${state.unlinked} — import that file with this one, or the project folder, to link them`]
      : []),
  ],
});
