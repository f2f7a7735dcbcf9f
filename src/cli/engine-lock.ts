/**
 * The CLI's DuckDB locked as the page's is (issue 37 item 2; decision 053): from the first statement on the pool (before
 * its schema is set up: a pool file may be someone else's, its views run in our queries), SQL — a notebook's cells,
 * `--where`, the CLI's own — reaches only the files and folders the command was given. No
 * extension is installed or loaded, `enable_external_access = false` with `allowed_directories` / `allowed_paths`
 * naming only what the user named (and the pool's own staging folder), then `lock_configuration` so no SQL can undo
 * it. DuckDB itself adds the pool file, its WAL and its spill folder `<pool>.tmp` (measured, 1.5.6).
 */
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { sqlStringList } from '../pool/sql';

/** What a command's SQL may reach, besides the pool. */
export interface EngineScope {
  /** Folders (and everything under them). */
  dirs: string[];
  /** Single files. */
  paths: string[];
}

const GLOB = /[*?[{]/;

/**
 * Files, folders and globs the user named as a scope: a folder or a glob's fixed leading folder as a folder (DuckDB
 * lists and reads under it), a file as itself.
 */
export function inputScope(args: readonly string[]): EngineScope {
  const scope: EngineScope = { dirs: [], paths: [] };
  for (const a of args) {
    if (GLOB.test(a) && !existsSync(a)) scope.dirs.push(resolve(a.slice(0, a.search(GLOB)).replace(/[^/]*$/, '') || '.'));
    else if (existsSync(a) && statSync(a).isDirectory()) scope.dirs.push(resolve(a));
    else scope.paths.push(resolve(a));
  }
  return scope;
}

/**
 * A folder as DuckDB compares it: the absolute path with a trailing separator (else `/out` would let `/outside` in),
 * and, inside the current folder, its relative spelling too, so a cell's `COPY … TO 'out/x.parquet'` is in `--out`
 * (DuckDB checks the path as written; `..` anywhere is refused).
 */
function spellings(dir: string): string[] {
  const abs = resolve(dir);
  const rel = relative(process.cwd(), abs);
  const out = [abs.endsWith(sep) ? abs : `${abs}${sep}`];
  if (rel && !rel.startsWith('..') && !isAbsolute(rel)) out.push(`${rel}${sep}`);
  return out;
}

/** The statements that lock an engine to `scope`; run once, before the pool's setup, on any connection (they are global). */
export function lockSql(scope: EngineScope): string[] {
  const dirs = [...new Set(scope.dirs.flatMap(spellings))];
  // a folder itself too (not only what is under it): a COPY … (FILE_SIZE_BYTES) names the folder it fills
  const paths = [...new Set([...scope.paths, ...scope.dirs].map((p) => resolve(p)))];
  return [
    'SET autoinstall_known_extensions = false',
    'SET autoload_known_extensions = false',
    'SET allow_community_extensions = false',
    `SET allowed_directories = ${sqlStringList(dirs)}`,
    `SET allowed_paths = ${sqlStringList(paths)}`,
    'SET enable_external_access = false',
    'SET lock_configuration = true',
  ];
}
