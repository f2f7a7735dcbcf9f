/** The CLI's input listing: files, folders (recursively) and globs, sorted, optionally one shard of it. */
import { existsSync, openAsBlob, readdirSync, statSync } from 'node:fs';
import { basename, join, matchesGlob, resolve } from 'node:path';

export class UsageError extends Error {}

const GLOB = /[*?[{]/;

function walk(dir: string, out: string[]): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile()) out.push(p);
  }
}

/** Every input named, as absolute paths, sorted (the order shards and import ids follow). A missing input is an error naming it. */
export function listInputs(args: readonly string[]): string[] {
  const out: string[] = [];
  for (const a of args) {
    if (GLOB.test(a) && !existsSync(a)) {
      // the part before the first glob character is the folder to walk
      const root = a.slice(0, a.search(GLOB)).replace(/[^/]*$/, '') || '.';
      const found: string[] = [];
      if (existsSync(root)) walk(root, found);
      const hits = found.filter((p) => matchesGlob(p, a) || matchesGlob(p, resolve(a)));
      if (!hits.length) throw new UsageError(`no file matches ${a}`);
      out.push(...hits.map((p) => resolve(p)));
      continue;
    }
    if (!existsSync(a)) throw new UsageError(`no such file or folder: ${a}`);
    if (statSync(a).isDirectory()) {
      const found: string[] = [];
      walk(a, found);
      out.push(...found.map((p) => resolve(p)));
    } else out.push(resolve(a));
  }
  return [...new Set(out)].sort();
}

/** `i/n` (0-based i) → the files of shard i: every n-th of the sorted listing. */
export function shardOf(files: readonly string[], spec: string | undefined): string[] {
  if (!spec) return [...files];
  const m = /^(\d+)\/(\d+)$/.exec(spec);
  const i = Number(m?.[1]);
  const n = Number(m?.[2]);
  if (!m || n < 1 || i >= n) throw new UsageError(`--shard takes i/n with 0 ≤ i < n (got ${spec})`);
  return files.filter((_, k) => k % n === i);
}

/** A file on disk as a File the import pipeline reads (lazily, as a stream; named by its base name as in the browser). */
export async function fileOf(path: string): Promise<File> {
  const blob = await openAsBlob(path);
  return new File([blob], basename(path));
}

/** "512MB", "1GB", "1000" → bytes. */
export function parseSize(s: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb|tb|kib|mib|gib)?$/i.exec(s.trim());
  if (!m) throw new UsageError(`not a size: ${s}`);
  const unit = (m[2] ?? 'b').toLowerCase();
  const k = { b: 1, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 }[unit] ?? 1;
  return Math.round(Number(m[1]) * k);
}
