/** Main-thread side of export: one export worker pulling chunks straight from the pool worker. */
import * as Comlink from 'comlink';
import type { ExportDatasetOptions, ExportQueryOptions, Exporter, TokenExportReport } from '../contract/reports';
import type { PoolClient } from '../pool/client';
import { LinkedWorker } from '../pool/linked-worker';
import type { TokenizerService } from '../tokenizer/service';
import type { ExportWorkerApi } from '../../workers/export.worker';
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
   * An sft export with input_ids / assistant_masks / n_tokens (decision 026): the tokenizer worker renders every row
   * as written and decides which are left out or cut; the export worker writes the rest, asking the tokenizer worker
   * for each chunk's token columns.
   */
  private async exportWithTokens(resolved: Awaited<ReturnType<typeof resolveLayoutOptions>>, opts: ExportDatasetOptions): Promise<Blob> {
    const tok = this.tokenizer;
    if (opts.layout !== 'sft' && opts.layout !== 'rl_steps') throw new Error(`tokens: true is for the sft and rl_steps layouts (got ${JSON.stringify(opts.layout)}).`);
    if (!tok?.info()) throw new Error('No tokenizer is set: call workbench.setTokenizer(…) first (exportDataset with tokens: true renders rows with it).');
    if (opts.layout === 'rl_steps') return this.exportRlStepsWithTokens(resolved, opts, tok);
    const maxTokens = opts.maxTokens == null ? null : Math.floor(Number(opts.maxTokens));
    if (maxTokens !== null && !(maxTokens > 0)) throw new Error(`maxTokens must be a positive number (got ${JSON.stringify(opts.maxTokens)}).`);
    // a per-step row is a prompt and its completion: cutting it would cut the completion, so over-long ones are left out
    const truncate = opts.truncate === 'turn' && opts.sftPer !== 'step' ? 'turn' : 'drop';
    const sql = datasetSql(resolved);
    const plan = await tok.planExport(sql, rowIdSql(resolved), { maxTokens, truncate }, opts.signal);
    const warnings = await tok.toolWarnings(sql);
    if (!plan.mask_source && plan.rows) warnings.push('assistant_masks could not be derived for this tokenizer / template: they are all 0.');
    const { profile, exceptions, ...counts } = plan;
    const report: TokenExportReport = {
      tokenizer: profile.name, vocab_size: profile.vocabSize, template_hash: profile.templateHash, max_tokens: maxTokens, truncate, ...counts, warnings,
    };
    opts.onTokens?.(report);
    try {
      return await this.exportQuery(tokenizedSql(resolved, exceptions), opts, { port: await tok.exportPort(), maxTokens });
    } finally {
      await tok.endExport();
    }
  }

  /**
   * rl_steps with re-tokenized ids (decision 032): no row is left out; the export worker asks the tokenizer worker per
   * chunk for the prompt_ids / response_ids of steps that have none (the sampler's are kept), and the counts are
   * reported through onTokens once the file is written.
   */
  private async exportRlStepsWithTokens(resolved: Awaited<ReturnType<typeof resolveLayoutOptions>>, opts: ExportDatasetOptions, tok: TokenizerService): Promise<Blob> {
    if (opts.maxTokens != null || (opts.truncate && opts.truncate !== 'drop')) throw new Error('maxTokens / truncate are for the sft layout: rl_steps keeps every step (its ids are what the sampler saw).');
    const info = tok.info();
    if (info?.countingOnly) throw new Error(`${info.name} has no chat template: it counts tokens only, so it cannot write prompt_ids a trainer would compute. Choose a model's tokenizer for an export with tokens.`);
    const sql = retokenizedSql(resolved);
    const warnings = await tok.toolWarnings(`SELECT prompt AS messages, tools FROM (${datasetSql(resolved)})`);
    try {
      const blob = await this.exportQuery(sql, opts, { port: await tok.exportPort(), maxTokens: null, mode: 'rl_steps' });
      const s = await tok.exportStats();
      opts.onTokens?.({
        tokenizer: s.profile.name, vocab_size: s.profile.vocabSize, template_hash: s.profile.templateHash, mask_source: null, max_tokens: null, truncate: 'drop',
        rows_in: s.rows, rows: s.rows, truncated: 0, excluded: {}, lost: { reasoning: 0, tool_calls: 0, tool_results: 0, content: 0 },
        tokens: s.tokens, trained_tokens: 0, warnings, retokenized: s.retokenized, sampler_ids: s.samplerIds, not_retokenized: s.notRetokenized,
      });
      return blob;
    } finally {
      await tok.endExport();
    }
  }

  datasetSql(opts: Omit<ExportDatasetOptions, 'format'>): string {
    return datasetSql(opts);
  }
}
