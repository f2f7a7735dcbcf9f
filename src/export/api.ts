/**
 * The export worker's protocol (workers/export.worker.ts hosts writer.ts): what exporter.ts, on the page, calls.
 */
import type { ExportFormat, ExportProgress } from '../contract/reports';

/** The tokenizer worker's port and what the second pass of an export with tokens fills (decisions 026, 032). */
export interface ExportTokens {
  port: MessagePort;
  maxTokens: number | null;
  mode?: 'sft' | 'rl_steps';
}

export interface ExportWorkerApi {
  /** The pool worker's API on `port` (PoolClient.port()), and where parquet-wasm's module is. */
  init(port: MessagePort, parquetWasmUrl: string): void;
  /** A query's rows as one file; `tokens`: fill the query's token columns from the tokenizer worker on this port. */
  exportQuery(job: number, sql: string, format: ExportFormat, onProgress?: (p: ExportProgress) => void, tokens?: ExportTokens): Promise<Blob>;
  cancel(job: number): void;
}
