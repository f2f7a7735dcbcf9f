/** Main-thread side of export: one export worker pulling chunks straight from the pool worker. */
import * as Comlink from 'comlink';
import type { ExportDatasetOptions, ExportQueryOptions, Exporter } from '../contract/reports';
import type { PoolClient } from '../pool/client';
import { LinkedWorker } from '../pool/linked-worker';
import { sqlIdent } from '../pool/sql';
import type { ExportWorkerApi } from '../../workers/export.worker';
import { datasetSql, resolveLayoutOptions } from './layouts';
import { asJob } from '../util/jobs';

export interface WorkerExporterOptions {
  pool: PoolClient;
  worker: () => Worker;
  parquetWasmUrl: string;
}

export class WorkerExporter implements Exporter {
  private linked: LinkedWorker<ExportWorkerApi>;
  private pool: PoolClient;

  constructor(opts: WorkerExporterOptions) {
    this.pool = opts.pool;
    this.linked = new LinkedWorker<ExportWorkerApi>(opts.pool, opts.worker, opts.parquetWasmUrl);
  }

  private worker(): Promise<Comlink.Remote<ExportWorkerApi>> {
    return this.linked.get();
  }

  /**
   * Parquet has no reader in Hugging Face `datasets` for Arrow MAP columns ("does not have a datasets dtype
   * equivalent"): a query's top-level MAP columns are written as lists of {key, value} (MAP's own physical layout).
   */
  private async withoutMaps(sql: string): Promise<string> {
    const cols = await this.pool.rows(`SELECT column_name AS name, column_type AS type FROM (DESCRIBE ${sql})`);
    const maps = cols.filter((c) => String(c.type).startsWith('MAP(')).map((c) => `map_entries(${sqlIdent(String(c.name))}) AS ${sqlIdent(String(c.name))}`);
    return maps.length ? `SELECT * REPLACE (${maps.join(', ')}) FROM (${sql})` : sql;
  }

  async exportQuery(sql: string, opts: ExportQueryOptions): Promise<Blob> {
    sql = sql.trim().replace(/;\s*$/, '');
    if (opts.format === 'parquet') sql = await this.withoutMaps(sql);
    const api = await this.worker();
    const progress = opts.onProgress ? Comlink.proxy(opts.onProgress) : undefined;
    return asJob(opts.signal, (job) => api.cancel(job), (job) => api.exportQuery(job, sql, opts.format, progress));
  }

  async exportDataset(opts: ExportDatasetOptions): Promise<Blob> {
    const resolved = await resolveLayoutOptions((sql) => this.pool.rows(sql), opts);
    return this.exportQuery(datasetSql(resolved), opts);
  }

  datasetSql(opts: Omit<ExportDatasetOptions, 'format'>): string {
    return datasetSql(opts);
  }
}
