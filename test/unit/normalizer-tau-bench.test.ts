/**
 * tau-bench / tau2 results (src/ingest/normalizers/tau-bench.ts): detection of result lists, the reward and
 * env wherever the two versions keep them, the error step of a run that never called the model, the prompt
 * group and the metadata kept. Written to kill mutants StrykerJS found.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tauBench } from '../../src/ingest/normalizers/tau-bench';
import { runNormalizer } from './helpers/formats';

const near = (a: number, b: number, msg?: string) => assert.ok(Math.abs(a - b) < 1e-9, `${a} ≠ ${b} ${msg ?? ''}`);
const rows = (...values: unknown[]) => runNormalizer(tauBench, values.map((value, index) => ({ value, line: index + 1, index })));
const traj = [
  { role: 'system', content: 'You are a retail agent.' },
  { role: 'user', content: 'Cancel order #W1.' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'cancel_pending_order', arguments: '{"order_id":"#W1"}' } }] },
  { role: 'tool', tool_call_id: 'call_1', name: 'cancel_pending_order', content: '{"status":"cancelled"}' },
  { role: 'assistant', content: 'Done: #W1 is cancelled.' },
];
const result = (extra: Record<string, unknown> = {}) => ({ task_id: 7, reward: 1, traj, info: { task: { user_id: 'u_1', instruction: 'Cancel #W1' } }, trial: 0, ...extra });

describe('tau-bench normalizer', () => {
  it('detect: 0.8 + 0.15 × the share of results, in a one-record array or over the records', () => {
    const r = result();
    near(tauBench.detect([r]), 0.95);
    near(tauBench.detect([[r, r]]), 0.95, 'one JSON array of results');
    near(tauBench.detect([[r, { note: 1 }]]), 0.875);
    near(tauBench.detect([r, { note: 1 }]), 0.875);
    assert.equal(tauBench.detect([[r], [r]]), 0, 'two arrays are not a result list');
    assert.equal(tauBench.detect([]), 0);
    assert.equal(tauBench.detect([{ note: 1 }]), 0);
  });

  it('a result needs task_id, a traj list, and a reward or an info object', () => {
    assert.equal(tauBench.detect([{ task_id: 1, traj }]), 0, 'no reward, no info');
    near(tauBench.detect([{ task_id: 1, traj, info: {} }]), 0.95);
    assert.equal(tauBench.detect([{ task_id: 1, traj, info: 'x' }]), 0);
    near(tauBench.detect([{ task_id: 1, traj, reward: 0 }]), 0.95);
    assert.equal(tauBench.detect([{ traj, reward: 1 }]), 0, 'no task_id');
    assert.equal(tauBench.detect([{ task_id: 1, traj: 'x', reward: 1 }]), 0, 'traj not a list');
  });

  it('one trajectory per result, steps end with tool_calls or stop, the reward on the last', () => {
    const out = rows(result());
    assert.deepEqual(out.map((s) => [s.finish_reason, s.reward]), [['tool_calls', null], ['stop', 1]]);
    assert.equal(out[0].prompt_uid, 'tau:7');
    assert.equal(out[0].data_source, 'tau-bench');
    assert.equal(out[0].channel, 'train');
    assert.deepEqual(out[1].metadata, { task_id: '7', trial: '0', user_id: 'u_1', instruction: 'Cancel #W1' });
    const prompt = rows(result({ traj: [{ role: 'user', content: 'hi' }] }));
    assert.deepEqual(prompt.map((s) => [s.finish_reason, s.response]), [[null, null]], 'no assistant turn: no finish reason');
  });

  it('tau2 keeps the reward in info.reward_info and the env in info, the result or the task', () => {
    const t2 = rows(result({ reward: undefined, info: { env: 'airline', reward_info: { reward: 0.5, actions: [] }, user_cost: 0.01 } })).at(-1)!;
    assert.equal(t2.reward, 0.5);
    assert.equal(t2.prompt_uid, 'tau:airline:7');
    assert.equal(t2.data_source, 'tau-bench/airline');
    assert.deepEqual(t2.metadata, { task_id: '7', trial: '0', env: 'airline', reward_info: '{"reward":0.5,"actions":[]}', user_cost: '0.01' });
    assert.equal(rows(result({ env: 'retail' })).at(-1)?.data_source, 'tau-bench/retail');
    assert.equal(rows(result({ info: { task: { env: 'telecom' } } })).at(-1)?.prompt_uid, 'tau:telecom:7');
    assert.equal(rows(result({ env: 'retail', info: { env: 'airline' } })).at(-1)?.data_source, 'tau-bench/airline', 'info.env first');
    assert.equal(rows(result({ reward: 0, info: { reward_info: { reward: 1 } } })).at(-1)?.reward, 0, 'the top-level reward first');
    assert.equal(rows(result({ reward: undefined, info: { reward_info: 'x' } })).at(-1)?.reward, null);
  });

  it('an empty traj is one error step with the reason from error, traceback or exception', () => {
    const err = (info: Record<string, unknown>) => rows(result({ traj: [], reward: 0, info }))[0];
    const e = err({ error: 'RateLimitError: slow down' });
    assert.deepEqual([e.status, e.error, e.finish_reason, e.reward, e.response], ['error', 'RateLimitError: slow down', 'error', 0, null]);
    assert.equal(err({ traceback: 'Traceback: boom' }).error, 'Traceback: boom');
    assert.equal(err({ exception: 'ValueError' }).error, 'ValueError');
    assert.equal(err({ error: 'first', traceback: 'second' }).error, 'first');
    assert.equal(err({}).error, 'run failed before any model call (empty traj)');
  });

  it('a record that is a list keeps its results only; a record with none is rejected', () => {
    const out = rows([result({ task_id: 1 }), { note: 'not a result' }, result({ task_id: 2 })]);
    assert.deepEqual([...new Set(out.map((s) => s.prompt_uid))], ['tau:1', 'tau:2']);
    assert.throws(() => rows({ note: 1 }), /not a tau-bench result/);
    assert.throws(() => rows([{ note: 1 }]), /not a tau-bench result/);
  });
});
