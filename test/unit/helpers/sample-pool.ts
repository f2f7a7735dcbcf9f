/**
 * A small pool in the shapes the importer writes: four trajectories over two prompts (a GRPO group each), with
 * tool calls, an error step, an open trajectory, PII in messages and some curation rows. Used by the SQL tests.
 */
import { after, before } from 'node:test';
import { assistant, openTestPool, type Row, system, type TestPool, toolCall, user } from './duck';

const ask = 'What is 2+2? Mail the answer to ann@example.com';
const obrien = "O'Brien asked: call +1 555-123-4567 about the refund";

export const SAMPLE_STEPS: Row[] = [
  {
    step_id: 't1:0', trajectory_uid: 't1', prompt_uid: 'p1', step_index: 0, is_last: false, agent: 'coder', model: 'gpt-x',
    data_source: 'gsm8k', channel: 'train', source: 'a.jsonl', source_line: 1, import_id: 1, status: 'ok', reward: 0.25,
    messages: [system('Be brief.'), user(ask)],
    response: assistant('Let me compute', { tool_calls: [toolCall('c1', 'calc', '{"x":"2+2"}')] }), response_text: 'Let me compute',
    prompt_tokens: 10, completion_tokens: 5, started_at: '2024-01-01 00:00:00', ended_at: '2024-01-01 00:00:01',
    metadata: new Map([['ability', 'math'], ['ground_truth', '4']]),
  },
  {
    step_id: 't1:1', trajectory_uid: 't1', prompt_uid: 'p1', step_index: 1, is_last: true, agent: 'coder', model: 'gpt-x',
    data_source: 'gsm8k', channel: 'train', source: 'a.jsonl', source_line: 2, import_id: 1, status: 'ok', reward: 0.75,
    messages: [system('Be brief.'), user(ask), assistant('Let me compute', { tool_calls: [toolCall('c1', 'calc', '{"x":"2+2"}')] }), { role: 'tool', content: '4', tool_call_id: 'c1' }],
    response: assistant('The answer is 4.'), response_text: 'The answer is 4.',
    prompt_tokens: 30, completion_tokens: 6, started_at: '2024-01-01 00:00:02', ended_at: '2024-01-01 00:00:04',
    metadata: new Map([['ability', 'math'], ['ground_truth', '4']]),
  },
  {
    step_id: 't2:0', trajectory_uid: 't2', prompt_uid: 'p1', step_index: 0, is_last: true, agent: 'coder', model: 'gpt-y',
    data_source: 'gsm8k', channel: 'val', source: 'a.jsonl', source_line: 3, import_id: 1, status: 'ok', reward: 0,
    messages: [system('Be brief.'), user(ask)], response: assistant('It is 5.'), response_text: 'final: five',
    prompt_tokens: 12, completion_tokens: 4, metadata: new Map([['answer', '4']]),
  },
  {
    step_id: 't3:0', trajectory_uid: 't3', prompt_uid: 'p2', step_index: 0, is_last: null, agent: 'helper', model: 'gpt-x',
    data_source: 'chat', channel: 'train', source: 'b.jsonl', source_line: 1, import_id: 2, status: 'error', reward: null,
    messages: [user(obrien)], response: null, response_text: null, error: 'upstream 500 for bob@corp.example',
  },
  {
    step_id: 't4:0', trajectory_uid: 't4', prompt_uid: 'p2', step_index: 0, is_last: true, agent: 'helper', model: 'gpt-y',
    data_source: 'chat', channel: 'train', source: 'b.jsonl', source_line: 2, import_id: 2, status: 'ok', reward: -1,
    messages: [user(obrien)], response: assistant('Sure. Use key sk-proj-abcdefghijklmnop1234 to log in.'),
    response_text: 'Sure. Use key sk-proj-abcdefghijklmnop1234 to log in.', raw: '{"note":"reach me at eve@mail.example"}',
  },
];

export const SAMPLE_CURATION: Row[] = [
  { step_id: 't1:0', quality: 'good', tags: ['keep', 'math'] },
  { step_id: 't2:0', quality: 'bad', trainable: false, split: 'val' },
  { step_id: 't3:0', trainable: true, tags: ['retry'] },
  { step_id: 't4:0', note: 'check', split: 'val' },
];

/**
 * The sample pool for the calling test file: registers `before` (open it, add SAMPLE_STEPS and SAMPLE_CURATION)
 * and `after` (close it) hooks, and returns a handle that reaches the pool once `before` has run.
 */
export function useSamplePool(): TestPool {
  let pool: TestPool | undefined;
  before(async () => {
    pool = await openTestPool();
    await pool.addSteps(SAMPLE_STEPS);
    await pool.addCuration(SAMPLE_CURATION);
  });
  after(() => pool?.close());
  const open = (): TestPool => {
    if (!pool) throw new Error('the sample pool is used before its before() hook ran');
    return pool;
  };
  return {
    get conn() {
      return open().conn;
    },
    rows: (sql) => open().rows(sql),
    run: (sql) => open().run(sql),
    addSteps: (steps) => open().addSteps(steps),
    addCuration: (rows) => open().addCuration(rows),
    close: () => open().close(),
  };
}
