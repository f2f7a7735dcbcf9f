/**
 * A dataset export as several files (issue 13 "past one tab"; decision 043): one folder per partition value in the
 * hive style the CLI writes (`data_source=gsm8k/part-0.parquet`), each partition cut into parts of at most
 * `maxFileBytes`, plus `_manifest.json` (a leading `_` is what Spark and Hadoop-style readers skip). DuckDB
 * (`read_parquet('dir/**' + '/*.parquet', hive_partitioning = true)`), Ray Data, polars and `datasets` read the folder
 * as one dataset.
 *
 * Each part is one `exportDataset` call over a narrower predicate, so every layout, option and check (trainable,
 * valid only, tokens, redaction) is the one-file export's, unchanged. A part is written to the sink before the next
 * one is made: memory holds one part, not the dataset. Parts are cut by a hash of the row's grouping key (a prompt
 * for verl_prompts / dpo, else a trajectory), so no row, group or pair is split across files.
 */
import type { DatasetLayout, ExportDatasetOptions, Exporter, TokenExportReport } from '../contract/reports';
import { Zip, ZipPassThrough } from 'fflate';
import { sqlString } from '../pool/sql';
import { datasetSql, resolveLayoutOptions, selection } from './layouts';

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

/** The hive folder of a partition, as the CLI names it (src/cli/main.ts exportLayout). */
export function hiveFolder(cols: readonly string[], values: readonly (string | null)[]): string {
  return cols.map((c, i) => `${c}=${values[i] === null ? '__HIVE_DEFAULT_PARTITION__' : encodeURIComponent(values[i] as string)}`).join('/');
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

/** Export `opts` as part files into `sink`, under `folder`. */
export async function exportParts(
  deps: { exporter: Exporter; rows: Rows },
  opts: ExportDatasetOptions,
  parts: PartsOptions,
  sink: PartSink,
  folder: string,
  /** More fields for `_manifest.json` (the form adds its source and counts). */
  manifest: Record<string, unknown> = {},
): Promise<PartsReport> {
  const cols = checkColumns(parts.partitionBy ?? []);
  const maxBytes = parts.maxFileBytes == null || parts.maxFileBytes <= 0 ? null : Math.floor(parts.maxFileBytes);
  const { onTokens, onProgress, signal, ...base } = opts;
  const resolvedBase = await resolveLayoutOptions(deps.rows, base);
  // the partition values of the selected steps (trainable, filter, split applied), NULL as its own partition
  const values: (string | null)[][] = cols.length
    ? (await deps.rows(`SELECT DISTINCT ${cols.map((c, i) => `${c}::VARCHAR AS p${i}`).join(', ')} FROM (${selection(resolvedBase)}) ORDER BY ALL NULLS LAST`)).map((r) =>
        cols.map((_, i) => (r[`p${i}`] == null ? null : String(r[`p${i}`]))),
      )
    : [[]];
  const report: PartsReport = { folder, layout: opts.layout, partitionBy: cols, maxFileBytes: maxBytes, files: [], rows: 0, bytes: 0 };
  const tokenReports: TokenExportReport[] = [];

  const countRows = async (where: string | undefined) => {
    const [r] = await deps.rows(`SELECT count(*) AS n FROM (${datasetSql(await resolveLayoutOptions(deps.rows, { ...base, where }))})`);
    return Number(r?.n ?? 0);
  };
  const make = async (where: string | undefined) => {
    signal?.throwIfAborted();
    let tokens: TokenExportReport | undefined;
    const blob = await deps.exporter.exportDataset({ ...base, where, signal, onProgress, onTokens: (r) => (tokens = r) });
    if (tokens) tokenReports.push(tokens);
    return { blob, rows: tokens ? tokens.rows : await countRows(where) };
  };
  const write = async (dir: string, i: number, blob: Blob, rows: number, partition: ExportPart['partition']) => {
    const path = `${folder}/${dir ? `${dir}/` : ''}part-${i}.${opts.format}`;
    await sink(path, blob);
    report.files.push({ path, rows, bytes: blob.size, partition });
    report.rows += rows;
    report.bytes += blob.size;
  };

  for (const vals of values) {
    const partition = Object.fromEntries(cols.map((c, i) => [c, vals[i] ?? null]));
    const pred = and(opts.where, ...cols.map((c, i) => (vals[i] === null ? `s.${c} IS NULL` : `s.${c}::VARCHAR = ${sqlString(vals[i] as string)}`)));
    const dir = hiveFolder(cols, vals);
    const whole = await make(pred);
    if (!whole.rows && cols.length) continue; // a partition whose steps all left the layout (e.g. no dpo pair)
    if (maxBytes === null || whole.blob.size <= maxBytes) {
      await write(dir, 0, whole.blob, whole.rows, partition);
      continue;
    }
    // too big: cut it by a hash of the grouping key into n slices sized from the whole file, at most one per group (a slice still over the
    // limit is one group bigger than the limit, or an uneven hash: it is written as it is, never split inside a group)
    const [g] = await deps.rows(`SELECT count(DISTINCT ${sliceKey(opts.layout)}) AS n FROM (${selection({ ...resolvedBase, where: pred })}) s`);
    const n = Math.max(1, Math.min(Math.ceil((whole.blob.size / maxBytes) * 1.15), Number(g?.n ?? 1)));
    let i = 0;
    for (let k = 0; k < n; k++) {
      const part = await make(and(pred, `hash(${sliceKey(opts.layout)}) % ${n} = ${k}`));
      if (part.rows) await write(dir, i++, part.blob, part.rows, partition);
    }
  }
  if (tokenReports.length) {
    report.tokens = tokenReports;
    for (const t of tokenReports) onTokens?.(t);
  }
  const written = {
    generator: 'AgentWorld Workbench', created_at: new Date().toISOString(), ...manifest, layout: report.layout, format: opts.format, options: base,
    partition_by: report.partitionBy, max_file_bytes: report.maxFileBytes, rows: report.rows, bytes: report.bytes, files: report.files,
    ...(report.tokens ? { tokens: report.tokens } : {}),
  };
  await sink(`${folder}/_manifest.json`, new Blob([JSON.stringify(written, null, 2)], { type: 'application/json' }));
  return report;
}

/** Writes parts into a folder (File System Access API: a picked folder, or OPFS), making sub-folders as needed. */
export function directorySink(root: FileSystemDirectoryHandle): PartSink {
  return async (path, blob) => {
    const segs = path.split('/');
    const name = segs.pop() as string;
    let dir = root;
    for (const s of segs) dir = await dir.getDirectoryHandle(s, { create: true });
    const w = await (await dir.getFileHandle(name, { create: true })).createWritable();
    try {
      await w.write(blob);
    } finally {
      await w.close();
    }
  };
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
  const sink: PartSink = async (path, blob) => {
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
 * is returned. The parts go into a new sub-folder named for the layout and time, so an earlier export's parts in the
 * same folder are never read as part of this one.
 */
export async function exportPartsTo(
  deps: { exporter: Exporter; rows: Rows },
  opts: ExportDatasetOptions,
  parts: PartsOptions,
  target?: FileSystemDirectoryHandle | null,
  manifest?: Record<string, unknown>,
): Promise<PartsReport & { zip?: Blob }> {
  const folder = fileStem(opts.layout);
  if (target) return exportParts(deps, opts, parts, directorySink(target), folder, manifest);
  const z = zipSink();
  const report = await exportParts(deps, opts, parts, z.sink, folder, manifest);
  return { ...report, zip: z.finish() };
}
