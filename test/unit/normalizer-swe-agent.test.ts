/**
 * The SWE-agent normalizer (src/ingest/normalizers/swe-agent.ts) on the files SWE-agent
 * and mini-swe-agent write: `.traj` files (`{trajectory, history, info, replay_config}`), mini-swe-agent
 * trajectories (`{messages, info, trajectory_format}`) and plain message lists, with detection scores,
 * which turns become steps, their prompts, rewards and the run's metadata.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sweAgent } from '../../src/ingest/normalizers/swe-agent';
import type { TrajectoryDraft } from '../../src/contract/step';
import { ctx, runNormalizer } from './helpers/formats';

type V = Record<string, unknown>;
const SYS = { role: 'system', content: 'SETTING: You are an autonomous programmer.', agent: 'main', message_type: 'system_prompt' };
const TASK = { role: 'user', content: 'Fix the off-by-one in range_sum().', agent: 'main', message_type: 'observation' };
const turn = (content: string, extra: V = {}) => ({ role: 'assistant', content, thought: content, action: 'ls', agent: 'main', message_type: 'action', ...extra });
const obs = (content: string) => ({ role: 'user', content, agent: 'main', message_type: 'observation' });
const entry = (response: string, extra: V = {}) => ({ action: 'ls', observation: 'a.py', response, thought: response, execution_time: 0.1, state: {}, extra_info: {}, ...extra });
const info = (extra: V = {}) => ({ swe_agent_version: '1.1.0', exit_status: 'submitted', submission: 'diff --git a/a.py b/a.py', model_stats: { instance_cost: 0.12, tokens_sent: 900, tokens_received: 40, api_calls: 2 }, ...extra });
const traj = (extra: V = {}) => ({
  environment: 'swe_main',
  trajectory: [entry('Look first.'), entry('Now fix.', { action: 'edit a.py' })],
  history: [SYS, TASK, turn('Look first.'), obs('a.py'), turn('Now fix.', { action: 'edit a.py' }), obs('edited')],
  info: info(),
  replay_config: JSON.stringify({ agent: { model: { name: 'claude-sonnet-4-5', api_key: 'sk-ant-api03-REPLAYSECRET000000000' } }, problem_statement: { id: 'pkg__pkg-42', text: 'x' } }),
  ...extra,
});
const mini = (extra: V = {}) => ({
  trajectory_format: 'mini-swe-agent-1',
  info: { exit_status: 'Submitted', submission: 'diff --git a/b.py b/b.py', mini_version: '1.9.0', model_stats: { instance_cost: 0.03, api_calls: 2 }, config: { model: { model_name: 'openai/gpt-5-mini' } } },
  messages: [
    { role: 'system', content: 'You are a helpful assistant that can interact with a computer.' },
    { role: 'user', content: '<pr_description>Fix b.py</pr_description>' },
    { role: 'assistant', content: 'THOUGHT: look.\n\n```bash\nls\n```' },
    { role: 'user', content: '<returncode>0</returncode>\n<output>b.py</output>' },
    { role: 'assistant', content: 'THOUGHT: done.\n\n```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```' },
    { role: 'user', content: 'diff --git a/b.py b/b.py' },
  ],
  ...extra,
});

const recs = (values: unknown[]) => values.map((value, index) => ({ value, line: index + 1, index }));
const rows = (...values: unknown[]) => runNormalizer(sweAgent, recs(values));
function drafts(...values: unknown[]): TrajectoryDraft[] {
  const st = sweAgent.createState!(ctx);
  const out: TrajectoryDraft[] = [];
  for (const r of recs(values)) out.push(...(sweAgent.normalize(r, ctx, st) as TrajectoryDraft[]));
  out.push(...(sweAgent.flush!(ctx, st) as TrajectoryDraft[]));
  return out;
}
const one = (v: unknown) => {
  const d = drafts(v);
  assert.equal(d.length, 1);
  return d[0];
};
const score = (...values: unknown[]) => sweAgent.detect(values);

describe('swe-agent normalizer: detection', () => {
  it('.traj files and anything marked mini-swe-agent: 0.95', () => {
    assert.equal(score(traj()), 0.95);
    assert.equal(score(traj({ history: undefined })), 0.95, 'info without history');
    assert.equal(score({ trajectory_format: 'mini-swe-agent-1.1' }), 0.95);
    assert.equal(score({ x: 1 }, traj()), 0.95);
  });

  it('a .traj needs history or info, and every entry with an action or a response', () => {
    assert.equal(score(traj({ history: undefined, info: undefined })), 0);
    assert.equal(score(traj({ history: 'x', info: 'x' })), 0);
    assert.equal(score(traj({ trajectory: [entry('x'), { thought: 'x' }] })), 0);
    assert.equal(score(traj({ trajectory: [entry('x'), 'x'] })), 0);
    assert.equal(score(traj({ trajectory: [{ action: 'ls' }, { response: 'x' }] })), 0.95);
    assert.equal(score(traj({ trajectory: 'x' })), 0);
    assert.equal(score({ trajectory_format: 'other' }), 0);
  });

  it('messages with info.exit_status: 0.85', () => {
    assert.equal(score(mini({ trajectory_format: undefined })), 0.85);
    assert.equal(score(mini({ trajectory_format: undefined, info: { model_stats: {} } })), 0);
    assert.equal(score(mini({ trajectory_format: undefined, info: 'exit_status' })), 0);
    assert.equal(score({ messages: 'x', info: { exit_status: 'x' } }), 0);
  });

  it('plain message lists: 0.7 with mini-swe-agent markers; without them any chat export looks alike, so 0', () => {
    const msgs = mini().messages;
    assert.equal(score(msgs), 0.7, 'one array record');
    assert.equal(score(...msgs), 0.7, 'one message a record');
    assert.equal(score({ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello', name: 'bot', extra: {}, tool_calls: null, tool_call_id: null, timestamp: 1 }), 0);
    assert.equal(score({ role: 'user', content: 'THOUGHT:' }, { role: 'assistant', content: 'hello', name: 'bot', extra: {}, tool_calls: null, tool_call_id: null, timestamp: 1 }), 0.7);
    assert.equal(score({ role: 'user', content: 'THOUGHT:' }, { role: 'user', content: 'x', weird: 1 }), 0);
    assert.equal(score({ role: 'user', content: 'THOUGHT:' }, { role: 1, content: 'x' }), 0);
    assert.equal(score({ role: 'user', content: 'THOUGHT:' }, { role: 'user' }), 0);
    assert.equal(score([{ role: 'user', content: 'hi' }], [{ role: 'user', content: 'THOUGHT:' }]), 0, 'two arrays are not messages');
    assert.equal(score([]), 0);
    assert.equal(score(), 0);
    assert.match(sweAgent.label, /^SWE-agent/);
    assert.equal(score({ role: 'user', content: { text: 'THOUGHT:' } }), 0.7, 'non-text content is searched as JSON text');
    assert.equal(score({ role: 'user', content: null }), 0);
  });

  it('each marker counts', () => {
    for (const m of ['<returncode>', '```bash', 'THOUGHT:', 'COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT', 'MINI_SWE_AGENT_FINAL_OUTPUT', '<output>']) assert.equal(score({ role: 'user', content: `x ${m} y` }), 0.7, m);
  });
});

describe('swe-agent normalizer: records', () => {
  it('rejects anything else', () => {
    const st = sweAgent.createState!(ctx);
    for (const value of [{ x: 1 }, [{ role: 'user', content: 'x' }, { x: 1 }], 5, null])
      assert.throws(() => sweAgent.normalize({ value, line: 1, index: 0 }, ctx, st), /not a SWE-agent trajectory: expected \{trajectory, history, info\}/, JSON.stringify(value));
  });

  it('a trajectory without any turn is an error, not an empty import', () => {
    assert.throws(() => drafts(traj({ trajectory: [], history: [] })), /SWE-agent trajectory has no assistant turns/);
    assert.throws(() => drafts(mini({ messages: [SYS, TASK] })), /mini-swe-agent trajectory has no assistant messages/);
    assert.throws(() => drafts([]), /no assistant messages/);
  });

  it('bare messages without an assistant turn make nothing', () => {
    assert.deepEqual(drafts({ role: 'user', content: 'hi' }), []);
    assert.deepEqual(drafts(), []);
  });
});

describe('swe-agent normalizer: .traj files', () => {
  it('one step per assistant turn of history; the trajectory entry is its raw', () => {
    const d = one(traj());
    assert.equal(d.steps.length, 2);
    assert.deepEqual(
      d.steps[1].messages.map((m) => m.role),
      ['system', 'user', 'assistant', 'user'],
    );
    assert.equal(d.steps[0].finish_reason, 'stop');
    assert.equal(JSON.parse(d.steps[1].raw ?? '{}').action, 'edit a.py');
    assert.equal(d.steps[1].reward, null, 'exit_status alone is no reward');
  });

  it('run metadata: exit status, submission, cost, tokens, calls, version, instance', () => {
    const d = one(traj());
    assert.deepEqual(d.common?.metadata, {
      exit_status: 'submitted',
      submission: 'diff --git a/a.py b/a.py',
      instance_cost: '0.12',
      tokens_sent: '900',
      tokens_received: '40',
      api_calls: '2',
      agent_version: '1.1.0',
      instance_id: 'pkg__pkg-42',
    });
    assert.equal(d.prompt_uid, 'pkg__pkg-42');
    assert.equal(d.trajectory_uid, null);
    assert.equal(d.common?.agent, 'swe-agent');
    assert.equal(d.common?.model, 'claude-sonnet-4-5');
    assert.equal(d.common?.data_source, null);
    assert.ok(!JSON.stringify(d).includes('REPLAYSECRET'));
  });

  it('empty or missing values are left out of the metadata', () => {
    const d = one(traj({ info: { exit_status: '', submission: null, model_stats: 'x' }, replay_config: undefined }));
    assert.deepEqual(d.common?.metadata, {});
    assert.equal(d.prompt_uid, null);
    assert.equal(d.common?.model, null);
  });

  it('the reward: info.reward, then score, resolved, review.score', () => {
    const reward = (i: V) => one(traj({ info: i })).steps.at(-1)?.reward;
    assert.equal(reward({ reward: 0.5, score: 1, resolved: true }), 0.5);
    assert.equal(reward({ score: 0.25, resolved: true }), 0.25);
    assert.equal(reward({ resolved: false, review: { score: 1 } }), 0);
    assert.equal(reward({ review: { score: 0.75 } }), 0.75);
    assert.equal(reward({ review: 'x' }), null);
    assert.equal(reward({}), null);
    assert.equal(one(traj({ info: { reward: 1 } })).steps[0].reward, undefined, 'only the last step');
  });

  it('the instance: info, then the file, then the replay config’s problem statement', () => {
    assert.equal(one(traj({ info: { instance_id: 'from-info' }, instance_id: 'from-file' })).prompt_uid, 'from-info');
    assert.equal(one(traj({ instance_id: 'from-file' })).prompt_uid, 'from-file');
    assert.equal(one(traj({ replay_config: { problem_statement: { id: 'from-object' } } })).prompt_uid, 'from-object');
    assert.equal(one(traj({ replay_config: { problem_statement: 'x' } })).prompt_uid, null);
    assert.equal(one(traj({ replay_config: 'not json' })).prompt_uid, null);
  });

  it('the model: model_stats, info, replay agent.model.name / model_name, replay model_name', () => {
    const model = (extra: V) => one(traj(extra)).common?.model;
    assert.equal(model({ info: info({ model_stats: { model: 'stats-model' }, model: 'info-model' }) }), 'stats-model');
    assert.equal(model({ info: info({ model: 'info-model' }) }), 'info-model');
    assert.equal(model({ replay_config: { agent: { model: { model_name: 'mn' } } } }), 'mn');
    assert.equal(model({ replay_config: { model_name: 'top' } }), 'top');
    assert.equal(model({ replay_config: { agent: { model: 'x' }, model_name: 'top' } }), 'top');
    assert.equal(model({ replay_config: { agent: 'x' } }), null);
    assert.equal(model({ info: undefined, replay_config: undefined }), null);
  });

  it('data_source only when the file names one', () => {
    assert.equal(one(traj({ info: info({ data_source: 'swe-bench-lite' }) })).common?.data_source, 'swe-bench-lite');
    assert.equal(one(traj({ data_source: 'file-level' })).common?.data_source, 'file-level');
  });

  it('mini_version in info: agent mini-swe-agent', () => {
    assert.equal(one(traj({ info: { mini_version: '1.0' } })).common?.agent, 'mini-swe-agent');
    assert.equal(one(traj({ info: { mini_version: '1.0' } })).common?.metadata?.agent_version, '1.0');
  });

  it('demonstrations are context, not steps', () => {
    const d = one(traj({ history: [SYS, { ...turn('demo'), is_demo: true }, { ...turn('demo2'), message_type: 'demonstration' }, TASK, turn('Look first.')] }));
    assert.equal(d.steps.length, 2, 'one from history, the second trajectory entry after it');
    assert.equal(d.steps[0].messages.length, 4);
  });

  it('thought as reasoning when it differs from the content; tool results take the first of tool_call_ids', () => {
    const d = one(
      traj({
        history: [
          SYS,
          TASK,
          turn('Let me look.', { thought: 'I should list files.', tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }] }),
          { role: 'tool', content: 'a.py', tool_call_ids: ['toolu_1', 'toolu_x'], message_type: 'observation' },
          turn('Same.', { thought: 'Same.' }),
          turn('Empty thought.', { thought: '' }),
          { role: 'user', content: 'u', thought: 'not for users', tool_call_ids: ['toolu_z'] },
          turn('Has reasoning.', { thought: 'other', reasoning_content: 'own reasoning' }),
          { role: 'tool', content: 'b', tool_call_id: 'toolu_own', tool_call_ids: ['toolu_other'] },
          { role: 'tool', content: 'c', tool_call_ids: 'toolu_str' },
          turn('Last.', { thought: 7 }),
        ],
        trajectory: [entry('x')],
      }),
    );
    const [a, b, c, e, f] = d.steps;
    assert.equal(a.response?.reasoning, 'I should list files.');
    assert.equal(a.finish_reason, 'tool_calls');
    assert.equal(b.messages[3].tool_call_id, 'toolu_1');
    assert.equal(b.response?.reasoning, undefined);
    assert.equal(c.response?.reasoning, undefined);
    assert.equal(e.messages[6].reasoning, undefined, 'a user message’s thought is not reasoning');
    assert.equal(e.messages[6].tool_call_id, undefined, 'nor its tool_call_ids a tool result');
    assert.equal(e.response?.reasoning, 'own reasoning');
    assert.equal(f.messages[8].tool_call_id, 'toolu_own');
    assert.equal(f.messages[9].tool_call_id, undefined);
    assert.equal(f.response?.reasoning, undefined);
  });

  it('trajectory entries past the history (the final submit): steps from their query', () => {
    const t = traj({
      trajectory: [entry('Look first.'), entry('Now fix.'), entry('Submitting.', { action: 'submit', thought: 'All done, submit.', query: [SYS, TASK, { role: 'assistant', content: 'q' }, 'junk'] })],
      info: info({ model_stats: { api_calls: 3 } }),
    });
    const d = one(t);
    assert.equal(d.steps.length, 3);
    const last = d.steps[2];
    assert.deepEqual(
      last.messages.map((m) => m.role),
      ['system', 'user', 'assistant'],
    );
    assert.equal(last.response?.content, 'Submitting.');
    assert.equal(last.response?.reasoning, 'All done, submit.');
    assert.equal(last.finish_reason, 'stop');
    assert.equal(last.metadata?.action, 'submit');
    assert.equal(last.metadata?.exit_status, 'submitted', 'the run metadata merged with the step’s own');
    assert.equal(last.reward, null);
    assert.equal(JSON.parse(last.raw ?? '{}').action, 'submit');
    assert.equal(d.common?.metadata?.api_calls_without_step, undefined);
    assert.equal(d.steps[0].metadata, undefined, 'history steps take the run metadata from common');
  });

  it('an entry without a query: the previous call’s context, its answer and its observation', () => {
    const d = one(traj({ trajectory: [entry('Look first.', { observation: 'a.py b.py' }), entry('x'), entry('Submit.', { action: '' })] }));
    const last = d.steps[2];
    assert.deepEqual(
      last.messages.map((m) => [m.role, m.content]),
      [
        ['system', SYS.content],
        ['user', TASK.content],
        ['assistant', 'Look first.'],
        ['user', 'a.py'],
        ['assistant', 'Now fix.'],
        ['user', 'a.py'],
      ],
    );
    assert.equal(last.metadata, undefined, 'an empty action is no metadata');
  });

  it('the observation is added only when the previous raw holds one', () => {
    const d = one(traj({ trajectory: [entry('Look first.'), { action: 'x', response: 'y', observation: 5 }, entry('Submit.')] }));
    assert.equal(d.steps[2].messages.length, 5);
  });

  it('no history: each trajectory entry is a step, chained when it has no query', () => {
    const d = one({
      trajectory: [entry('First.', { query: [SYS, TASK], observation: 'out1' }), entry('<think>hmm</think>Second.', { thought: '<think>hmm</think>Second.', observation: 'out2' })],
      info: info({ model_stats: { api_calls: 5 } }),
    });
    assert.equal(d.steps.length, 2);
    assert.deepEqual(
      d.steps[1].messages.map((m) => [m.role, m.content]),
      [
        ['system', SYS.content],
        ['user', TASK.content],
        ['assistant', 'First.'],
        ['user', 'out1'],
      ],
    );
    assert.equal(d.steps[1].response?.content, 'Second.');
    assert.equal(d.steps[1].response?.reasoning, 'hmm');
    assert.equal(d.common?.metadata?.api_calls_without_step, '3');
    assert.equal(d.steps[1].metadata?.api_calls_without_step, '3');
    const first = one({ trajectory: [entry('Only.', { thought: null })], info: {} });
    assert.deepEqual(first.steps[0].messages, []);
    assert.deepEqual(first.steps[0].response, { role: 'assistant', content: 'Only.' });
  });

  it('api_calls equal to the steps found: nothing missing', () => {
    const d = one(traj({ info: info({ model_stats: { api_calls: 2 } }) }));
    assert.equal(d.common?.metadata?.api_calls_without_step, undefined);
    const e = one(traj({ info: info({ model_stats: { api_calls: 1 } }) }));
    assert.equal(e.common?.metadata?.api_calls_without_step, undefined);
  });

  it('an empty history falls back to the trajectory entries', () => {
    const d = one(traj({ history: [], trajectory: [entry('A.', { query: [TASK] })] }));
    assert.equal(d.steps.length, 1);
    assert.deepEqual(
      d.steps[0].messages.map((m) => m.content),
      [TASK.content],
    );
  });

  it('history entries that are not objects are skipped; the raw falls back to the history turn (bug: it was the entry at the same index of the unfiltered history)', () => {
    const d = one(traj({ history: [SYS, 'junk', TASK, turn('Look first.'), obs('a.py'), turn('Now fix.'), obs('x'), turn('Third.')], trajectory: [entry('Look first.')] }));
    assert.equal(d.steps.length, 3);
    assert.equal(d.steps[0].messages.length, 2);
    assert.equal(JSON.parse(d.steps[2].raw ?? '{}').content, 'Third.');
  });

  it('rows: one trajectory, the instance as its prompt group, provider from the model', () => {
    const r = rows(traj());
    assert.equal(r.length, 2);
    assert.equal(r[0].trajectory_uid, r[1].trajectory_uid);
    assert.equal(r[1].prompt_uid, 'pkg__pkg-42');
    assert.equal(r[1].metadata?.exit_status, 'submitted');
    assert.equal(r[0].provider, 'anthropic');
  });
});

describe('swe-agent normalizer: mini-swe-agent', () => {
  it('one step per assistant message; the final output after the last one is kept', () => {
    const d = one(mini());
    assert.equal(d.steps.length, 2);
    assert.equal(d.common?.agent, 'mini-swe-agent');
    assert.equal(d.common?.model, 'openai/gpt-5-mini');
    assert.deepEqual(d.common?.metadata, { exit_status: 'Submitted', submission: 'diff --git a/b.py b/b.py', instance_cost: '0.03', api_calls: '2', agent_version: '1.9.0', trajectory_format: 'mini-swe-agent-1' });
    assert.equal(d.steps[1].metadata?.final_output, 'diff --git a/b.py b/b.py');
    assert.equal(d.steps[1].metadata?.exit_status, 'Submitted');
    assert.equal(d.steps[0].metadata, undefined);
    assert.equal(d.steps[1].reward, null);
    assert.equal(JSON.parse(d.steps[0].raw ?? '{}').content, 'THOUGHT: look.\n\n```bash\nls\n```');
  });

  it('the final output: extra.submission before the content, several messages joined; none: nothing', () => {
    const msgs = mini().messages.slice(0, 5);
    const d = one(mini({ messages: [...msgs, { role: 'user', content: 'shown', extra: { submission: 'the diff' } }, { role: 'user', content: 'more', extra: 'x' }, { role: 'user', content: '' }] }));
    assert.equal(d.steps[1].metadata?.final_output, 'the diff\nmore');
    const e = one(mini({ messages: msgs }));
    assert.equal(e.steps[1].metadata?.final_output, undefined);
    const f = one(mini({ messages: [...msgs, { role: 'user', content: '' }] }));
    assert.equal(f.steps[1].metadata?.final_output, undefined);
  });

  it('roles by alias: an "ai" message is an assistant turn', () => {
    const d = one(mini({ messages: [{ role: 'human', content: 'task' }, { role: 'ai', content: 'answer' }, { role: 'human', content: 'final' }] }));
    assert.equal(d.steps.length, 1);
    assert.equal(d.steps[0].metadata?.final_output, 'final');
  });

  it('no config model: no model; the instance from the file', () => {
    const d = one(mini({ info: { exit_status: 'x', config: { model: 'x' } }, instance_id: 'inst-1' }));
    assert.equal(d.common?.model, null);
    assert.equal(d.prompt_uid, 'inst-1');
    assert.equal(one(mini({ info: { exit_status: 'x', config: 'x' } })).common?.model, null);
    assert.equal(one(mini({ info: undefined })).steps.length, 2);
  });

  it('the reward of info on the last step', () => {
    const d = one(mini({ info: { exit_status: 'Submitted', resolved: true } }));
    assert.deepEqual(
      d.steps.map((s) => s.reward),
      [undefined, 1],
    );
  });

  it('non-object messages are skipped', () => {
    const d = one(mini({ messages: ['junk', ...mini().messages] }));
    assert.equal(d.steps[0].messages.length, 2);
  });
});

describe('swe-agent normalizer: plain message lists', () => {
  const msgs = () => mini().messages;

  it('an array record: one trajectory with the final output', () => {
    const d = one(msgs());
    assert.equal(d.steps.length, 2);
    assert.equal(d.common?.agent, 'mini-swe-agent');
    assert.equal(d.steps[1].metadata?.final_output, 'diff --git a/b.py b/b.py');
  });

  it('one message a record: joined at the end, each step at its own line, the final output kept', () => {
    const d = drafts(...msgs());
    assert.equal(d.length, 1);
    assert.deepEqual(d[0].common, { agent: 'mini-swe-agent' });
    assert.deepEqual(
      d[0].steps.map((s) => s.source_line),
      [3, 5],
    );
    assert.equal(d[0].steps[1].messages.length, 4);
    assert.equal(d[0].steps[1].metadata?.final_output, 'diff --git a/b.py b/b.py');
    assert.equal(JSON.parse(d[0].steps[0].raw ?? '{}').content, msgs()[2].content);
  });

  it('flush empties the state', () => {
    const st = sweAgent.createState!(ctx);
    for (const r of recs(msgs())) sweAgent.normalize(r, ctx, st);
    assert.equal((sweAgent.flush!(ctx, st) as TrajectoryDraft[]).length, 1);
    assert.deepEqual(sweAgent.flush!(ctx, st), []);
  });

  it('rows: provider filled from the model is absent (no model), steps in order', () => {
    const r = rows(...msgs());
    assert.deepEqual(
      r.map((x) => x.step_index),
      [0, 1],
    );
    assert.equal(r[0].provider, null);
  });
});

describe('swe-agent normalizer', () => {
  it('does not claim a chat message with unknown keys', () => {
    assert.equal(sweAgent.detect([{ role: 'user', content: 'hi', weird: 1 }]), 0);
  });
});

describe('swe-agent normalizer: observations of function calls (issue 32)', () => {
  const call = (id: string, name: string) => ({ tool_calls: [{ id, type: 'function', function: { name, arguments: '{}' } }] });
  it("an observation is the output of the only call it follows: a history tool entry without tool_call_ids, and the final submit's observation", () => {
    const d = drafts({
      environment: 'swe_main',
      history: [SYS, TASK, turn('Look first.', call('toolu_1', 'bash')), { role: 'tool', content: 'a.py', agent: 'main', message_type: 'observation' }, turn('Submit.', call('toolu_2', 'submit'))],
      trajectory: [entry('Look first.', { observation: 'a.py' }), entry('Submit.', { observation: 'diff --git a/a.py b/a.py' }), entry('Done.', { observation: '' })],
      info: info(),
    })[0];
    assert.deepEqual(d.steps[1].messages.at(-1), { role: 'tool', content: 'a.py', tool_call_id: 'toolu_1' });
    assert.deepEqual(d.steps[2].messages.at(-1), { role: 'tool', content: 'diff --git a/a.py b/a.py', tool_call_id: 'toolu_2' });
  });
});
