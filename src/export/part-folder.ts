/**
 * The folder of a part-file export, written once for the page (src/export/parts.ts) and the CLI (src/cli/main.ts),
 * so both make the same folder (decision 052): the partition folders' names (hive style `col=value`, escaped, capped),
 * the SQL that lists the partitions and selects one, `_manifest.json` (value → folder mapping, files, rows), which
 * files an earlier export owns (the only ones an export may replace), and the check that the files hold the rows
 * reported. Engine-agnostic: pure functions, plus `FolderIo` for the few file operations.
 */
import { sqlIdent, sqlString } from '../pool/sql';

export const MANIFEST_FILE = '_manifest.json';
/** The folder value of NULL (Hive's, which DuckDB, Spark and pyarrow read back as NULL). */
export const HIVE_NULL = '__HIVE_DEFAULT_PARTITION__';
/** Longest folder name written, in bytes (the names are ASCII): under ext4 / APFS / NTFS's 255 and eCryptfs's 143. */
export const MAX_FOLDER_NAME = 128;
const GENERATOR = 'AgentWorld Workbench';
const HASH_HEX = 16;
const SAFE = /^[A-Za-z0-9._-]$/;
const utf8 = new TextEncoder();

/** An error of a part-file export that names what to do next; nothing was deleted when it is thrown. */
export class PartFolderError extends Error {
  constructor(
    message: string,
    /** 'refused': the folder holds what is not ours, or ours without force; 'rows': the files do not hold the rows reported; 'names': two partitions, one folder. */
    readonly kind: 'refused' | 'rows' | 'names',
    readonly folder?: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'PartFolderError';
  }
}

/**
 * A partition value as it appears in a folder name: every character but `A-Z a-z 0-9 . _ -` percent-encoded as UTF-8
 * (also `*`, `~`, `:` and `\`, which some file systems refuse), a trailing `.` too (Windows drops it), and a real value
 * equal to the NULL folder's `__HIVE_DEFAULT_PARTITION__` with its first `_` encoded so the two never share a folder.
 * DuckDB and Spark decode the name back to the value.
 */
export function escapeValue(v: string): string {
  let out = '';
  for (const ch of v) {
    if (SAFE.test(ch)) out += ch;
    else for (const b of utf8.encode(ch)) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  if (out.endsWith('.')) out = `${out.slice(0, -1)}%2E`;
  return v === HIVE_NULL ? `%5F${out.slice(1)}` : out;
}

async function hashHex(v: string): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', utf8.encode(v)));
  return Array.from(d.subarray(0, HASH_HEX / 2), (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * `col=<readable prefix>~<16 hex of SHA-256(value)>`: for a name over MAX_FOLDER_NAME, or one that differs from
 * another only in letter case (one folder on macOS and Windows). `~` is always escaped in values, so such a name
 * never equals a value's own.
 */
async function hashedName(col: string, escaped: string, value: string): Promise<string> {
  let prefix = escaped.slice(0, Math.max(0, MAX_FOLDER_NAME - col.length - 2 - HASH_HEX));
  const pct = prefix.lastIndexOf('%');
  if (pct >= 0 && pct > prefix.length - 3) prefix = prefix.slice(0, pct); // never half an escape
  return `${col}=${prefix}~${await hashHex(value)}`;
}

export interface PartitionFolder {
  /** The partition's values, one per column (null: NULL). */
  values: (string | null)[];
  /** The same, by column name (the manifest's and the report's form). */
  partition: Record<string, string | null>;
  /** The folder, relative to the export's folder, `/`-separated ('' when not partitioned). */
  folder: string;
  /** Steps (page) or rows (CLI) of the selection in this partition, as listed. */
  n: number;
}

/**
 * The folders of the partitions `rows` lists (from `partitionValuesSql`). Names are escaped, capped, and told apart
 * when two would differ only in letter case; a name clash left after that is an error, never a shared folder.
 */
export async function partitionFolders(cols: readonly string[], rows: readonly Record<string, unknown>[]): Promise<PartitionFolder[]> {
  const parts = rows.map((r) => {
    const values = cols.map((_, i) => (r[`p${i}`] == null ? null : String(r[`p${i}`])));
    return { values, partition: Object.fromEntries(cols.map((c, i) => [c, values[i] ?? null])), n: Number(r.n ?? 0), segs: [] as string[] };
  });
  for (let level = 0; level < cols.length; level++) {
    const col = cols[level] as string;
    for (const p of parts) {
      const v = p.values[level];
      const escaped = v === null ? HIVE_NULL : escapeValue(v);
      p.segs[level] = v !== null && col.length + 1 + escaped.length > MAX_FOLDER_NAME ? await hashedName(col, escaped, v) : `${col}=${escaped}`;
    }
    // folders that one case-insensitive file system would merge: each named by the hash of its value
    const byFold = new Map<string, Set<string>>();
    for (const p of parts) {
      const path = p.segs.slice(0, level + 1).join('/');
      const set = byFold.get(path.toLowerCase()) ?? new Set<string>();
      set.add(path);
      byFold.set(path.toLowerCase(), set);
    }
    for (const p of parts) {
      const v = p.values[level];
      if (v === null || (byFold.get(p.segs.slice(0, level + 1).join('/').toLowerCase())?.size ?? 0) < 2) continue;
      p.segs[level] = await hashedName(col, escapeValue(v), v);
    }
  }
  const out = parts.map(({ segs, ...p }) => ({ ...p, folder: segs.join('/') }));
  const seen = new Map<string, PartitionFolder>();
  for (const p of out) {
    const other = seen.get(p.folder.toLowerCase());
    if (other) throw new PartFolderError(`Two partitions would share the folder ${p.folder}: ${JSON.stringify(other.partition)} and ${JSON.stringify(p.partition)}. Nothing was written; report this as a bug.`, 'names');
    seen.set(p.folder.toLowerCase(), p);
  }
  return out;
}

/**
 * The partitions of the rows of `from` (a query), with how many rows each holds: `p0, p1, …` as VARCHAR and `n`.
 * `column` spells a column in that query (the page's step selection calls it `s.data_source`).
 */
export function partitionValuesSql(cols: readonly string[], from: string, column: (c: string) => string = sqlIdent): string {
  if (!cols.length) return `SELECT count(*) AS n FROM (${from})`;
  const ps = cols.map((c, i) => `${column(c)}::VARCHAR AS p${i}`);
  return `SELECT ${ps.join(', ')}, count(*) AS n FROM (${from}) s GROUP BY ALL ORDER BY ALL NULLS LAST`;
}

/** The predicate that selects one partition (values as listed; NULL as IS NULL), every value quoted by sqlString. */
export function partitionPredicate(cols: readonly string[], values: readonly (string | null)[], column: (c: string) => string = sqlIdent): string {
  return cols.map((c, i) => (values[i] == null ? `${column(c)} IS NULL` : `${column(c)}::VARCHAR = ${sqlString(values[i] as string)}`)).join(' AND ');
}

export interface ManifestFile {
  /** Relative to the manifest's folder, `/`-separated. */
  path: string;
  rows: number;
  bytes: number;
  partition: Record<string, string | null>;
}

export interface PartsManifest {
  generator: typeof GENERATOR;
  created_at: string;
  /** 'writing' until every file is written and checked; 'failed' with `error` when the rows check failed. */
  status: 'writing' | 'complete' | 'failed';
  error?: string;
  layout: string;
  format: string;
  options: unknown;
  partition_by: string[];
  max_file_bytes: number | null;
  /** Every partition and its folder: a folder's name is the escaped value, or (capped, told apart by case) a prefix and a hash. */
  partitions: { folder: string; values: Record<string, string | null> }[];
  rows: number;
  bytes: number;
  files: ManifestFile[];
  [more: string]: unknown;
}

export interface ManifestInput {
  layout: string;
  format: string;
  options: unknown;
  partitionBy: readonly string[];
  maxFileBytes: number | null;
  partitions: readonly PartitionFolder[];
  files: readonly ManifestFile[];
  status: PartsManifest['status'];
  error?: string;
  /** More fields (the page's source, the token report). */
  extra?: Record<string, unknown>;
  when?: Date;
}

/** `_manifest.json` of a part-file export, the same on the page and headless. */
export function partsManifest(m: ManifestInput): PartsManifest {
  return {
    generator: GENERATOR, created_at: (m.when ?? new Date()).toISOString(), ...m.extra, status: m.status, ...(m.error ? { error: m.error } : {}),
    layout: m.layout, format: m.format, options: m.options, partition_by: [...m.partitionBy], max_file_bytes: m.maxFileBytes,
    partitions: m.partitions.map((p) => ({ folder: p.folder, values: p.partition })),
    rows: m.files.reduce((a, f) => a + f.rows, 0), bytes: m.files.reduce((a, f) => a + f.bytes, 0), files: [...m.files],
  };
}

/** A manifest that only claims files (what `agentworld run --out` writes after its effect cells): claimFolder reads it as ours. */
export function ownedFilesManifest(extra: Record<string, unknown>, files: readonly { path: string; bytes: number }[], when = new Date()): Record<string, unknown> {
  return { generator: GENERATOR, created_at: when.toISOString(), ...extra, status: 'complete', files: [...files] };
}

/** A part file's name: `part-<i>.<format>` (the CLI's COPY … FILENAME_PATTERN 'part-{i}' and the page's parts alike). */
export const partFileName = (i: number, format: string) => `part-${i}.${format}`;

/** The few file operations the ownership check needs, on a folder (node's fs headless; a test's map). */
export interface FolderIo {
  /** Every file under the folder, recursively, relative and `/`-separated (folders themselves not listed); null when it does not exist. */
  list(): Promise<string[] | null>;
  read(path: string): Promise<string>;
  /** Removes one file, then the folders above it that it leaves empty (not the root). */
  remove(path: string): Promise<void>;
}

/** Files a desktop leaves in any folder it shows: neither ours nor the user's data, so kept and not counted. */
const OS_LITTER = new Set(['.DS_Store', 'Thumbs.db', 'desktop.ini']);

const safePath = (p: unknown): p is string => typeof p === 'string' && p !== '' && !p.startsWith('/') && !p.includes('\\') && p.split('/').every((s) => s !== '' && s !== '.' && s !== '..');

/** What a manifest of ours says it owns, relative to its own folder; null when the file is not a manifest of ours. */
function ownedBy(text: string): ((rel: string) => boolean) | null {
  let m: Partial<PartsManifest>;
  try {
    m = JSON.parse(text);
  } catch {
    return null;
  }
  if (m?.generator !== GENERATOR || !Array.isArray(m.files)) return null;
  const files = new Set(m.files.map((f) => f?.path).filter(safePath));
  // written before the files (status 'writing'): a part of a listed partition folder is ours even if the export stopped
  const folders = new Set((Array.isArray(m.partitions) ? m.partitions : []).map((p) => p?.folder).filter((f) => f === '' || safePath(f)));
  const ext = typeof m.format === 'string' && /^[a-z]+$/.test(m.format) ? m.format : null;
  return (rel) => {
    if (rel === MANIFEST_FILE || files.has(rel)) return true;
    const cut = rel.lastIndexOf('/');
    return ext !== null && folders.has(cut < 0 ? '' : rel.slice(0, cut)) && new RegExp(`^part-\\d+\\.${ext}$`).test(rel.slice(cut + 1));
  };
}

/**
 * Makes `io`'s folder ready for an export without deleting anything the workbench did not write (issue 37 item 1):
 * a folder that does not exist or is empty is used as it is. A folder that holds any file no manifest of ours owns
 * is refused, naming such files. A folder that holds only earlier exports of ours (their manifests list their files;
 * a sub-folder may be another export) is refused too, unless `force`: then exactly those files go, and the folders
 * they leave empty. Returns the files removed.
 */
export async function claimFolder(io: FolderIo, opts: { force: boolean; name: string; forceHint: string }): Promise<string[]> {
  const files = (await io.list())?.filter((f) => !OS_LITTER.has(f.slice(f.lastIndexOf('/') + 1)));
  if (!files?.length) return [];
  const owners: { dir: string; owns: (rel: string) => boolean }[] = [];
  for (const f of files.filter((p) => p === MANIFEST_FILE || p.endsWith(`/${MANIFEST_FILE}`))) {
    const owns = ownedBy(await io.read(f).catch(() => ''));
    if (owns) owners.push({ dir: f.slice(0, -MANIFEST_FILE.length), owns });
  }
  const owned = (f: string) => owners.some((o) => f.startsWith(o.dir) && o.owns(f.slice(o.dir.length)));
  const foreign = files.filter((f) => !owned(f));
  if (foreign.length) {
    const shown = foreign.slice(0, 3).join(', ') + (foreign.length > 3 ? ` and ${foreign.length - 3} more` : '');
    throw new PartFolderError(`${opts.name} is not empty and holds files no earlier export of the workbench wrote (${shown}): export into a new or empty folder. Nothing was deleted.`, 'refused', opts.name);
  }
  if (!opts.force) {
    throw new PartFolderError(`${opts.name} holds an earlier export (${files.length} file(s), listed by its ${MANIFEST_FILE}): ${opts.forceHint} replaces those files, or export into a new folder. Nothing was deleted.`, 'refused', opts.name);
  }
  // the manifests last: an interrupted replace still leaves the rest owned
  const order = [...files].sort((a, b) => Number(a.endsWith(MANIFEST_FILE)) - Number(b.endsWith(MANIFEST_FILE)));
  for (const f of order) await io.remove(f);
  return order;
}

/** One file of an export as written: its path (as reported) and the rows it holds (read back, or as its writer counted them). */
export interface WrittenFile {
  path: string;
  rows: number;
}

/**
 * Throws when the files do not hold the rows reported (issue 37 item 3): a path written twice (also differing only
 * in case), a file that holds other rows than reported, a reported file missing, or a total unlike `expected`.
 */
export function checkRows(reported: readonly WrittenFile[], written: readonly WrittenFile[], expected: number | null, where: string): void {
  const problems: string[] = [];
  const byPath = new Map<string, number>();
  for (const w of written) {
    const k = w.path.toLowerCase();
    if (byPath.has(k)) problems.push(`${w.path} was written twice`);
    byPath.set(k, (byPath.get(k) ?? 0) + w.rows);
  }
  for (const r of reported) {
    const got = byPath.get(r.path.toLowerCase());
    if (got === undefined) problems.push(`${r.path} is missing`);
    else if (got !== r.rows) problems.push(`${r.path} holds ${got} row(s), reported ${r.rows}`);
  }
  const total = written.reduce((a, w) => a + w.rows, 0);
  const said = reported.reduce((a, r) => a + r.rows, 0);
  if (expected !== null && total !== expected) problems.push(`the files hold ${total} row(s), the selection has ${expected}`);
  if (total !== said && !problems.length) problems.push(`the files hold ${total} row(s), reported ${said}`);
  if (problems.length) {
    throw new PartFolderError(`The export in ${where} lost or repeated rows: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? ` (and ${problems.length - 5} more)` : ''}. Do not use these files; report this as a bug.`, 'rows', where);
  }
}
