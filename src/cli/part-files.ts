/**
 * `agentworld export`: the page's part-file export (src/export/parts.ts `writeParts`: the partitions, their folders,
 * the checks, the manifest — one loop for both, decision 077) into a folder on disk, with the native engine's own way
 * of writing a selection's rows: one COPY … TO the partition's folder (FILE_SIZE_BYTES cuts the files; DuckDB cannot
 * combine it with PARTITION_BY), the token columns joined in (tokens.ts), and each file's rows read back from its
 * Parquet footer.
 */
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ExportDatasetOptions } from '../contract/reports';
import type { HeadlessExportOptions } from '../export/export-flags';
import { datasetSql, describeSql, problemsSql, resolveLayoutOptions, withoutMapsSql } from '../export/layouts';
import { claimFolder, MANIFEST_FILE } from '../export/part-folder';
import { PARTITION_COLUMNS, type PartitionColumn, type PartTarget, type WrittenPart, writeParts } from '../export/parts';
import type { PoolPort } from '../pool/port';
import { sqlString, sqlStringList } from '../pool/sql';
import { mergeTokenReports } from '../tokenizer/export-plan';
import { UsageError } from './files';
import type { NativePool } from './native-pool';
import { nodeFolderIo } from './out-folder';
import { cliTokenizer, tokenizedExport } from './tokens';

/** The native engine's target: Parquet part files under `out` (its manifest written first, so a stopped export stays ours). */
function folderTarget(pool: PoolPort, out: string, stage: string, tokenizer: string | undefined): PartTarget {
  return {
    early: true,
    async write(o, dir, job) {
      const resolved = await resolveLayoutOptions((sql) => pool.rows(sql), o);
      // with --tokens: the page's plan and tokenizer code (tokens.ts), the rows as written with their ids
      const tok = o.tokens ? await tokenizedExport(pool, resolved, await cliTokenizer(tokenizer), stage) : null;
      try {
        if (tok && !tok.report.rows && job.partitioned) return { files: [], tokens: [tok.report] };
        const base = tok ? tok.sql : datasetSql(resolved);
        const sql = withoutMapsSql(base, await pool.rows(describeSql(base)));
        if (!tok && job.partitioned && !Number((await pool.rows(`SELECT count(*) AS n FROM (${sql})`))[0]?.n)) return { files: [], tokens: [] };
        const target = dir ? join(out, ...dir.split('/')) : out;
        if (dir) mkdirSync(dirname(target), { recursive: true });
        // into `out` itself (not partitioned) beside our manifest; a partition's folder is new, so nothing is overwritten
        const copy = ['FORMAT parquet', 'COMPRESSION zstd', ...(job.maxFileBytes ? [`FILE_SIZE_BYTES ${job.maxFileBytes}`] : []), "FILENAME_PATTERN 'part-{i}'", ...(dir ? [] : ['OVERWRITE_OR_IGNORE true'])];
        await pool.exec(`COPY (${sql}) TO ${sqlString(target)} (${copy.join(', ')})`);
        return { files: await filesIn(pool, out, dir), tokens: tok ? [tok.report] : [] };
      } finally {
        await tok?.done(); // its temp table and ids file, also when the COPY failed
      }
    },
    async manifest(doc) {
      mkdirSync(out, { recursive: true });
      writeFileSync(join(out, MANIFEST_FILE), JSON.stringify(doc, null, 2));
    },
  };
}

/** The part files COPY wrote directly in `dir` (relative to `out`), in part-number order, each with its rows (from its footer) and size. */
async function filesIn(pool: PoolPort, out: string, dir: string): Promise<WrittenPart[]> {
  const names = ((await nodeFolderIo(dir ? join(out, ...dir.split('/')) : out).list()) ?? []).filter((f) => /^part-\d+\.parquet$/.test(f));
  if (!names.length) return [];
  names.sort((a, b) => Number(/\d+/.exec(a)?.[0]) - Number(/\d+/.exec(b)?.[0]));
  const abs = names.map((f) => join(out, ...dir.split('/').filter(Boolean), f));
  const meta = await pool.rows(`SELECT file_name AS f, num_rows AS n FROM parquet_file_metadata(${sqlStringList(abs)})`);
  const rows = new Map(meta.map((r) => [String(r.f), Number(r.n)]));
  return names.map((f, i) => ({ path: dir ? `${dir}/${f}` : f, rows: rows.get(abs[i] as string) ?? 0, bytes: statSync(abs[i] as string).size }));
}

/**
 * One layout written as Parquet part files under `out`, in the folder the page's part-file export makes (one loop:
 * writeParts): hive folders named, escaped and capped alike, `_manifest.json` with the value → folder mapping, each
 * folder's rows read back and checked against the layout's. `out` must be new, empty, or hold only earlier exports,
 * which `force` replaces (file by file, as their manifests list them).
 */
export async function exportLayout(pool: NativePool, opts: HeadlessExportOptions, out: string, partitionBy: string[], maxBytes: number, tokenizer?: string, force = false) {
  const t0 = performance.now();
  const bad = partitionBy.filter((c) => !(PARTITION_COLUMNS as readonly string[]).includes(c));
  if (bad.length) throw new UsageError(`--partition-by ${bad.join(',')}: choose from ${PARTITION_COLUMNS.join(', ')}`);
  await claimFolder(nodeFolderIo(out), { force, name: out, forceHint: '--force' });
  const full: ExportDatasetOptions = { ...opts, format: 'parquet' };
  const report = await writeParts((sql) => pool.rows(sql), full, { partitionBy: partitionBy as PartitionColumn[], maxFileBytes: maxBytes }, folderTarget(pool, out, pool.db.stage, tokenizer), out);
  const problems = opts.layout === 'steps' ? [] : await pool.rows(problemsSql(await resolveLayoutOptions((sql) => pool.rows(sql), opts)));
  return {
    layout: opts.layout,
    out,
    rows: report.rows,
    files: report.files.map((f) => f.path),
    manifest: join(out, MANIFEST_FILE),
    leftOut: problems.map((p) => ({ problem: String(p.problem), n: Number(p.n) })),
    tokens: report.tokens ? mergeTokenReports(report.tokens) : null,
    ms: Math.round(performance.now() - t0),
  };
}
