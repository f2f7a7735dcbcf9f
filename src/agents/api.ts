/** The white-box agent worker's protocol (workers/agent.worker.ts hosts white-box.ts `createAgentWorkerApi`). */
import type { AgentConfig, TaskSet } from './config';
import type { AgentProgress, RolloutResult } from './white-box';

export interface AgentJob {
  agent: AgentConfig;
  tasks: TaskSet;
  rollouts: number;
  gatewayBase: string;
  upstream: { id: string; tokenIds: boolean };
  concurrency?: number;
}

export interface AgentWorkerApi {
  /** Run the job's rollouts against the gateway (its fetches go to the gateway service worker directly). */
  run(job: AgentJob, onProgress?: (p: AgentProgress) => void): Promise<{ trajectories: string[]; results: RolloutResult[] }>;
  /** Stop the job running. */
  stop(): void;
}
