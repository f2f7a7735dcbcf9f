import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CallRow, LiveCalls, methodOf } from '../../src/views/gateway/calls';

const pooled = (id: string): CallRow => ({
  step_id: id, trajectory_uid: id.split(':')[0], started: 1, method: methodOf('chat'), model: 'm', status: '200', error: false, latency_ms: 5, prompt_tokens: 3, completion_tokens: 4,
});

describe('live gateway calls', () => {
  it('shows an announced call in flight on top, then its end, and drops it once the pool has the step', () => {
    let changes = 0;
    const live = new LiveCalls(() => changes++);
    live.apply({ type: 'call-start', id: 'gw-1:0', trajectory_uid: 'gw-1', api: 'messages', model: 'claude-sonnet-4-5' });
    live.apply({ type: 'call-start', id: 'gw-2:0', trajectory_uid: 'gw-2', api: 'chat', model: null });
    let rows = live.merge([pooled('gw-0:0')]);
    assert.deepEqual(rows.map((r) => [r.step_id, r.method, r.status]), [
      ['gw-2:0', 'POST /v1/chat/completions', 'in flight'], ['gw-1:0', 'POST /v1/messages', 'in flight'], ['gw-0:0', 'POST /v1/chat/completions', '200'],
    ]);
    live.apply({ type: 'call-end', id: 'gw-1:0', trajectory_uid: 'gw-1', status: 'error', error: 'upstream 500', latency_ms: 42 });
    rows = live.merge([pooled('gw-0:0')]);
    assert.deepEqual(rows.find((r) => r.step_id === 'gw-1:0'), { ...rows[1], status: 'error', error: true, latency_ms: 42 });
    live.apply({ type: 'journal', step_ids: ['gw-1:0'] });
    assert.equal(changes, 3, 'journal events change nothing by themselves');
    rows = live.merge([pooled('gw-1:0'), pooled('gw-0:0')]);
    assert.deepEqual(rows.map((r) => [r.step_id, r.status]), [['gw-2:0', 'in flight'], ['gw-1:0', '200'], ['gw-0:0', '200']]);
    // an end without a start (the tab opened mid-call) adds nothing
    live.apply({ type: 'call-end', id: 'gw-9:0', trajectory_uid: 'gw-9', status: 'ok', error: null });
    assert.equal(live.merge([]).length, 1);
  });
});
