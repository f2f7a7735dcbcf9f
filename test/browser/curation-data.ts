/** Synthetic pools for the curation / dashboard tests: GRPO groups, errors, PII, duplicates. */
import type { Services } from '../../src/views/kit/services';
import type { PoolClient } from '../../src/pool/client';
import type { ChatMessage, StepRecord } from '../../src/contract/step';
import { stepsToIPC } from '../../src/record/step-arrow';
import { exporterFor, withImports } from './helpers';

export interface TrajSpec {
  uid: string;
  prompt: string;
  question: string;
  steps?: number;
  reward?: number | null;
  agent?: string;
  model?: string;
  dataSource?: string;
  channel?: string;
  error?: boolean;
  answer?: string;
  complete?: boolean;
}

export function trajectorySteps(t: TrajSpec): StepRecord[] {
  const n = t.steps ?? 1;
  const sys: ChatMessage = { role: 'system', content: 'You are a careful solver.' };
  const user: ChatMessage = { role: 'user', content: t.question };
  const out: StepRecord[] = [];
  let history: ChatMessage[] = [sys, user];
  for (let i = 0; i < n; i++) {
    const last = i === n - 1;
    const response: ChatMessage = last
      ? { role: 'assistant', content: t.answer ?? `The answer to ${t.uid} is 42.`, reasoning: 'think step by step' }
      : { role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'calc', arguments: `{"expression":"${i}+1"}` } }] };
    const isError = !!t.error && last;
    out.push({
      step_id: `${t.uid}:${i}`, trajectory_uid: t.uid, prompt_uid: t.prompt, step_index: i, is_last: last ? t.complete !== false : false,
      channel: t.channel ?? 'train', policy_version: 1, agent: t.agent ?? 'solver', data_source: t.dataSource ?? 'gsm8k', model: t.model ?? 'm-small',
      provider: 'openai', messages: history, tools: '[{"type":"function","function":{"name":"calc"}}]', response: isError ? null : response,
      response_text: isError ? null : (response.content ?? ''), finish_reason: isError ? 'error' : last ? 'stop' : 'tool_calls',
      prompt_tokens: 20 + i * 10, completion_tokens: 5, prompt_ids: [1, 2, 3], response_ids: [4, 5], rollout_log_probs: [-0.1, -0.2],
      reward: last ? (t.reward ?? null) : null, started_at: Date.UTC(2026, 0, 1, 0, 0, i), ended_at: Date.UTC(2026, 0, 1, 0, 0, i + 1),
      latency_ms: 100 * (i + 1), ttft_ms: null, status: isError ? 'error' : 'ok', error: isError ? 'upstream 500' : null,
      metadata: { ground_truth: '42' }, raw: JSON.stringify({ uid: t.uid, i }), source: 'synthetic.jsonl', source_format: 'test',
      source_line: i + 1, source_id: 'synthetic', import_id: null,
    });
    if (!isError) history = [...history, response, ...(last ? [] : [{ role: 'tool', content: String(i + 1), tool_call_id: `c${i}` }])];
  }
  return out;
}

export async function insertSteps(pool: PoolClient, steps: StepRecord[], file = 'synthetic.jsonl'): Promise<void> {
  const id = await pool.beginImport({ file, sourceId: `${file}-${steps.length}`, bytes: 1 });
  await pool.appendBatch(id, stepsToIPC(steps.map((s) => ({ ...s, import_id: id }))));
  await pool.commitImport(id, { format: 'test', confidence: 1, records: steps.length, rowsMade: steps.length, errors: [] });
}

/** 4 prompt groups × 3 rollouts: p0 rewards 1,0,0.5; p1 all 1 (no GRPO signal); p2 0,1,0 with one error; p3 two steps each. */
export function standardPool(): TrajSpec[] {
  return [
    { uid: 'p0-a', prompt: 'p0', question: 'What is 6*7?', reward: 1, agent: 'solver', model: 'm-large' },
    { uid: 'p0-b', prompt: 'p0', question: 'What is 6*7?', reward: 0, agent: 'solver', model: 'm-small' },
    { uid: 'p0-c', prompt: 'p0', question: 'What is 6*7?', reward: 0.5, agent: 'solver', model: 'm-small' },
    { uid: 'p1-a', prompt: 'p1', question: 'Name a prime.', reward: 1, agent: 'talker', dataSource: 'trivia' },
    { uid: 'p1-b', prompt: 'p1', question: 'Name a prime.', reward: 1, agent: 'talker', dataSource: 'trivia' },
    { uid: 'p1-c', prompt: 'p1', question: 'Name a prime.', reward: 1, agent: 'talker', dataSource: 'trivia', channel: 'val' },
    { uid: 'p2-a', prompt: 'p2', question: 'Mail alice@example.com about 2+2', reward: 0, agent: 'solver' },
    { uid: 'p2-b', prompt: 'p2', question: 'Mail alice@example.com about 2+2', reward: 1, agent: 'solver', answer: 'Call +1 555-123-4567, key sk-abcdefghijklmnopqrstuvwx' },
    { uid: 'p2-c', prompt: 'p2', question: 'Mail alice@example.com about 2+2', reward: 0, agent: 'solver', error: true },
    { uid: 'p3-a', prompt: 'p3', question: 'Compute 1+1 with the tool', reward: 1, steps: 2, model: 'm-large' },
    { uid: 'p3-b', prompt: 'p3', question: 'Compute 1+1 with the tool', reward: 0, steps: 2, model: 'm-large' },
    { uid: 'p3-c', prompt: 'p3', question: 'Compute 1+1 with the tool', reward: null, steps: 2, model: 'm-large', complete: false },
  ];
}

export async function loadStandardPool(pool: PoolClient): Promise<void> {
  await insertSteps(pool, standardPool().flatMap(trajectorySteps));
}

export function testServices(pool: PoolClient): Services {
  return withImports({
    pool,
    exporter: exporterFor(pool),
    importer: { importFiles: async () => [], importUrl: async () => Promise.reject(new Error('no imports in this test')) },
    notify: () => {},
  });
}
