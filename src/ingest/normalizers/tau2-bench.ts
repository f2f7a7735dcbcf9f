/**
 * tau2-bench results (`tau2 run … --save-to results.json`: `{info, tasks, simulations: [SimulationRun]}`). Each
 * simulation is a trajectory: its agent messages are the LLM calls, each prompted by the conversation as the agent
 * saw it — the domain policy as system prompt (`info.environment_info.policy`; tau2 wraps it in agent instructions
 * the results do not record), the user simulator's words, the agent's own turns and the results of the agent's tool
 * calls. The user simulator's tool calls and their results (`requestor: "user"`, the telecom domain) are its
 * environment, not the agent's context. `reward_info.reward` is the last step's reward, `task_id` the prompt group,
 * `termination_reason` the last step's status (`user_stop` / `agent_stop` ok, anything else an error). The greeting
 * tau2 writes itself (`cost` 0, no usage) opens the conversation but is no call.
 */
import { defineNormalizer, RecordError } from '../normalizer';
import type { ChatMessage, StepDraft, TrajectoryDraft } from '../../contract/step';
import { int, isObject, noteNaiveTimes, num, type Obj, str, timeMs } from '../../contract/json';
import { normalizeArguments } from '../../contract/message';
import { providerFromModel } from '../chat-steps';

const OK_ENDS = new Set(['user_stop', 'agent_stop']);

function isSimulation(v: unknown): v is Obj {
  return isObject(v) && 'task_id' in v && Array.isArray(v.messages) && ('termination_reason' in v || 'reward_info' in v);
}

/** A results document: `simulations` holding tau2 SimulationRuns. */
function isResults(v: unknown): v is Obj {
  return isObject(v) && Array.isArray(v.simulations) && v.simulations.length > 0 && v.simulations.every(isSimulation);
}

/** The greeting tau2's orchestrator writes as the agent's first turn: no cost, no usage, no model output. */
function isGreeting(m: Obj, i: number): boolean {
  return i === 0 && m.role === 'assistant' && !m.usage && !m.raw_data && !num(m.cost) && !Array.isArray(m.tool_calls);
}

/** The agent's view of one tau2 message, or null when it is the user simulator's business. */
function agentView(m: Obj): ChatMessage | null {
  const content = str(m.content);
  if (m.role === 'tool') {
    if (m.requestor === 'user') return null;
    return { role: 'tool', content, tool_call_id: str(m.id) };
  }
  if (m.role === 'user') return content ? { role: 'user', content } : null; // a user tool action alone is not said to the agent
  if (m.role === 'system') return { role: 'system', content };
  const calls = (Array.isArray(m.tool_calls) ? m.tool_calls : []).filter(isObject).map((c) => ({
    id: str(c.id),
    type: 'function',
    function: { name: str(c.name) ?? '', arguments: normalizeArguments(c.arguments) },
  }));
  const msg: ChatMessage = { role: 'assistant', content };
  if (calls.length) msg.tool_calls = calls;
  return msg;
}

function simulationSteps(sim: Obj, info: Obj): TrajectoryDraft | null {
  const env = isObject(info.environment_info) ? info.environment_info : {};
  const domain = str(env.domain_name);
  const agentLlm = isObject(info.agent_info) ? str(info.agent_info.llm) : null;
  const policy = str(env.policy);
  const context: ChatMessage[] = policy ? [{ role: 'system', content: policy }] : [];
  const steps: StepDraft[] = [];
  (sim.messages as unknown[]).forEach((raw, i) => {
    if (!isObject(raw)) return;
    const m = agentView(raw);
    if (!m) return;
    if (m.role === 'assistant' && !isGreeting(raw, i)) {
      const usage = isObject(raw.usage) ? raw.usage : {};
      const ended = timeMs(raw.timestamp);
      const gen = num(raw.generation_time_seconds);
      const meta: Record<string, string> = {};
      for (const [k, v] of [['turn_idx', raw.turn_idx], ['cost', raw.cost], ['generation_time_seconds', gen]] as const) if (v !== null && v !== undefined) meta[k] = String(v);
      steps.push({
        messages: [...context],
        response: m,
        finish_reason: m.tool_calls?.length ? 'tool_calls' : 'stop',
        prompt_tokens: int(usage.prompt_tokens),
        completion_tokens: int(usage.completion_tokens),
        ended_at: ended,
        started_at: ended !== null && gen !== null ? ended - gen * 1000 : null,
        metadata: noteNaiveTimes(Object.keys(meta).length ? meta : null, raw.timestamp),
      });
    }
    context.push(m);
  });
  if (!steps.length) return null;
  const end = str(sim.termination_reason);
  const last = steps[steps.length - 1];
  const reward = isObject(sim.reward_info) ? num(sim.reward_info.reward) : null;
  last.reward = reward;
  if (end && !OK_ENDS.has(end)) {
    last.status = 'error';
    last.error = `the simulation ended with ${end}`;
  }
  const task = str(sim.task_id);
  const common: Record<string, string> = {};
  for (const [k, v] of [
    ['task_id', task], ['trial', sim.trial], ['seed', sim.seed], ['termination_reason', end], ['domain', domain],
    ['agent_cost', sim.agent_cost], ['user_cost', sim.user_cost], ['duration', sim.duration], ['user_llm', isObject(info.user_info) ? info.user_info.llm : null],
  ] as const)
    if (v !== null && v !== undefined) common[k] = String(v);
  if (isObject(sim.reward_info)) common.reward_info = JSON.stringify(sim.reward_info);
  for (const s of steps) s.metadata = { ...common, ...s.metadata };
  return {
    trajectory_uid: str(sim.id),
    prompt_uid: `tau2:${domain ? `${domain}:` : ''}${task}`,
    common: { agent: 'tau2-bench', model: agentLlm, provider: providerFromModel(agentLlm), data_source: domain ? `tau2-bench/${domain}` : 'tau2-bench' },
    steps,
  };
}

export interface Tau2State {
  empty: string[];
}

export const tau2Bench = defineNormalizer<Tau2State>({
  id: 'tau2-bench',
  label: 'tau2-bench results (simulations)',
  detect: (sample) => (sample.length && isResults(sample[0]) ? 0.97 : 0),
  createState: () => ({ empty: [] }),
  normalize(record, _ctx, state) {
    const v = record.value;
    if (!isResults(v)) throw new RecordError('not tau2-bench results: expected {info, simulations: [{id, task_id, messages, reward_info, termination_reason}]}');
    const info = isObject(v.info) ? v.info : {};
    const out: TrajectoryDraft[] = [];
    for (const sim of v.simulations as Obj[]) {
      const t = simulationSteps(sim, info);
      if (t) out.push(t);
      else state.empty.push(`${str(sim.id) ?? '?'} (task ${str(sim.task_id)}, ${str(sim.termination_reason) ?? 'no end'})`);
    }
    return out;
  },
  notes: (state) => (state.empty.length ? [`${state.empty.length} simulation(s) made no agent call and made no step: ${state.empty.slice(0, 5).join(', ')}`] : []),
});
