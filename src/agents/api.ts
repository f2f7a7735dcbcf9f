/** The white-box agent worker's protocol (workers/agent.worker.ts hosts white-box.ts `createAgentWorkerApi`). */
import type { AgentJob, AgentProgress, RolloutResult } from './white-box';

export type { AgentJob };

export interface AgentWorkerApi {
  /** Run the job's rollouts against the gateway (its fetches go to the gateway service worker directly). */
  run(job: AgentJob, onProgress?: (p: AgentProgress) => void): Promise<{ trajectories: string[]; results: RolloutResult[] }>;
  /** Stop the job running. */
  stop(): void;
}
