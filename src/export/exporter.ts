/** Main-thread side of export: one export worker pulling chunks straight from the pool worker. */
import * as Comlink from 'comlink';
import type { ExportDatasetOptions, ExportQueryOptions, Exporter } from '../app/services';
import type { PoolClient } from '../pool/client';
import { LinkedWorker } from '../pool/linked-worker';
import type { ExportWorkerApi } from '../../workers/export.worker';
import { datasetSql, resolveLayoutOptions } from './layouts';

export interface WorkerExporterOptions {
  pool: PoolClient;
  worker: () => Worker;
  parquetWasmUrl: string;
}

export class WorkerExporter implements Exporter {
  private linked: LinkedWorker<ExportWorkerApi>;
  private pool: PoolClient;
  private job = 1;

  constructor(opts: WorkerExporterOptions) {
    this.pool = opts.pool;
    this.linked = new LinkedWorker<ExportWorkerApi>(opts.pool, opts.worker, opts.parquetWasmUrl);
  }

  private worker(): Promise<Comlink.Remote<ExportWorkerApi>> {
    return this.linked.get();
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

  async exportDataset(opts: ExportDatasetOptions): Promise<Blob> {
    const resolved = await resolveLayoutOptions((sql) => this.pool.rows(sql), opts);
    return this.exportQuery(datasetSql(resolved), opts);
  }

  datasetSql(opts: Omit<ExportDatasetOptions, 'format'>): string {
    return datasetSql(opts);
  }
}
