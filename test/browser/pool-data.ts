/**
 * Steps for the pool's tests, and trajectory_stats checked against what `trajectories` meant before it
 * (docs/decisions/005): every aggregate over steps ⟕ curation. Used by test/unit/pool-worker.test.ts (an in-memory
 * pool, every kind of write) and test/browser/pool.test.ts (a saved pool).
 */
import { expect } from '@esm-bundle/chai';
import type { StepRecord } from '../../src/contract/step';
import { stepsToIPC } from '../../src/record/step-arrow';
import type { PoolClient } from '../../src/pool/client';
import type { Row } from '../../src/pool/rows';

/** What `trajectories` meant before trajectory_stats (docs/decisions/005): every aggregate over steps ⟕ curation (lists now sorted). */
export const REFERENCE = `SELECT s.trajectory_uid, any_value(s.prompt_uid) AS prompt_uid, count(*)::INTEGER AS step_count,
    bool_or(coalesce(s.is_last, false)) AS complete, sum(s.reward) AS reward_sum, min(s.reward) AS reward_min, max(s.reward) AS reward_max,
    arg_max(s.reward, s.step_index) AS final_reward,
    list_sort(list_distinct(list(s.agent) FILTER (WHERE s.agent IS NOT NULL))) AS agents, list_sort(list_distinct(list(s.model) FILTER (WHERE s.model IS NOT NULL))) AS models,
    any_value(s.data_source) AS data_source, any_value(s.channel) AS channel, any_value(s.source) AS source, min(s.started_at) AS started_at,
    date_diff('millisecond', min(s.started_at), max(coalesce(s.ended_at, s.started_at)))::DOUBLE AS duration_ms,
    sum(s.prompt_tokens)::BIGINT AS prompt_tokens, sum(s.completion_tokens)::BIGINT AS completion_tokens,
    count(*) FILTER (WHERE s.status = 'error')::INTEGER AS error_steps,
    count(*) FILTER (WHERE c.quality = 'good')::INTEGER AS good_steps, count(*) FILTER (WHERE c.quality = 'bad')::INTEGER AS bad_steps,
    count(*) FILTER (WHERE coalesce(c.quality, 'unreviewed') = 'unreviewed')::INTEGER AS unreviewed_steps,
    count(*) FILTER (WHERE coalesce(c.trainable, s.status = 'ok'))::INTEGER AS trainable_steps
  FROM steps s LEFT JOIN curation c USING (step_id) GROUP BY s.trajectory_uid ORDER BY s.trajectory_uid`;

export const VIEW = `SELECT * FROM trajectories ORDER BY trajectory_uid`;

export function trajStep(traj: string, i: number, extra: Partial<StepRecord> = {}): StepRecord {
  return {
    step_id: `${traj}:${i}`, trajectory_uid: traj, prompt_uid: `p-${traj[0]}`, step_index: i, is_last: null, channel: 'train',
    policy_version: null, agent: i % 2 ? 'b' : 'a', data_source: 'ds', model: 'm', provider: 'openai',
    messages: [{ role: 'user', content: `q${i}` }], tools: null, response: { role: 'assistant', content: `a${i}` }, response_text: `a${i}`,
    finish_reason: 'stop', prompt_tokens: 10 + i, completion_tokens: 3, prompt_ids: null, response_ids: null, rollout_log_probs: null,
    reward: i * 0.5, started_at: Date.UTC(2026, 0, 1, 0, 0, i), ended_at: Date.UTC(2026, 0, 1, 0, 0, i + 1), latency_ms: 5, ttft_ms: null,
    status: 'ok', error: null, metadata: null, raw: '{}', source: 'f.jsonl', source_format: 'test', source_line: i + 1, source_id: 'sid',
    import_id: null, ...extra,
  };
}

export const norm = (rows: Row[]) => JSON.parse(JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? Number(v) : v)));

export async function expectSame(pool: PoolClient, what: string): Promise<void> {
  const view = norm(await pool.rows(VIEW));
  const ref = norm(await pool.rows(REFERENCE));
  expect(view.length, `${what}: trajectories`).to.equal(ref.length);
  expect(view, what).to.deep.equal(ref);
}

export async function importSteps(pool: PoolClient, steps: StepRecord[]): Promise<void> {
  const id = await pool.beginImport({ file: 'f.jsonl', sourceId: `sid-${Math.random()}`, bytes: 1 });
  await pool.appendBatch(id, stepsToIPC(steps.map((s) => ({ ...s, import_id: id }))));
  await pool.commitImport(id, { format: 'test', confidence: 1, records: steps.length, rowsMade: steps.length, errors: [] });
}

/** A step of trajectory `traj` (the i-th), with a tool call in its prompt. */
export function step(i: number, traj = 't1', importId: number | null = null): StepRecord {
  return {
    step_id: `${traj}:${i}`, trajectory_uid: traj, prompt_uid: 'p', step_index: i, is_last: null, channel: 'train',
    policy_version: null, agent: 'a', data_source: 'gsm8k', model: 'm', provider: 'openai',
    messages: [{ role: 'user', content: `q${i}`, tool_calls: [{ id: 'c', type: 'function', function: { name: 'calc', arguments: '{"x":1}' } }] }],
    tools: null, response: { role: 'assistant', content: `a${i}` }, response_text: `a${i}`, finish_reason: 'stop',
    prompt_tokens: 10, completion_tokens: null, prompt_ids: [1, 2, 3], response_ids: null, rollout_log_probs: [-0.5],
    reward: i, started_at: Date.UTC(2026, 0, 1), ended_at: null, latency_ms: 12.5, ttft_ms: null, status: 'ok', error: null,
    metadata: { k: 'v' }, raw: '{}', source: 'f.jsonl', source_format: 'test', source_line: i + 1, source_id: 'sid', import_id: importId,
  };
}
