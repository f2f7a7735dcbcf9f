/**
 * Main-thread side of the tokenizer: the active profile (kept in IndexedDB across reloads), the
 * tokenizer worker (started on first use, so nothing of it is in the first page load), and the
 * background `token_counts` computation, redone when steps change.
 */
import * as Comlink from 'comlink';
import { openDB } from 'idb';
import type { PoolClient } from '../pool/client';
import type { PoolApi } from '../pool/api';
import { type ExportPlan, toolWarnings } from './export-plan';
import type { BenchEncodeResult, CountTimings, CursorBroker, ProfileFiles, RenderedStep, RlExportStats, TokenCountProgress, TokenizerWorkerApi } from './api';
import type { ExportTokenOptions } from './export-rows';
import { BYTES_PER_HELPER, bytesToDecide, countingWorkerCount } from './count-plan';
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

/** `run` on a connection to the tokenizer's database, closed after (an open connection blocks deleting the database). */
async function withDb<T>(run: (d: Awaited<ReturnType<typeof db>>) => Promise<T>): Promise<T> {
  const d = await db();
  try {
    return await run(d);
  } finally {
    d.close();
  }
}

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
  /** Workers that counted: the main one, and helpers when the pending work was large enough (count-plan.ts). */
  workers: number;
  /** Where the time went (ms): choosing the workers (pendingMs), making them ready (readyMs), each worker's shard, and merging their rows into token_counts. */
  timings: { pendingMs: number; readyMs: number; workers: CountTimings[]; replaceMs: number };
}


/** What views show about the tokenizer: the profile, a running count's progress, the last error. */
export interface TokenizerState {
  profile: ProfileInfo | null;
  progress: TokenCountProgress | null;
  counting: boolean;
  error: string | null;
  /** Why the saved profile was not restored, or that a count was cancelled; cleared when a profile is set. */
  notice: string | null;
}

/** Workers counting token_counts: one per core (at most 4: each holds its own copy of the tokenizer). */
export function countWorkers(): number {
  const cores = typeof navigator !== 'undefined' ? navigator.hardwareConcurrency || 1 : 1;
  return Math.max(1, Math.min(4, cores));
}

/** A tokenizer worker, the profile files it was given, and the pool cursors it has open (or is opening). */
interface TokenizerWorker {
  remote: Comlink.Remote<TokenizerWorkerApi>;
  worker: Worker;
  files: ProfileFiles | null;
  cursors: Set<number>;
  opening: Set<Promise<number>>;
}

/** Calls to a tokenizer worker that was stopped (Cancel, or another profile chosen while it counted) end with this. */
export class TokenizerStoppedError extends Error {
  override name = 'TokenizerStoppedError';
}

/** A promise that rejects when the workers of one generation are terminated (a call to a terminated worker never settles). */
function stopSignal(): { promise: Promise<never>; stop: (why: string) => void } {
  let stop: (why: string) => void = () => {};
  const promise = new Promise<never>((_, fail) => {
    stop = (why) => fail(new TokenizerStoppedError(why));
  });
  promise.catch(() => undefined);
  return { promise, stop };
}

export class TokenizerService {
  /** The main worker (renders, plans exports, counts the first shard), started on first use. */
  private main: Promise<TokenizerWorker> | null = null;
  /** Extra workers for counting (the first is the main one), with the profile files they were given. */
  private helpers: TokenizerWorker[] = [];
  private stopped = stopSignal();
  /** Uses of the profile in flight (counts, renders, export plans): while any runs, IndexedDB says so (see restore). */
  private inUse = 0;
  private useMark: Promise<unknown> = Promise.resolve();
  private releaseUse: (() => void) | undefined;
  /** Names this service's use mark and its Web Lock (using, restore). */
  private readonly owner = crypto.randomUUID();
  /** Stopped workers' pool cursors being closed (stopWorkers); new workers start after. */
  private closing: Promise<void> = Promise.resolve();
  private files: ProfileFiles | null = null;
  private listeners = new Set<(s: TokenizerState) => void>();
  private active: ProfileInfo | null = null;
  private running: Promise<TokenCountResult | null> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private exportJob = 1;
  /** The pool subscription (counts again when steps change), ended by dispose. */
  private readonly offPool: () => void;
  private disposed = false;
  /** Progress of the running token count, for views. */
  progress: TokenCountProgress | null = null;
  /** The last background count's error, if it failed. */
  lastError: string | null = null;
  /** See TokenizerState.notice. */
  notice: string | null = null;
  /** Pending content bytes per helper worker a count starts (count-plan.ts; tests set it low to count with every worker). */
  bytesPerHelper = BYTES_PER_HELPER;

  constructor(
    private pool: PoolClient,
    private makeWorker: () => Worker,
    /** The bundled Qwen3 profile's files (src/tokenizer/bundled.ts in the app; plain URLs in tests). */
    private bundledQwen3: () => Promise<ProfileFiles>,
  ) {
    this.offPool = pool.onChange((e) => {
      if (this.active && e.tables.includes('steps')) this.schedule();
    });
  }

  /**
   * End this service: it no longer counts on the pool's changes, its workers are terminated (their pool cursors
   * closed), a use in flight ends with TokenizerStoppedError and leaves no use mark or Web Lock behind, and any later
   * use is refused. The pool and the stored profile stay (another service restores it).
   */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.offPool();
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.listeners.clear();
    if (current === this) current = null;
    this.stopWorkers('the tokenizer service was disposed');
    await this.running?.catch(() => undefined);
    await this.useMark;
    await this.closing;
  }

  /** A new tokenizer worker, given its own port to the pool. */
  private async start(): Promise<TokenizerWorker> {
    // workers of a previous generation may have left pool cursors open: closed first
    await this.closing;
    const worker = this.makeWorker();
    const w: TokenizerWorker = { remote: Comlink.wrap<TokenizerWorkerApi>(worker), worker, files: null, cursors: new Set(), opening: new Set() };
    // the worker's cursors are opened here, so each is known the moment the pool opens it; a request that arrives
    // after its worker was stopped (posted just before) opens nothing, and one the stop overtook is closed at once
    const generation = this.stopped;
    const broker: CursorBroker = {
      open: async (sql) => {
        if (this.stopped !== generation) throw new TokenizerStoppedError('the tokenizer workers were stopped');
        const opened = this.withPool((api) => api.openCursor(sql));
        w.opening.add(opened);
        try {
          const id = await opened;
          if (this.stopped !== generation) {
            await this.withPool((api) => api.closeCursor(id));
            throw new TokenizerStoppedError('the tokenizer workers were stopped');
          }
          w.cursors.add(id);
          return id;
        } finally {
          w.opening.delete(opened);
        }
      },
      closed: (id) => void w.cursors.delete(id),
    };
    try {
      const port = await this.pool.port();
      await this.guard(w.remote.init(Comlink.transfer(port, [port]), Comlink.proxy(broker)));
    } catch (e) {
      worker.terminate();
      throw e;
    }
    return w;
  }

  /** The main worker, started on first use (again after a stop, or after a start that failed). */
  private mainWorker(): Promise<TokenizerWorker> {
    if (this.disposed) return Promise.reject(new TokenizerStoppedError('the tokenizer service was disposed'));
    if (!this.main) {
      const started = this.start();
      this.main = started;
      started.catch(() => {
        if (this.main === started) this.main = null;
      });
    }
    return this.guard(this.main);
  }

  /** `p`, or a TokenizerStoppedError when the workers are stopped first (a stopped worker never answers). */
  private guard<T>(p: Promise<T>): Promise<T> {
    return Promise.race([p, this.stopped.promise]);
  }

  /** Give `w` the active profile unless it has it. */
  private async withProfile(w: TokenizerWorker): Promise<Comlink.Remote<TokenizerWorkerApi>> {
    if (this.files && w.files !== this.files) {
      const files = this.files;
      await this.guard(w.remote.setProfile(files));
      w.files = files;
    }
    return w.remote;
  }

  /** The main worker, with the active profile (a worker started again after a stop is given it first). */
  private async worker(): Promise<Comlink.Remote<TokenizerWorkerApi>> {
    return this.withProfile(await this.mainWorker());
  }

  /** `n` workers with the active profile: the main one and n - 1 helpers (started and given the profile on demand). */
  private async countingWorkers(n: number): Promise<Comlink.Remote<TokenizerWorkerApi>[]> {
    const out = [await this.worker()];
    for (let i = 0; i < n - 1; i++) {
      let h = this.helpers[i];
      if (!h) {
        if (this.disposed) throw new TokenizerStoppedError('the tokenizer service was disposed');
        const generation = this.stopped;
        h = await this.start();
        // stopped while it started: it belongs to no generation
        if (generation !== this.stopped) {
          h.worker.terminate();
          throw new TokenizerStoppedError('the tokenizer workers were stopped');
        }
        this.helpers[i] = h;
      }
      out.push(await this.withProfile(h));
    }
    return out;
  }

  /**
   * Terminate every tokenizer worker: a worker busy in synchronous code (a tokenizer whose pre-tokenizer regex
   * backtracks without end, say) reads no message, so a cancel cannot reach it otherwise. Calls in flight end with
   * TokenizerStoppedError; the next use starts new workers with the active profile.
   */
  private stopWorkers(why: string): void {
    const main = this.main;
    const helpers = this.helpers;
    this.main = null;
    this.helpers = [];
    const signal = this.stopped;
    this.stopped = stopSignal();
    signal.stop(why);
    // the cursors they left open (a terminated worker runs no `finally`) are closed before new workers start
    this.closing = (async () => {
      const all = [...helpers, ...(main ? [await main.catch(() => null)] : [])].filter((w): w is TokenizerWorker => w !== null);
      for (const w of all) w.worker.terminate();
      await Promise.allSettled(all.flatMap((w) => [...w.opening]));
      const open = all.flatMap((w) => [...w.cursors]);
      if (!open.length) return;
      await this.withPool(async (api) => {
        for (const id of open) await api.closeCursor(id);
      });
    })().catch(() => undefined);
  }

  /** `run` with the pool's API on a port of its own, closed after (a port made now reaches the pool even after a restart). */
  private async withPool<T>(run: (api: Comlink.Remote<PoolApi>) => Promise<T>): Promise<T> {
    const api = Comlink.wrap<PoolApi>(await this.pool.port());
    try {
      return await run(api);
    } finally {
      api[Comlink.releaseProxy]();
    }
  }

  /**
   * Mark a use of the active profile in IndexedDB while it runs, so that a profile whose use never ended (the tab
   * hung and was reloaded or closed) is not restored to hang again (restore). The mark names this service, and the
   * service holds a Web Lock of that name while the use runs: a mark whose lock is still held belongs to a use that
   * is running now (another tab, or another service of this page), not to one a reload cut off.
   */
  private async using<T>(what: string, run: () => Promise<T>): Promise<T> {
    if (this.inUse++ === 0) {
      const held = holdLock(useLock(this.owner));
      this.releaseUse = held.release;
      this.useMark = this.useMark.then(async () => {
        await held.granted;
        await withDb((d) => d.put('profile', { key: useMarkKey(this.owner), what, since: Date.now(), owner: this.owner }));
      }).catch(() => undefined);
    }
    try {
      return await run();
    } finally {
      // the use ends when its mark is gone: a restore right after it (a new service, a reload) must not see it running
      if (--this.inUse === 0) {
        const release = this.releaseUse;
        this.useMark = this.useMark.then(() => withDb((d) => d.delete('profile', useMarkKey(this.owner)))).catch(() => undefined).finally(() => release?.());
        await this.useMark;
      }
    }
  }

  /** Called with the state now and whenever the profile, a count's progress or its outcome changes. Returns an unsubscribe. */
  onState(fn: (s: TokenizerState) => void): () => void {
    this.listeners.add(fn);
    fn(this.state());
    return () => this.listeners.delete(fn);
  }

  state(): TokenizerState {
    return { profile: this.active, progress: this.progress, counting: this.counting, error: this.lastError, notice: this.notice };
  }

  private emit(): void {
    const s = this.state();
    for (const l of this.listeners) l(s);
  }

  private counting = false;
  private countSeq = 0;

  /**
   * Restore the profile chosen before the reload, if any, and count in the background; unless its last use did not
   * end (a count still marked running: the tab was closed or reloaded while it ran, as a hung worker leaves it), in
   * which case it is forgotten and the error says so: the user chooses it again if they trust it.
   */
  async restore(): Promise<void> {
    const { s, busy } = await withDb(async (d) => {
      const s = (await d.get('profile', 'active')) as Stored | undefined;
      // every service's use mark (and a mark of an older version: `busy`, no owner); a use running now elsewhere (another
      // tab, another service of this page) holds its lock: its mark is not an unfinished use, and stays
      const marks = (await d.getAll('profile', IDBKeyRange.bound('busy', 'busy;', false, true))) as UseMark[]; // 'busy', 'busy:…'
      const live = await heldLocks();
      const cut = marks.filter((m) => !(m.owner && live.has(useLock(m.owner))));
      for (const m of cut) await d.delete('profile', m.key);
      const busy = cut[0];
      if (s && busy) await d.delete('profile', 'active');
      return { s, busy };
    });
    if (!s) return;
    if (busy) {
      const name = 'bundled' in s ? (s.bundled === 'o200k_base' ? O200K_FILES.name : 'Qwen3 (bundled)') : (s.files.name ?? 'The tokenizer profile you chose');
      this.notice = `${name} was not restored: its last use (${busy.what ?? 'a token count'}) did not finish before the page was closed or reloaded, as a hostile or broken tokenizer can make it. Choose the profile again if you trust it.`;
      this.emit();
      throw new Error(this.notice);
    }
    const files = 'bundled' in s ? (s.bundled === 'o200k_base' ? O200K_FILES : await this.bundledQwen3()) : s.files;
    const main = await this.mainWorker();
    this.active = await this.guard(main.remote.setProfile(files));
    main.files = files;
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
    // a count (or render) under the old profile is stale: stop it, whatever holds its workers
    if (this.counting || this.inUse > 0) this.stopWorkers('another tokenizer profile was chosen');
    const main = await this.mainWorker();
    const info = await this.guard(main.remote.setProfile(files));
    main.files = files;
    this.active = info;
    this.files = files;
    this.notice = null;
    this.emit();
    const stored: Stored = 'bundled' in input ? { key: 'active', bundled: input.bundled } : { key: 'active', files };
    await withDb((d) => d.put('profile', stored));
    this.schedule(0);
    return info;
  }

  info(): ProfileInfo | null {
    return this.active;
  }

  /** The pool's step `stepId` as the trainer sees it under the active profile; null when no profile is set. */
  async renderStepById(stepId: string): Promise<RenderedStep | null> {
    if (!this.active) return null;
    return this.using('rendering a step', async () => this.guard((await this.worker()).renderStepById(stepId)));
  }

  /** A step as the trainer sees it under the active profile; null when no profile is set. */
  async renderStep(step: { messages: Record<string, unknown>[] | null; response: Record<string, unknown> | null; tools: string | null }): Promise<RenderedStep | null> {
    if (!this.active) return null;
    return this.using('rendering a step', async () => this.guard((await this.worker()).renderStep(step)));
  }

  /** First pass of an export with tokens (the rows of `sql`, named by `idSql`): which rows are left out or cut. `signal` cancels it. */
  async planExport(sql: string, idSql: string, opts: ExportTokenOptions, signal?: AbortSignal): Promise<ExportPlan> {
    if (!this.active) throw new Error('No tokenizer is set: call workbench.setTokenizer(…) first (exportDataset with tokens: true renders rows with it).');
    return this.using('an export with tokens', async () => {
      const w = await this.worker();
      const job = this.exportJob++;
      const onAbort = () => void w.cancelExport(job);
      signal?.addEventListener('abort', onAbort);
      try {
        return await this.guard(w.planExport(job, sql, idSql, opts));
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    });
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
    await this.guard(w.connect(Comlink.transfer(ch.port1, [ch.port1])));
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
    if (this.disposed) return;
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
    const run = this.using('a token count', async () => {
      const t0 = performance.now();
      this.counting = true;
      this.progress = null;
      this.notice = null;
      this.emit();
      try {
        // a helper worker that still has to load the profile (for the bundled Qwen3 ≈ 1.3 CPU-s, ≈ 2.7 with its own
        // warm-up, and its own copy of the tokenizer) is started only when the pending work is large enough for it to
        // save more than it costs (count-plan.ts):
        // a small pool, a count after one more small import, or a restore that finds every step counted (the main
        // worker alone then drops the rows of steps no longer in the pool) is counted by the main worker alone. Helpers
        // that hold the profile already are used whatever the work.
        const all = countWorkers();
        let loaded = 0;
        while (loaded < all - 1 && this.helpers[loaded]?.files === this.files) loaded++;
        const n = loaded === all - 1 ? all : Math.max(1 + loaded, countingWorkerCount(await this.guard((await this.worker()).pendingBytes(bytesToDecide(all, this.bytesPerHelper))), all, this.bytesPerHelper));
        const tPlanned = performance.now();
        const workers = await this.countingWorkers(n);
        const tReady = performance.now();
        const shards = workers.map(() => ({ done: 0, total: 0, tokenized: 0, pieces: 0 }));
        const parts = await this.guard(Promise.all(
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
        ));
        if (parts.some((p) => p === null)) return null;
        const done = parts as NonNullable<(typeof parts)[number]>[];
        const t1 = performance.now();
        const rows = await this.guard(workers[0]!.writeCounts(Comlink.transfer(done.map((p) => p.ipc), done.map((p) => p.ipc.buffer))));
        this.lastError = null;
        const sum = (k: 'rows' | 'pieces' | 'tokenized') => done.reduce((a, p) => a + p[k], 0);
        return { rows, counted: sum('rows'), pieces: sum('pieces'), tokenized: sum('tokenized'), ms: Math.round(performance.now() - t0), workers: workers.length, timings: { pendingMs: Math.round(tPlanned - t0), readyMs: Math.round(tReady - tPlanned), workers: done.map((p) => p.timings), replaceMs: Math.round(performance.now() - t1) } };
      } catch (e) {
        // stopped (Cancel, another profile): as a cancelled count, no error
        if (e instanceof TokenizerStoppedError) return null;
        this.lastError = e instanceof Error ? e.message : String(e);
        throw e;
      } finally {
        if (this.countSeq === seq) this.counting = false;
        this.emit();
      }
    });
    this.running = run;
    return run;
  }

  /**
   * Stop the running count (token_counts keeps what it had): its workers are terminated, whatever they were doing,
   * and the next use starts new ones.
   */
  async cancel(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (!this.counting) return;
    this.stopWorkers('the token count was cancelled');
    this.notice = 'Counting cancelled: the tokenizer workers were stopped, token_counts keeps the rows it had. Count again to start over.';
    await this.running?.catch(() => undefined);
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

/** The Web Lock a service holds while it uses its profile (TokenizerService.using). */
const useLock = (owner: string) => `agentworld-tokenizer-use-${owner}`;
/** Its use mark's key in the `profile` store: one per service, so one service's end does not remove another's mark. */
const useMarkKey = (owner: string) => `busy:${owner}`;
type UseMark = { key: string; what?: string; owner?: string };

/** Hold the Web Lock `name` until `release` is called; `granted` settles once it is held (at once where there are no Web Locks). */
function holdLock(name: string): { granted: Promise<void>; release: () => void } {
  let release: () => void = () => {};
  const locks = globalThis.navigator?.locks;
  if (!locks) return { granted: Promise.resolve(), release };
  const done = new Promise<void>((r) => (release = r));
  const granted = new Promise<void>((g) => {
    locks
      .request(name, () => {
        g();
        return done;
      })
      .catch(() => g());
  });
  return { granted, release };
}

/** The names of the Web Locks held now, by any context (none where there are no Web Locks). */
async function heldLocks(): Promise<Set<string>> {
  const locks = globalThis.navigator?.locks;
  if (!locks) return new Set();
  return new Set(((await locks.query()).held ?? []).map((l) => l.name ?? ''));
}
