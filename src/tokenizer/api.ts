/**
 * The tokenizer worker's protocol (workers/tokenizer.worker.ts implements it): what the service (service.ts), the
 * export worker (its second pass's token columns) and the views (a step's rendering) name.
 */
import type { BenchEncodeResult } from './bench-encode';
import type { ExportPlan } from './export-plan';
import type { ExportRowInput, ExportTokenOptions, RlColumns, RlExportCounts, RlRowInput, TokenColumns } from './export-rows';
import type { ProfileInfo } from './profile';
import type { LostContent, TokenPiece } from './render';

export type { BenchEncodeResult, ExportPlan };

export interface RenderedStep {
  profile: ProfileInfo;
  pieces: TokenPiece[] | null;
  /** The rendered text when it cannot be cut into tokens (non-byte-level tokenizers). */
  text: string | null;
  nTokens: number;
  nTrained: number;
  maskSource: 'generation' | 'turns' | null;
  error: string | null;
  lost: LostContent;
  /** Whether the step has tool definitions. */
  hasTools: boolean;
}

export interface ProfileFiles {
  /** A profile built into the worker (OpenAI o200k_base, counting only): the other fields are ignored. */
  builtin?: 'o200k_base';
  /** tokenizer.json as text, or a URL to fetch it from (bundled profiles). */
  tokenizer: string | { url: string };
  config: string | { url: string };
  template?: string | null;
  name?: string;
}

/** Where one counting worker's time went (ms): waiting for the pool's chunks, decoding them, counting, building the rows' IPC. */
export interface CountTimings {
  readMs: number;
  decodeMs: number;
  countMs: number;
  writeMs: number;
}

export interface TokenCountProgress {
  done: number;
  total: number;
  /** Distinct text pieces tokenized so far / pieces looked up: how much the cache saved. */
  tokenized: number;
  pieces: number;
}

/** What an rl_steps export with tokens did (decision 032). */
export interface RlExportStats extends RlExportCounts {
  profile: ProfileInfo;
}

/**
 * Opens a tokenizer worker's pool cursors and is told when they close: the service, so that a worker it terminates
 * (Cancel, while stuck in a tokenizer) leaves no cursor open behind it (a terminated worker runs no `finally`, and an
 * open cursor blocks the pool's checkpoints). Chunks are read from the pool directly.
 */
export interface CursorBroker {
  open(sql: string): Promise<number>;
  closed(id: number): void;
}

export interface TokenizerWorkerApi {
  /** The pool worker's API on `port` (PoolClient.port()); `cursors` opens the worker's cursors (the service). */
  init(port: MessagePort, cursors?: CursorBroker): void;
  /** Check and make active a profile; on error the previous one stays active. */
  setProfile(files: ProfileFiles): Promise<ProfileInfo>;
  info(): ProfileInfo | null;
  /** One step's conversation (pool shape: messages + response, tools JSON) as the trainer sees it. */
  renderStep(step: { messages: Record<string, unknown>[] | null; response: Record<string, unknown> | null; tools: string | null }): RenderedStep | null;
  /** The step `stepId` of the pool as the trainer sees it; null when no profile is set or no such step. */
  renderStepById(stepId: string): Promise<RenderedStep | null>;
  cancel(): void;
  /** Serve this API on another port too: the export worker asks for token columns while it writes. */
  connect(port: MessagePort): void;
  /** First pass of an export with tokens (export-plan.ts): every row of `sql` rendered as written. */
  planExport(exportJob: number, sql: string, idSql: string, opts: ExportTokenOptions): Promise<ExportPlan>;
  cancelExport(exportJob: number): void;
  /** Second pass: the written rows' input_ids / assistant_masks (typed arrays, transferred). */
  tokenColumns(rows: ExportRowInput[], maxTokens: number | null): TokenColumns;
  /** rl_steps: a chunk's prompt_ids / response_ids (the sampler's kept, the others re-tokenized). */
  rlTokenColumns(rows: RlRowInput[]): RlColumns;
  /** The counts of the rl_steps export just written. */
  exportStats(): RlExportStats;
  /** Drop the export's piece cache. */
  endExport(): void;
  /** The content bytes (count-plan.ts CONTENT_BYTES_SQL) of the steps without a token_counts row under the active profile for their content: what a count has to do, read only until `upTo`. */
  pendingBytes(upTo: number): Promise<number>;
  /** Count one shard of the steps: the token_counts rows as Arrow IPC, or null when cancelled or the profile changed. */
  countShard(shard: number, shards: number, onProgress?: (p: TokenCountProgress) => void): Promise<{ ipc: Uint8Array; rows: number; pieces: number; tokenized: number; timings: CountTimings } | null>;
  /** Merge the shards' rows into token_counts under the active profile. */
  writeCounts(parts: Uint8Array[]): Promise<number>;
  /** Bench, test builds only. */
  benchEncode?(text: string, runs?: number): BenchEncodeResult;
}
