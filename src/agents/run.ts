/**
 * Page side of a run of the built-in (white-box) agent: a worker that calls the gateway's base URL.
 * Agents depend on the gateway (its base URL, settings for the upstream's id); the gateway never on agents.
 */
import * as Comlink from 'comlink';
import type { AgentWorkerApi } from './api';
import { pickUpstream } from '../gateway/core/upstream';
import { gatewayBase } from '../gateway/page/register';
import { getSettings } from '../gateway/page/settings';
import type { AgentConfig, TaskSet } from './config';
import { loadAgent, loadTaskSet } from './store';
import type { AgentProgress, RolloutResult } from './white-box';

export interface RunAgentRequest {
  /** An agent config or the name of a stored one (built-in: `calculator-agent`). */
  agent: AgentConfig | string;
  /** A task set or the name of a stored one (built-in: `math`). */
  tasks: TaskSet | string;
  rollouts?: number;
  /** Upstream id from the gateway settings; default: the agent's, else the default upstream. */
  upstream?: string;
  concurrency?: number;
  onProgress?: (p: AgentProgress) => void;
  signal?: AbortSignal;
}

export interface RunAgentResult {
  trajectories: string[];
  results: RolloutResult[];
}

export async function runAgent(req: RunAgentRequest): Promise<RunAgentResult> {
  const base = gatewayBase();
  const agent = typeof req.agent === 'string' ? await loadAgent(base, req.agent) : req.agent;
  const tasks = typeof req.tasks === 'string' ? await loadTaskSet(base, req.tasks) : req.tasks;
  const settings = await getSettings();
  const u = pickUpstream(settings, req.upstream ?? agent.upstream, agent.model);
  const worker = new Worker(new URL('../../workers/agent.worker.ts', import.meta.url), { type: 'module', name: 'agent' });
  const remote = Comlink.wrap<AgentWorkerApi>(worker);
  const onAbort = () => void remote.stop();
  req.signal?.addEventListener('abort', onAbort);
  try {
    const progress = req.onProgress ? Comlink.proxy(req.onProgress) : undefined;
    return await remote.run({ agent, tasks, rollouts: req.rollouts ?? 4, gatewayBase: base, upstream: { id: u.id, tokenIds: u.tokenIds === true }, concurrency: req.concurrency }, progress);
  } finally {
    req.signal?.removeEventListener('abort', onAbort);
    worker.terminate();
  }
}
