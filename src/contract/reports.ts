/** What an import and an export report, and the options they take: the types every stage and view share. */

/** A trajectory whose own id was already in the pool with other content. */
export interface IdCollision {
  /** The id the source gave (kept in `steps.source_trajectory_id`). */
  trajectory: string;
  /** The trajectory_uid its steps were stored under. */
  keptAs: string;
  /** Steps of this import stored under `keptAs`. */
  steps: number;
  /**
   * `apart`: another trajectory that reuses the id, kept as a trajectory of its own (scoped by the file);
   * `joined`: spans of the same trace from another export file, appended to the stored trajectory.
   */
  how: 'apart' | 'joined';
}

export type ExportFormat = 'parquet' | 'jsonl' | 'csv';
export type DatasetLayout = 'steps' | 'sft' | 'rl_steps' | 'verl_prompts' | 'dpo';

export interface ExportProgress {
  rows: number;
  bytes: number;
}

export interface ExportQueryOptions {
  format: ExportFormat;
  onProgress?: (p: ExportProgress) => void;
  signal?: AbortSignal;
}

export interface ExportDatasetOptions {
  layout: DatasetLayout;
  /** SQL predicate over `steps s` joined with `curation c`. */
  where?: string;
  format: ExportFormat;
  /** Default true: only steps with coalesce(c.trainable, s.status = 'ok'). */
  trainableOnly?: boolean;
  /**
   * Default true: leave out rows whose conversation a trainer or chat template would reject (empty prompt, no user turn,
   * empty assistant turn, unanswered tool call, no response…; decision 012). false: keep them, with a `problem` column.
   */
  validOnly?: boolean;
  /** sft only: one row per trajectory (default) or per step (prompt + completion, plus the full messages). */
  sftPer?: 'trajectory' | 'step';
  /** dpo only: minimum chosen − rejected reward (default: any positive difference). */
  dpoMinMargin?: number;
  /** Replace e-mails, phone numbers and key-shaped strings in messages, response, error and raw (redact_pii). */
  redact?: boolean;
  /** Only rows of this split ('train' / 'val'); by curation.split, falling back to channel (see splitColumn). */
  split?: string | null;
  /** Which column `split` reads: the split helper's curation.split (default, falls back to channel) or the source's channel. */
  splitColumn?: 'split' | 'channel';
  /**
   * sft only: add `input_ids`, `assistant_masks` and `n_tokens`, rendered and tokenized with the active tokenizer profile
   * as transformers' apply_chat_template(row.messages, tools=json.loads(row.tools)) does. Rows whose template raises are
   * left out, and so are rows over `maxTokens` unless `truncate: 'turn'` (issue 19, decision 026).
   * rl_steps: fill `prompt_ids` / `response_ids` for the steps that have none, marked in an `ids_retokenized` column
   * (decision 032); no row is left out, and `onTokens` is called once the file is written.
   */
  tokens?: boolean;
  /** With `tokens`: the longest row in tokens. */
  maxTokens?: number | null;
  /** With `tokens` and `maxTokens`: 'drop' (default) leaves an over-long row out; 'turn' cuts it at the last turn boundary that fits (sft per trajectory). */
  truncate?: 'drop' | 'turn';
  /** With `tokens`: called with what the tokenizer did (for the manifest) before the file is written. */
  onTokens?: (r: TokenExportReport) => void;
  onProgress?: (p: ExportProgress) => void;
  signal?: AbortSignal;
}

/** What an export with `tokens: true` rendered, cut and left out (the manifest's `tokens` section). */
export interface TokenExportReport {
  tokenizer: string;
  vocab_size: number;
  /** SHA-256 of the chat template text. */
  template_hash: string;
  /** How assistant_masks were derived: the template's {% generation %} blocks, its assistant turns, or not at all (null: all zeros). */
  mask_source: 'generation' | 'turns' | null;
  max_tokens: number | null;
  truncate: 'drop' | 'turn';
  /** Rows the layout gave (before the tokenizer). */
  rows_in: number;
  /** Rows written. */
  rows: number;
  /** Rows cut at a turn boundary to fit max_tokens. */
  truncated: number;
  /** Rows left out by the tokenizer, by cause ('longer than max_tokens', 'template raised: <message>'). */
  excluded: Record<string, number>;
  /** Written rows whose rendering lost what their messages have: earlier reasoning, tool calls, tool results, other content. */
  lost: { reasoning: number; tool_calls: number; tool_results: number; content: number };
  /** Tokens in the written rows, and of those, trained (assistant mask 1). */
  tokens: number;
  trained_tokens: number;
  warnings: string[];
  /** rl_steps: steps given re-tokenized prompt_ids / response_ids (ids_retokenized true), steps that kept the sampler's, and steps left without ids by cause. */
  retokenized?: number;
  sampler_ids?: number;
  not_retokenized?: Record<string, number>;
}

export interface Exporter {
  exportQuery(sql: string, opts: ExportQueryOptions): Promise<Blob>;
  exportDataset(opts: ExportDatasetOptions): Promise<Blob>;
  /** The SQL a layout runs (for previews and manifests). */
  datasetSql(opts: Omit<ExportDatasetOptions, 'format'>): string;
}

export interface RejectedLine {
  line: number;
  reason: string;
}

export interface ImportReport {
  file: string;
  format: string;
  /** How sure detection was, 0–1. */
  confidence: number;
  records: number;
  /** Step rows made from the records. */
  rows: number;
  /** Rows actually added (re-imports add 0). */
  added: number;
  /** Steps of the file that were already in the pool with the same content (not added again). */
  alreadyInPool?: number;
  /** Trajectory ids of the file already in the pool with other content, and what became of them (docs/decisions/011). */
  collisions?: IdCollision[];
  rejected: RejectedLine[];
  warnings: string[];
  /**
   * done: something was added, or the file was read with another file of the same import (`readWith`);
   * unchanged: every step was already in the pool (a re-import);
   * failed: nothing was imported (the message says why); cancelled: stopped by the user.
   */
  status: 'done' | 'unchanged' | 'failed' | 'cancelled';
  message: string | null;
  importId: number | null;
  bytes: number;
  ms: number;
  /** Where the time went, ms from the start: hash done, last record read, last batch appended, committed (null if not reached). */
  timings?: ImportTimings;
  /** How many readers read the file in parallel (1 unless a large JSON Lines file of a stateless format). */
  shards?: number;
  /** The pool's database file after this import and the size past which imports are refused (persistent pools). */
  poolRoom?: { bytes: number; limit: number };
  /**
   * The file's records have the shape of no format the workbench reads (detection fell to `generic`): nothing was
   * kept. `fields` are the top-level keys seen in its first records, for a mapping; import it again with
   * `format: 'generic'` to keep the records as they are.
   */
  notUnderstood?: { fields: string[] };
  /**
   * Another file of the same import read this file's records (a Cline task's `ui_messages.json` by its
   * `api_conversation_history.json`, an OpenCode storage message by its session file): that file's name. Nothing of
   * this file is kept on its own; its content is in that file's steps.
   */
  readWith?: string;
}

export interface ImportTimings {
  hashed: number | null;
  read: number | null;
  appended: number | null;
  committed: number | null;
  /** Time the reader waited for the pool to take the previous batch (the pool was the bottleneck). */
  waitedForPool: number;
  /** The pool's commit, ms per stage (dedupe, isLast, stats, meta, commit, checkpoint). */
  commit?: Record<string, number>;
}

export interface ImportProgress {
  file: string;
  bytesRead: number;
  bytesTotal: number;
  records: number;
  rows: number;
  /** `downloading`: a file fetched before its import (a Hub file), bytesRead of bytesTotal received. */
  phase: 'downloading' | 'hashing' | 'reading' | 'committing' | 'done';
}

export interface ImportOptions {
  onProgress?: (p: ImportProgress) => void;
  signal?: AbortSignal;
  /** Parallel readers for a large JSON Lines file: false = one; a number caps them (default: one per core but one, at most 4). */
  shards?: number | false;
  /** The other files dropped together with these: formats that join across files (OpenAI Batch output + input) read them. Default: the other files of the call. */
  siblings?: File[];
  /** Force a format id instead of detecting (a built-in normalizer's or one of `mappings`). */
  format?: string;
  /** Format mappings (JSON specs) to use for this import instead of the saved, enabled ones. */
  mappings?: unknown[];
}

export interface Importer {
  importFiles(files: File[], opts?: ImportOptions): Promise<ImportReport[]>;
  importUrl(url: string, opts?: ImportOptions): Promise<ImportReport>;
}
