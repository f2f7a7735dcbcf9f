/**
 * The built-in white-box agent: for each task, `n` rollouts through the gateway (one trajectory
 * each, sharing the task's prompt_uid → a GRPO group), multi-turn with tool calls, rewarded from
 * the task's ground truth. Pure fetch code: runs in a worker (agent.worker.ts) or anywhere else.
 */
import type { AgentConfig, Task, TaskSet } from './config';
import { reward as score } from './reward';
import { TOOLS } from './tools';
import { abortRelayFetch } from '../gateway/page/abort';
import { API_PATHS } from '../wire';

export interface RunAgentOptions {
  agent: AgentConfig;
  tasks: TaskSet;
  rollouts: number;
  /** The page's base URL; the gateway is at `{base}gateway/`. */
  gatewayBase: string;
  upstream: { id: string; tokenIds: boolean };
  concurrency?: number;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  onProgress?: (p: AgentProgress) => void;
}

/** A job as the page sends it to the agent worker (its signal and progress are the worker's). */
export type AgentJob = Omit<RunAgentOptions, 'fetch' | 'signal' | 'onProgress'>;

export interface AgentProgress {
  done: number;
  total: number;
  errors: number;
  last: RolloutResult | null;
}

export interface RolloutResult {
  trajectory_uid: string;
  prompt_uid: string;
  task_id: string;
  rollout: number;
  reward: number;
  turns: number;
  answer: string | null;
  error: string | null;
}

interface Msg {
  role: string;
  content: string | null;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

async function post(f: typeof fetch, url: string, body: unknown, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const r = await f(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer gateway' }, body: JSON.stringify(body), signal });
  const text = await r.text();
  if (!r.ok) throw new Error(`${url.split('/gateway/')[1] ?? url}: HTTP ${r.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

export async function runRollout(o: RunAgentOptions, task: Task, rollout: number): Promise<RolloutResult> {
  const f = abortRelayFetch(o.fetch ?? fetch);
  const { agent, tasks } = o;
  const prompt_uid = `${tasks.name}/${task.id}`;
  const init = (await post(f, `${o.gatewayBase}gateway/init_trajectory`, { prompt_uid, agent: agent.name, upstream: o.upstream.id, channel: task.channel ?? 'train' }, o.signal)) as { trajectory_uid: string; base_url: string };
  await post(f, `${init.base_url}/register_trajectory`, { channel: task.channel ?? 'train', metadata: { data_source: tasks.data_source, task_id: task.id, rollout: String(rollout), ground_truth: task.answer } }, o.signal);
  const tools = agent.tools.map((n) => TOOLS[n]?.definition).filter(Boolean);
  const messages: Msg[] = [];
  if (agent.system_prompt) messages.push({ role: 'system', content: agent.system_prompt });
  messages.push({ role: 'user', content: task.prompt });
  let answer: string | null = null;
  let error: string | null = null;
  let turns = 0;
  try {
    while (turns < agent.max_turns) {
      turns++;
      const body: Record<string, unknown> = { model: agent.model, messages, seed: rollout };
      if (tools.length) body.tools = tools;
      if (agent.temperature !== null) body.temperature = agent.temperature;
      if (agent.logprobs) body.logprobs = true;
      if (agent.logprobs && o.upstream.tokenIds) body.return_tokens_as_token_ids = true;
      const res = (await post(f, `${init.base_url}/${API_PATHS.chat}`, body, o.signal)) as { choices?: { message?: Msg }[] };
      const msg = res.choices?.[0]?.message;
      if (!msg) throw new Error('the upstream answered without a message');
      messages.push({ role: 'assistant', content: msg.content ?? null, ...(msg.tool_calls?.length ? { tool_calls: msg.tool_calls } : {}) });
      if (!msg.tool_calls?.length) {
        answer = msg.content ?? '';
        break;
      }
      for (const call of msg.tool_calls) {
        const tool = TOOLS[call.function.name];
        let args: Record<string, unknown> = {};
        try {
          args = JSON.parse(call.function.arguments || '{}') as Record<string, unknown>;
        } catch {
          /* the tool reports the bad arguments */
        }
        messages.push({ role: 'tool', tool_call_id: call.id, content: tool ? tool.run(args) : `error: unknown tool ${call.function.name}` });
      }
    }
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  }
  const r = error ? 0 : score(agent.reward ?? tasks.reward, answer, task.answer);
  await post(f, `${init.base_url}/complete_trajectory`, { reward: r }, o.signal).catch(() => {});
  return { trajectory_uid: init.trajectory_uid, prompt_uid, task_id: task.id, rollout, reward: r, turns, answer, error };
}

export async function runAgentJob(o: RunAgentOptions): Promise<{ trajectories: string[]; results: RolloutResult[] }> {
  const jobs = o.tasks.tasks.flatMap((task) => Array.from({ length: Math.max(1, o.rollouts) }, (_, r) => ({ task, r })));
  const results: RolloutResult[] = [];
  let next = 0;
  let errors = 0;
  const worker = async () => {
    while (next < jobs.length && !o.signal?.aborted) {
      const { task, r } = jobs[next++];
      try {
        const res = await runRollout(o, task, r);
        if (res.error) errors++;
        results.push(res);
        o.onProgress?.({ done: results.length, total: jobs.length, errors, last: res });
      } catch (e) {
        errors++;
        if (o.signal?.aborted) break;
        o.onProgress?.({ done: results.length, total: jobs.length, errors, last: null });
        console.error('agent rollout failed', e);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.concurrency ?? 4, jobs.length) }, worker));
  return { trajectories: results.map((x) => x.trajectory_uid), results };
}

/** What the agent worker serves (workers/agent.worker.ts; protocol: api.ts): one job at a time, stoppable. */
export function createAgentWorkerApi() {
  let controller: AbortController | null = null;
  return {
    async run(o: AgentJob, onProgress?: (p: AgentProgress) => void) {
      controller = new AbortController();
      return runAgentJob({ ...o, signal: controller.signal, onProgress });
    },
    stop() {
      controller?.abort();
    },
  };
}
