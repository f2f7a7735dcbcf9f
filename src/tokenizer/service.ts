/**
 * Main-thread side of the tokenizer: the active profile (kept in IndexedDB across reloads), the
 * tokenizer worker (started on first use, so nothing of it is in the first page load), and the
 * background `token_counts` computation, redone when steps change.
 */
import * as Comlink from 'comlink';
import { openDB } from 'idb';
import type { PoolClient } from '../pool/client';
import type { ProfileFiles, RenderedStep, TokenCountProgress, TokenizerWorkerApi } from '../../workers/tokenizer.worker';
import type { ProfileInfo } from './profile';

/** A JSON file as a parsed object, its text, or a dropped File. */
export type JsonInput = object | string | File;

export type TokenizerInput = { tokenizer: JsonInput; config: JsonInput; template?: string | File | null; name?: string } | { bundled: 'qwen3' };

type Stored = { key: 'active'; bundled: 'qwen3' } | { key: 'active'; files: ProfileFiles };

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
  rows: number;
  pieces: number;
  tokenized: number;
  ms: number;
}

export class TokenizerService {
  private remote: Comlink.Remote<TokenizerWorkerApi> | null = null;
  private active: ProfileInfo | null = null;
  private running: Promise<TokenCountResult | null> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
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

  private async worker(): Promise<Comlink.Remote<TokenizerWorkerApi>> {
    if (!this.remote) {
      const remote = Comlink.wrap<TokenizerWorkerApi>(this.makeWorker());
      const port = await this.pool.port();
      await remote.init(Comlink.transfer(port, [port]));
      this.remote = remote;
    }
    return this.remote;
  }

  /** Restore the profile chosen before the reload, if any, and count in the background. */
  async restore(): Promise<void> {
    const s = (await (await db()).get('profile', 'active')) as Stored | undefined;
    if (!s) return;
    const files = 'bundled' in s ? await this.bundledQwen3() : s.files;
    this.active = await (await this.worker()).setProfile(files);
    this.schedule(0);
  }

  /** Make a profile active (checked in the worker; on error the previous one stays) and persist it. */
  async set(input: TokenizerInput): Promise<ProfileInfo> {
    let files: ProfileFiles;
    if ('bundled' in input) {
      if (input.bundled !== 'qwen3') throw new Error(`Unknown bundled tokenizer ${JSON.stringify(input.bundled)} (available: "qwen3")`);
      files = await this.bundledQwen3();
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
    const stored: Stored = 'bundled' in input ? { key: 'active', bundled: 'qwen3' } : { key: 'active', files };
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

  private schedule(delay = 1000): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.count().catch(() => undefined);
    }, delay);
  }

  /** Compute `token_counts` now (a running count under an older state is cancelled and replaced). */
  count(): Promise<TokenCountResult | null> {
    if (!this.active) return Promise.reject(new Error('No tokenizer is set: call workbench.setTokenizer(…) first.'));
    const run = (async () => {
      const w = await this.worker();
      try {
        const r = await w.countAll(
          Comlink.proxy((p: TokenCountProgress) => {
            this.progress = p;
          }),
        );
        this.lastError = null;
        return r;
      } catch (e) {
        this.lastError = e instanceof Error ? e.message : String(e);
        throw e;
      }
    })();
    this.running = run;
    return run;
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
