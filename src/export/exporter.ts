/** Main-thread side of export: one export worker pulling chunks straight from the pool worker. */
import * as Comlink from 'comlink';
import type { ExportDatasetOptions, ExportQueryOptions, Exporter } from '../contract/reports';
import type { PoolClient } from '../pool/client';
import { LinkedWorker } from '../pool/linked-worker';
import { exportProfile, rlTokenReport, rlToolsSql, sftTokenReport, tokenSettings, toolWarnings } from '../tokenizer/export-plan';
import type { TokenizerService } from '../tokenizer/service';
import type { ExportWorkerApi } from './api';
import { datasetSql, describeSql, resolveLayoutOptions, retokenizedSql, rowIdSql, tokenizedSql, withoutMapsSql } from './layouts';
import { asJob } from '../util/jobs';

export interface WorkerExporterOptions {
  pool: PoolClient;
  worker: () => Worker;
  parquetWasmUrl: string;
  /** The page's tokenizer service, for exports with `tokens: true`. */
  tokenizer?: TokenizerService;
}

export class WorkerExporter implements Exporter {
  private linked: LinkedWorker<ExportWorkerApi>;
  private pool: PoolClient;
  private tokenizer: TokenizerService | null;

  constructor(opts: WorkerExporterOptions) {
    this.pool = opts.pool;
    this.tokenizer = opts.tokenizer ?? null;
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
    return withoutMapsSql(sql, await this.pool.rows(describeSql(sql)));
  }

  async exportQuery(sql: string, opts: ExportQueryOptions, tokens?: { port: MessagePort; maxTokens: number | null; mode?: 'sft' | 'rl_steps' }): Promise<Blob> {
    // the export worker runs the SQL on its own cursor: remote Parquet reads are resolved here, as pool queries resolve theirs
    sql = await this.pool.prepareSql(sql.trim().replace(/;\s*$/, ''));
    if (opts.format === 'parquet') sql = await this.withoutMaps(sql);
    const api = await this.worker();
    const progress = opts.onProgress ? Comlink.proxy(opts.onProgress) : undefined;
    return asJob(
      opts.signal,
      (job) => api.cancel(job),
      (job) =>
        tokens
          ? api.exportQuery(job, sql, opts.format, progress, Comlink.transfer({ port: tokens.port, maxTokens: tokens.maxTokens, mode: tokens.mode ?? 'sft' }, [tokens.port]))
          : api.exportQuery(job, sql, opts.format, progress),
    );
  }

  async exportDataset(opts: ExportDatasetOptions): Promise<Blob> {
    const resolved = await resolveLayoutOptions((sql) => this.pool.rows(sql), opts);
    if (!opts.tokens) return this.exportQuery(datasetSql(resolved), opts);
    return this.exportWithTokens(resolved, opts);
  }

  /**
   * An export with tokens (decisions 026, 032; the plan is src/tokenizer/export-plan.ts, the CLI's too). sft: the
   * tokenizer worker renders every row as written and decides which are left out or cut; the export worker writes the
   * rest, asking the tokenizer worker for each chunk's token columns. rl_steps: no row is left out; the export worker
   * asks per chunk for the prompt_ids / response_ids of steps that have none (the sampler's are kept), and the counts
   * are reported through onTokens once the file is written.
   */
  private async exportWithTokens(resolved: Awaited<ReturnType<typeof resolveLayoutOptions>>, opts: ExportDatasetOptions): Promise<Blob> {
    const settings = tokenSettings(opts);
    const tok = this.tokenizer;
    const profile = exportProfile(tok?.info());
    if (!tok) throw new Error('No tokenizer is set.');
    const sql = datasetSql(resolved);
    if (settings.layout === 'rl_steps') {
      const warnings = await toolWarnings(this.pool, profile, rlToolsSql(sql));
      try {
        const blob = await this.exportQuery(retokenizedSql(resolved), opts, { port: await tok.exportPort(), maxTokens: null, mode: 'rl_steps' });
        const counted = await tok.exportStats();
        opts.onTokens?.(rlTokenReport(counted.profile, counted, warnings));
        return blob;
      } finally {
        await tok.endExport();
      }
    }
    const plan = await tok.planExport(sql, rowIdSql(resolved), { maxTokens: settings.maxTokens, truncate: settings.truncate }, opts.signal);
    opts.onTokens?.(sftTokenReport(plan, settings, await toolWarnings(this.pool, profile, sql)));
    try {
      return await this.exportQuery(tokenizedSql(resolved, plan.exceptions), opts, { port: await tok.exportPort(), maxTokens: settings.maxTokens });
    } finally {
      await tok.endExport();
    }
  }

  datasetSql(opts: Omit<ExportDatasetOptions, 'format'>): string {
    return datasetSql(opts);
  }
}
