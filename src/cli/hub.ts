/**
 * `agentworld import hf://datasets/<owner>/<name>[/<path>]` (or a Hub dataset URL): the page's Hub import
 * (src/hub/hub-import.ts) on the CLI — the listing, trace files only, an LFS file the pool already holds not
 * downloaded — each file downloaded into memory and imported by the page's pipeline (importBlob). The endpoint and
 * token are HF_ENDPOINT and HF_TOKEN, as huggingface_hub reads them; the token goes only to the endpoint.
 */
import type { ImportProgress } from '../contract/reports';
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
