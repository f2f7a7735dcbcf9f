/**
 * `window.workbench`: the page's public scripting API (devtools console, end-to-end tests).
 * Documented in README.md; keep it stable.
 */
import type { RunAgentRequest, RunAgentResult } from '../agents/run';
import type { CurationPatch, CurationResult } from '../curation/api';
import type { PartsOptions, PartsReport } from '../export/parts';
import type { HubDatasetOptions, HubDatasetReport } from '../hub/hub-dataset';
import type { HubImportReports } from '../hub/hub-import';
import type { RemoteReadReport } from '../hub/remote-query';
import type { GatewaySettings } from '../gateway/core/upstream';
import type { CaptureSinkStats } from '../gateway/page/sink';
import type { CellReport } from '../notebook/api';
import type { Compaction } from '../pool/api';
import type { Row } from '../pool/rows';
import type { BenchEncodeResult } from '../tokenizer/bench-encode';
import type { ProfileInfo } from '../tokenizer/profile';
import type { TokenCountResult, TokenizerInput } from '../tokenizer/service';
import type { ExportDatasetOptions, ExportFormat, ImportReport } from '../contract/reports';

/** Options of `workbench.importFiles`. */
export interface WorkbenchImportOptions {
  /** Parallel readers for a large JSON Lines file: false = one; a number caps them (default: one per core but one, at most 4). */
  shards?: number | false;
  /** Read every file as this format instead of detecting it. */
  format?: string;
}

export interface WorkbenchApi {
  /** Resolves when the pool is open and the UI mounted. */
  ready: Promise<void>;
  /**
   * Import files through the same code path as drag-and-drop. `format` reads every file as that format (a format id
   * of the README's table, `generic`, or a saved mapping's id) instead of detecting it, as the panel's and the CLI's
   * `--format` do; an unknown id fails each file's report and says so.
   */
  importFiles(files: File[], opts?: WorkbenchImportOptions): Promise<ImportReport[]>;
  /** Fetch (CORS) and import one file; an hf:// reference or Hub URL naming one file of a dataset comes from the Hub endpoint. */
  importUrl(url: string): Promise<ImportReport>;
  /**
   * Import every trace file under `hf://datasets/<owner>/<name>[@<revision>][/<path>]` (or a Hub dataset URL): one report per
   * file, in listing order; `skipped` lists the files left out and why. `token` (else the one held for the tab) reads gated
   * and private datasets; it is sent only in the Authorization header of requests to the Hub endpoint.
   */
  importHub(reference: string, opts?: { token?: string }): Promise<HubImportReports>;
  /**
   * What the recent queries read of remote Parquet (`read_parquet('<https or hf:// URL>')`, newest last): per file the
   * bytes fetched beside the file's size, requests, the columns and row groups read, and whether an earlier read was reused.
   */
  remoteReads(): RemoteReadReport[];
  /**
   * Hold a Hugging Face token for this tab (null forgets it): gated and private datasets, remote Parquet on the Hub. Kept
   * in memory only (a reload forgets it), sent only in the Authorization header of requests to the Hub endpoint.
   */
  setHubToken(token: string | null): void;
  /** The Hub endpoint (default https://huggingface.co). */
  hubEndpoint(): string;
  /** Set the Hub endpoint (a mirror or private Hub; null: the default), kept across reloads; returns it normalized. */
  setHubEndpoint(url: string | null): string;
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
  /**
   * A dataset folder the Hugging Face Hub understands: every layout of `layouts` (the same options as exportDatasetParts)
   * as Parquet part files per split, a README.md card whose `configs` name them, with `sessions: 'sts'` the curated
   * trajectories as Session Trace Simple Format files; into a new sub-folder of `target`, or returned as `zip`.
   */
  exportHubDataset(opts: HubDatasetOptions, target?: FileSystemDirectoryHandle | null): Promise<HubDatasetReport & { zip?: Blob }>;
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
  /** Open a notebook (Markdown text) in the Notebook tab. */
  openNotebook(markdown: string): void;
  /** Run every cell of the open notebook that runs on open (not effect cells). */
  runAll(): Promise<{ cells: CellReport[] }>;
  /** Label steps by id (stored in `curation`). */
  setCuration(stepIds: string[], patch: CurationPatch): Promise<CurationResult>;
  /** Label every step a SQL predicate over `steps s` / `curation c` selects. */
  setCurationWhere(where: string, patch: CurationPatch): Promise<CurationResult>;
  /** The OpenAI-style base URL of the gateway (`…/gateway/v1`). */
  gatewayBaseUrl(): string;
  /** Run the built-in agent on a task set. */
  runAgent(req: RunAgentRequest): Promise<RunAgentResult>;
  gatewaySettings(): Promise<GatewaySettings>;
  setGatewaySettings(s: GatewaySettings): Promise<void>;
  /** Calls moved from the journal into the pool, and the last failure to capture or move one. */
  captureStats(): CaptureSinkStats;
  /** Run a foreign agent module in the sandbox; resolves with what it returned. */
  runBlackBox(source: { url: string } | { code: string }, input?: unknown): Promise<unknown>;
  /** `fetch` for gateway calls whose abort (`init.signal`) also aborts the upstream request. */
  gatewayFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response>;
  /** Fault injection and the tokenizer bench: only in test builds (`vite build --mode test`). */
  debug?: WorkbenchDebug;
}

/** `window.workbench.debug`, present only in test builds. */
export interface WorkbenchDebug {
  /** Make the pool engine fail as a wasm abort does; the page restarts it. */
  crashPool(): Promise<void>;
  /** The next call of a pool method fails with this message. */
  injectPoolFault(method: string, message: string): Promise<void>;
  /** How many times the pool engine was restarted. */
  poolRestarts(): number;
  /** One tokenizer worker encoding `text` with the active profile, on the counting path and with the library's encode. */
  tokenizerEncode(text: string, runs?: number): Promise<BenchEncodeResult>;
}

declare global {
  interface Window {
    workbench: WorkbenchApi;
  }
}
