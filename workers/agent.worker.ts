/** The white-box agent off the main thread: its fetches go to the gateway service worker directly. */
import * as Comlink from 'comlink';
import type { AgentConfig, TaskSet } from '../src/agents/config';
import { type AgentProgress, runAgentJob } from '../src/agents/white-box';

let controller: AbortController | null = null;

const api = {
  async run(
    o: { agent: AgentConfig; tasks: TaskSet; rollouts: number; gatewayBase: string; upstream: { id: string; tokenIds: boolean }; concurrency?: number },
    onProgress?: (p: AgentProgress) => void,
  ) {
    controller = new AbortController();
    return runAgentJob({ ...o, signal: controller.signal, onProgress });
  },
  stop() {
    controller?.abort();
  },
};

export type AgentWorkerApi = typeof api;
Comlink.expose(api);
