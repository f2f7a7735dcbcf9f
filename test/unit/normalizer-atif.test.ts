/**
 * ATIF trajectories (src/ingest/normalizers/atif.ts) beyond the Harbor fixture: detection, user / system /
 * observation context, tool calls in each ATIF spelling, token ids and log probs, the reward wherever a
 * trajectory keeps it, and the metadata of steps and trajectory. Written to kill mutants StrykerJS found.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { atif } from '../../src/ingest/normalizers/atif';
import { NAIVE_TIME_NOTE } from '../../src/contract/json';
import type { StepDraft, TrajectoryDraft } from '../../src/contract/step';
import { RecordError } from '../../src/ingest/normalizer';
import { ctx, records, } from './format-helpers';

const traj = (steps: unknown[], extra: Record<string, unknown> = {}) => ({ schema_version: 'ATIF-v1.2', session_id: 'sess-1', agent: { name: 'terminus-2', version: '2.0', model_name: 'openai/gpt-5-mini' }, steps, ...extra });
const norm = (v: unknown): TrajectoryDraft => atif.normalize({ value: v, line: 1, index: 0 }, ctx, undefined as never)[0];
const agent = (s: Record<string, unknown> = {}) => ({ step_id: 2, source: 'agent', message: 'ok', ...s });
const only = (s: Record<string, unknown>): StepDraft => norm(traj([{ step_id: 1, source: 'user', message: 'go' }, agent(s)])).steps[0];
const near = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-9, `${a} ≠ ${b}`);

describe('atif normalizer', () => {
  it('detect: 0.95 + 0.04 × the share of ATIF records; the schema version must start with ATIF and steps be a list', () => {
    near(atif.detect([traj([])]), 0.99);
    near(atif.detect([traj([]), { note: 1 }]), 0.97);
    assert.equal(atif.detect([]), 0);
    assert.equal(atif.detect([{ schema_version: 'v1-ATIF', steps: [] }]), 0);
    assert.equal(atif.detect([{ schema_version: 1.2, steps: [] }]), 0);
    assert.equal(atif.detect([{ schema_version: 'ATIF-v1.2', steps: {} }]), 0);
    assert.throws(() => norm({ schema_version: 'ATIF-v1.2' }), /not an ATIF trajectory/);
  });

  it('context: system and user steps, observations as tool results or user feedback; a step without source is the agent', () => {
    const t = norm(
      traj([
        { step_id: 1, source: 'system', message: 'You are in a shell.' },
        { step_id: 2, source: 'user', message: [{ type: 'text', text: 'make hello.txt' }], observation: { results: [{ content: 'env ready' }] } },
        { step_id: 3, message: 'first', tool_calls: [{ tool_call_id: 'c1', function_name: 'bash', arguments: { cmd: 'ls' } }], observation: { results: [{ source_call_id: 'c1', content: 'a.txt' }, 'junk', { content: 'feedback' }] } },
        'junk',
        { step_id: 4, source: 'agent', message: 'done' },
      ]),
    );
    assert.equal(t.steps.length, 2);
    assert.deepEqual(t.steps[0].messages.map((m) => [m.role, m.content]), [['system', 'You are in a shell.'], ['user', 'make hello.txt'], ['user', 'env ready']]);
    assert.deepEqual(t.steps[1].messages.slice(3).map((m) => [m.role, m.content, m.tool_call_id]), [['assistant', 'first', undefined], ['tool', 'a.txt', 'c1'], ['user', 'feedback', undefined]]);
    assert.deepEqual(t.steps.map((s) => s.finish_reason), ['tool_calls', 'stop']);
    assert.deepEqual(norm(traj([agent({ observation: { results: 'x' } })])).steps[0].messages, []);
  });

  it('tool calls: function_name, function.name or name; ids from tool_call_id or id; nameless calls dropped', () => {
    const s = only({
      tool_calls: [
        { tool_call_id: 'a', function_name: 'f1', arguments: '{"x":1}' },
        { id: 'b', function: { name: 'f2', arguments: { y: 2 } } },
        { id: 'c', name: 'f3' },
        { id: 'd', arguments: {} },
        'junk',
        null,
      ],
    });
    assert.deepEqual(s.response?.tool_calls?.map((c) => [c.id, c.function.name, c.function.arguments]), [['a', 'f1', '{"x":1}'], ['b', 'f2', '{"y":2}'], ['c', 'f3', '{}']]);
    const none = only({ tool_calls: [{ id: 'd' }] });
    assert.deepEqual([none.response?.tool_calls, none.finish_reason], [undefined, 'stop']);
    assert.equal(only({ tool_calls: 'x' }).response?.tool_calls, undefined);
  });

  it('the response: reasoning_content, inline <think>, model and metrics (token ids, log probs as numbers or {logprob})', () => {
    const s = only({
      message: '<think>plan</think>answer', model_name: 'gpt-5-mini-2025-08-07', timestamp: '2025-10-01T10:00:00Z',
      metrics: { prompt_tokens: 100, completion_tokens: '7', prompt_token_ids: [1, 2], completion_token_ids: [3], logprobs: [{ logprob: -0.5 }, -1], cached_tokens: 64, cost_usd: 0.0012 },
      extra: { temperature: 1 },
    });
    assert.deepEqual([s.response?.content, s.response?.reasoning], ['answer', 'plan']);
    assert.equal(only({ reasoning_content: 'why' }).response?.reasoning, 'why');
    assert.deepEqual(only({}).response, { role: 'assistant', content: 'ok' }, 'no reasoning key without reasoning');
    assert.deepEqual([s.model, s.prompt_tokens, s.completion_tokens, s.prompt_ids, s.response_ids, s.rollout_log_probs, s.started_at], ['gpt-5-mini-2025-08-07', 100, 7, [1, 2], [3], [-0.5, -1], Date.parse('2025-10-01T10:00:00Z')]);
    assert.deepEqual(s.metadata, { schema_version: 'ATIF-v1.2', agent_version: '2.0', atif_step_id: '2', cached_tokens: '64', cost_usd: '0.0012', step_extra: '{"temperature":1}' });
    const bad = only({ metrics: { prompt_token_ids: [], logprobs: [-1, 'x'], completion_token_ids: 'x' } });
    assert.deepEqual([bad.prompt_ids, bad.rollout_log_probs, bad.response_ids], [null, null, null]);
    assert.equal(only({ timestamp: '2025-10-01 10:00:00' }).metadata?.[NAIVE_TIME_NOTE.key], NAIVE_TIME_NOTE.value, 'a naive time is noted');
    assert.equal((s.metadata as Record<string, string> | undefined)?.[NAIVE_TIME_NOTE.key], undefined);
    assert.ok(!JSON.parse(only({ extra: { api_key: 'sk-live-0123456789abcdefghij' } }).raw ?? '{}').step.extra.api_key.startsWith('sk-live'));
  });

  it('the reward: top level, final_metrics, its extra, the trajectory extra — on the last step only', () => {
    const r = (extra: Record<string, unknown>) => norm(traj([agent(), agent({ step_id: 3 })], extra)).steps.map((s) => s.reward);
    assert.deepEqual(r({ reward: 0, final_metrics: { reward: 1 } }), [undefined, 0]);
    assert.deepEqual(r({ final_metrics: { reward: '0.5', extra: { reward: 1 } } }), [undefined, 0.5]);
    assert.deepEqual(r({ final_metrics: { extra: { reward: 1 } }, extra: { reward: 0 } }), [undefined, 1]);
    assert.deepEqual(r({ extra: { reward: 0.25 } }), [undefined, 0.25]);
    assert.deepEqual(r({ final_metrics: 'x', extra: 'y' }), [undefined, null]);
  });

  it('trajectory: session id, agent name and model; notes, final metrics and agent extra in every step metadata', () => {
    const t = norm(traj([agent()], { notes: 'flaky env', final_metrics: { total_steps: 1 }, agent: { name: 'a1', model_name: 'm1', extra: { k: 1 } } }));
    assert.deepEqual([t.trajectory_uid, t.common?.agent, t.common?.model], ['sess-1', 'a1', 'm1']);
    assert.deepEqual(t.steps[0].metadata, { schema_version: 'ATIF-v1.2', notes: 'flaky env', final_metrics: '{"total_steps":1}', agent_extra: '{"k":1}', atif_step_id: '2' });
    const bare = norm({ schema_version: 'ATIF-v1.0', steps: [{ source: 'agent', message: 'x' }] });
    assert.deepEqual([bare.trajectory_uid, bare.common?.agent, bare.steps[0].metadata], [null, null, { schema_version: 'ATIF-v1.0' }]);
    assert.throws(() => norm(traj([{ source: 'user', message: 'x' }])), /no agent steps/);
  });
});

describe('atif normalizer: more shapes', () => {
  it('needs schema_version ATIF-v…', () => {
    assert.equal(atif.detect([{ schema_version: '2.0', steps: [] }]), 0);
  });

  it('rejects a trajectory without agent steps with a clear reason', () => {
    const [rec] = records('atif-no-agent.json');
    assert.throws(() => atif.normalize(rec, ctx, undefined), (e: unknown) => e instanceof RecordError && /no agent steps/.test(e.message));
  });
});

describe('atif normalizer: results without their call id (issue 32)', () => {
  it("a result that names no call answers the step's only open call; with no call open it is environment feedback", () => {
    const t = norm(
      traj([
        { step_id: 1, source: 'user', message: 'list the files' },
        agent({ step_id: 2, tool_calls: [{ tool_call_id: 'call_7', function_name: 'bash', arguments: { cmd: 'ls' } }], observation: { results: [{ content: 'a.txt b.txt' }] } }),
        agent({ step_id: 3, message: 'thinking aloud', observation: { results: [{ content: 'the terminal printed a banner' }] } }),
        agent({ step_id: 4, message: 'done' }),
      ]),
    );
    const ctxOf = t.steps[2].messages;
    assert.deepEqual(ctxOf.slice(2).map((m) => [m.role, m.content, m.tool_call_id ?? null]), [
      ['tool', 'a.txt b.txt', 'call_7'],
      ['assistant', 'thinking aloud', null],
      ['user', 'the terminal printed a banner', null],
    ]);
  });

  it('with two calls, a named result answers its own and the unnamed one the other; two unnamed results stay feedback', () => {
    const calls = [{ tool_call_id: 'a', function_name: 'f', arguments: {} }, { tool_call_id: 'b', function_name: 'g', arguments: {} }];
    const one = norm(traj([{ step_id: 1, source: 'user', message: 'go' }, agent({ tool_calls: calls, observation: { results: [{ source_call_id: 'b', content: 'B' }, { content: 'A' }] } }), agent({ step_id: 3 })]));
    assert.deepEqual(one.steps[1].messages.slice(2).map((m) => [m.content, m.tool_call_id ?? null]), [['B', 'b'], ['A', 'a']]);
    const two = norm(traj([{ step_id: 1, source: 'user', message: 'go' }, agent({ tool_calls: calls, observation: { results: [{ content: 'x' }, { content: 'y' }] } }), agent({ step_id: 3 })]));
    assert.deepEqual(two.steps[1].messages.slice(2).map((m) => m.role), ['user', 'user']);
  });
});
