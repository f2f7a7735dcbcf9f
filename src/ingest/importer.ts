/** Main-thread side of import: one ingest worker wired straight to the pool worker; files run in order. */
import * as Comlink from 'comlink';
import type { ImportOptions, ImportReport, Importer } from '../contract/reports';
import type { PoolClient } from '../pool/client';
import { LinkedWorker } from '../pool/linked-worker';
import type { IngestJobOptions, IngestWorkerApi } from './api';
import { asJob } from '../util/jobs';

export interface WorkerImporterOptions {
  pool: PoolClient;
  worker: () => Worker;
  parquetWasmUrl: string;
  /** User format mappings to try (JSON specs), read at each import. */
  mappings?: () => Promise<unknown[]>;
}

function failed(file: string, message: string, bytes = 0): ImportReport {
  return { file, format: 'unknown', confidence: 0, records: 0, rows: 0, added: 0, rejected: [], warnings: [], status: 'failed', message, importId: null, bytes, ms: 0 };
}

export class WorkerImporter implements Importer {
  private linked: LinkedWorker<IngestWorkerApi>;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private opts: WorkerImporterOptions) {
    this.linked = new LinkedWorker<IngestWorkerApi>(opts.pool, opts.worker, opts.parquetWasmUrl);
  }

  private worker(): Promise<Comlink.Remote<IngestWorkerApi>> {
    return this.linked.get();
  }

  /** Import files one after another (the same path as drag-and-drop). */
  importFiles(files: File[], opts: ImportOptions & IngestJobOptions = {}): Promise<ImportReport[]> {
    const run = this.queue.then(() => this.runAll(files, opts));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async runAll(files: File[], opts: ImportOptions & IngestJobOptions): Promise<ImportReport[]> {
    const api = await this.worker();
    const mappings = opts.mappings ?? (await this.opts.mappings?.()) ?? [];
    const out: ImportReport[] = [];
    for (const file of files) {
      if (opts.signal?.aborted) {
        out.push({ ...failed(file.name, 'The import was cancelled; nothing of it was kept.', file.size), status: 'cancelled' });
        continue;
      }
      try {
        const progress = opts.onProgress ? Comlink.proxy(opts.onProgress) : undefined;
        const job = { format: opts.format, mappings, shards: opts.shards, shardMinBytes: opts.shardMinBytes, siblings: (opts.siblings ?? files).filter((f) => f !== file) };
        out.push(await asJob(opts.signal, (id) => api.cancel(id), (id) => api.importFile(id, file, progress, job)));
      } catch (e) {
        out.push(failed(file.name, `Import failed: ${e instanceof Error ? e.message : String(e)}`, file.size));
      }
    }
    return out;
  }

  async importUrl(url: string, opts: ImportOptions & IngestJobOptions = {}): Promise<ImportReport> {
    let res: Response;
    const name = decodeURIComponent(new URL(url, location.href).pathname.split('/').pop() || 'download');
    try {
      res = await fetch(url, { signal: opts.signal, credentials: 'omit' });
    } catch (e) {
      return failed(name, `Could not fetch ${url}: ${e instanceof Error ? e.message : String(e)}. The server must allow CORS for this page.`);
    }
    if (!res.ok) return failed(name, `Could not fetch ${url}: HTTP ${res.status} ${res.statusText}`);
    const blob = await res.blob();
    const [report] = await this.importFiles([new File([blob], name)], opts);
    return report;
  }
}
