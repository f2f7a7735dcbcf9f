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
});
