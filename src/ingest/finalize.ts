import { hash64, textFingerprint } from '../util/hash';
import type { NormalizeContext, SourceRecord } from './normalizer';
import { redactedJson, redactMessage, redactString } from '../record/redact';
import { rawAsRead } from '../record/step-arrow';
import { EMPTY_PROMPT_PREFIX, messageKey, promptUid } from '../record/prompt-uid';
import type { ChatMessage, StepDraft, StepRecord, TrajectoryDraft } from '../contract/step';
import { NAIVE_TIME_NOTE } from '../contract/json';
import { messageText } from '../contract/message';

interface OpenTrajectory {
  uid: string;
  prompt: string;
  next: number;
}

/**
 * Joins request-log records into trajectories: a call whose history starts with an earlier call's
 * history plus that call's response continues that call's trajectory (a source that repeats
 * the growing history in every record becomes steps of one trajectory).
 */
export class HistoryLinker {
  private byPrefix = new Map<string, { traj: OpenTrajectory; index: number }>();

  link(messages: readonly ChatMessage[]): { traj: OpenTrajectory; index: number } | null {
    const keys: string[] = [];
    let h = '';
    for (const m of messages) {
      h = hash64(h + messageKey(m));
      keys.push(h);
    }
    for (let n = keys.length - 1; n >= 1; n--) {
      const hit = this.byPrefix.get(keys[n - 1]);
      if (hit && hit.traj.next === hit.index + 1) return hit;
    }
    return null;
  }

  remember(messages: readonly ChatMessage[], response: ChatMessage | null, traj: OpenTrajectory, index: number): void {
    if (!response) return;
    let h = '';
    for (const m of messages) h = hash64(h + messageKey(m));
    h = hash64(h + messageKey(response));
    this.byPrefix.set(h, { traj, index });
  }
}

export interface FinalizeState {
  linker: HistoryLinker;
  /** trajectory uid → next step index, for sources that spread one trajectory over several records. */
  nextIndex: Map<string, number>;
  /** Trajectory ids the source itself gave (parallel shards check they share none). */
  own: Set<string>;
  /** Some draft asked for history linking. */
  linked: boolean;
  /** Trajectories whose prompt was blank (they got a `p-empty-` prompt_uid of their own). */
  emptyPrompts: number;
  /** Steps whose source wrote timestamps without a zone (kept as written, stored as UTC; the report says so). */
  naiveTimes: number;
  /** The record that first made each trajectory id the source gave: its text's hash and its line. */
  madeBy: Map<string, { hash: string; line: number }>;
  /** Records that repeat, byte for byte, the record that made their trajectory: [line, line it repeats]. Read once. */
  duplicates: [number, number][];
}

export function createFinalizeState(): FinalizeState {
  return { linker: new HistoryLinker(), nextIndex: new Map(), own: new Set(), linked: false, emptyPrompts: 0, naiveTimes: 0, madeBy: new Map(), duplicates: [] };
}

export interface FinalizeOptions {
  format: string;
  importId: number | null;
  /** Keep the source record as `raw` (redacted). Default true. */
  keepRaw?: boolean;
}

/** Fill every identity and bookkeeping field of the drafts by the data contract. */
export function finalize(
  drafts: readonly TrajectoryDraft[],
  record: SourceRecord,
  ctx: NormalizeContext,
  state: FinalizeState,
  opts: FinalizeOptions,
): StepRecord[] {
  const out: StepRecord[] = [];
  // the steps of one conversation share its message objects (growing history): redact each once
  const seen = new Map<ChatMessage, ChatMessage>();
  const redact = (m: ChatMessage) => {
    let r = seen.get(m);
    if (!r) seen.set(m, (r = redactMessage(m)));
    return r;
  };
  let raw: string | null = null;
  if (opts.keepRaw !== false && drafts.length) raw = redactedJson(record.value, record.text);
  // raw is the record's text as read (nothing secret-like, nothing trimmed): its bytes as read, when the reader has them
  const rawUtf8 = raw !== null && record.bytes && raw === record.text ? record.bytes : null;
  // an exact repeat of the record that made a trajectory (a line written twice) is a duplicate, not more steps of it
  let text: string | null = null;
  const recordHash = () => textFingerprint((text ??= record.text ?? raw ?? JSON.stringify(record.value) ?? ''));
  drafts.forEach((t, ti) => {
    let uid = t.trajectory_uid ?? null;
    if (uid !== null && record.value !== null && record.value !== undefined) {
      const first = state.madeBy.get(uid);
      if (first && first.line !== record.line && first.hash === recordHash()) {
        if (!state.duplicates.some(([l]) => l === record.line)) state.duplicates.push([record.line, first.line]);
        return;
      }
      if (!first) state.madeBy.set(uid, { hash: recordHash(), line: record.line });
    }
    if (uid !== null) state.own.add(uid);
    if (t.link) state.linked = true;
    // Stryker disable next-line ConditionalExpression: nextIndex never holds a null key, so looking null up gives 0 too
    let index = uid !== null ? (state.nextIndex.get(uid) ?? 0) : 0;
    let prompt = t.prompt_uid ?? null;
    let open: OpenTrajectory | null = null;
    if (t.link && uid === null && t.steps.length) {
      const hit = state.linker.link(t.steps[0].messages);
      if (hit) {
        open = hit.traj;
        uid = open.uid;
        index = open.next;
        prompt = prompt ?? open.prompt;
      }
    }
    uid ??= `${ctx.sourceId.slice(0, 12)}-${record.index}${drafts.length > 1 ? `-${ti}` : ''}`;
    const first = t.steps[0];
    if (prompt === null) {
      prompt = promptUid(first?.messages ?? [], uid);
      if (prompt.startsWith(EMPTY_PROMPT_PREFIX)) state.emptyPrompts++;
    }
    if (t.link && !open) open = { uid, prompt, next: index };
    t.steps.forEach((s, si) => {
      const step = buildStep(s, t, { uid, prompt: prompt!, index: index + si, raw, record, ctx, opts, redact });
      if (rawUtf8 && step.raw === raw) rawAsRead(step, rawUtf8);
      step.is_last ??= t.link ? null : si === t.steps.length - 1 ? null : false;
      if (step.metadata?.[NAIVE_TIME_NOTE.key] === NAIVE_TIME_NOTE.value) state.naiveTimes++;
      out.push(step);
      if (open) {
        open.next = step.step_index + 1;
        state.linker.remember(step.messages, step.response, open, step.step_index);
      }
    });
    state.nextIndex.set(uid, index + t.steps.length);
  });
  return out;
}

interface BuildArgs {
  uid: string;
  prompt: string;
  index: number;
  raw: string | null;
  record: SourceRecord;
  ctx: NormalizeContext;
  opts: FinalizeOptions;
  redact: (m: ChatMessage) => ChatMessage;
}

function buildStep(s: StepDraft, t: TrajectoryDraft, a: BuildArgs): StepRecord {
  // each field is the step's own, else the trajectory's common one, else the default (written out, not looked up by
  // key: a generic pick by key was ~10 % of the reader's CPU on the 100 MB bench file)
  const c = t.common ?? NO_COMMON;
  const rawResponse = s.response ?? c.response ?? null;
  // the response is the next step's last history message: redacted once, through the conversation's memo
  const response = rawResponse ? a.redact(rawResponse) : null;
  const stepIndex = s.step_index ?? a.index;
  const uid = s.trajectory_uid ?? a.uid;
  return {
    step_id: s.step_id ?? `${uid}:${stepIndex}`,
    trajectory_uid: uid,
    prompt_uid: s.prompt_uid ?? a.prompt,
    step_index: stepIndex,
    is_last: s.is_last ?? c.is_last ?? null,
    channel: s.channel ?? c.channel ?? 'train',
    policy_version: s.policy_version ?? c.policy_version ?? null,
    agent: s.agent ?? c.agent ?? null,
    data_source: s.data_source ?? c.data_source ?? null,
    model: s.model ?? c.model ?? null,
    provider: s.provider ?? c.provider ?? null,
    messages: redactAll(s.messages, a.redact),
    tools: s.tools ?? c.tools ?? null,
    response,
    response_text: s.response_text != null ? redactString(s.response_text) : messageText(response),
    finish_reason: s.finish_reason ?? c.finish_reason ?? null,
    prompt_tokens: s.prompt_tokens ?? c.prompt_tokens ?? null,
    completion_tokens: s.completion_tokens ?? c.completion_tokens ?? null,
    prompt_ids: s.prompt_ids ?? c.prompt_ids ?? null,
    response_ids: s.response_ids ?? c.response_ids ?? null,
    rollout_log_probs: s.rollout_log_probs ?? c.rollout_log_probs ?? null,
    reward: s.reward ?? c.reward ?? null,
    started_at: s.started_at ?? c.started_at ?? null,
    ended_at: s.ended_at ?? c.ended_at ?? null,
    latency_ms: s.latency_ms ?? c.latency_ms ?? null,
    ttft_ms: s.ttft_ms ?? c.ttft_ms ?? null,
    status: s.status ?? c.status ?? 'ok',
    error: s.error ?? c.error ?? null,
    metadata: s.metadata ?? c.metadata ?? null,
    raw: s.raw !== undefined ? s.raw : a.raw,
    source: a.ctx.file,
    source_format: s.source_format ?? a.opts.format,
    source_line: s.source_line ?? a.record.line,
    source_id: a.ctx.sourceId,
    import_id: a.opts.importId,
    source_trajectory_id: s.source_trajectory_id ?? s.trajectory_uid ?? t.trajectory_uid ?? null,
  };
}

const NO_COMMON: NonNullable<TrajectoryDraft['common']> = {};

/** The messages redacted: the same array when no message changed (the common case: nothing secret-like). */
function redactAll(messages: ChatMessage[], redact: (m: ChatMessage) => ChatMessage): ChatMessage[] {
  for (let i = 0; i < messages.length; i++) {
    if (redact(messages[i]) !== messages[i]) return messages.map(redact);
  }
  return messages;
}
