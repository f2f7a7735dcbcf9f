#!/usr/bin/env node
// `npx agentworld …`: runs the CLI's TypeScript (src/cli/main.ts) under the tsx loader, in a child node
// process so the loader also applies to the CLI's worker threads. Exit code and output pass through.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const tsx = pathToFileURL(require.resolve('tsx')).href;
const main = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const r = spawnSync(process.execPath, ['--import', tsx, main, ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, AGENTWORLD_MAIN: '1' },
});
process.exit(r.status ?? 1);
