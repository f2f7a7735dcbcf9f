/**
 * The export layouts' conversation checks (src/export/layouts.ts, decision 012) against a real DuckDB: no
 * stricter than the source warrants, and no laxer than a trainer needs (issue 32 item 5). An empty assistant
 * turn in a prompt's history no longer drops the step and every later step of its trajectory; a veRL
 * agent-loop prompt without a user turn is a prompt; a tool call answered twice is flagged like one not
 * answered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { conversationProblem, datasetSql, PROBLEMS, problemRowsSql, problemsSql } from '../../src/export/layouts';
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
    // a developer turn (exported as a system turn) and a rewarded answer
    step('dev', 0, [{ role: 'developer', content: 'Be terse.' }, user('hi')], assistant('Hello.'), { is_last: true, reward: 1 }),
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

  it('a developer turn is checked as the system turn it is exported as, in every layout', async () => {
    for (const o of [{ layout: 'sft' }, { layout: 'sft', sftPer: 'step' }, { layout: 'rl_steps' }, { layout: 'dpo' }] as const) {
      assert.deepEqual(await pool.rows(problemRowsSql({ ...o, where: `s.trajectory_uid = 'dev'` })), [], JSON.stringify(o));
      // dpo: a lone trajectory makes no pair, so no row either way; its check still ran (problemRowsSql)
      if (o.layout !== 'dpo') assert.equal((await pool.rows(datasetSql({ ...o, where: `s.trajectory_uid = 'dev'` }))).length, 1, JSON.stringify(o));
    }
  });

  it('verl_prompts: a prompt of system turns only is a prompt', async () => {
    const rows = await pool.rows(datasetSql({ layout: 'verl_prompts', where: `s.trajectory_uid = 'loop'` }));
    assert.deepEqual(rows.map((r) => (r.prompt as { content: string }[])[0].content), ['Solve the maze in the environment.']);
    assert.equal((await problems('verl_prompts'))['no user turn'], undefined);
  });
});

/** A message list as SQL (only what the checks read: role, content, tool_call_id, the calls' ids). */
type M = { role: string | null; content?: string | null; tool_call_id?: string | null; calls?: (string | null)[] };
const lit = (v: string | null | undefined) => (v == null ? 'NULL' : `'${v}'`);
const TYPE = 'STRUCT(role VARCHAR, content VARCHAR, tool_call_id VARCHAR, tool_calls STRUCT(id VARCHAR)[])[]';
const list = (ms: M[] | null) =>
  ms === null
    ? `NULL::${TYPE}`
    : `[${ms.map((m) => `{'role': ${lit(m.role)}, 'content': ${lit(m.content === undefined ? '' : m.content)}, 'tool_call_id': ${lit(m.tool_call_id)}, 'tool_calls': ${m.calls ? `[${m.calls.map((id) => `{'id': ${lit(id)}}`).join(', ')}]` : 'NULL'}}`).join(', ')}]::${TYPE}`;
const u: M = { role: 'user', content: 'q' };
const a: M = { role: 'assistant', content: 'done' };
const call = (...ids: (string | null)[]): M => ({ role: 'assistant', content: '', calls: ids });
const res = (id: string | null): M => ({ role: 'tool', content: 'r', tool_call_id: id });

describe('export conversation checks, rule by rule (conversationProblem)', () => {
  // [conversation, what sft's check (open end, an assistant turn needed) says, what a prompt's history check says]
  const cases: [string, M[] | null, string | null, string | null][] = [
    ['no list', null, PROBLEMS.empty, PROBLEMS.empty],
    ['no message', [], PROBLEMS.empty, PROBLEMS.empty],
    ['a role templates do not know', [u, { role: 'bot', content: 'x' }, a], PROBLEMS.unknownRole, PROBLEMS.unknownRole],
    ['a developer turn (an exported list has none: messageOut makes it a system turn)', [{ role: 'developer', content: 'd' }, u, a], PROBLEMS.unknownRole, PROBLEMS.unknownRole],
    ['missing content (an exported list has none)', [u, { role: 'assistant', content: null }], null, null],
    ['a system turn and an answer', [{ role: 'system', content: 's' }, a], PROBLEMS.noUser, PROBLEMS.noUser],
    ['an assistant turn first', [{ role: 'system', content: 's' }, a, u, a], PROBLEMS.notUserFirst, PROBLEMS.notUserFirst],
    ['an empty last assistant turn', [u, { role: 'assistant', content: ' ' }], PROBLEMS.emptyAssistant, null],
    ['an empty assistant turn before the last', [u, { role: 'assistant', content: '' }, u, a], null, null],
    ['a call, then a user turn', [u, call('c1'), u, a], PROBLEMS.unanswered, PROBLEMS.unanswered],
    ['two calls, one result', [u, call('c1', 'c2'), res('c1'), a], PROBLEMS.unanswered, PROBLEMS.unanswered],
    ['two calls without ids, one result, at the end', [u, call(null, null), res(null)], PROBLEMS.unanswered, PROBLEMS.unanswered],
    ['a call, two results', [u, call('c1'), res('c1'), res('c1'), a], PROBLEMS.unanswered, PROBLEMS.unanswered],
    ['two calls, one answered twice', [u, call('c1', 'c2'), res('c1'), res('c1'), a], PROBLEMS.unanswered, PROBLEMS.unanswered],
    ['a result for another id', [u, call('c1'), res('zz'), a], PROBLEMS.unanswered, PROBLEMS.unanswered],
    ['calls with ids, a result without an id and one naming no call', [u, call('c1', 'c2'), res(null), res('zz'), a], PROBLEMS.unanswered, PROBLEMS.unanswered],
    ['a call without an id, a result naming another id', [u, call('c1', null), res('c1'), res('zz'), a], null, null],
    ['a call with an id, a result without', [u, call('c1'), res(null), a], null, null],
    ['calls answered in another order', [u, call('c1', 'c2'), res('c2'), res('c1'), a], null, null],
    ['the calls of the last turn, not answered yet', [u, call('c1')], null, PROBLEMS.unanswered],
    ['a result first', [u, res('c1'), a], PROBLEMS.orphanTool, PROBLEMS.orphanTool],
    ['a result after a turn without calls', [u, a, res('c1'), a], PROBLEMS.orphanTool, PROBLEMS.orphanTool],
    ['a user turn only', [u], PROBLEMS.noAssistant, null],
    ['a call answered, then the answer', [{ role: 'system', content: 's' }, u, call('c1'), res('c1'), a], null, null],
  ];
  it('each rule, and each way a tool call goes unanswered, named; what it allows, allowed', async () => {
    const sql = cases
      .map(([name, ms], i) => `SELECT ${i} AS i, ${lit(name)} AS name, ${conversationProblem('c', { openEnd: true, needAssistant: true })} AS sft,
        ${conversationProblem('c', { openEnd: false, needAssistant: false, history: true })} AS history FROM (SELECT ${list(ms)} AS c)`)
      .join(' UNION ALL ');
    const rows = await pool.rows(`${sql} ORDER BY i`);
    assert.deepEqual(
      rows.map((r) => [r.name, r.sft, r.history]),
      cases.map(([name, , sft, history]) => [name, sft, history]),
    );
  });
  it('over messages as stored (`stored`), the same answers, a developer turn read as a system turn and missing content as empty', async () => {
    const stored: [M[] | null, string | null][] = [
      ...cases.filter(([name]) => !name.includes('an exported list has none')).map(([, ms, sft]): [M[] | null, string | null] => [ms, sft]),
      [[{ role: 'developer', content: 'd' }, u, a], null],
      [[{ role: 'developer', content: 'd' }, a], PROBLEMS.noUser],
      [[u, { role: 'assistant', content: null }], PROBLEMS.emptyAssistant],
    ];
    const sql = stored
      .map(([ms], i) => `SELECT ${i} AS i, ${conversationProblem('c', { openEnd: true, needAssistant: true, stored: true })} AS sft FROM (SELECT ${list(ms)} AS c)`)
      .join(' UNION ALL ');
    assert.deepEqual(
      (await pool.rows(`${sql} ORDER BY i`)).map((r) => r.sft),
      stored.map(([, sft]) => sft),
    );
  });
});
