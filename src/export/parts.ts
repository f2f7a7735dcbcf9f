/**
 * A dataset export as several files (issue 13 "past one tab"; decision 043): one folder per partition value in the
 * hive style the CLI writes (`data_source=gsm8k/part-0.parquet`, named by src/export/part-folder.ts for both, decision
 * 052), each partition cut into parts of at most `maxFileBytes`, plus `_manifest.json` (a leading `_` is what Spark and
 * Hadoop-style readers skip). DuckDB (`read_parquet('dir/**' + '/*.parquet', hive_partitioning = false)`: the columns
 * are in the files, and a capped folder name is not its value), Ray Data, polars and `datasets` read the folder as one
 * dataset.
 *
 * Each part is one `exportDataset` call over a narrower predicate, so every layout, option and check (trainable,
 * valid only, tokens, redaction) is the one-file export's, unchanged. A part is written to the sink before the next
 * one is made: memory holds one part, not the dataset. Parts are cut by a hash of the row's grouping key (a prompt
 * for verl_prompts / dpo, else a trajectory), so no row, group or pair is split across files.
 */
import type { DatasetLayout, ExportDatasetOptions, Exporter, TokenExportReport } from '../contract/reports';
import { Zip, ZipPassThrough } from 'fflate';
import { datasetSql, resolveLayoutOptions, selection } from './layouts';
import {
  checkRows, MANIFEST_FILE, PartFolderError, type PartitionFolder, partFileName, partitionFolders, partitionPredicate, partitionValuesSql, partsManifest, type PartsManifest, type WrittenFile,
} from './part-folder';

/** Step columns a dataset can be split by (a fixed list: the names go into SQL and into folder names). */
export const PARTITION_COLUMNS = ['data_source', 'channel', 'model', 'agent'] as const;
export type PartitionColumn = (typeof PARTITION_COLUMNS)[number];

export interface PartsOptions {
  /** One folder level per column, in this order (hive style `col=value`). */
  partitionBy?: readonly PartitionColumn[];
  /** Cut a partition into parts of at most about this many bytes (a part over it is re-cut once, finer). */
  maxFileBytes?: number | null;
}

export interface ExportPart {
  path: string;
  rows: number;
  bytes: number;
  partition: Record<string, string | null>;
}

export interface PartsReport {
  /** The folder the parts are in (inside the sink), e.g. `sft-2026-12-03-201500`. */
  folder: string;
  layout: DatasetLayout;
  partitionBy: PartitionColumn[];
  maxFileBytes: number | null;
  files: ExportPart[];
  rows: number;
  bytes: number;
  /** Per part, what the tokenizer did (exports with `tokens`). */
  tokens?: TokenExportReport[];
}

/** Where the parts go: a folder the user picked, a zip, a test's map. `path` is relative, `/`-separated. */
export type PartSink = (path: string, blob: Blob) => Promise<void>;

type Rows = (sql: string) => Promise<Record<string, unknown>[]>;

/** A file (or folder) name for an export made now: `sft-2026-12-03-201500`. */
export function fileStem(layout: DatasetLayout, when = new Date()): string {
  return `${layout}-${when.toISOString().slice(0, 19).replaceAll(':', '').replace('T', '-')}`;
}

function checkColumns(cols: readonly string[]): PartitionColumn[] {
  const bad = cols.filter((c) => !(PARTITION_COLUMNS as readonly string[]).includes(c));
  if (bad.length) throw new Error(`cannot split an export by ${bad.join(', ')}: choose from ${PARTITION_COLUMNS.join(', ')}`);
  if (new Set(cols).size !== cols.length) throw new Error(`partitionBy names a column twice: ${cols.join(', ')}`);
  return [...cols] as PartitionColumn[];
}

const and = (...preds: (string | undefined)[]) => {
  const ps = preds.filter((p): p is string => !!p?.trim());
  return ps.length ? ps.map((p) => `(${p})`).join(' AND ') : undefined;
};

/** The key whose rows must stay in one file: a prompt's group for the prompt-level layouts, else a trajectory. */
function sliceKey(layout: DatasetLayout): string {
  return layout === 'verl_prompts' || layout === 'dpo' ? 'coalesce(s.prompt_uid, s.trajectory_uid)' : 's.trajectory_uid';
}

/** One file of a part-file export as its engine wrote it: path relative to the export's folder, and the rows it holds. */
export interface WrittenPart {
  path: string;
  /** As the writer counted them (the page's export worker) or read them back (the CLI: the file's Parquet footer). */
  rows: number;
  bytes: number;
}

/**
 * How an engine writes a part-file export (decision 077): the partition loop, its checks and the manifest are
 * `writeParts`'; a target writes one selection's layout rows as files and the manifest where they go.
 */
export interface PartTarget {
  /**
   * The layout rows of `opts` (its `where` selects one partition) as part files in `dir` (relative to the export's
   * folder, '' for the folder itself), numbered from 0: files of at most `maxFileBytes` where the engine can, never a
   * group (`groups` of them: trajectories or prompts) split across files by the page's writer. The token reports of
   * an export with tokens. No file for a partition whose rows all left the layout (`partitioned` and none written).
   */
  write(opts: ExportDatasetOptions, dir: string, job: { groups: number; maxFileBytes: number | null; partitioned: boolean }): Promise<{ files: WrittenPart[]; tokens: TokenExportReport[] }>;
  /** Write `_manifest.json`. */
  manifest(doc: PartsManifest): Promise<void>;
  /** A folder on disk: the manifest is written first too (status 'writing'), so the files of an export that stops are still known as ours; a failed check is written into it. */
  early?: boolean;
}

/**
 * Export `opts` as part files through `target` (the page's sink, the CLI's folder), the one partition loop of both
 * engines: the partitions of the selected steps named by part-folder.ts, each partition's filter checked to select the
 * steps the listing counted, each folder's files checked to hold the rows the layout gives for it (or the tokenizer
 * kept), no path written twice (issue 37 item 3), then `_manifest.json`.
 */
export async function writeParts(
  rows: Rows,
  opts: ExportDatasetOptions,
  parts: PartsOptions,
  target: PartTarget,
  folder: string,
  /** More fields for `_manifest.json` (the form adds its source and counts). */
  manifest: Record<string, unknown> = {},
): Promise<PartsReport> {
  const cols = checkColumns(parts.partitionBy ?? []);
  const maxBytes = parts.maxFileBytes == null || parts.maxFileBytes <= 0 ? null : Math.floor(parts.maxFileBytes);
  const { onTokens, onProgress, signal, ...base } = opts;
  const resolvedBase = await resolveLayoutOptions(rows, base);
  // the partitions of the selected steps (trainable, filter, split applied), NULL as its own, with their step counts
  const listed = await rows(partitionValuesSql(cols, selection(resolvedBase)));
  const plan: PartitionFolder[] = cols.length ? await partitionFolders(cols, listed) : [{ values: [], partition: {}, folder: '', n: Number(listed[0]?.n ?? 0) }];
  const report: PartsReport = { folder, layout: opts.layout, partitionBy: cols, maxFileBytes: maxBytes, files: [], rows: 0, bytes: 0 };
  const tokenReports: TokenExportReport[] = [];
  const selected: WrittenFile[] = [];
  const expected: WrittenFile[] = [];
  const written: WrittenFile[] = [];
  const doc = (status: PartsManifest['status'], error?: string) =>
    partsManifest({
      layout: report.layout, format: opts.format, options: base, partitionBy: cols, maxFileBytes: maxBytes, partitions: plan, status, error,
      files: report.files.map((f) => ({ ...f, path: f.path.slice(folder.length + 1) })),
      extra: { ...manifest, ...(tokenReports.length ? { tokens: tokenReports } : {}) },
    });
  if (target.early) await target.manifest(doc('writing'));

  const paths = new Set<string>();
  try {
    for (const p of plan) {
      signal?.throwIfAborted();
      const pred = and(opts.where, cols.length ? partitionPredicate(cols, p.values, (c) => `s.${c}`) : undefined);
      const [g] = await rows(`SELECT count(*) AS steps, count(DISTINCT ${sliceKey(opts.layout)}) AS groups FROM (${selection({ ...resolvedBase, where: pred })}) s`);
      selected.push({ path: p.folder, rows: Number(g?.steps ?? 0) });
      const w = await target.write({ ...base, where: pred, onProgress, signal }, p.folder, { groups: Number(g?.groups ?? 1), maxFileBytes: maxBytes, partitioned: cols.length > 0 });
      tokenReports.push(...w.tokens);
      // what the folder must hold: the rows the tokenizer kept, else the layout's rows over the partition's steps
      const want = w.tokens.length ? w.tokens.reduce((a, t) => a + t.rows, 0) : Number((await rows(`SELECT count(*) AS n FROM (${datasetSql(await resolveLayoutOptions(rows, { ...base, where: pred }))})`))[0]?.n ?? 0);
      const dir = p.folder ? `${folder}/${p.folder}` : folder;
      expected.push({ path: dir, rows: want });
      written.push({ path: dir, rows: w.files.reduce((a, f) => a + f.rows, 0) });
      for (const f of w.files) {
        const path = `${folder}/${f.path}`;
        // a second file at one path (also one differing only in case) would replace the first
        if (paths.has(path.toLowerCase())) throw new PartFolderError(`Two parts of this export would both be ${path}. Nothing more was written; report this as a bug.`, 'names', folder);
        paths.add(path.toLowerCase());
        report.files.push({ path, rows: f.rows, bytes: f.bytes, partition: p.partition });
        report.rows += f.rows;
        report.bytes += f.bytes;
      }
    }
    // each partition's filter selected the steps the listing counted, and each folder holds the rows the layout gives for it
    checkRows(plan.map((p) => ({ path: p.folder, rows: p.n })), selected, null, folder);
    checkRows(expected, written, null, folder);
  } catch (e) {
    if (target.early) await target.manifest(doc('failed', e instanceof Error ? e.message : String(e)));
    throw e;
  }
  if (tokenReports.length) {
    report.tokens = tokenReports;
    for (const t of tokenReports) onTokens?.(t);
  }
  await target.manifest(doc('complete'));
  return report;
}

/**
 * The page's target: each selection one `exportDataset` call (every layout, option and check of the one-file export,
 * tokens included), written to the sink before the next is made, so memory holds one part, not the dataset. A
 * selection over `maxFileBytes` is cut by a hash of its grouping key (a prompt for verl_prompts / dpo, else a
 * trajectory) into slices sized from the whole file, so no row, group or pair is split across files.
 */
export function sinkTarget(exporter: Exporter, sink: PartSink, folder: string): PartTarget {
  return {
    async write(o, dir, job) {
      const make = async (where: string | undefined) => {
        o.signal?.throwIfAborted();
        let tokens: TokenExportReport | undefined;
        let wrote = 0; // rows as the writer counted them (its last progress report)
        const blob = await exporter.exportDataset({
          ...o, where, onTokens: (r) => (tokens = r),
          onProgress: (p) => {
            wrote = p.rows;
            o.onProgress?.(p);
          },
        });
        return { blob, wrote, tokens };
      };
      const whole = await make(o.where);
      let made = [whole];
      if (job.maxFileBytes !== null && whole.blob.size > job.maxFileBytes) {
        // a slice still over the limit is one group bigger than the limit, or an uneven hash: written as it is
        const n = Math.max(1, Math.min(Math.ceil((whole.blob.size / job.maxFileBytes) * 1.15), job.groups));
        made = [];
        for (let k = 0; k < n; k++) made.push(await make(and(o.where, `hash(${sliceKey(o.layout)}) % ${n} = ${k}`)));
      }
      const files: WrittenPart[] = [];
      for (const m of made.filter((x) => x.wrote > 0 || (!job.partitioned && made.length === 1))) {
        const path = `${dir ? `${dir}/` : ''}${partFileName(files.length, o.format)}`;
        await sink(`${folder}/${path}`, m.blob);
        files.push({ path, rows: m.wrote, bytes: m.blob.size });
      }
      return { files, tokens: made.flatMap((m) => (m.tokens ? [m.tokens] : [])) };
    },
    manifest: (doc) => sink(`${folder}/${MANIFEST_FILE}`, new Blob([JSON.stringify(doc, null, 2)], { type: 'application/json' })),
  };
}

/** `writeParts` into `sink`, under `folder`, on the page's exporter (the page's part-file export and the Hub's dataset folder). */
export function exportParts(
  deps: { exporter: Exporter; rows: Rows },
  opts: ExportDatasetOptions,
  parts: PartsOptions,
  sink: PartSink,
  folder: string,
  manifest: Record<string, unknown> = {},
): Promise<PartsReport> {
  return writeParts(deps.rows, opts, parts, sinkTarget(deps.exporter, sink, folder), folder, manifest);
}

/**
 * Writes parts into a folder (File System Access API: a picked folder, or OPFS), making sub-folders as needed. A file
 * that is already there is never replaced: the export goes into a folder of its own (exportPartsTo), so one is a bug.
 */
export function directorySink(root: FileSystemDirectoryHandle): PartSink {
  return async (path, blob) => {
    const segs = path.split('/');
    const name = segs.pop() as string;
    let dir = root;
    for (const s of segs) dir = await dir.getDirectoryHandle(s, { create: true });
    if (await exists(() => dir.getFileHandle(name))) throw new PartFolderError(`${path} is already in the folder: the export does not replace files. Nothing more was written.`, 'refused', path);
    const w = await (await dir.getFileHandle(name, { create: true })).createWritable();
    try {
      await w.write(blob);
    } finally {
      await w.close();
    }
  };
}

/** Whether a handle's lookup finds something (a file or folder of that name: a type mismatch is a find too). */
async function exists(lookup: () => Promise<unknown>): Promise<boolean> {
  try {
    await lookup();
    return true;
  } catch (e) {
    if (e instanceof DOMException && e.name === 'NotFoundError') return false;
    if (e instanceof DOMException && e.name === 'TypeMismatchError') return true;
    throw e;
  }
}

/** A sub-folder name not yet taken in `root`: `stem`, else `stem-2`, `stem-3`, … (an export never writes into an existing folder). */
export async function newFolderName(root: FileSystemDirectoryHandle, stem: string): Promise<string> {
  for (let i = 1; ; i++) {
    const name = i === 1 ? stem : `${stem}-${i}`;
    if (!(await exists(() => root.getDirectoryHandle(name)))) return name;
  }
}

/**
 * Collects parts into one zip (where no folder can be picked). Parquet parts are already compressed, so they are
 * stored, not deflated; the bytes are fed in the stream's own chunks, so no task runs long on the main thread.
 */
export function zipSink(): { sink: PartSink; finish: () => Blob } {
  const out: Uint8Array[] = [];
  const zip = new Zip((err, chunk) => {
    if (err) throw err;
    out.push(chunk);
  });
  const names = new Set<string>();
  const sink: PartSink = async (path, blob) => {
    // a second entry of one name: unzipping keeps one of the two
    if (names.has(path)) throw new PartFolderError(`The zip already holds ${path}. Nothing more was written; report this as a bug.`, 'names', path);
    names.add(path);
    const entry = new ZipPassThrough(path);
    zip.add(entry);
    const reader = blob.stream().getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      entry.push(value);
    }
    entry.push(new Uint8Array(0), true);
  };
  return {
    sink,
    finish: () => {
      zip.end();
      return new Blob(out as BlobPart[], { type: 'application/zip' });
    },
  };
}

/**
 * `exportParts` into a folder (`target`: one the user picked, or an OPFS directory) or, without one, into a zip that
 * is returned. The parts go into a new sub-folder named for the layout and time (`-2`, `-3`, … when that name is
 * taken), so nothing already in the folder is replaced, and an earlier export's parts are never read as this one's.
 */
export async function exportPartsTo(
  deps: { exporter: Exporter; rows: Rows },
  opts: ExportDatasetOptions,
  parts: PartsOptions,
  target?: FileSystemDirectoryHandle | null,
  manifest?: Record<string, unknown>,
): Promise<PartsReport & { zip?: Blob }> {
  if (target) return exportParts(deps, opts, parts, directorySink(target), await newFolderName(target, fileStem(opts.layout)), manifest);
  const folder = fileStem(opts.layout);
  const z = zipSink();
  const report = await exportParts(deps, opts, parts, z.sink, folder, manifest);
  return { ...report, zip: z.finish() };
}
