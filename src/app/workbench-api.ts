/**
 * `window.workbench`: the page's public scripting API (devtools console, end-to-end tests).
 * Documented in README.md; keep it stable.
 */
import type { PartsOptions, PartsReport } from '../export/parts';
import type { Compaction } from '../pool/compact';
import type { Row } from '../pool/rows';
import type { ProfileInfo } from '../tokenizer/profile';
import type { TokenCountResult, TokenizerInput } from '../tokenizer/service';
import type { ExportDatasetOptions, ExportFormat, ImportReport } from '../contract/reports';

export interface WorkbenchApi {
  /** Resolves when the pool is open and the UI mounted. */
  ready: Promise<void>;
  /** Import files through the same code path as drag-and-drop. */
  importFiles(files: File[], opts?: { shards?: number | false }): Promise<ImportReport[]>;
  importUrl(url: string): Promise<ImportReport>;
  /** Run SQL against the pool; rows as plain objects (BIGINT as number, timestamps as ISO text). */
  query(sql: string): Promise<Row[]>;
  /** Any query's rows as they are. */
  exportQuery(sql: string, opts: { format: ExportFormat }): Promise<Blob>;
  /** A training layout of the selected (by default: trainable) steps. */
  exportDataset(opts: ExportDatasetOptions): Promise<Blob>;
  /**
   * The same layout as several files: a folder per `partitionBy` value (hive style), parts of at most `maxFileBytes`,
   * and `_manifest.json`, written into `target` (a folder from `showDirectoryPicker()`, or OPFS) or, without one,
   * returned as `zip`. Readers (DuckDB, Ray Data, polars, datasets) read the folder as one dataset.
   */
  exportDatasetParts(opts: ExportDatasetOptions & PartsOptions, target?: FileSystemDirectoryHandle | null): Promise<PartsReport & { zip?: Blob }>;
  /** Load the bundled demo data (notebooks/data/). */
  loadDemoData(): Promise<ImportReport[]>;
  /** Delete everything in the pool. */
  clearPool(): Promise<void>;
  /** Rewrite the saved pool into a new database file at the current storage version, every table copied and checked (decision 050). */
  compactPool(): Promise<Compaction>;
  /** Make a tokenizer profile active (parsed JSON, text or Files; or `{ bundled: 'qwen3' }`); persisted across reloads. Bad input rejects and the previous profile stays. */
  setTokenizer(input: TokenizerInput): Promise<ProfileInfo>;
  /** The active tokenizer profile (name, vocab size, template hash), or null. */
  tokenizer(): ProfileInfo | null;
  /** Wait for the `token_counts` table under the active profile (computed in the background). */
  tokenCounts(): Promise<TokenCountResult | null>;
  /** Whether the pool persists across reloads (OPFS), and why not when it does not. */
  poolStatus(): { persistent: boolean; message: string | null; interrupted: { import_id: number; file: string }[] };
  [extension: string]: unknown;
}

declare global {
  interface Window {
    workbench: WorkbenchApi;
  }
}
