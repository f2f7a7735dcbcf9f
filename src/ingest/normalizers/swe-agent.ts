import { withProviderFill } from '../chat-steps';
import { defineNormalizer, RecordError, type SourceRecord } from '../normalizer';
import { redactSecrets } from '../../record/redact';
import type { ChatMessage, StepDraft, TrajectoryDraft } from '../../contract/step';
import { isObject, num, type Obj, parseJsonDeep, str } from '../../contract/json';
import { openaiMessage, splitInlineThink } from '../../contract/message';
import { tieToolResults } from '../../wire/shapes';
import { normalRole, safeMetaValue } from './loose-chat';

function isSweTraj(v: unknown): v is Obj {
  return isObject(v) && Array.isArray(v.trajectory) && (Array.isArray(v.history) || isObject(v.info)) && v.trajectory.every((t) => isObject(t) && ('action' in t || 'response' in t));
}

function isMiniTraj(v: unknown): v is Obj & { messages: unknown[] } {
  return isObject(v) && Array.isArray(v.messages) && (String(v.trajectory_format).startsWith('mini-swe-agent') || (isObject(v.info) && 'exit_status' in v.info));
}

function isBareMessage(v: unknown): v is Obj {
  return isObject(v) && typeof v.role === 'string' && 'content' in v && Object.keys(v).every((k) => ['role', 'content', 'extra', 'name', 'tool_calls', 'tool_call_id', 'timestamp'].includes(k));
}

const MINI_MARKERS = /<returncode>|```bash|THOUGHT:|COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT|MINI_SWE_AGENT_FINAL_OUTPUT|<output>/;

function sweMessage(m: Obj): ChatMessage {
  const msg = openaiMessage({ ...m, role: normalRole(m.role) });
  if (msg.role === 'tool' && !msg.tool_call_id && Array.isArray(m.tool_call_ids)) msg.tool_call_id = str(m.tool_call_ids[0]);
  if (!msg.reasoning && typeof m.thought === 'string' && m.thought && msg.role === 'assistant' && m.thought !== msg.content) msg.reasoning = m.thought;
  return msg;
}

function isDemo(m: Obj): boolean {
  return m.is_demo === true || m.message_type === 'demonstration';
}

/** The instance a run answered (so runs of one instance form a group): from info or the replay config. */
function instanceId(v: Obj): string | null {
  const info = isObject(v.info) ? v.info : {};
  const replay = parseJsonDeep(v.replay_config);
  const ps = isObject(replay) && isObject(replay.problem_statement) ? replay.problem_statement : {};
  return str(info.instance_id ?? v.instance_id ?? ps.id);
}

function rewardOf(info: Obj): number | null {
  const r = info.reward ?? info.score ?? info.resolved ?? (isObject(info.review) ? info.review.score : undefined);
  return num(r);
}

function infoMetadata(v: Obj): Record<string, string> {
  const info = isObject(v.info) ? v.info : {};
  const out: Record<string, string> = {};
  const stats = isObject(info.model_stats) ? info.model_stats : {};
  const put = (k: string, val: unknown) => {
    const s = safeMetaValue(val);
    if (s !== null && s !== '') out[k] = s;
  };
  put('exit_status', info.exit_status);
  put('submission', info.submission);
  put('instance_cost', stats.instance_cost);
  put('tokens_sent', stats.tokens_sent);
  put('tokens_received', stats.tokens_received);
  put('api_calls', stats.api_calls);
  put('agent_version', info.swe_agent_version ?? info.mini_version);
  put('trajectory_format', v.trajectory_format);
  return out;
}

/** Assistant turns (demonstrations excluded) → steps whose context is the preceding history. */
function historySteps(history: readonly Obj[], rawOf: (k: number, i: number) => unknown, lineOf?: (i: number) => number): StepDraft[] {
  // a tool entry without `tool_call_ids` answers the call still open
  const msgs = tieToolResults(history.map(sweMessage));
  const steps: StepDraft[] = [];
  history.forEach((m, i) => {
    if (msgs[i].role !== 'assistant' || isDemo(m)) return;
    const step: StepDraft = {
      messages: msgs.slice(0, i),
      response: msgs[i],
      finish_reason: msgs[i].tool_calls?.length ? 'tool_calls' : 'stop',
      raw: JSON.stringify(redactSecrets(rawOf(steps.length, i))),
    };
    if (lineOf) step.source_line = lineOf(i);
    steps.push(step);
  });
  return steps;
}

/** A trajectory entry the history does not hold (SWE-agent saves the final `submit` call only in `trajectory[]`) as a step. */
function trajectoryStep(t: Obj, prev: StepDraft | undefined): StepDraft {
  const query = Array.isArray(t.query) ? t.query.filter(isObject) : [];
  let messages: ChatMessage[];
  if (query.length) messages = tieToolResults(query.map(sweMessage));
  else if (prev) {
    // no query recorded: the previous call's context, its answer and the observation it got
    messages = [...prev.messages, prev.response!];
    const obs = parseJsonDeep(prev.raw);
    // the observation is the output of the previous call's tool call when it made one (function calling)
    const calls = prev.response?.tool_calls ?? [];
    if (isObject(obs) && typeof obs.observation === 'string') {
      messages.push(calls.length === 1 ? { role: 'tool', content: obs.observation, tool_call_id: calls[0].id } : { role: 'user', content: obs.observation });
    }
  } else messages = [];
  const content = str(t.response);
  const thought = str(t.thought);
  const response: ChatMessage = { role: 'assistant', content };
  if (thought && thought !== content) response.reasoning = thought;
  const meta: Record<string, string> = {};
  const action = safeMetaValue(t.action);
  if (action) meta.action = action;
  return { messages, response: splitInlineThink(response), finish_reason: 'stop', ...(Object.keys(meta).length ? { metadata: meta } : {}), raw: JSON.stringify(redactSecrets(t)) };
}

/** The model the run used: model_stats / info first, then the replay config (`agent.model.name`). */
function modelOf(v: Obj): string | null {
  const info = isObject(v.info) ? v.info : {};
  const stats = isObject(info.model_stats) ? info.model_stats : {};
  const replay = parseJsonDeep(v.replay_config);
  const agent = isObject(replay) && isObject(replay.agent) ? replay.agent : {};
  const model = isObject(agent.model) ? agent.model : {};
  return str(stats.model ?? info.model ?? model.name ?? model.model_name ?? (isObject(replay) ? replay.model_name : undefined));
}

function sweDraft(v: Obj): TrajectoryDraft {
  const info = isObject(v.info) ? v.info : {};
  const traj = v.trajectory as Obj[]; // isSweTraj: an array of objects
  let steps: StepDraft[];
  if (Array.isArray(v.history) && v.history.length) {
    const history = v.history.filter(isObject);
    steps = historySteps(history, (k, i) => traj[k] ?? history[i]);
    // history is matched to trajectory[] by position; entries past the history's last assistant turn
    // (the final `submit`) are calls too
    for (let k = steps.length; k < traj.length; k++) steps.push(trajectoryStep(traj[k], steps[steps.length - 1]));
  } else {
    // No history: each trajectory entry may carry the query it was answered from.
    steps = [];
    for (const t of traj) steps.push(trajectoryStep(t, steps[steps.length - 1]));
  }
  if (!steps.length) throw new RecordError('SWE-agent trajectory has no assistant turns (empty history and trajectory)');
  steps[steps.length - 1].reward = rewardOf(info);
  const id = instanceId(v);
  const stats = isObject(info.model_stats) ? info.model_stats : {};
  const metadata: Record<string, string> = { ...infoMetadata(v), ...(id ? { instance_id: id } : {}) };
  const calls = num(stats.api_calls) ?? 0;
  // api_calls counts every model query; more than the steps found means calls the file does not hold (format-error retries)
  if (calls > steps.length) metadata.api_calls_without_step = String(calls - steps.length);
  return {
    trajectory_uid: null,
    prompt_uid: id,
    // data_source only when the file names one: an instance id alone does not say which benchmark
    common: { agent: 'mini_version' in info ? 'mini-swe-agent' : 'swe-agent', data_source: str(info.data_source ?? v.data_source), model: modelOf(v), metadata },
    steps: withCommonMetadata(steps, metadata),
  };
}

/** A step's own metadata replaces the trajectory's (finalize picks one): merge so neither is lost. */
function withCommonMetadata(steps: StepDraft[], common: Record<string, string>): StepDraft[] {
  return steps.map((st) => (st.metadata ? { ...st, metadata: { ...common, ...st.metadata } } : st));
}

/** Messages after the last assistant turn (mini-swe-agent's final output: the submitted diff) onto the last step's metadata. */
function keepFinalOutput(messages: readonly Obj[], steps: StepDraft[]): void {
  if (!steps.length) return;
  const tail = messages.slice(messages.findLastIndex((m) => normalRole(m.role) === 'assistant') + 1);
  const texts: string[] = [];
  for (const m of tail) {
    const extra = isObject(m.extra) ? m.extra : {};
    const t = str(extra.submission) || str(m.content);
    if (t) texts.push(t);
  }
  const last = steps[steps.length - 1];
  const out = safeMetaValue(texts.join('\n'));
  if (out) last.metadata = { ...last.metadata, final_output: out };
}

function miniDraft(v: Obj & { messages: unknown[] }): TrajectoryDraft {
  const info = isObject(v.info) ? v.info : {};
  const messages = v.messages.filter(isObject);
  const steps = historySteps(messages, (_k, i) => messages[i]);
  if (!steps.length) throw new RecordError('mini-swe-agent trajectory has no assistant messages');
  keepFinalOutput(messages, steps);
  steps[steps.length - 1].reward = rewardOf(info);
  const config = isObject(info.config) && isObject(info.config.model) ? info.config.model : {};
  const id = instanceId(v);
  const metadata = infoMetadata(v);
  return {
    trajectory_uid: null,
    prompt_uid: id,
    common: { agent: 'mini-swe-agent', model: str(config.model_name), metadata },
    steps: withCommonMetadata(steps, metadata),
  };
}

interface SweState {
  bare: { msg: Obj; line: number }[];
}

/**
 * SWE-agent `.traj` files, mini-swe-agent trajectories (`trajectory_format: "mini-swe-agent-1"`) and
 * plain message arrays saved by mini-swe-agent: one step per assistant turn.
 */
export const sweAgent = withProviderFill(
  defineNormalizer<SweState>({
    id: 'swe-agent',
    label: 'SWE-agent / mini-swe-agent trajectory',
    detect(sample) {
      if (sample.some((v) => isSweTraj(v) || (isObject(v) && String(v.trajectory_format).startsWith('mini-swe-agent')))) return 0.95;
      if (sample.some(isMiniTraj)) return 0.85;
      const items = sample.length === 1 && Array.isArray(sample[0]) ? sample[0] : sample;
      if (!items.length || !items.every(isBareMessage)) return 0;
      // a bare message list is mini-swe-agent's only with its markers: any chat export is a list of {role, content}
      // Stryker disable next-line StringLiteral: a null content (the only one `str` gives no text for) holds no marker either way
      return items.some((m) => MINI_MARKERS.test(str((m as Obj).content) ?? '')) ? 0.7 : 0;
    },
    createState: () => ({ bare: [] }),
    normalize(record: SourceRecord, _ctx, state) {
      const v = record.value;
      if (isSweTraj(v)) return [sweDraft(v)];
      if (isMiniTraj(v)) return [miniDraft(v)];
      if (Array.isArray(v) && v.every(isBareMessage)) return [miniDraft({ messages: v })];
      if (isBareMessage(v)) {
        state.bare.push({ msg: v, line: record.line });
        return [];
      }
      throw new RecordError('not a SWE-agent trajectory: expected {trajectory, history, info}, {messages, info} or a list of {role, content} messages');
    },
    flush(_ctx, state) {
      const list = state.bare;
      state.bare = [];
      const steps = historySteps(
        list.map((b) => b.msg),
        (_k, i) => list[i].msg,
        (i) => list[i].line,
      );
      keepFinalOutput(
        list.map((b) => b.msg),
        steps,
      );
      return steps.length ? [{ common: { agent: 'mini-swe-agent' }, steps }] : [];
    },
  }),
);
