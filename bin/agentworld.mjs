#!/usr/bin/env node
// `npx agentworld …`. Runs the CLI (src/cli/main.ts) precompiled: an esbuild bundle of the CLI and its two thread
// entries under node_modules/.cache/agentworld-cli/, built on first use and again whenever a file under src/ is newer
// than it (about a second), so a run never pays a TypeScript loader at start-up nor in its worker threads.
// AGENTWORLD_CLI_TSX=1 runs the TypeScript under tsx instead (no bundle; for debugging).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src');
// one bundle per checkout (node_modules may be shared by several checkouts)
const out = join(root, 'node_modules', '.cache', `agentworld-cli-${createHash('sha256').update(root).digest('hex').slice(0, 12)}`);
const ENTRIES = ['main', 'duck-thread', 'shard-thread'];

/** The newest modification time of the files under `dir`. */
function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

async function bundle() {
  const stamp = join(out, 'main.mjs');
  if (existsSync(stamp) && statSync(stamp).mtimeMs >= Math.max(newest(src), statSync(fileURLToPath(import.meta.url)).mtimeMs)) return stamp;
  const { build } = await import('esbuild');
  // built beside and renamed into place: CLI processes started together (shards) never read a half-written bundle
  const tmp = `${out}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  await build({
    entryPoints: ENTRIES.map((e) => join(src, 'cli', `${e}.ts`)),
    outdir: tmp,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    nodePaths: [join(root, 'node_modules')],
    logLevel: 'warning',
  });
  mkdirSync(dirname(out), { recursive: true });
  const old = `${out}.${process.pid}.old`;
  if (existsSync(out)) renameSync(out, old);
  try {
    renameSync(tmp, out);
  } catch (e) {
    if (!existsSync(out)) throw e; // another process put its bundle in place first: use that one
    rmSync(tmp, { recursive: true, force: true });
  }
  rmSync(old, { recursive: true, force: true });
  return stamp;
}

const args = process.argv.slice(2);
if (process.env.AGENTWORLD_CLI_TSX === '1') {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const r = spawnSync(process.execPath, ['--import', tsx, join(src, 'cli', 'main.ts'), ...args], { stdio: 'inherit', env: { ...process.env, AGENTWORLD_MAIN: '1' } });
  process.exit(r.status ?? 1);
}
delete process.env.AGENTWORLD_MAIN; // the bundle's main() is called here, never started a second time
const { main } = await import(pathToFileURL(await bundle()).href);
process.exit(await main(args));
