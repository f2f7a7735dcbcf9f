/**
 * The page's capture sink (src/gateway/page/sink.ts) in node: the journal in memory, the pool a recorder of
 * the Arrow batches it is handed, the service worker's broadcasts on a real BroadcastChannel. What the page
 * reports in `captureStats()`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GatewayEvent } from '../../src/gateway/core/capture';
import { putStep } from '../../src/gateway/core/journal';
import { CHANNEL } from '../../src/gateway/core/protocol';
import { callToStep } from '../../src/gateway/core/to-step';
import { startCaptureSink } from '../../src/gateway/page/sink';
import type { PoolClient } from '../../src/pool/client';
import { MemoryJournal } from './helpers/memory-journal';
import { tableFromIPC } from 'apache-arrow';
import { pendingEntries } from '../../src/gateway/core/journal';

function recordingPool() {
  const batches: Uint8Array[] = [];
  const upsertSteps = async (bytes: Uint8Array) => {
    batches.push(bytes);
    return { total: batches.length };
  };
  return { batches, pool: { upsertSteps } as unknown as PoolClient };
}

const until = async (test: () => boolean, what: string) => {
  for (let i = 0; i < 200 && !test(); i++) await new Promise((ok) => setTimeout(ok, 10));
  assert.ok(test(), what);
};

describe('capture sink', () => {
  it('a call the gateway could not record whole (or at all) is the page\'s lastError; a later good flush does not hide it', async () => {
    const mem = new MemoryJournal();
    const { pool, batches } = recordingPool();
    const sink = startCaptureSink(pool, { db: async () => mem.asDb(), intervalMs: 60000 });
    const sw = new BroadcastChannel(CHANNEL);
    try {
      await sink.flush();
      assert.equal(sink.stats().lastError, null);
      const message = 'the gateway could not record this call whole (DataError: too large); the agent got the upstream\'s answer; the step keeps no request or response';
      sw.postMessage({ type: 'record-error', message } satisfies GatewayEvent);
      await until(() => sink.stats().lastError !== null, 'the record error reaches the page');
      assert.equal(sink.stats().lastError, `capture: ${message}`);
      await putStep(mem.asDb(), callToStep({
        trajectory_uid: 't', prompt_uid: 'p', step_index: 0, api: 'chat', provider: 'mock', upstream: 'mock', stream: false, model: 'mock',
        messages: [{ role: 'user', content: 'hi' }], tools: null, request: {}, responseBody: {}, assembled: null, http_status: 200, error: null, aborted: false,
        started_at: 0, ended_at: 0, latency_ms: 1, ttft_ms: null, state: null,
      }));
      assert.equal(await sink.flush(), 1);
      assert.equal(batches.length, 1);
      assert.equal(sink.stats().lastError, `capture: ${message}`);
    } finally {
      sw.close();
      sink.stop();
    }
  });

  const call = (i: number, model: string) =>
    callToStep({
      trajectory_uid: 't', prompt_uid: 'p', step_index: i, api: 'chat', provider: 'mock', upstream: 'mock', stream: false, model,
      messages: [{ role: 'user', content: `hi ${i}` }], tools: null, request: {}, responseBody: { choices: [{ message: { role: 'assistant', content: 'yo' } }] }, assembled: null,
      http_status: 200, error: null, aborted: false, started_at: 0, ended_at: 0, latency_ms: 1, ttft_ms: null, state: null,
    });

  it('one step the pool refuses holds back no other: the rest are pooled, it goes in without its bodies as an error step, and the page is told', async () => {
    const mem = new MemoryJournal();
    const pooled: { step_id: string; status: string; messages: number; error: string | null }[] = [];
    const pool = {
      upsertSteps: async (bytes: Uint8Array) => {
        const rows = tableFromIPC(bytes).toArray().map((r) => r.toJSON());
        // a pool that cannot store this model's rows whole (as a value past what DuckDB-WASM takes)
        if (rows.some((r) => r.model === 'poison' && (r.messages?.length ?? 0) > 0)) throw new Error('Invalid string length');
        for (const r of rows) pooled.push({ step_id: String(r.step_id), status: String(r.status), messages: r.messages?.length ?? 0, error: r.error ?? null });
        return { total: pooled.length };
      },
    } as unknown as PoolClient;
    for (const [i, m] of ['ok', 'poison', 'ok'].entries()) await putStep(mem.asDb(), call(i, m));
    const sink = startCaptureSink(pool, { db: async () => mem.asDb(), intervalMs: 60000 });
    try {
      assert.equal(await sink.flush(), 3);
      assert.deepEqual(pooled.map((p) => [p.step_id, p.status, p.messages]), [['t:0', 'ok', 1], ['t:1', 'error', 0], ['t:2', 'ok', 1]]);
      assert.match(pooled[1]?.error ?? '', /the pool refused this captured call \(Invalid string length\)/);
      assert.match(sink.stats().lastError ?? '', /step t:1: the pool refused/);
      assert.deepEqual(await pendingEntries(mem.asDb()), []);
    } finally {
      sink.stop();
    }
  });

  it('a pool that refuses everything marks nothing pooled: every call waits in the journal for the next flush', async () => {
    const mem = new MemoryJournal();
    const pool = { upsertSteps: async () => Promise.reject(new Error('The pool was restarted')) } as unknown as PoolClient;
    for (const i of [0, 1]) await putStep(mem.asDb(), call(i, 'ok'));
    const sink = startCaptureSink(pool, { db: async () => mem.asDb(), intervalMs: 60000 });
    try {
      assert.equal(await sink.flush(), 0);
      assert.equal((await pendingEntries(mem.asDb())).length, 2);
      assert.match(sink.stats().lastError ?? '', /they stay in the journal and are retried\): The pool was restarted/);
    } finally {
      sink.stop();
    }
  });
});
