/** `agentworld import`: the page's import pipeline (src/ingest/pipeline.ts) over files on disk, into a native pool. */
import { readParquet } from 'parquet-wasm/node';
import '../util/arrow-bool-fix';
import type { ImportProgress, ImportReport } from '../contract/reports';
import { parquetRecords } from '../ingest/parquet-records';
import { ingestFile } from '../ingest/pipeline';
import { existsSync, statSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileOf, listInputs, shardOf } from './files';
import type { NativePool } from './native-pool';
import { threadShardPool } from './shard-pool';

export interface CliImportOptions {
  shard?: string;
  format?: string;
  /** Parallel readers for a large JSON Lines file (default: one per core, at most 8; 1 = none). */
  threads?: number;
  /** Below this size a file is read by one reader (the pipeline's default otherwise). */
  shardMinBytes?: number;
  /** Import batch size (the pipeline's batchBytes / batchRows). */
  batchBytes?: number;
  batchRows?: number;
  onProgress?: (p: ImportProgress) => void;
}

export interface CliImportResult {
  files: string[];
  reports: ImportReport[];
  added: number;
  ms: number;
}

export async function runImport(pool: NativePool, inputs: readonly string[], opts: CliImportOptions = {}): Promise<CliImportResult> {
  const t0 = performance.now();
  const listing = listInputs(inputs);
  const paths = shardOf(listing, opts.shard);
  // as a folder drop in the page: each file named by its path under the listing's common folder, so files of one
  // name in different folders stay apart and a Cline task's files find each other (a flat listing keeps base names)
  const root = commonFolder([...inputs.filter((a) => existsSync(a) && statSync(a).isDirectory()).map((a) => resolve(a)), ...listing.map((p) => dirname(p))]);
  const named = async (p: string) => {
    const f = await fileOf(p);
    const name = relative(root, p).split(sep).join('/');
    return name === f.name ? f : new File([f], name);
  };
  const files = await Promise.all(paths.map(named));
  // a shard's files join across files of the whole listing (openai-batch output + input, langfuse-blob), as one run does
  const others = opts.shard ? await Promise.all(listing.filter((p) => !paths.includes(p)).map(named)) : [];
  const shards = opts.threads === 1 ? undefined : threadShardPool(new Map(files.map((f, i) => [f, paths[i]])), opts.threads);
  const reports: ImportReport[] = [];
  try {
  for (const file of files) {
    // as in the page: the other files of the same import are the siblings a joining format reads
    const report = await ingestFile(file, pool, {
      format: opts.format,
      onProgress: opts.onProgress,
      siblings: [...files.filter((f) => f !== file), ...others],
      readParquet: async (bytes) => parquetRecords(bytes, readParquet),
      shards,
      shardMinBytes: opts.shardMinBytes,
      // smaller batches than the page's (16 MB): each is held several times over (Arrow, Parquet in wasm memory, the
      // DuckDB insert) in every reader thread at once, so they set the import's peak memory (decision 040)
      batchBytes: opts.batchBytes ?? 4 << 20,
      batchRows: opts.batchRows ?? 1000,
    });
    reports.push(report);
  }
  } finally {
    await shards?.close();
  }
  return { files: paths, reports, added: reports.reduce((n, r) => n + r.added, 0), ms: Math.round(performance.now() - t0) };
}

/** One file that is not on disk (a Hub download) through the same pipeline and batch sizes as runImport, one reader. */
export function importBlob(pool: NativePool, file: File, opts: Pick<CliImportOptions, 'format' | 'onProgress' | 'batchBytes' | 'batchRows'> = {}): Promise<ImportReport> {
  return ingestFile(file, pool, {
    format: opts.format,
    onProgress: opts.onProgress,
    readParquet: async (bytes) => parquetRecords(bytes, readParquet),
    batchBytes: opts.batchBytes ?? 4 << 20,
    batchRows: opts.batchRows ?? 1000,
  });
}

/** The deepest folder holding every one of these folders (a folder named as an input is the root of its files' names). */
function commonFolder(folders: readonly string[]): string {
  if (!folders.length) return '.';
  let root = folders[0];
  const inside = (f: string) => f === root || f.startsWith(root.endsWith(sep) ? root : root + sep);
  while (!folders.every(inside)) {
    const up = dirname(root);
    if (up === root) break;
    root = up;
  }
  return root;
}
