/** Main-thread side of export: one export worker pulling chunks straight from the pool worker. */
import * as Comlink from 'comlink';
import type { ExportDatasetOptions, ExportQueryOptions, Exporter } from '../app/services';
import type { PoolClient } from '../pool/client';
import type { ExportWorkerApi } from '../../workers/export.worker';
import { datasetSql } from './layouts';

export interface WorkerExporterOptions {
  pool: PoolClient;
  worker: () => Worker;
  parquetWasmUrl: string;
}

export class WorkerExporter implements Exporter {
  private api: Promise<Comlink.Remote<ExportWorkerApi>> | null = null;
  private w: Worker | null = null;
  private job = 1;

  constructor(private opts: WorkerExporterOptions) {
    // the old worker's port to the pool died with it
    opts.pool.onRestart(() => {
      this.w?.terminate();
      this.w = null;
      this.api = null;
    });
  }

  private worker(): Promise<Comlink.Remote<ExportWorkerApi>> {
    this.api ??= (async () => {
      this.w = this.opts.worker();
      const api = Comlink.wrap<ExportWorkerApi>(this.w);
      const port = await this.opts.pool.port();
      await api.init(Comlink.transfer(port, [port]), this.opts.parquetWasmUrl);
      return api;
    })();
    return this.api;
  }

  async exportQuery(sql: string, opts: ExportQueryOptions): Promise<Blob> {
    const api = await this.worker();
    const job = this.job++;
    const onAbort = () => void api.cancel(job);
    opts.signal?.addEventListener('abort', onAbort);
    try {
      return await api.exportQuery(job, sql.trim().replace(/;\s*$/, ''), opts.format, opts.onProgress ? Comlink.proxy(opts.onProgress) : undefined);
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }

  exportDataset(opts: ExportDatasetOptions): Promise<Blob> {
    return this.exportQuery(this.datasetSql(opts), opts);
  }

  datasetSql(opts: Omit<ExportDatasetOptions, 'format'>): string {
    return datasetSql(opts);
  }
}
