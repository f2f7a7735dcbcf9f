import type { StepRecord } from '../../contract/step';
import { stepsToIPC } from '../../record/step-arrow';
import type { PoolClient } from '../../pool/client';
import type { GatewayEvent } from '../core/capture';
import { type JournalDb, type JournalEntry, markPooled, openJournal, pendingEntries } from '../core/journal';
import { CHANNEL } from '../core/protocol';

export interface CaptureSinkStats {
  pooled: number;
  flushes: number;
  lastFlushAt: number | null;
  lastError: string | null;
}

export interface CaptureSinkOptions {
  journal?: string;
  /** The journal itself (tests); by default the IndexedDB journal named `journal`. */
  db?: () => Promise<JournalDb>;
  intervalMs?: number;
  batch?: number;
}

export interface CaptureSink {
  stop(): void;
  stats(): CaptureSinkStats;
  /** Move everything pending now; resolves with the number of steps upserted. */
  flush(): Promise<number>;
}

export function startCaptureSink(pool: PoolClient, opts: CaptureSinkOptions = {}): CaptureSink {
  const stats: CaptureSinkStats = { pooled: 0, flushes: 0, lastFlushAt: null, lastError: null };
  let db: Promise<JournalDb> | null = null;
  let running: Promise<number> | null = null;
  let again = false;
  let stopped = false;

  /**
   * Upsert a batch; a batch the pool refuses is tried entry by entry, so one step the pool cannot take (a value past
   * what it stores) never holds back every later call. An entry refused on its own, twice, goes in without its bodies
   * as an error step that says why (the journal keeps it whole); if even that fails the pool itself is failing, and
   * the batch waits for the next flush.
   */
  async function upsert(j: JournalDb, entries: JournalEntry[]): Promise<void> {
    try {
      await pool.upsertSteps(stepsToIPC(entries.map((e) => e.step)));
      await markPooled(j, entries.map((e) => ({ step_id: e.step_id, rev: e.rev })));
      return;
    } catch (e) {
      if (entries.length === 1) {
        const entry = entries[0] as JournalEntry;
        try {
          await pool.upsertSteps(stepsToIPC([entry.step]));
        } catch (again) {
          const why = `the pool refused this captured call (${again instanceof Error ? again.message : String(again)}); it is kept without its request and response, whole in the gateway's journal`;
          await pool.upsertSteps(stepsToIPC([withoutBodies(entry.step, why)]));
          stats.lastError = `capture sink: step ${entry.step_id}: ${why}`;
          console.error(stats.lastError);
        }
        await markPooled(j, [{ step_id: entry.step_id, rev: entry.rev }]);
        return;
      }
      if (stopped) throw e;
    }
    for (const entry of entries) await upsert(j, [entry]);
  }

  async function drain(): Promise<number> {
    const j = await (db ??= opts.db?.() ?? openJournal(opts.journal));
    let total = 0;
    for (;;) {
      const entries = await pendingEntries(j, opts.batch ?? 500);
      if (!entries.length || stopped) break;
      await upsert(j, entries);
      total += entries.length;
      if (entries.length < (opts.batch ?? 500)) break;
    }
    stats.pooled += total;
    stats.flushes += 1;
    stats.lastFlushAt = Date.now();
    return total;
  }

  function flush(): Promise<number> {
    if (running) {
      again = true;
      return running;
    }
    running = drain()
      .catch((e: unknown) => {
        stats.lastError = `capture sink: could not move captured calls into the pool (they stay in the journal and are retried): ${e instanceof Error ? e.message : String(e)}`;
        console.error(stats.lastError);
        return 0;
      })
      .finally(() => {
        running = null;
        if (again && !stopped) {
          again = false;
          void flush();
        }
      });
    return running;
  }

  const channel = new BroadcastChannel(CHANNEL);
  let debounce: ReturnType<typeof setTimeout> | null = null;
  channel.onmessage = (e: MessageEvent) => {
    const m = e.data as GatewayEvent;
    if (m?.type === 'record-error') {
      stats.lastError = `capture: ${m.message}`;
      console.error(stats.lastError);
      return;
    }
    if (m?.type !== 'journal' || debounce) return;
    debounce = setTimeout(() => {
      debounce = null;
      void flush();
    }, 50);
  };
  const timer = setInterval(() => void flush(), opts.intervalMs ?? 1000);
  void flush();

  return {
    stop() {
      stopped = true;
      clearInterval(timer);
      if (debounce) clearTimeout(debounce);
      channel.close();
    },
    stats: () => ({ ...stats }),
    flush,
  };
}

/** A step as an error step with no request, response or source text: what is left when the pool refuses it whole. */
export function withoutBodies(step: StepRecord, why: string): StepRecord {
  return {
    ...step, messages: [], tools: null, response: null, response_text: null, prompt_ids: null, response_ids: null, rollout_log_probs: null,
    raw: null, status: 'error', error: why, metadata: { ...(step.metadata ?? {}), bodies_dropped: 'pool refused the step whole' },
  };
}
