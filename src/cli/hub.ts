/**
 * `agentworld import hf://datasets/<owner>/<name>[/<path>]` (or a Hub dataset URL): the page's Hub import
 * (src/hub/hub-import.ts) on the CLI — the listing, trace files only, an LFS file the pool already holds not
 * downloaded — each file downloaded into memory and imported by the page's pipeline (importBlob). The endpoint and
 * token are HF_ENDPOINT and HF_TOKEN, as huggingface_hub reads them; the token goes only to the endpoint.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ImportProgress } from '../contract/reports';
import type { HeadlessExportOptions } from '../export/export-flags';
import { MANIFEST_FILE } from '../export/part-folder';
import { exportHubDataset, type HubDatasetOptions, type HubDatasetReport } from '../hub/hub-dataset';
import { parseNotebook } from '../notebook/format';
import { notebookToSql } from '../notebook/sql-script';
import { type HubImportReports, importFromHub, poolHubHost } from '../hub/hub-import';
import { parseHubRef } from '../hub/hub-ref';
import { sqlString } from '../pool/sql';
import { UsageError } from './files';
import { importBlob } from './import';
import type { NativePool } from './native-pool';
import { cliHubSettings } from './remote-parquet';

/** Whether a command-line input names the Hub (an hf:// reference, or a dataset URL on huggingface.co or HF_ENDPOINT). */
export function isHubInput(arg: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (/^hf:\/\//i.test(arg)) return true;
  if (!/^https?:\/\//i.test(arg)) return false;
  try {
    return parseHubRef(arg, cliHubSettings(env).endpoint) !== null;
  } catch {
    return true;
  }
}

export async function importHubInputs(pool: NativePool, refs: readonly string[], opts: { format?: string; onProgress?: (p: ImportProgress) => void; env?: NodeJS.ProcessEnv } = {}): Promise<HubImportReports[]> {
  const { endpoint, token } = cliHubSettings(opts.env);
  const host = poolHubHost(pool, {
    async importDownloaded(name, bytes, download) {
      let blob: Blob;
      try {
        blob = await download(undefined, (n) => opts.onProgress?.({ file: name, bytesRead: n, bytesTotal: bytes, records: 0, rows: 0, phase: 'downloading' }));
      } catch (e) {
        // a failed download is that file's failed report (its message names why; hub-api never puts the token in one)
        return { file: name, format: 'unknown', confidence: 0, records: 0, rows: 0, added: 0, rejected: [], warnings: [], status: 'failed', message: e instanceof Error ? e.message : String(e), importId: null, bytes, ms: 0 };
      }
      return importBlob(pool, new File([blob], name), { format: opts.format, onProgress: opts.onProgress });
    },
  }, sqlString);
  const out: HubImportReports[] = [];
  for (const text of refs) {
    const ref = parseHubRef(text, endpoint);
    if (!ref) throw new UsageError(`${text} is not a Hugging Face dataset reference (hf://datasets/<owner>/<name>[/<path>]).`);
    out.push(await importFromHub(ref, host, { endpoint, token }));
  }
  return out;
}

/**
 * `agentworld export --hub-dataset DIR`: the page's dataset folder (src/hub/hub-dataset.ts) written by the CLI's own
 * part-file export (exportLayout: COPY … FILE_SIZE_BYTES per split folder, the same folder names and manifests), the
 * card and the sessions beside it. DIR follows the folder rule (claimed by the caller).
 */
export async function exportHubFolder(
  pool: NativePool,
  opts: HubDatasetOptions,
  out: string,
  exportLayout: (o: HeadlessExportOptions, dir: string, partitionBy: string[], maxBytes: number) => Promise<unknown>,
  maxBytes: number,
): Promise<HubDatasetReport> {
  mkdirSync(out, { recursive: true });
  return exportHubDataset(
    {
      rows: (sql) => pool.rows(sql),
      async writeLayout(o, parts, dir) {
        const { format: _f, onTokens: _t, onProgress: _p, signal: _s, ...headless } = o;
        await exportLayout(headless, join(out, ...dir.split('/')), [...(parts.partitionBy ?? [])], parts.maxFileBytes ?? maxBytes);
        // the files as the layout's own manifest lists them (rows read back from each file's footer)
        const m = JSON.parse(readFileSync(join(out, ...dir.split('/'), MANIFEST_FILE), 'utf8')) as { files: { path: string; rows: number; bytes: number }[] };
        return { files: m.files.map((f) => ({ path: `${dir}/${f.path}`, rows: f.rows, bytes: f.bytes })) };
      },
      async write(path, blob) {
        const file = join(out, ...path.split('/'));
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, new Uint8Array(await blob.arrayBuffer()));
      },
    },
    opts,
    out,
  );
}

/** `--recipe FILE`: a notebook (its SQL, as the notebook view's .sql download has it) or a .sql file as it is. */
export function recipeText(path: string): string {
  const text = readFileSync(path, 'utf8');
  return /\.md$/i.test(path) ? notebookToSql(parseNotebook(text)) : text;
}
