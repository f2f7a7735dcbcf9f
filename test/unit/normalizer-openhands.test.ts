/**
 * The OpenHands normalizer (src/ingest/normalizers/openhands.ts) on the shapes OpenHands
 * writes: event streams (a JSON array or one event a line: `{id, source, action | observation, ...}` with
 * `tool_call_metadata.model_response`) and evaluation outputs (`{instance_id, history, metadata,
 * test_result}`), with detection scores, how actions become steps and what each step's prompt holds.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openhands } from '../../src/ingest/normalizers/openhands';
import type { TrajectoryDraft } from '../../src/contract/step';
import { ctx, runNormalizer } from './helpers/formats';

type V = Record<string, unknown>;
const T = (s: number) => `2026-11-28T09:00:${String(s).padStart(2, '0')}Z`;
const system = (id: number, tools: unknown = [{ type: 'function', function: { name: 'execute_bash', parameters: { type: 'object' } } }]) => ({
  id,
  timestamp: T(id),
  source: 'agent',
  message: 'You are OpenHands agent...',
  action: 'system',
  args: { content: 'You are OpenHands agent.', tools, openhands_version: '0.59.0', agent_class: 'CodeActAgent' },
});
const userMsg = (id: number, content: string) => ({ id, timestamp: T(id), source: 'user', message: content, action: 'message', args: { content, file_urls: [], image_urls: [], wait_for_response: false } });
const response = (rid: string, message: V, extra: V = {}) => ({
  id: rid,
  model: 'litellm_proxy/claude-sonnet-4-5-20250929',
  object: 'chat.completion',
  choices: [{ finish_reason: 'tool_calls', index: 0, message: { role: 'assistant', ...message } }],
  usage: { prompt_tokens: 1200, completion_tokens: 45, total_tokens: 1245 },
  ...extra,
});
const run = (id: number, callId: string, command: string, mr: V | null, extra: V = {}) => ({
  id,
  timestamp: T(id),
  source: 'agent',
  message: `Running command: ${command}`,
  action: 'run',
  args: { command, is_input: false, thought: '', blocking: false, security_risk: 0 },
  tool_call_metadata: { function_name: 'execute_bash', tool_call_id: callId, ...(mr ? { model_response: mr } : {}), total_calls_in_response: 1 },
  ...extra,
});
const cmdOutput = (id: number, cause: number, callId: string | null, content: string) => ({
  id,
  timestamp: T(id),
  source: 'environment',
  message: `Command \`x\` executed with exit code 0.`,
  cause,
  observation: 'run',
  content,
  extras: { command: 'x', metadata: { exit_code: 0 } },
  ...(callId ? { tool_call_metadata: { function_name: 'execute_bash', tool_call_id: callId } } : {}),
});
const call = (id: string, command: string) => ({ id, type: 'function', function: { name: 'execute_bash', arguments: JSON.stringify({ command }) } });

const recs = (values: unknown[]) => values.map((value, index) => ({ value, line: index + 1, index }));
const rows = (...values: unknown[]) => runNormalizer(openhands, recs(values));
function drafts(...values: unknown[]): TrajectoryDraft[] {
  const st = openhands.createState!(ctx);
  const out: TrajectoryDraft[] = [];
  for (const r of recs(values)) out.push(...(openhands.normalize(r, ctx, st) as TrajectoryDraft[]));
  out.push(...(openhands.flush!(ctx, st) as TrajectoryDraft[]));
  return out;
}
const score = (...values: unknown[]) => openhands.detect(values);

describe('openhands normalizer: detection', () => {
  it('0.8 + 0.15 × the share of events or evaluation outputs; none → 0', () => {
    assert.equal(score(userMsg(1, 'x')), 0.8 + 0.15);
    assert.equal(score(userMsg(1, 'x'), { other: 1 }), 0.875);
    assert.equal(score({ instance_id: 'i', history: [{ x: 1 }, userMsg(1, 'x')] }), 0.8 + 0.15);
    assert.equal(score({ other: 1 }), 0);
    assert.match(openhands.label, /^OpenHands/);
  });

  it('an event needs a known source, an action or observation, and an id', () => {
    assert.equal(score({ id: 1, source: 'environment', observation: 'run' }), 0.8 + 0.15);
    assert.equal(score({ id: 1, source: 'agent', action: 'run' }), 0.8 + 0.15);
    assert.equal(score({ id: 1, source: 'system', action: 'run' }), 0);
    assert.equal(score({ id: 1, source: 5, action: 'run' }), 0);
    assert.equal(score({ id: 1, source: 'agent' }), 0);
    assert.equal(score({ source: 'agent', action: 'run' }), 0);
    assert.equal(score({ history: [{ id: 1, source: 'x', action: 'run' }] }), 0);
    assert.equal(score({ history: 'x' }), 0);
  });
});

describe('openhands normalizer: records', () => {
  it('rejects what is neither an event, an event array nor an evaluation output', () => {
    const st = openhands.createState!(ctx);
    for (const value of [{ x: 1 }, [{ x: 1 }], 5, null, { history: [] }])
      assert.throws(() => openhands.normalize({ value, line: 1, index: 0 }, ctx, st), /not an OpenHands event/, JSON.stringify(value));
  });

  it('events with no agent action make no trajectory', () => {
    assert.deepEqual(drafts(system(0), userMsg(1, 'hi')), []);
    assert.deepEqual(drafts([system(0), userMsg(1, 'hi')]), []);
    assert.deepEqual(drafts({ instance_id: 'i', history: [userMsg(1, 'hi')] }), []);
  });

  it('one event a line: joined at the end, each step keeps its line; flush empties the state', () => {
    const st = openhands.createState!(ctx);
    const values = [system(0), userMsg(1, 'list files'), run(2, 'toolu_1', 'ls', response('resp-1', { content: 'Looking.', tool_calls: [call('toolu_1', 'ls')] }))];
    for (const r of recs(values)) assert.deepEqual(openhands.normalize(r, ctx, st), []);
    const d = openhands.flush!(ctx, st) as TrajectoryDraft[];
    assert.equal(d.length, 1);
    assert.equal(d[0].steps[0].source_line, 3);
    assert.deepEqual(openhands.flush!(ctx, st), []);
  });

  it('an event array is one trajectory at its record’s line', () => {
    const d = drafts(userMsg(0, 'x'), [system(0), 'junk', null, userMsg(1, 'list files'), run(2, 'toolu_1', 'ls', null)]);
    assert.equal(d.length, 1, 'the single event before it made no step');
    assert.equal(d[0].steps[0].source_line, 2);
  });
});

describe('openhands normalizer: steps', () => {
  const stream = () => [
    system(0),
    userMsg(1, 'Fix the test.'),
    { id: 2, timestamp: T(2), source: 'environment', message: '', observation: 'agent_state_changed', content: '', extras: { agent_state: 'running' } },
    { id: 3, timestamp: T(3), source: 'agent', action: 'recall', args: { query: 'Fix the test.' } },
    { id: 4, timestamp: T(4), source: 'environment', observation: 'recall', content: 'microagent knowledge' },
    run(5, 'toolu_1', 'ls', response('resp-1', { content: 'Two looks.', tool_calls: [call('toolu_1', 'ls'), call('toolu_2', 'cat t.py')] })),
    run(6, 'toolu_2', 'cat t.py', response('resp-1', { content: 'Two looks.', tool_calls: [call('toolu_1', 'ls'), call('toolu_2', 'cat t.py')] })),
    cmdOutput(7, 5, 'toolu_1', 't.py'),
    cmdOutput(8, 6, 'toolu_2', 'assert add(1, 2) == 3'),
    { id: 9, timestamp: T(9), source: 'environment', observation: 'error', content: 'The command timed out.' },
    { id: 10, timestamp: T(10), source: 'environment', observation: 'null', content: '' },
    { id: 11, timestamp: T(11), source: 'agent', action: 'change_agent_state', args: { agent_state: 'paused' } },
    { id: 12, timestamp: T(12), source: 'agent', action: 'message', args: { content: 'Done: the test passes.', wait_for_response: true }, tool_call_metadata: { model_response: response('resp-2', { content: 'Done: the test passes.' }, { choices: [{ finish_reason: 'stop', index: 0, message: { role: 'assistant', content: 'Done: the test passes.' } }] }) } },
  ];

  it('one step per model response; the actions that share it are not steps again', () => {
    const d = drafts(...stream());
    assert.equal(d.length, 1);
    const [a, b] = d[0].steps;
    assert.equal(d[0].steps.length, 2);
    assert.equal(a.response?.content, 'Two looks.');
    assert.equal(a.response?.tool_calls?.length, 2, 'the model response holds both calls; the second action adds none');
    assert.equal(a.model, 'litellm_proxy/claude-sonnet-4-5-20250929');
    assert.equal(a.finish_reason, 'tool_calls');
    assert.equal(a.prompt_tokens, 1200);
    assert.equal(a.completion_tokens, 45);
    assert.equal(a.started_at, Date.parse(T(5)));
    assert.deepEqual(a.metadata, { event_id: '5', model_response_id: 'resp-1' });
    assert.equal(JSON.parse(a.raw ?? '{}').id, 5);
    assert.equal(b.finish_reason, 'stop');
    assert.equal(b.metadata?.model_response_id, 'resp-2');
  });

  it('the prompt: system, user messages, earlier responses, tool observations and errors; recalls and state changes left out', () => {
    const [a, b] = drafts(...stream())[0].steps;
    assert.deepEqual(a.messages, [
      { role: 'system', content: 'You are OpenHands agent.' },
      { role: 'user', content: 'Fix the test.' },
    ]);
    assert.deepEqual(
      b.messages.map((m) => [m.role, m.tool_call_id ?? null, m.name ?? null, m.content]),
      [
        ['system', null, null, 'You are OpenHands agent.'],
        ['user', null, null, 'Fix the test.'],
        ['assistant', null, null, 'Two looks.'],
        ['tool', 'toolu_1', 'execute_bash', 't.py'],
        ['tool', 'toolu_2', 'execute_bash', 'assert add(1, 2) == 3'],
        ['user', null, null, 'The command timed out.'],
      ],
    );
  });

  it('the tools of the system event; a later system event without tools keeps them', () => {
    const d = drafts(system(0), userMsg(1, 'x'), system(2, undefined), run(3, 'toolu_1', 'ls', null));
    assert.match(d[0].common?.tools ?? '', /execute_bash/);
    assert.equal(d[0].steps[0].messages.filter((m) => m.role === 'system').length, 2);
    const none = drafts(system(0, []), run(1, 'toolu_1', 'ls', null));
    assert.equal(none[0].common?.tools, null);
    const noArgs = drafts({ id: 0, source: 'agent', action: 'system', content: 'sys text' }, run(1, 'toolu_1', 'ls', null));
    assert.equal(noArgs[0].steps[0].messages[0].content, 'sys text');
  });

  it('actions without a kept model response: the call rebuilt from the action, security_risk dropped', () => {
    const [a] = drafts(userMsg(1, 'x'), { ...run(2, 'toolu_1', 'ls', null), args: { command: 'ls', thought: 'Look first.', security_risk: 1 } })[0].steps;
    assert.deepEqual(a.response, {
      role: 'assistant',
      content: 'Look first.',
      tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'execute_bash', arguments: '{"command":"ls","thought":"Look first."}' } }],
    });
    assert.equal(a.finish_reason, 'tool_calls');
    assert.equal(a.model, null);
    assert.equal(a.prompt_tokens, null);
    assert.deepEqual(a.metadata, { event_id: '2' });
  });

  it('the thought on the event itself; no thought: no content; no function name: no call', () => {
    const [a] = drafts({ id: 1, source: 'agent', action: 'run', thought: 'Top-level thought.', args: { command: 'ls' }, tool_call_metadata: { tool_call_id: 'toolu_1' } })[0].steps;
    assert.deepEqual(a.response, { role: 'assistant', content: 'Top-level thought.' });
    assert.equal(a.finish_reason, 'stop');
    const [b] = drafts({ id: 1, source: 'agent', action: 'run', args: { command: 'ls', thought: '' }, tool_call_metadata: { function_name: 'execute_bash' } })[0].steps;
    assert.equal(b.response?.content, null);
    assert.deepEqual(b.response?.tool_calls, [{ id: null, type: 'function', function: { name: 'execute_bash', arguments: '{"command":"ls","thought":""}' } }]);
    const [c] = drafts({ id: 1, source: 'agent', action: 'run', args: 'ls' })[0].steps;
    assert.deepEqual(c.response, { role: 'assistant', content: null });
  });

  it('message and finish actions: their text is the content; inline <think> split off', () => {
    const [a, b] = drafts(
      userMsg(0, 'x'),
      { id: 1, source: 'agent', action: 'message', args: { content: '<think>plan</think>Hello.', thought: 'ignored' } },
      { id: 2, source: 'agent', action: 'finish', args: { final_thought: 'x', thought: 'ignored' }, message: 'All done.', tool_call_metadata: { function_name: 'finish', tool_call_id: 'toolu_F' } },
    )[0].steps;
    assert.equal(a.response?.content, 'Hello.');
    assert.equal(a.response?.reasoning, 'plan');
    assert.equal(b.response?.content, 'All done.');
    assert.equal(b.response?.tool_calls?.[0].function.name, 'finish');
    assert.deepEqual(
      b.messages.map((m) => m.role),
      ['user', 'assistant'],
    );
  });

  it('several actions of one response whose choices were not kept: their calls are merged', () => {
    const bare = { id: 'resp-9', model: 'gpt-5', usage: { prompt_tokens: 10, completion_tokens: 2 } };
    const d = drafts(userMsg(0, 'x'), run(1, 'toolu_1', 'ls', bare), run(2, 'toolu_2', 'pwd', bare), { ...run(3, 'toolu_3', 'id', bare), tool_call_metadata: { model_response: bare } });
    const [a] = d[0].steps;
    assert.equal(d[0].steps.length, 1);
    assert.deepEqual(
      a.response?.tool_calls?.map((c) => c.id),
      ['toolu_1', 'toolu_2'],
    );
    assert.equal(a.model, 'gpt-5');
    assert.equal(a.finish_reason, 'tool_calls', 'no choice: from the calls');
    assert.equal(a.prompt_tokens, 10);
  });

  it('the first action of a response made no call: the later actions’ calls are still added', () => {
    const bare = { id: 'resp-9', model: 'gpt-5' };
    const d = drafts(userMsg(0, 'x'), { id: 1, source: 'agent', action: 'think', args: { thought: 'plan' }, tool_call_metadata: { model_response: bare } }, run(2, 'toolu_2', 'pwd', bare));
    assert.equal(d[0].steps.length, 1);
    assert.equal(d[0].steps[0].response?.content, 'plan');
    assert.deepEqual(
      d[0].steps[0].response?.tool_calls?.map((c) => c.id),
      ['toolu_2'],
    );
  });

  it('a model response whose choices is not a list, or whose first choice has no message', () => {
    const [a] = drafts(userMsg(0, 'x'), run(1, 'toolu_1', 'ls', { id: 'r', choices: 'x' }))[0].steps;
    assert.equal(a.response?.tool_calls?.[0].id, 'toolu_1');
    assert.equal(a.finish_reason, 'tool_calls');
    const [b] = drafts(userMsg(0, 'x'), run(1, 'toolu_1', 'ls', { id: 'r', choices: [{ finish_reason: 'length' }] }))[0].steps;
    assert.equal(b.response?.tool_calls?.[0].id, 'toolu_1', 'rebuilt from the action');
    assert.equal(b.finish_reason, 'length', 'the choice still says why it stopped');
    const [c] = drafts(userMsg(0, 'x'), run(1, 'toolu_1', 'ls', { id: 'r', choices: ['x'] }))[0].steps;
    assert.equal(c.finish_reason, 'tool_calls');
    const [e] = drafts(userMsg(0, 'x'), run(1, 'toolu_1', 'ls', { id: 'r', choices: [] }))[0].steps;
    assert.equal(e.finish_reason, 'tool_calls');
  });

  it('a model response without an id: each action its own step', () => {
    const mr = { model: 'gpt-5', choices: [{ finish_reason: 'tool_calls', message: { role: 'assistant', content: null, tool_calls: [call('toolu_1', 'ls')] } }] };
    const d = drafts(userMsg(0, 'x'), run(1, 'toolu_1', 'ls', mr), run(2, 'toolu_1', 'ls', mr));
    assert.equal(d[0].steps.length, 2);
    assert.equal(d[0].steps[0].metadata?.model_response_id, undefined);
    const st = drafts(userMsg(0, 'x'), { ...run(1, 'toolu_1', 'ls', null), tool_call_metadata: 'x' });
    assert.equal(st[0].steps[0].response?.tool_calls, undefined);
  });

  it('the choice message is read as an assistant message, whatever role it claims', () => {
    const [a] = drafts(userMsg(0, 'x'), run(1, 'toolu_1', 'ls', response('r', { role: 'user', content: 'odd', reasoning_content: 'why' })))[0].steps;
    assert.equal(a.response?.role, 'assistant');
    assert.equal(a.response?.reasoning, 'why');
    assert.equal(a.response?.content, 'odd');
  });

  it('usage that is not an object: no tokens', () => {
    const [a] = drafts(userMsg(0, 'x'), run(1, 'toolu_1', 'ls', response('r', { content: 'x' }, { usage: 'n/a' })))[0].steps;
    assert.equal(a.prompt_tokens, null);
  });

  it('user actions other than messages, and environment actions, are not context', () => {
    const [a] = drafts(
      userMsg(0, 'x'),
      { id: 1, source: 'user', action: 'change_agent_state', args: { agent_state: 'stopped' }, message: 'stop' },
      { id: 2, source: 'environment', action: 'run', args: { command: 'setup' }, tool_call_metadata: { function_name: 'execute_bash', tool_call_id: 'x', model_response: response('env', { content: 'no' }) } },
      run(3, 'toolu_1', 'ls', null),
    )[0].steps;
    assert.deepEqual(
      a.messages.map((m) => m.content),
      ['x'],
    );
    assert.equal(a.source_line, 4, 'the environment action is no step');
  });

  it('observations: user_message as user; other observations without a call id dropped; content from args or message', () => {
    const [, b] = drafts(
      userMsg(0, 'x'),
      run(1, 'toolu_1', 'ls', null),
      { id: 2, source: 'environment', observation: 'user_message', message: 'from the user' },
      { id: 3, source: 'environment', observation: 'run', content: 'orphan output' },
      { id: 4, source: 'environment', observation: 'run', message: 'via message', tool_call_metadata: { function_name: 'execute_bash', tool_call_id: 'toolu_1' } },
      { id: 5, source: 'environment', observation: 'agent_state_changed', content: 'x', tool_call_metadata: { tool_call_id: 'toolu_1' } },
      { id: 6, source: 'environment', observation: 'user_rejected', content: 'no', tool_call_metadata: { tool_call_id: 'toolu_1' } },
      { id: 7, source: 'environment', observation: 'run', content: 'x', tool_call_metadata: 'toolu_1' },
      { id: 8, source: 'environment', observation: 5, content: 'x' },
      { id: 9, source: 'environment', observation: 'change_agent_state', content: 'x', tool_call_metadata: { tool_call_id: 'toolu_1' } },
      { id: 10, source: 'environment', observation: 'recall', content: 'x', tool_call_metadata: { tool_call_id: 'toolu_1' } },
      { id: 11, source: 'environment', observation: 'null', content: 'x', tool_call_metadata: { tool_call_id: 'toolu_1' } },
      run(12, 'toolu_2', 'pwd', null),
    )[0].steps;
    assert.deepEqual(
      b.messages.map((m) => [m.role, m.content]),
      [
        ['user', 'x'],
        ['assistant', null],
        ['user', 'from the user'],
        ['tool', 'via message'],
      ],
    );
  });

  it('naive timestamps are noted', () => {
    const [a] = drafts(userMsg(0, 'x'), { ...run(1, 'toolu_1', 'ls', null), timestamp: '2026-11-28T09:00:01.123456' })[0].steps;
    assert.equal(a.metadata?.time_zone, 'none in source: timestamps kept as written, stored as UTC');
    assert.equal(a.started_at, Date.parse('2026-11-28T09:00:01.123Z'));
  });
});

describe('openhands normalizer: evaluation outputs', () => {
  const history = () => [system(0), userMsg(1, 'Fix it.'), run(2, 'toolu_1', 'ls', null), cmdOutput(3, 2, 'toolu_1', 'a.py'), run(4, 'toolu_2', 'pytest', null), 'junk', null];
  const output = (extra: V = {}) => ({
    instance_id: 'astropy__astropy-14365',
    instruction: 'Fix it.',
    metadata: { agent_class: 'CodeActAgent', dataset: 'princeton-nlp/SWE-bench_Lite', llm_config: { model: 'anthropic/claude-sonnet-4-5', api_key: 'sk-ant-api03-SECRETSECRETSECRET0000' } },
    history: history(),
    metrics: { accumulated_cost: 0.42 },
    error: null,
    test_result: { git_patch: 'diff --git a/x b/x', report: { resolved: true } },
    ...extra,
  });

  it('the instance groups runs; resolved is the reward of the last step; agent, model, dataset from the metadata', () => {
    const d = drafts(output());
    assert.equal(d.length, 1);
    assert.equal(d[0].prompt_uid, 'astropy__astropy-14365');
    assert.deepEqual(
      d[0].steps.map((s) => s.reward),
      [undefined, 1],
    );
    assert.deepEqual(d[0].common, { agent: 'CodeActAgent', tools: d[0].common?.tools, model: 'anthropic/claude-sonnet-4-5', data_source: 'princeton-nlp/SWE-bench_Lite' });
    assert.equal(d[0].steps[1].provider, 'anthropic', 'provider filled from the model');
    const m = d[0].steps[0].metadata;
    assert.equal(m?.instance_id, 'astropy__astropy-14365');
    assert.equal(m?.metrics, '{"accumulated_cost":0.42}');
    assert.equal(m?.test_result, '{"git_patch":"diff --git a/x b/x","report":{"resolved":true}}');
    assert.equal(m?.error, undefined);
    assert.equal(m?.event_id, '2');
    assert.ok(!JSON.stringify(d).includes('SECRETSECRET'));
  });

  it('the reward: test_result.reward, then report.resolved, test_result.resolved, reward, resolved', () => {
    const reward = (extra: V) => drafts(output(extra))[0].steps.at(-1)?.reward;
    assert.equal(reward({ test_result: { reward: 0.5, report: { resolved: true } } }), 0.5);
    assert.equal(reward({ test_result: { resolved: false } }), 0);
    assert.equal(reward({ test_result: { report: 'x', resolved: true }, report: { resolved: false } }), 0, 'a report on the output itself');
    assert.equal(reward({ test_result: 'x', reward: 0.25 }), 0.25);
    assert.equal(reward({ test_result: undefined, resolved: true }), 1);
    assert.equal(reward({ test_result: undefined }), null);
  });

  it('an error is kept in metadata; no metadata: the default agent, no model', () => {
    const d = drafts(output({ error: 'Agent got stuck in a loop', metadata: undefined }));
    assert.equal(d[0].steps[0].metadata?.error, 'Agent got stuck in a loop');
    assert.equal(d[0].common?.agent, 'openhands');
    assert.equal(d[0].common?.model, null);
    assert.equal(d[0].common?.data_source, null);
    const e = drafts(output({ metadata: { llm_config: 'x' } }));
    assert.equal(e[0].common?.model, null);
  });

  it('an event stream has no instance, no reward and the default agent', () => {
    const d = drafts(history().slice(0, 5));
    assert.equal(d[0].prompt_uid, null);
    assert.equal(d[0].common?.agent, 'openhands');
    assert.equal(d[0].steps.at(-1)?.reward, undefined);
    assert.equal(d[0].steps[0].metadata?.instance_id, undefined);
  });

  it('rows: the instance becomes the prompt group, the step ids follow the history', () => {
    const r = rows(output());
    assert.deepEqual(
      r.map((x) => [x.prompt_uid, x.step_index, x.reward]),
      [
        ['astropy__astropy-14365', 0, null],
        ['astropy__astropy-14365', 1, 1],
      ],
    );
  });
});
