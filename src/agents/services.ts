/** The `window.workbench` additions for agents: runs of the built-in agent and of a foreign (black-box) one, against the gateway at `base`. */
import { agentSource, runBlackBox } from './black-box-host';
import { runAgent } from './run';

export function agentServices(base: string) {
  return {
    runAgent,
    /** Run a foreign agent module (pasted code or a URL) in the sandbox; resolves with what it returned. */
    runBlackBox: async (source: { url: string } | { code: string }, input?: unknown): Promise<unknown> => runBlackBox(base, await agentSource(source), { input }),
  };
}
