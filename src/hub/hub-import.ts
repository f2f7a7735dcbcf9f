/**
 * Import from a Hub dataset: what a reference points at (a file, or every file under a folder), which of those files
 * are trace files, and their import one by one through the page's (or the CLI's) normal import path — each file its
 * own job with download progress and its own report. A file stored in LFS whose SHA-256 (the listing's `lfs.oid`) is
 * already the `source_id` of an import in the pool is not downloaded again: it would add nothing (the pool keys a
 * file by the SHA-256 of its bytes).
 */
import type { ImportReport } from '../contract/reports';
import { downloadFile, type HubEntry, HubError, type HubRequestOptions, listAll } from './hub-api';
import { childRef, type HubRef, hubRefString, repoPathProblem } from './hub-ref';

/** File names the importer reads (it detects the format from the content; these are the containers it knows). */
const TRACE_FILE = /\.(jsonl|ndjson|json|parquet|har|ya?ml|sse|txt|log|eval|zip)(\.gz)?$|\.gz$/i;

/** Why a file of the dataset is not imported, or null when it is a trace file by its name. */
export function notATraceFile(path: string): string | null {
  const name = path.split('/').pop() ?? path;
  if (name.startsWith('.')) return `${name} is repository metadata`;
  if (/^readme\.md$/i.test(name)) return 'the dataset card';
  if (!TRACE_FILE.test(name)) return `not a trace file by its name (${name.includes('.') ? `.${name.split('.').pop()}` : 'no extension'}); import it by its own hf:// reference to try anyway`;
  return null;
}

export interface SkippedFile {
  path: string;
  reason: string;
}

export interface HubListing {
  ref: HubRef;
  /** Files under the reference (one, when it names a file), in the listing's order. */
  files: HubEntry[];
  pages: number;
}

/**
 * The files a reference points at. A reference that may name a file (an hf:// path, a blob/resolve URL) is looked up
 * in its parent folder's listing first, which also gives its size and hash; a folder is listed recursively.
 */
export async function listHubFiles(ref: HubRef, opts: HubRequestOptions & { onPage?: (entries: number, page: number) => void }): Promise<HubListing> {
  let seen = 0;
  const onPage = (p: { entries: HubEntry[]; page: number }) => {
    seen += p.entries.length;
    opts.onPage?.(seen, p.page);
  };
  if (ref.kind !== 'folder' && ref.path) {
    const parent = ref.path.includes('/') ? ref.path.slice(0, ref.path.lastIndexOf('/')) : '';
    const { entries } = await listAll({ ...ref, path: parent, kind: 'folder' }, { ...opts, recursive: false, onPage });
    const hit = entries.find((e) => e.path === ref.path);
    if (!hit) throw new HubError(`${hubRefString(ref)}: no such file or folder in the dataset at revision ${ref.revision}.`, 'not-found', 404);
    if (hit.type === 'file') return { ref: { ...ref, kind: 'file' }, files: [hit], pages: 1 };
    ref = { ...ref, kind: 'folder' };
  }
  const { entries, pages } = await listAll(ref, { ...opts, recursive: true, onPage });
  return { ref: { ...ref, kind: 'folder' }, files: entries.filter((e) => e.type === 'file'), pages };
}

/** The trace files of a listing, and every other file with the reason it is left out. */
export function traceFiles(files: HubEntry[]): { files: HubEntry[]; skipped: SkippedFile[] } {
  const out: HubEntry[] = [];
  const skipped: SkippedFile[] = [];
  for (const f of files) {
    const why = repoPathProblem(f.path) ?? notATraceFile(f.path);
    if (why) skipped.push({ path: f.path, reason: why });
    else out.push(f);
  }
  return { files: out, skipped };
}

/** An earlier import of the same bytes (the pool's `imports` row). */
export interface PreviousImport {
  importId: number;
  format: string;
  records: number;
  rows: number;
}

/** What the import needs of the page or the CLI. */
export interface HubImportHost {
  /** Imports already in the pool whose source_id is one of these SHA-256 hashes (only imports that kept their rows). */
  previous(sha256s: string[]): Promise<Map<string, PreviousImport>>;
  /**
   * Import one file through the normal path: `download` fetches it (reporting bytes), then the host imports the Blob
   * under `name` and reports on it as for any file (a failed download is a failed report).
   */
  importDownloaded(name: string, bytes: number, download: (signal: AbortSignal | undefined, onBytes: (received: number) => void) => Promise<Blob>): Promise<ImportReport>;
}

export interface HubImportOptions extends HubRequestOptions {
  /** Called once per file before it starts (CLI progress). */
  onFile?: (name: string, index: number, count: number) => void;
}

function unchanged(name: string, bytes: number, prev: PreviousImport): ImportReport {
  return {
    file: name,
    format: prev.format,
    confidence: 1,
    records: prev.records,
    rows: prev.rows,
    added: 0,
    alreadyInPool: prev.rows,
    rejected: [],
    warnings: [],
    status: 'unchanged',
    message: `Already imported — 0 new steps: import #${prev.importId} read the same bytes (the Hub lists this file's SHA-256 as that import's source id), so it was not downloaded again.`,
    importId: null,
    bytes,
    ms: 0,
  };
}

/**
 * Import `files` (entries of `ref`'s listing) one after another; one report per file, in order. A file whose bytes the
 * pool already holds (LFS SHA-256) is reported `unchanged` without a download.
 */
export async function importHubFiles(ref: HubRef, files: HubEntry[], host: HubImportHost, opts: HubImportOptions): Promise<ImportReport[]> {
  const shas = files.map((f) => f.lfs?.oid).filter((x): x is string => !!x && /^[0-9a-f]{64}$/.test(x));
  const known = shas.length ? await host.previous(shas) : new Map<string, PreviousImport>();
  const reports: ImportReport[] = [];
  for (const [i, f] of files.entries()) {
    const fileRef = childRef(ref, f.path, 'file');
    const name = hubRefString(fileRef);
    opts.onFile?.(name, i, files.length);
    const prev = f.lfs ? known.get(f.lfs.oid) : undefined;
    if (prev) {
      reports.push(unchanged(name, f.size, prev));
      continue;
    }
    reports.push(
      await host.importDownloaded(name, f.size, (signal, onBytes) =>
        downloadFile(fileRef, { ...opts, signal: signal ?? opts.signal, expectBytes: f.size, onBytes: (n) => onBytes(n) }),
      ),
    );
  }
  return reports;
}

/** The SQL that finds earlier imports of these hashes (status done / unchanged: their rows are in the pool). */
export function previousImportsSql(sha256s: string[], quote: (s: string) => string): string {
  return `SELECT source_id, max(import_id) AS import_id, arg_max(format, import_id) AS format, arg_max(records, import_id) AS records, arg_max(rows_made, import_id) AS rows_made FROM imports WHERE status IN ('done', 'unchanged') AND source_id IN (${sha256s.map(quote).join(', ')}) GROUP BY source_id`;
}

/** Rows of previousImportsSql → the map importHubFiles reads. */
export function previousImports(rows: Record<string, unknown>[]): Map<string, PreviousImport> {
  return new Map(rows.map((r) => [String(r.source_id), { importId: Number(r.import_id), format: String(r.format ?? 'unknown'), records: Number(r.records ?? 0), rows: Number(r.rows_made ?? 0) }]));
}

/** The host for the page and the CLI: earlier imports read from the pool's `imports`, files imported by `importDownloaded`. */
export function poolHubHost(pool: { rows(sql: string): Promise<Record<string, unknown>[]> }, imports: Pick<HubImportHost, 'importDownloaded'>, quote: (s: string) => string): HubImportHost {
  return {
    previous: async (shas) => previousImports(await pool.rows(previousImportsSql(shas, quote))),
    importDownloaded: (name, bytes, download) => imports.importDownloaded(name, bytes, download),
  };
}

/** importFromHub's answer: one report per trace file, in listing order, and the files left out with why. */
export type HubImportReports = ImportReport[] & { skipped: SkippedFile[] };

/** List what `ref` points at and import its trace files (every one, or those `select` keeps). */
export async function importFromHub(ref: HubRef, host: HubImportHost, opts: HubImportOptions & { select?: (f: HubEntry) => boolean; onListed?: (l: HubListing) => void }): Promise<HubImportReports> {
  const listing = await listHubFiles(ref, opts);
  opts.onListed?.(listing);
  // a reference to one file imports it whatever its name says (the user named it)
  const { files, skipped } = listing.ref.kind === 'file' ? { files: listing.files, skipped: [] } : traceFiles(listing.files);
  const chosen = opts.select ? files.filter(opts.select) : files;
  const reports = await importHubFiles(listing.ref, chosen, host, opts);
  return Object.assign(reports, { skipped });
}
