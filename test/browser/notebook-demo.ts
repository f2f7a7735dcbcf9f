/** Demo rows for the notebook browser tests: two agents, GRPO groups, tool calls, one error step. */
import type { ChatMessage, StepRecord } from '../../src/contract/step';
import { stepsToIPC } from '../../src/record/step-arrow';
import type { PoolClient } from '../../src/pool/client';
import { startPool } from './helpers';

export function demoSteps(traj: string, agent: string, prompt: string, reward: number, steps = 2, error = false): StepRecord[] {
  const out: StepRecord[] = [];
  let history: ChatMessage[] = [{ role: 'system', content: 'Solve it.' }, { role: 'user', content: `Question for ${prompt}` }];
  for (let i = 0; i < steps; i++) {
    const last = i === steps - 1;
    const response: ChatMessage = last
      ? { role: 'assistant', content: `Answer ${traj}` }
      : { role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: i % 2 ? 'search' : 'calc', arguments: `{"q":"${i}"}` } }] };
    const bad = error && last;
    out.push({
      step_id: `${traj}:${i}`, trajectory_uid: traj, prompt_uid: prompt, step_index: i, is_last: last, channel: 'train', policy_version: 1,
      agent, data_source: 'gsm8k', model: 'm', provider: 'openai', messages: history, tools: null, response: bad ? null : response,
      response_text: bad ? null : (response.content ?? ''), finish_reason: bad ? 'error' : last ? 'stop' : 'tool_calls', prompt_tokens: 10 * (i + 1),
      completion_tokens: 5, prompt_ids: null, response_ids: null, rollout_log_probs: null, reward: last ? reward : null,
      started_at: Date.UTC(2026, 0, 1, 0, 0, i), ended_at: Date.UTC(2026, 0, 1, 0, 0, i + 1), latency_ms: 50, ttft_ms: null,
      status: bad ? 'error' : 'ok', error: bad ? 'upstream 500' : null, metadata: { k: 'v' }, raw: '{}', source: 'demo.jsonl',
      source_format: 'test', source_line: i + 1, source_id: 'demo', import_id: null,
    });
    history = [...history, response, ...(last ? [] : [{ role: 'tool', content: String(i), tool_call_id: `c${i}` }])];
  }
  return out;
}

/** 6 trajectories: solver ×4 (rewards 1,0,1,1), critic ×2 (0, 0.5, one error), 2 prompts. */
export function demoPoolSteps(): StepRecord[] {
  return [
    ...demoSteps('s1', 'solver', 'p1', 1),
    ...demoSteps('s2', 'solver', 'p1', 0),
    ...demoSteps('s3', 'solver', 'p2', 1, 3),
    ...demoSteps('s4', 'solver', 'p2', 1),
    ...demoSteps('c1', 'critic', 'p1', 0),
    ...demoSteps('c2', 'critic', 'p2', 0.5, 2, true),
  ];
}

export async function insertDemo(pool: PoolClient, steps: StepRecord[] = demoPoolSteps(), file = 'demo.jsonl'): Promise<void> {
  const id = await pool.beginImport({ file, sourceId: `${file}-${steps[0]?.step_id}`, bytes: 1 });
  await pool.appendBatch(id, stepsToIPC(steps.map((s) => ({ ...s, import_id: id }))));
  await pool.commitImport(id, { format: 'test', confidence: 1, records: steps.length, rowsMade: steps.length, errors: [] });
}

let shared: Promise<PoolClient> | null = null;
/**
 * The page's one in-memory pool with the demo rows, for the suites of notebook-views.test.ts (a pool boot and a page
 * load cost more than most of their tests). A suite reads it and may add its notebooks' views; it leaves the demo rows
 * as they are, but for notebook-examples (last), which adds a copy of one trajectory. The page's end ends the pool.
 */
export function demoPool(): Promise<PoolClient> {
  shared ??= startPool('nb-demo', true).then(async (pool) => {
    await insertDemo(pool);
    return pool;
  });
  return shared;
}
