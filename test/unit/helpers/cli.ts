// The CLI's main() called in this process, its output kept: for tests whose subject is what a command does, not the
// process around it (bin/agentworld.mjs is `process.exit(await main(argv))`; test/unit/cli-hub.test.ts and the Ctrl-C
// case of cli-import.test.ts still run it as a process). A process of its own cost ≈ 0.7 CPU-s more per command.
import { main } from '../../../src/cli/main';

export async function cliMain(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
  });
  return { code, stdout, stderr };
}
