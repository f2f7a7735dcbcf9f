// The CLI's esbuild bundle (decision 034): src/cli/main.ts and its two thread entries as .mjs files side by side under
// node_modules/.cache/agentworld-cli-<checkout hash>/, built on first use and again whenever a file under src/ is newer
// than it (about a second). bin/agentworld.mjs runs it; under tsx (the unit tests) src/cli/loader.ts starts the worker
// threads on its thread entries, so a thread pays no TypeScript loader (≈ 0.35 CPU-s each) either.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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

const options = () => ({
  entryPoints: ENTRIES.map((e) => join(src, 'cli', `${e}.ts`)),
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

/** Whether the bundle is at least as new as src/ and the files that build it. */
function fresh() {
  const stamp = join(out, 'main.mjs');
  const self = fileURLToPath(import.meta.url);
  return existsSync(stamp) && statSync(stamp).mtimeMs >= Math.max(newest(src), statSync(self).mtimeMs, statSync(join(dirname(self), 'agentworld.mjs')).mtimeMs);
}

/** The bundle built in `tmp` put in place: built beside and renamed, so CLI processes started together (shards) never read a half-written bundle. */
function place(tmp) {
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
}

const tmpDir = () => {
  const tmp = `${out}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  return tmp;
};

/** The bundle's folder, built first if src/ is newer (async: bin/agentworld.mjs). */
export async function bundle() {
  if (fresh()) return out;
  const { build } = await import('esbuild');
  const tmp = tmpDir();
  await build({ ...options(), outdir: tmp });
  place(tmp);
  return out;
}

/** The same, synchronously (src/cli/loader.ts starts its threads synchronously). */
export function bundleSync() {
  if (fresh()) return out;
  const { buildSync } = createRequire(import.meta.url)('esbuild');
  const tmp = tmpDir();
  buildSync({ ...options(), outdir: tmp });
  place(tmp);
  return out;
}
