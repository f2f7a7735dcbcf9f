#!/usr/bin/env node
// `npx agentworld …`. Runs the CLI (src/cli/main.ts) precompiled: an esbuild bundle of the CLI and its two thread
// entries under node_modules/.cache/agentworld-cli-<checkout hash>/ (bin/cli-bundle.mjs), built on first use and again whenever a file under src/ is newer
// than it (about a second), so a run never pays a TypeScript loader at start-up nor in its worker threads.
// AGENTWORLD_CLI_TSX=1 runs the TypeScript under tsx instead (no bundle; for debugging).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundle } from './cli-bundle.mjs';

const src = fileURLToPath(new URL('../src', import.meta.url));

const args = process.argv.slice(2);
if (process.env.AGENTWORLD_CLI_TSX === '1') {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const r = spawnSync(process.execPath, ['--import', tsx, join(src, 'cli', 'main.ts'), ...args], { stdio: 'inherit', env: { ...process.env, AGENTWORLD_MAIN: '1' } });
  process.exit(r.status ?? 1);
}
delete process.env.AGENTWORLD_MAIN; // the bundle's main() is called here, never started a second time
const { main } = await import(pathToFileURL(join(await bundle(), 'main.mjs')).href);
process.exit(await main(args));
