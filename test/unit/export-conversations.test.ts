/**
 * The export layouts' conversation checks (src/export/layouts.ts, decision 012) against a real DuckDB: no
 * stricter than the source warrants, and no laxer than a trainer needs (issue 32 item 5). An empty assistant
 * turn in a prompt's history no longer drops the step and every later step of its trajectory; a veRL
 * agent-loop prompt without a user turn is a prompt; a tool call answered twice is flagged like one not
 * answered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { datasetSql, problemsSql } from '../../src/export/layouts';
import { assistant, openTestPool, type TestPool, toolCall, user } from './helpers/duck';

let pool: TestPool;
const step = (traj: string, i: number, messages: unknown[], response: unknown, extra: Record<string, unknown> = {}) => ({
  step_id: `${traj}:${i}`, trajectory_uid: traj, prompt_uid: `p-${traj}`, step_index: i, is_last: false, channel: 'train', status: 'ok', messages, response, ...extra,
});
const tool = (id: string | null, content: string) => ({ role: 'tool', content, tool_call_id: id });

before(async () => {
  pool = await openTestPool();
  await pool.addSteps([
    // an agent that once answered with nothing, then went on
    step('empty', 0, [user('go')], assistant('')),
    step('empty', 1, [user('go'), assistant(''), user('again')], assistant('Done.'), { is_last: true }),
    // a call with an id and one without; the first answered twice, the second not at all
    step('twice', 0, [user('two lookups')], assistant(null, { tool_calls: [toolCall('a', 'look', '{}'), { id: null, type: 'function', function: { name: 'look', arguments: '{}' } }] })),
    step('twice', 1, [user('two lookups'), assistant(null, { tool_calls: [toolCall('a', 'look', '{}'), { id: null, type: 'function', function: { name: 'look', arguments: '{}' } }] }), tool('a', 'x'), tool('a', 'x again')], assistant('Done.'), { is_last: true }),
    // a veRL agent-loop prompt: the task in the system turn, no user turn
    step('loop', 0, [{ role: 'system', content: 'Solve the maze in the environment.' }], null, { data_source: 'maze', is_last: true, status: 'ok' }),
  ]);
});
after(() => pool.close());

const problems = async (layout: 'rl_steps' | 'sft' | 'verl_prompts') => Object.fromEntries((await pool.rows(problemsSql({ layout }))).map((p) => [p.problem, p.n]));

describe('export conversation checks', () => {
  it('rl_steps: an empty turn in the history keeps the step; only the empty response itself is left out', async () => {
    const rows = await pool.rows(datasetSql({ layout: 'rl_steps', where: `s.trajectory_uid = 'empty'` }));
    assert.deepEqual(rows.map((r) => r.step_id), ['empty:1']);
    assert.equal((await problems('rl_steps'))['empty response'], 1);
  });

  it('sft: an empty turn before the last is kept; an empty last turn is still a problem', async () => {
    const rows = await pool.rows(datasetSql({ layout: 'sft', where: `s.trajectory_uid = 'empty'` }));
    assert.deepEqual(rows.map((r) => r.trajectory_uid), ['empty']);
    const only0 = await pool.rows(datasetSql({ layout: 'sft', where: `s.step_id = 'empty:0'`, validOnly: false }));
    assert.equal(only0[0].problem, 'empty assistant turn');
  });

  it('a call answered twice (and its neighbour not at all) is flagged, in the conversation and in a later prompt', async () => {
    const sft = await pool.rows(datasetSql({ layout: 'sft', where: `s.trajectory_uid = 'twice'`, validOnly: false }));
    assert.equal(sft[0].problem, 'tool call not answered');
    const rl = await pool.rows(datasetSql({ layout: 'rl_steps', where: `s.step_id = 'twice:1'`, validOnly: false }));
    assert.equal(rl[0].problem, 'tool call not answered');
  });

  it('verl_prompts: a prompt of system turns only is a prompt', async () => {
    const rows = await pool.rows(datasetSql({ layout: 'verl_prompts', where: `s.trajectory_uid = 'loop'` }));
    assert.deepEqual(rows.map((r) => (r.prompt as { content: string }[])[0].content), ['Solve the maze in the environment.']);
    assert.equal((await problems('verl_prompts'))['no user turn'], undefined);
  });
});
