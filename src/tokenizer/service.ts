/**
 * Main-thread side of the tokenizer: the active profile (kept in IndexedDB across reloads), the
 * tokenizer worker (started on first use, so nothing of it is in the first page load), and the
 * background `token_counts` computation, redone when steps change.
 */
import * as Comlink from 'comlink';
import { openDB } from 'idb';
import type { PoolClient } from '../pool/client';
import { type ExportPlan, toolWarnings } from './export-plan';
import type { BenchEncodeResult, CountTimings, ProfileFiles, RenderedStep, RlExportStats, TokenCountProgress, TokenizerWorkerApi } from './api';
import type { ExportTokenOptions } from './export-rows';
import type { ProfileInfo } from './profile';

/** A JSON file as a parsed object, its text, or a dropped File. */
export type JsonInput = object | string | File;

export type TokenizerInput = { tokenizer: JsonInput; config: JsonInput; template?: string | File | null; name?: string } | { bundled: 'qwen3' | 'o200k_base' };

type Stored = { key: 'active'; bundled: 'qwen3' | 'o200k_base' } | { key: 'active'; files: ProfileFiles };
/** OpenAI o200k_base: built into the tokenizer worker (its ranks a lazily loaded chunk there), counting only. */
const O200K_FILES: ProfileFiles = { builtin: 'o200k_base', tokenizer: '', config: '', name: 'OpenAI o200k_base (counting only)' };

const db = () =>
  openDB('aw-tokenizer', 1, {
    upgrade(d) {
      d.createObjectStore('profile', { keyPath: 'key' });
    },
  });

async function asText(v: JsonInput | null | undefined): Promise<string | null> {
  if (v == null) return null;
  if (typeof v === 'string') return v;
  if (typeof File !== 'undefined' && v instanceof File) return v.text();
  return JSON.stringify(v);
}

export interface TokenCountResult {
  /** token_counts rows after the count (one per step). */
  rows: number;
  /** Steps counted by this run; the other rows were kept (counted before under this profile, same content). */
  counted: number;
  /** Text pieces looked up, and how many were tokenized (the rest came from the cache). */
  pieces: number;
  tokenized: number;
  ms: number;
  /** Workers that counted. */
  workers: number;
  /** Each worker's time split (ms), and the time to merge their rows into token_counts. */
  timings: { workers: CountTimings[]; replaceMs: number };
}


/** What views show about the tokenizer: the profile, a running count's progress, the last error. */
export interface TokenizerState {
  profile: ProfileInfo | null;
  progress: TokenCountProgress | null;
  counting: boolean;
  error: string | null;
}

/** Workers counting token_counts: one per core (at most 4: each holds its own copy of the tokenizer). */
export function countWorkers(): number {
  const cores = typeof navigator !== 'undefined' ? navigator.hardwareConcurrency || 1 : 1;
  return Math.max(1, Math.min(4, cores));
}

export class TokenizerService {
  private remote: Comlink.Remote<TokenizerWorkerApi> | null = null;
  /** Extra workers for counting (the first is `remote`), with the profile files they were given. */
  private helpers: { remote: Comlink.Remote<TokenizerWorkerApi>; worker: Worker; files: ProfileFiles | null }[] = [];
  private files: ProfileFiles | null = null;
  private listeners = new Set<(s: TokenizerState) => void>();
  private active: ProfileInfo | null = null;
  private running: Promise<TokenCountResult | null> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private exportJob = 1;
  /** Progress of the running token count, for views. */
  progress: TokenCountProgress | null = null;
  /** The last background count's error, if it failed. */
  lastError: string | null = null;

  constructor(
    private pool: PoolClient,
    private makeWorker: () => Worker,
    /** The bundled Qwen3 profile's files (src/tokenizer/bundled.ts in the app; plain URLs in tests). */
    private bundledQwen3: () => Promise<ProfileFiles>,
  ) {
    pool.onChange((e) => {
      if (this.active && e.tables.includes('steps')) this.schedule();
    });
  }

  /** A new tokenizer worker, given its own port to the pool. */
  private async start(): Promise<{ remote: Comlink.Remote<TokenizerWorkerApi>; worker: Worker }> {
    const worker = this.makeWorker();
    const remote = Comlink.wrap<TokenizerWorkerApi>(worker);
    const port = await this.pool.port();
    await remote.init(Comlink.transfer(port, [port]));
    return { remote, worker };
  }

  private async worker(): Promise<Comlink.Remote<TokenizerWorkerApi>> {
    this.remote ??= (await this.start()).remote;
    return this.remote;
  }

  /** `n` workers with the active profile: the main one and n - 1 helpers (started and given the profile on demand). */
  private async countingWorkers(n: number): Promise<Comlink.Remote<TokenizerWorkerApi>[]> {
    const out = [await this.worker()];
    for (let i = 0; i < n - 1; i++) {
      let h = this.helpers[i];
      if (!h) {
        h = { ...(await this.start()), files: null };
        this.helpers[i] = h;
      }
      if (h.files !== this.files && this.files) {
        await h.remote.setProfile(this.files);
        h.files = this.files;
      }
      out.push(h.remote);
    }
    return out;
  }

  /** Called with the state now and whenever the profile, a count's progress or its outcome changes. Returns an unsubscribe. */
  onState(fn: (s: TokenizerState) => void): () => void {
    this.listeners.add(fn);
    fn(this.state());
    return () => this.listeners.delete(fn);
  }

  state(): TokenizerState {
    return { profile: this.active, progress: this.progress, counting: this.counting, error: this.lastError };
  }

  private emit(): void {
    const s = this.state();
    for (const l of this.listeners) l(s);
  }

  private counting = false;
  private countSeq = 0;

  /** Restore the profile chosen before the reload, if any, and count in the background. */
  async restore(): Promise<void> {
    const s = (await (await db()).get('profile', 'active')) as Stored | undefined;
    if (!s) return;
    const files = 'bundled' in s ? (s.bundled === 'o200k_base' ? O200K_FILES : await this.bundledQwen3()) : s.files;
    this.active = await (await this.worker()).setProfile(files);
    this.files = files;
    this.emit();
    this.schedule(0);
  }

  /** Make a profile active (checked in the worker; on error the previous one stays) and persist it. */
  async set(input: TokenizerInput): Promise<ProfileInfo> {
    let files: ProfileFiles;
    if ('bundled' in input) {
      if (input.bundled !== 'qwen3' && input.bundled !== 'o200k_base') throw new Error(`Unknown bundled tokenizer ${JSON.stringify(input.bundled)} (available: "qwen3", "o200k_base")`);
      files = input.bundled === 'o200k_base' ? O200K_FILES : await this.bundledQwen3();
    } else {
      const tokenizer = await asText(input.tokenizer);
      const config = await asText(input.config);
      if (tokenizer == null) throw new Error('tokenizer.json is missing');
      if (config == null) throw new Error('tokenizer_config.json is missing');
      const template = input.template == null ? null : typeof input.template === 'string' ? input.template : await input.template.text();
      files = { tokenizer, config, template, name: input.name };
    }
    const info = await (await this.worker()).setProfile(files);
    this.active = info;
    this.files = files;
    this.emit();
    const stored: Stored = 'bundled' in input ? { key: 'active', bundled: input.bundled } : { key: 'active', files };
    await (await db()).put('profile', stored);
    this.schedule(0);
    return info;
  }

  info(): ProfileInfo | null {
    return this.active;
  }

  /** The pool's step `stepId` as the trainer sees it under the active profile; null when no profile is set. */
  async renderStepById(stepId: string): Promise<RenderedStep | null> {
    if (!this.active) return null;
    return (await this.worker()).renderStepById(stepId);
  }

  /** A step as the trainer sees it under the active profile; null when no profile is set. */
  async renderStep(step: { messages: Record<string, unknown>[] | null; response: Record<string, unknown> | null; tools: string | null }): Promise<RenderedStep | null> {
    if (!this.active) return null;
    return (await this.worker()).renderStep(step);
  }

  /** First pass of an export with tokens (the rows of `sql`, named by `idSql`): which rows are left out or cut. `signal` cancels it. */
  async planExport(sql: string, idSql: string, opts: ExportTokenOptions, signal?: AbortSignal): Promise<ExportPlan> {
    if (!this.active) throw new Error('No tokenizer is set: call workbench.setTokenizer(…) first (exportDataset with tokens: true renders rows with it).');
    const w = await this.worker();
    const job = this.exportJob++;
    const onAbort = () => void w.cancelExport(job);
    signal?.addEventListener('abort', onAbort);
    try {
      return await w.planExport(job, sql, idSql, opts);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * What to say up front about the active profile and these rows (default: the pool's steps): a template that does
   * not render tools, over rows that have tool definitions or tool calls.
   */
  async toolWarnings(sql = 'SELECT messages, tools FROM steps'): Promise<string[]> {
    return toolWarnings(this.pool, this.active, sql);
  }

  /** A port to the tokenizer worker's API, for the export worker's second pass (token columns per chunk). */
  async exportPort(): Promise<MessagePort> {
    const w = await this.worker();
    const ch = new MessageChannel();
    await w.connect(Comlink.transfer(ch.port1, [ch.port1]));
    return ch.port2;
  }

  /** Bench, test builds only (a production worker has no such method): one worker encoding `text`, both ways. */
  async benchEncode(text: string, runs = 3): Promise<BenchEncodeResult> {
    return ((await this.worker()).benchEncode as Comlink.Remote<NonNullable<TokenizerWorkerApi['benchEncode']>>)(text, runs);
  }

  /** What the last rl_steps export with tokens did (decision 032). */
  async exportStats(): Promise<RlExportStats> {
    return (await this.worker()).exportStats();
  }

  /** Free what the last export kept (its piece cache). */
  async endExport(): Promise<void> {
    await (await this.worker()).endExport();
  }

  private schedule(delay = 1000): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.count().catch(() => undefined);
    }, delay);
  }

  /** Compute `token_counts` now, in all counting workers (a running count under an older state is cancelled and replaced). */
  count(): Promise<TokenCountResult | null> {
    if (!this.active) return Promise.reject(new Error('No tokenizer is set: call workbench.setTokenizer(…) first.'));
    const seq = ++this.countSeq;
    const run = (async () => {
      const t0 = performance.now();
      this.counting = true;
      this.progress = null;
      this.emit();
      try {
        const workers = await this.countingWorkers(countWorkers());
        const shards = workers.map(() => ({ done: 0, total: 0, tokenized: 0, pieces: 0 }));
        const parts = await Promise.all(
          workers.map((w, i) =>
            w.countShard(
              i,
              workers.length,
              Comlink.proxy((p: TokenCountProgress) => {
                shards[i] = p;
                this.progress = shards.reduce((a, x) => ({ done: a.done + x.done, total: a.total + x.total, tokenized: a.tokenized + x.tokenized, pieces: a.pieces + x.pieces }));
                this.emit();
              }),
            ),
          ),
        );
        if (parts.some((p) => p === null)) return null;
        const done = parts as NonNullable<(typeof parts)[number]>[];
        const t1 = performance.now();
        const rows = await workers[0]!.writeCounts(Comlink.transfer(done.map((p) => p.ipc), done.map((p) => p.ipc.buffer)));
        this.lastError = null;
        const sum = (k: 'rows' | 'pieces' | 'tokenized') => done.reduce((a, p) => a + p[k], 0);
        return { rows, counted: sum('rows'), pieces: sum('pieces'), tokenized: sum('tokenized'), ms: Math.round(performance.now() - t0), workers: workers.length, timings: { workers: done.map((p) => p.timings), replaceMs: Math.round(performance.now() - t1) } };
      } catch (e) {
        this.lastError = e instanceof Error ? e.message : String(e);
        throw e;
      } finally {
        if (this.countSeq === seq) this.counting = false;
        this.emit();
      }
    })();
    this.running = run;
    return run;
  }

  /** Stop the running count (token_counts keeps what it had). */
  async cancel(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (!this.counting) return;
    await Promise.all([this.remote, ...this.helpers.map((h) => h.remote)].map((w) => w?.cancel()));
  }

  /** The running (or last) count; starts one when none ran. Follows a count that replaced a cancelled one. */
  async whenCounted(): Promise<TokenCountResult | null> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
      return this.count();
    }
    let p = this.running ?? this.count();
    for (;;) {
      const r = await p;
      if (r || !this.running || this.running === p) return r;
      p = this.running;
    }
  }
}

let current: TokenizerService | null = null;
/** The page's tokenizer service (set by main.ts), for views such as <aw-trainer-view>. */
export function activeTokenizer(): TokenizerService | null {
  return current;
}
export function setActiveTokenizer(s: TokenizerService | null): void {
  current = s;
}
