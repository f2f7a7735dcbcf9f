/**
 * The tokenizer worker's calls (workers/tokenizer.worker.ts hosts them; the protocol is api.ts): holds the active
 * tokenizer profile (the 11 MB tokenizer.json never reaches the main thread), renders steps as the trainer sees them,
 * plans and fills exports with tokens, and computes the `token_counts` table from the pool's steps in chunks.
 */
import { type Table, tableFromIPC, tableToIPC } from 'apache-arrow';
import * as Comlink from 'comlink';
import type { PoolApi } from '../pool/api';
import { sqlString } from '../pool/sql';
import { tableToRows } from '../pool/rows';
import { CONTENT_BYTES_SQL, readUpTo } from './count-plan';
import { countStep, countsIpc, type StepInput, type TokenCountRow } from './counts';
import { type ExportRowInput, type ExportTokenOptions, newRlExportState, type RlColumns, type RlRowInput, rlTokenColumns, type TokenColumns, tokenColumns } from './export-rows';
import { type ExportPlan, exportProfile, planSql, planTokenExport } from './export-plan';
import { parseTools, templateMessage } from './messages';
import { loadO200k } from './openai';
import { ProfileLoader, sha256Hex, type ProfileInfo, profileInfo, type TokenizerProfile } from './profile';
import { renderChat, tokenPieces } from './render';
import { TEST_BUILD } from '../util/test-build';
import type { CountTimings, CursorBroker, ProfileFiles, RenderedStep, RlExportStats, TokenCountProgress, TokenizerWorkerApi } from './api';
import { type BenchEncodeResult, benchEncode } from './bench-encode';

/**
 * What a token_counts row was counted under (its profile_key): the profile's files and the counting code's version.
 * Bump COUNTING_VERSION when a change to rendering or counting changes any count, so rows of an older build are redone.
 */
const COUNTING_VERSION = 1;

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

/** The steps of shard `shard` of `shards` without a row counted under profile `key` for their content (schema 3): the others keep theirs. */
function todoSql(key: string, shard: number, shards: number): string {
  const shardOf = shards > 1 ? `WHERE hash(trajectory_uid) % ${shards} = ${shard}` : '';
  // an anti join on the profile's rows, not a correlated NOT EXISTS: DuckDB runs that as a delim join, which first copies
  // every step's columns (messages and all), so a LIMIT over it (pendingBytes) still read them all
  return `WITH s AS (SELECT step_id, trajectory_uid, step_index, messages, response, tools, hash(messages, response, tools) AS h FROM steps ${shardOf})
        SELECT s.* FROM s ANTI JOIN (SELECT step_id, content_hash FROM token_counts WHERE profile_key = ${sqlString(key)}) t ON t.step_id = s.step_id AND t.content_hash = s.h`;
}

/** A new tokenizer worker's API (one per worker: it holds the active profile and its export's caches). */
export function createTokenizerWorkerApi(): TokenizerWorkerApi {
  let pool: Comlink.Remote<PoolApi> | null = null;
  /** The service, which opens this worker's pool cursors (CursorBroker in api.ts). */
  let broker: CursorBroker | null = null;

  async function openCursor(sql: string): Promise<number> {
    if (!pool) throw new Error('tokenizer worker not initialised');
    return broker ? broker.open(sql) : pool.openCursor(sql);
  }

  async function closeCursor(id: number): Promise<void> {
    await pool?.closeCursor(id);
    broker?.closed(id);
  }
  /** The rl_steps export being written: previous step's rendering, piece cache, counts. */
  let rlExport = newRlExportState();
  /** Token ids per text piece for the export being written (the plan's pass fills it, the writing pass reuses it). */
  let exportCache = new Map<string, number[]>();
  const cancelledExports = new Set<number>();
  let active: TokenizerProfile | null = null;
  /** Another template over the same tokenizer files reuses their tokenizer (no second parse of the 11 MB tokenizer.json). */
  const loader = new ProfileLoader();
  let activeKey: string | null = null;
  let job = 0;

  const api = {
    init(port: MessagePort, cursors?: CursorBroker): void {
      pool = Comlink.wrap<PoolApi>(port);
      broker = cursors ?? null;
    },

    /** Check and make active a profile; on error the previous one stays active. */
    async setProfile(files: ProfileFiles): Promise<ProfileInfo> {
      if (files.builtin === 'o200k_base') {
        active = await loadO200k();
        activeKey = `builtin:o200k_base:${COUNTING_VERSION}`;
        job++;
        return profileInfo(active);
      }
      const tokenizerText = await text(files.tokenizer, 'tokenizer.json');
      const configText = await text(files.config, 'tokenizer_config.json');
      const p = await loader.load(tokenizerText, configText, files.template ?? null, files.name, parse);
      // set with the profile, no await between: a count must never pair this profile with another's key
      const key = `${await sha256Hex([tokenizerText, configText, files.template ?? ''].join('\u0000'))}:${COUNTING_VERSION}`;
      active = p;
      activeKey = key;
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
      const tools = parseTools(step.tools);
      const r = renderChat(active, msgs, { tools });
      return {
        profile: profileInfo(active),
        pieces: tokenPieces(active, r),
        text: r.text,
        nTokens: r.nTokens,
        nTrained: r.nAssistantTokens,
        maskSource: r.maskSource,
        error: r.error,
        lost: r.lost,
        hasTools: tools !== null,
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

    /** Serve this API on another port too: the export worker asks for token columns while it writes. */
    connect(port: MessagePort): void {
      Comlink.expose(api, port);
    },

    /**
     * First pass of an export with tokens: render every row of `sql` (columns messages, tools; `idSql` names a row)
     * as written, and decide which rows are left out or cut. Throws when cancelled (cancelExport).
     */
    async planExport(exportJob: number, sql: string, idSql: string, opts: ExportTokenOptions): Promise<ExportPlan> {
      if (!pool) throw new Error('tokenizer worker not initialised');
      const p = exportProfile(active);
      const from = pool;
      exportCache = new Map();
      rlExport = newRlExportState();
      const cursor = await openCursor(planSql(sql, idSql));
      async function* chunks() {
        for (;;) {
          const chunk = await from.nextChunk(cursor, 2 << 20);
          if (!chunk) return;
          yield tableToRows(tableFromIPC(chunk));
        }
      }
      try {
        return await planTokenExport(p, chunks(), opts, exportCache, () => cancelledExports.has(exportJob));
      } finally {
        cancelledExports.delete(exportJob);
        await closeCursor(cursor);
      }
    },

    cancelExport(exportJob: number): void {
      cancelledExports.add(exportJob);
    },

    /** Second pass: the written rows' input_ids / assistant_masks (typed arrays, transferred). */
    tokenColumns(rows: ExportRowInput[], maxTokens: number | null): TokenColumns {
      if (!active) throw new Error('The tokenizer profile went away during the export.');
      const c = tokenColumns(active, rows, maxTokens, exportCache);
      return Comlink.transfer(c, [c.offsets.buffer, c.ids.buffer, c.masks.buffer, c.masked.buffer]);
    },

    /** rl_steps: a chunk's prompt_ids / response_ids (the sampler's kept, the others re-tokenized; typed arrays, transferred). */
    rlTokenColumns(rows: RlRowInput[]): RlColumns {
      if (!active) throw new Error('The tokenizer profile went away during the export.');
      const c = rlTokenColumns(active, rows, rlExport);
      return Comlink.transfer(c, [c.promptOffsets.buffer, c.promptIds.buffer, c.responseOffsets.buffer, c.responseIds.buffer, c.promptValid.buffer, c.responseValid.buffer, c.retokenized.buffer]);
    },

    /** The counts of the rl_steps export just written. */
    exportStats(): RlExportStats {
      if (!active) throw new Error('No tokenizer profile is set.');
      const { rows, retokenized, samplerIds, reused, tokens, notRetokenized } = rlExport;
      return { profile: profileInfo(active), rows, retokenized, samplerIds, reused, tokens, notRetokenized };
    },

    /** Drop the export's piece cache. */
    endExport(): void {
      exportCache = new Map();
      rlExport = newRlExportState();
    },

    /**
     * The content bytes (CONTENT_BYTES_SQL) of the steps without a token_counts row under the active profile for their
     * content: what a count has to do, from which the service decides how many helper workers to start. Read only until
     * the sum reaches `upTo` (count-plan.ts readUpTo, bytesToDecide).
     */
    async pendingBytes(upTo: number): Promise<number> {
      const from = pool;
      if (!from) throw new Error('tokenizer worker not initialised');
      if (!active) throw new Error('No tokenizer profile is set.');
      const todo = todoSql(activeKey as string, 0, 1);
      return readUpTo(async (limit) => {
        const sql = `SELECT coalesce(sum(b), 0)::DOUBLE AS bytes, count(*)::DOUBLE AS steps FROM (SELECT ${CONTENT_BYTES_SQL} AS b FROM (${todo}) LIMIT ${limit})`;
        const [row] = tableToRows(tableFromIPC(await from.query(sql)));
        return { bytes: Number(row?.bytes ?? 0), steps: Number(row?.steps ?? 0) };
      }, upTo);
    },

    /**
     * Count one shard of the steps (trajectories by hash, so a trajectory's repeated history stays in one worker's
     * cache): the token_counts rows as Arrow IPC, or null when cancelled or the profile changed.
     */
    async countShard(shard: number, shards: number, onProgress?: (p: TokenCountProgress) => void): Promise<{ ipc: Uint8Array; rows: number; pieces: number; tokenized: number; timings: CountTimings } | null> {
      if (!pool) throw new Error('tokenizer worker not initialised');
      if (!active) throw new Error('No tokenizer profile is set.');
      const me = ++job;
      const p = active;
      const key = activeKey as string;
      const todo = todoSql(key, shard, shards);
      const total = Number(tableToRows(tableFromIPC(await pool.query(`SELECT count(*) AS n FROM (${todo})`)))[0]?.n ?? 0);
      const cache = new Map<string, number>();
      let looked = 0;
      const tracked = {
        get: (k: string) => {
          looked++;
          return cache.get(k);
        },
        set: (k: string, v: number) => cache.set(k, v),
      } as unknown as Map<string, number>;
      const out: (TokenCountRow & { content_hash: string })[] = [];
      const timings: CountTimings = { readMs: 0, decodeMs: 0, countMs: 0, writeMs: 0 };
      let t = performance.now();
      const lap = (k: keyof CountTimings) => {
        const now = performance.now();
        timings[k] += now - t;
        t = now;
      };
      const cursor = await openCursor(`SELECT step_id, trajectory_uid, messages, response, tools, h::VARCHAR AS content_hash FROM (${todo}) ORDER BY trajectory_uid, step_index`);
      try {
        for (;;) {
          const chunk = await pool.nextChunk(cursor, 1 << 20);
          lap('readMs');
          if (!chunk) break;
          const rows = tableToRows(tableFromIPC(chunk));
          lap('decodeMs');
          for (const r of rows) {
            out.push({ ...countStep(p, r as unknown as StepInput, tracked), content_hash: r.content_hash as string });
          }
          lap('countMs');
          if (me !== job) return null;
          onProgress?.({ done: out.length, total, tokenized: cache.size, pieces: looked });
        }
      } finally {
        await closeCursor(cursor);
      }
      if (me !== job) return null;
      const ipc = countsIpc(out, p.templateHash, key);
      lap('writeMs');
      return Comlink.transfer({ ipc, rows: out.length, pieces: looked, tokenized: cache.size, timings }, [ipc.buffer]);
    },

    /** Merge the shards' rows (Arrow IPC each) into token_counts under the active profile (pool: mergeTokenCounts). */
    async writeCounts(parts: Uint8Array[]): Promise<number> {
      if (!pool) throw new Error('tokenizer worker not initialised');
      if (!active || !activeKey) throw new Error('No tokenizer profile is set.');
      const tables = parts.map((b) => tableFromIPC(b)).filter((t) => t.numRows > 0);
      // nothing counted still drops the rows of another profile and of steps no longer in the pool
      const bytes = tables.length ? tableToIPC(tables.length === 1 ? (tables[0] as Table) : (tables[0] as Table).concat(...tables.slice(1)), 'stream') : countsIpc([], active.templateHash, activeKey);
      const { rows } = await pool.mergeTokenCounts(Comlink.transfer(bytes, [bytes.buffer]), activeKey);
      return rows;
    },

    // Bench only: written inside the condition so a production build (TEST_BUILD folds to false) drops it whole, as the
    // pool worker's fault hooks (test/unit/test-build-hooks.test.ts).
    ...(TEST_BUILD
      ? {
          /** Bench: `text` encoded `runs` times with the active profile, on the counting path and by tokenizers.js. */
          benchEncode(text: string, runs = 3): BenchEncodeResult {
            if (!active) throw new Error('No tokenizer profile is set.');
            return benchEncode(active, text, runs);
          },
        }
      : {}),
  };
  return api satisfies TokenizerWorkerApi;
}
