/**
 * Export layouts' SQL run against a real DuckDB pool: which rows each layout selects and what they hold
 * (trainable default, split, redaction, GRPO grouping, DPO pairing). Written to kill mutants StrykerJS found.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ExportDatasetOptions } from '../../src/contract/reports';
import { datasetSql, LAYOUTS, selection } from '../../src/export/layouts';
import { assistant, openTestPool, type Row, system, type TestPool, user } from './helpers/duck';
import { SAMPLE_CURATION, SAMPLE_STEPS } from './helpers/sample-pool';

let pool: TestPool;
before(async () => {
  pool = await openTestPool();
  await pool.addSteps([
    ...SAMPLE_STEPS,
    // A third rollout of prompt p1, between t1 (reward 1.0) and t2 (0.0).
    {
      step_id: 't5:0', trajectory_uid: 't5', prompt_uid: 'p1', step_index: 0, is_last: true, agent: 'coder', model: 'gpt-z',
      data_source: 'gsm8k', channel: 'train', status: 'ok', reward: 0.5, messages: [system('Be brief.'), user('What is 2+2?')],
      response: assistant('4'), response_text: '4',
    },
  ]);
  await pool.addCuration(SAMPLE_CURATION);
});
after(() => pool.close());

type Opts = Omit<ExportDatasetOptions, 'format'>;
const rows = (o: Opts) => pool.rows(datasetSql(o));
const ids = async (o: Opts, col = 'step_id') => (await rows(o)).map((r) => String(r[col]));
const said = (ms: unknown) => (ms as Row[]).map((m) => `${m.role}:${m.content ?? ''}`);

describe('export selection', () => {
  it('trainable only by default: the label, else status = ok', async () => {
    assert.deepEqual(await ids({ layout: 'steps' }), ['t1:0', 't1:1', 't3:0', 't4:0', 't5:0']);
    assert.deepEqual(await ids({ layout: 'steps', trainableOnly: true }), ['t1:0', 't1:1', 't3:0', 't4:0', 't5:0']);
    assert.deepEqual(await ids({ layout: 'steps', trainableOnly: false }), ['t1:0', 't1:1', 't2:0', 't3:0', 't4:0', 't5:0']);
  });

  it('adds the effective curation columns', async () => {
    const r = await rows({ layout: 'steps', trainableOnly: false });
    const by = Object.fromEntries(r.map((x) => [x.step_id, [x.quality, x.trainable, x.tags, x.note, x.split]]));
    assert.deepEqual(by['t1:0'], ['good', true, ['keep', 'math'], null, null]);
    assert.deepEqual(by['t2:0'], ['bad', false, null, null, 'val']);
    assert.deepEqual(by['t3:0'], ['unreviewed', true, ['retry'], null, null]);
    assert.deepEqual(by['t4:0'], ['unreviewed', true, null, 'check', 'val']);
    assert.deepEqual(by['t5:0'], ['unreviewed', true, null, null, null]);
  });

  it('a user predicate is parenthesized and AND-ed', async () => {
    assert.deepEqual(await ids({ layout: 'steps', where: "s.agent = 'x' OR s.agent = 'helper'" }), ['t3:0', 't4:0']);
    assert.deepEqual(await ids({ layout: 'steps', where: '   ' }), ['t1:0', 't1:1', 't3:0', 't4:0', 't5:0']);
  });

  it('split: curation.split, else channel; or the channel alone', async () => {
    assert.deepEqual(await ids({ layout: 'steps', split: 'val' }), ['t4:0']);
    assert.deepEqual(await ids({ layout: 'steps', split: 'val', trainableOnly: false }), ['t2:0', 't4:0']);
    assert.deepEqual(await ids({ layout: 'steps', split: 'train' }), ['t1:0', 't1:1', 't3:0', 't5:0']);
    assert.deepEqual(await ids({ layout: 'steps', split: 'val', splitColumn: 'channel', trainableOnly: false }), ['t2:0']);
    assert.deepEqual(await ids({ layout: 'steps', split: 'train', splitColumn: 'channel' }), ['t1:0', 't1:1', 't3:0', 't4:0', 't5:0']);
    assert.deepEqual(await ids({ layout: 'steps', split: "it's" }), []);
  });

  it('redact replaces PII in messages, response, response text, error and raw; without it nothing changes', async () => {
    const red = Object.fromEntries((await rows({ layout: 'steps', redact: true })).map((r) => [r.step_id, r]));
    assert.deepEqual(said(red['t1:0'].messages), ['system:Be brief.', 'user:What is 2+2? Mail the answer to [email]']);
    assert.deepEqual(said(red['t3:0'].messages), ["user:O'Brien asked: call [phone] about the refund"]);
    assert.equal((red['t4:0'].response as Row).content, 'Sure. Use key [secret] to log in.');
    assert.equal(red['t4:0'].response_text, 'Sure. Use key [secret] to log in.');
    assert.equal(red['t3:0'].error, 'upstream 500 for [email]');
    assert.equal(red['t3:0'].response, null);
    assert.equal(red['t4:0'].raw, '{"note":"reach me at [email]"}');
    const plain = Object.fromEntries((await rows({ layout: 'steps' })).map((r) => [r.step_id, r]));
    assert.equal(plain['t4:0'].response_text, 'Sure. Use key sk-proj-abcdefghijklmnop1234 to log in.');
    assert.equal(plain['t3:0'].error, 'upstream 500 for bob@corp.example');
  });

  it('selection() alone is a query the manifest counts', async () => {
    const [r] = await pool.rows(`SELECT count(*)::INTEGER AS n FROM (${selection({ trainableOnly: false, where: "s.model = 'gpt-x'" })})`);
    assert.equal(r.n, 3);
  });

  it('every layout has a description', () => {
    assert.deepEqual(Object.keys(LAYOUTS).sort(), ['dpo', 'rl_steps', 'sft', 'steps', 'verl_prompts']);
  });
});

describe('export layouts', () => {
  it('sft per trajectory: the last step, its messages plus the response', async () => {
    const r = await rows({ layout: 'sft' });
    // t3 has no assistant turn: a trainer would reject it, so the default leaves it out (decision 012)
    assert.deepEqual(r.map((x) => [x.trajectory_uid, x.step_id]), [['t1', 't1:1'], ['t4', 't4:0'], ['t5', 't5:0']]);
    assert.deepEqual(said(r[0].messages), ['system:Be brief.', 'user:What is 2+2? Mail the answer to ann@example.com', 'assistant:Let me compute', 'tool:4', 'assistant:The answer is 4.']);
    const all = await rows({ layout: 'sft', validOnly: false });
    const t3 = all.find((x) => x.trajectory_uid === 't3');
    assert.deepEqual(said(t3?.messages), ["user:O'Brien asked: call +1 555-123-4567 about the refund"], 'no response: messages as they are');
    assert.equal(t3?.problem, 'no assistant turn');
    assert.deepEqual(Object.keys(r[0]), ['trajectory_uid', 'step_id', 'prompt_uid', 'data_source', 'agent', 'model', 'channel', 'split', 'messages', 'tools', 'reward']);
    assert.equal(r[0].reward, 0.75);
  });

  it('sft per step: prompt + completion for steps with a response', async () => {
    const r = await rows({ layout: 'sft', sftPer: 'step' });
    assert.deepEqual(r.map((x) => x.step_id), ['t1:0', 't1:1', 't4:0', 't5:0']);
    assert.deepEqual(said(r[0].prompt), ['system:Be brief.', 'user:What is 2+2? Mail the answer to ann@example.com']);
    assert.deepEqual(said(r[0].completion), ['assistant:Let me compute']);
    assert.deepEqual(said(r[0].messages), [...said(r[0].prompt), 'assistant:Let me compute']);
    assert.equal((r[0].completion as Row[])[0].tool_calls !== null, true);
  });

  it('rl_steps: one row per step ordered by prompt group', async () => {
    const r = await rows({ layout: 'rl_steps' });
    assert.deepEqual(r.map((x) => x.step_id), ['t1:0', 't1:1', 't5:0', 't4:0'], 't3:0 has no response: not trainable');
    assert.deepEqual((await rows({ layout: 'rl_steps', validOnly: false })).map((x) => [x.step_id, x.problem]), [
      ['t1:0', null], ['t1:1', null], ['t5:0', null], ['t3:0', 'no response'], ['t4:0', null],
    ]);
    assert.deepEqual(said(r[1].prompt).length, 4);
    assert.equal((r[1].response as Row).content, 'The answer is 4.');
    assert.deepEqual([r[0].reward, r[0].prompt_tokens, r[0].completion_tokens, r[0].response_text], [0.25, 10, 5, 'Let me compute']);
  });

  it('verl_prompts: one row per prompt group, system and user turns, reward model from metadata', async () => {
    const r = (await rows({ layout: 'verl_prompts', trainableOnly: false })).map((x) => ({ ...x, prompt: said(x.prompt) }));
    assert.deepEqual(r, [
      {
        data_source: 'gsm8k',
        prompt: ['system:Be brief.', 'user:What is 2+2? Mail the answer to ann@example.com'],
        ability: 'math',
        reward_model: { style: 'rule', ground_truth: '4' },
        extra_info: { index: 'p1', split: 'train', trajectory_uid: 't1', step_id: 't1:0' },
        agent_name: null,
        environment_context: null,
        prompt_uid: 'p1',
        trajectory_uid: 't1',
        step_id: 't1:0',
      },
      {
        data_source: 'chat',
        prompt: ["user:O'Brien asked: call +1 555-123-4567 about the refund"],
        ability: 'agent',
        reward_model: { style: 'rule', ground_truth: '' },
        extra_info: { index: 'p2', split: 'train', trajectory_uid: 't3', step_id: 't3:0' },
        agent_name: null,
        environment_context: null,
        prompt_uid: 'p2',
        trajectory_uid: 't3',
        step_id: 't3:0',
      },
    ]);
    const t1 = await rows({ layout: 'verl_prompts', where: "s.trajectory_uid = 't2'", trainableOnly: false });
    assert.deepEqual([t1[0].reward_model, (t1[0].extra_info as Row).split], [{ style: 'rule', ground_truth: '4' }, 'val'], 'answer when no ground_truth; the curation split');
    const sysUser = await rows({ layout: 'verl_prompts', where: "s.step_id = 't1:1'" });
    assert.deepEqual(said(sysUser[0].prompt), ['system:Be brief.', 'user:What is 2+2? Mail the answer to ann@example.com'], 'assistant and tool turns dropped');
  });

  it('dpo: the widest-margin pair of each prompt group, chosen and rejected continuations after the shared prompt', async () => {
    const r = await rows({ layout: 'dpo', trainableOnly: false });
    assert.equal(r.length, 1, 'p2 has one rewarded trajectory (t3 has no reward)');
    const p = r[0];
    assert.deepEqual([p.prompt_uid, p.chosen_trajectory_uid, p.rejected_trajectory_uid, p.chosen_step_id, p.rejected_step_id], ['p1', 't1', 't2', 't1:1', 't2:0']);
    assert.deepEqual([p.chosen_reward, p.rejected_reward, p.margin], [1, 0, 1]);
    assert.deepEqual(said(p.prompt), ['system:Be brief.', 'user:What is 2+2? Mail the answer to ann@example.com']);
    assert.deepEqual(said(p.chosen), ['assistant:Let me compute', 'tool:4', 'assistant:The answer is 4.']);
    assert.deepEqual(said(p.rejected), ['assistant:It is 5.']);
  });

  it('dpo: trainable default and the minimum margin (inclusive)', async () => {
    const def = await rows({ layout: 'dpo' });
    assert.deepEqual(def.map((p) => [p.chosen_trajectory_uid, p.rejected_trajectory_uid, p.margin]), [['t1', 't5', 0.5]]);
    assert.equal((await rows({ layout: 'dpo', trainableOnly: false, dpoMinMargin: 1 })).length, 1);
    assert.equal((await rows({ layout: 'dpo', trainableOnly: false, dpoMinMargin: 1.01 })).length, 0);
    assert.equal((await rows({ layout: 'dpo', dpoMinMargin: 0.6 })).length, 0);
    for (const m of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) assert.equal((await rows({ layout: 'dpo', dpoMinMargin: m })).length, 1, `margin ${m} is ignored`);
  });

  it('the pairing follows the selection: without t1, t5 is chosen over t2', async () => {
    const r = await rows({ layout: 'dpo', trainableOnly: false, where: "s.trajectory_uid <> 't1'" });
    assert.deepEqual(r.map((p) => [p.chosen_trajectory_uid, p.rejected_trajectory_uid]), [['t5', 't2']]);
  });
});

describe('export survivors', () => {
  it('a split name with a quote selects its rows (the literal is escaped, not stripped)', async () => {
    const pool = await openTestPool();
    const step = (id: string, channel: string) => ({
      step_id: id, trajectory_uid: id, prompt_uid: id, step_index: 0, is_last: true, channel, status: 'ok',
      messages: [user('hi')], response: assistant('hello'),
    });
    await pool.addSteps([step('a', "team's val"), step('b', 'teams val'), step('c', 'train')]);
    const ids = async (split: string) => (await pool.rows(datasetSql({ layout: 'steps', split }))).map((r) => r.step_id);
    assert.deepEqual(await ids("team's val"), ['a']);
    assert.deepEqual(await ids('teams val'), ['b']);
    pool.close();
  });

  it('every layout is described for the export dialog, each differently', () => {
    const text = Object.values(LAYOUTS);
    assert.equal(new Set(text).size, 5);
    for (const [k, v] of Object.entries(LAYOUTS)) assert.ok(v.length > 30, `${k}: ${v}`);
  });
});
