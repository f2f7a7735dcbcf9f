/// <reference lib="webworker" />
/**
 * Tokenizer worker: holds the active tokenizer profile (the 11 MB tokenizer.json never reaches the main
 * thread), and computes the `token_counts` table from the pool's steps in chunks, reporting progress.
 */
import { Int32, Table, tableFromIPC, tableToIPC, Utf8, vectorFromArray } from 'apache-arrow';
import * as Comlink from 'comlink';
import type { PoolApi } from '../src/pool/pool-core';
import { sqlString } from '../src/pool/sql';
import { tableToRows } from '../src/pool/rows';
import { countStep, type StepInput, type TokenCountRow } from '../src/tokenizer/counts';
import { parseTools, templateMessage } from '../src/tokenizer/messages';
import { loadProfile, type ProfileInfo, profileInfo, type TokenizerProfile } from '../src/tokenizer/profile';
import { type LostContent, renderChat, type TokenPiece, tokenPieces } from '../src/tokenizer/render';

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
}

export interface ProfileFiles {
  /** tokenizer.json as text, or a URL to fetch it from (bundled profiles). */
  tokenizer: string | { url: string };
  config: string | { url: string };
  template?: string | null;
  name?: string;
}

export interface TokenCountProgress {
  done: number;
  total: number;
  /** Distinct text pieces tokenized so far / pieces looked up: how much the cache saved. */
  tokenized: number;
  pieces: number;
}

let pool: Comlink.Remote<PoolApi> | null = null;
let active: TokenizerProfile | null = null;
let job = 0;

async function text(src: string | { url: string }, file: string): Promise<string> {
  if (typeof src === 'string') return src;
  const res = await fetch(src.url);
  if (!res.ok) throw new Error(`${file}: could not load the bundled file (HTTP ${res.status})`);
  return res.text();
}

function parse(t: string, file: string): unknown {
  try {
    return JSON.parse(t);
  } catch (e) {
    throw new Error(`${file} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
}

const STEPS_SQL = 'SELECT step_id, trajectory_uid, messages, response, tools FROM steps ORDER BY trajectory_uid, step_index';

const api = {
  init(port: MessagePort): void {
    pool = Comlink.wrap<PoolApi>(port);
  },

  /** Check and make active a profile; on error the previous one stays active. */
  async setProfile(files: ProfileFiles): Promise<ProfileInfo> {
    const tokenizer = parse(await text(files.tokenizer, 'tokenizer.json'), 'tokenizer.json');
    const config = parse(await text(files.config, 'tokenizer_config.json'), 'tokenizer_config.json');
    const p = await loadProfile({ tokenizer, config, template: files.template ?? null, name: files.name });
    active = p;
    job++; // a count under the previous profile is stale
    return profileInfo(p);
  },

  info(): ProfileInfo | null {
    return active ? profileInfo(active) : null;
  },

  /** One step's conversation (pool shape: messages + response, tools JSON) as the trainer sees it. */
  renderStep(step: { messages: Record<string, unknown>[] | null; response: Record<string, unknown> | null; tools: string | null }): RenderedStep | null {
    if (!active) return null;
    const msgs = [...(step.messages ?? []), ...(step.response ? [step.response] : [])].map(templateMessage);
    const r = renderChat(active, msgs, { tools: parseTools(step.tools) });
    return {
      profile: profileInfo(active),
      pieces: tokenPieces(active, r),
      text: r.text,
      nTokens: r.nTokens,
      nTrained: r.nAssistantTokens,
      maskSource: r.maskSource,
      error: r.error,
      lost: r.lost,
    };
  },

  /** The step `stepId` of the pool as the trainer sees it; null when no profile is set or no such step. */
  async renderStepById(stepId: string): Promise<RenderedStep | null> {
    if (!pool || !active) return null;
    const rows = tableToRows(tableFromIPC(await pool.query(`SELECT messages, response, tools FROM steps WHERE step_id = ${sqlString(stepId)} LIMIT 1`)));
    const row = rows[0];
    if (!row) return null;
    return api.renderStep(row as { messages: Record<string, unknown>[] | null; response: Record<string, unknown> | null; tools: string | null });
  },

  cancel(): void {
    job++;
  },

  /** Compute token_counts for every step and replace the table. Resolves with rows written, or null when cancelled. */
  async countAll(onProgress?: (p: TokenCountProgress) => void): Promise<{ rows: number; pieces: number; tokenized: number; ms: number } | null> {
    if (!pool) throw new Error('tokenizer worker not initialised');
    if (!active) throw new Error('No tokenizer profile is set.');
    const me = ++job;
    const p = active;
    const t0 = performance.now();
    const total = Number(tableToRows(tableFromIPC(await pool.query('SELECT count(*) AS n FROM steps')))[0]?.n ?? 0);
    const cache = new Map<string, number[]>();
    let looked = 0;
    const tracked = {
      get: (k: string) => {
        looked++;
        return cache.get(k);
      },
      set: (k: string, v: number[]) => cache.set(k, v),
    } as unknown as Map<string, number[]>;
    const out: TokenCountRow[] = [];
    const cursor = await pool.openCursor(STEPS_SQL);
    try {
      for (;;) {
        const chunk = await pool.nextChunk(cursor, 2 << 20);
        if (!chunk) break;
        for (const r of tableToRows(tableFromIPC(chunk))) {
          out.push(countStep(p, r as unknown as StepInput, tracked));
        }
        if (me !== job) return null;
        onProgress?.({ done: out.length, total, tokenized: cache.size, pieces: looked });
      }
    } finally {
      await pool.closeCursor(cursor);
    }
    if (me !== job) return null;
    if (!out.length) {
      await pool.exec('DELETE FROM token_counts');
      return { rows: 0, pieces: 0, tokenized: 0, ms: Math.round(performance.now() - t0) };
    }
    const int = (k: 'n_prompt_tokens' | 'n_response_tokens' | 'n_tokens' | 'lost_reasoning' | 'lost_tool_calls' | 'lost_tool_results' | 'lost_content') =>
      vectorFromArray(
        out.map((r) => r[k]),
        new Int32(),
      );
    const txt = (values: (string | null)[]) => vectorFromArray(values, new Utf8());
    const t = new Table({
      step_id: txt(out.map((r) => r.step_id)),
      trajectory_uid: txt(out.map((r) => r.trajectory_uid)),
      n_prompt_tokens: int('n_prompt_tokens'),
      n_response_tokens: int('n_response_tokens'),
      n_tokens: int('n_tokens'),
      template_error: txt(out.map((r) => r.template_error)),
      lost_reasoning: int('lost_reasoning'),
      lost_tool_calls: int('lost_tool_calls'),
      lost_tool_results: int('lost_tool_results'),
      lost_content: int('lost_content'),
      template_hash: txt(out.map(() => p.templateHash)),
    });
    const bytes = tableToIPC(t, 'stream');
    const { rows } = await pool.replaceTokenCounts(Comlink.transfer(bytes, [bytes.buffer]));
    return { rows, pieces: looked, tokenized: cache.size, ms: Math.round(performance.now() - t0) };
  },
};

export type TokenizerWorkerApi = typeof api;
Comlink.expose(api);
