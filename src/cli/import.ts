/** `agentworld import`: the page's import pipeline (src/ingest/pipeline.ts) over files on disk, into a native pool. */
import { readParquet } from 'parquet-wasm/node';
import type { ImportProgress, ImportReport } from '../contract/reports';
import { parquetRecords } from '../ingest/parquet-records';
import { ingestFile } from '../ingest/pipeline';
import { fileOf, listInputs, shardOf } from './files';
import type { NativePool } from './native-pool';

export interface CliImportOptions {
  shard?: string;
  format?: string;
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
  const paths = shardOf(listInputs(inputs), opts.shard);
  const files = await Promise.all(paths.map(fileOf));
  const reports: ImportReport[] = [];
  for (const file of files) {
    // as in the page: the other files of the same import are the siblings a joining format reads
    const report = await ingestFile(file, pool, {
      format: opts.format,
      onProgress: opts.onProgress,
      siblings: files.filter((f) => f !== file),
      readParquet: async (bytes) => parquetRecords(bytes, readParquet),
    });
    reports.push(report);
  }
  return { files: paths, reports, added: reports.reduce((n, r) => n + r.added, 0), ms: Math.round(performance.now() - t0) };
}
