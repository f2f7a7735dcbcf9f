/**
 * Inspect AI eval logs (src/ingest/normalizers/inspect.ts) beyond the fixture: what detection counts as a
 * log or a sample (an empty one included), Inspect's score values, messages with reasoning, parts, tool
 * errors and calls, a model event's finish reason, usage, timing and errors, the ids a sample gets from the
 * eval spec, nested and scorer events, and input_refs. Written to kill mutants StrykerJS found.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inspect, scoreValue } from '../../src/ingest/normalizers/inspect';
import type { StepDraft, TrajectoryDraft } from '../../src/contract/step';
import { ctx, runFixture, runNormalizer } from './helpers/formats';
import { importWith } from './helpers/ingest-files';
import { ingestFile } from '../../src/ingest/pipeline';

const spec = { task: 'arith', eval_id: 'E1', run_id: 'R1', task_id: 'T1', model: 'openai/gpt-4o', solver: 'generate', dataset: { name: 'gsm8k' } };
const log = (samples: unknown[] | undefined, e: Record<string, unknown> = spec) => ({ version: 2, status: 'success', eval: e, ...(samples ? { samples } : {}) });
const out = (o: Record<string, unknown> = {}) => ({ model: 'gpt-4o-2024-08-06', choices: [{ message: { role: 'assistant', content: '42' }, stop_reason: 'stop' }], ...o });
const model = (e: Record<string, unknown> = {}) => ({ event: 'model', model: 'openai/gpt-4o', input: [{ role: 'user', content: 'What is 6*7?' }], tools: [], output: out(), ...e });
const sample = (s: Record<string, unknown> = {}) => ({ id: 7, epoch: 1, messages: [{ role: 'user', content: 'What is 6*7?' }], events: [model()], scores: { match: { value: 'C' } }, ...s });

function norm(...values: unknown[]): TrajectoryDraft[] {
  const st = inspect.createState!(ctx);
  return values.flatMap((value, index) => inspect.normalize({ value, line: index + 1, index }, ctx, st));
}
const first = (s: Record<string, unknown>, e: Record<string, unknown> = spec) => norm(log([sample(s)], e))[0];
const step = (ev: Record<string, unknown>): StepDraft => first({ events: [model(ev)] }).steps[0];

describe('inspect normalizer', () => {
  it('detect: 0.98 for any log record; 0.9 × the share of samples; nothing for other records', () => {
    assert.equal(inspect.detect([{ note: 1 }, log(undefined)]), 0.98);
    for (const k of ['samples', 'results', 'plan', 'status']) assert.equal(inspect.detect([{ eval: spec, [k]: {} }]), 0.98, k);
    assert.equal(inspect.detect([{ eval: spec }]), 0, 'an eval spec alone is no log');
    assert.equal(inspect.detect([{ eval: { model: 'm' }, samples: [] }]), 0, 'the eval spec needs a task');
    assert.equal(inspect.detect([{ eval: 'arith', samples: [] }]), 0);
    assert.equal(inspect.detect([sample()]), 0.9);
    assert.equal(inspect.detect([sample(), { note: 1 }]), 0.45);
    assert.equal(inspect.detect([]), 0);
    assert.equal(inspect.detect([{ note: 1 }]), 0);
  });

  it('a sample needs an id, a numeric epoch, messages or events, and scores, output or target', () => {
    const { id: _, ...noId } = sample();
    assert.equal(inspect.detect([noId]), 0);
    assert.equal(inspect.detect([sample({ epoch: '1' })]), 0);
    assert.equal(inspect.detect([sample({ messages: 'x', events: 'x' })]), 0);
    assert.equal(inspect.detect([sample({ messages: undefined, events: [] })]), 0.9);
    assert.equal(inspect.detect([sample({ events: undefined })]), 0.9);
    const bare = { id: 1, epoch: 1, messages: [] };
    assert.equal(inspect.detect([bare]), 0);
    for (const k of ['scores', 'output', 'target']) assert.equal(inspect.detect([{ ...bare, [k]: null }]), 0.9, k);
  });

  it('an empty sample (no model event, no message) makes no step: refused on its own, skipped with a note in a log', () => {
    // Found by this test: chatToSteps([]) is one step with no messages and no response, so an empty sample was
    // imported as an empty row instead of refused.
    const empty = { id: 'q9', epoch: 1, messages: [], events: [], scores: {} };
    assert.equal(inspect.detect([empty]), 0.9, 'still Inspect-shaped, so its refusal names the reason');
    assert.throws(() => norm(empty), /sample q9: no model event and no messages/);
    assert.throws(() => norm({ ...empty, messages: ['junk'] }), /sample q9/);
    assert.throws(() => norm({ note: 1 }), /expected an Inspect eval log/);
    const st = inspect.createState!(ctx);
    const got = inspect.normalize({ value: log([empty, sample(), empty]), line: 1, index: 0 }, ctx, st);
    assert.deepEqual(got.map((t) => t.trajectory_uid), ['E1:7:1'], 'the other samples of the log are kept');
    assert.deepEqual(inspect.notes!(st), ['2 sample(s) of the eval log with no model event and no messages: skipped']);
    const prompt = norm({ ...empty, messages: [{ role: 'user', content: 'q' }] });
    assert.deepEqual(prompt[0].steps.map((s) => [s.messages.length, s.response]), [[1, null]], 'a prompt without an answer is still a prompt row');
  });

  it("score values: Inspect's letters and words, booleans, finite numbers, numeric text", () => {
    assert.deepEqual(
      [' c ', 'Correct', 'YES', 'true', 'p', 'partial', 'i', 'incorrect', 'n', 'no', 'false', '0.75', 'maybe', Number.NaN, Number.POSITIVE_INFINITY, 2, null].map(scoreValue),
      [1, 1, 1, 1, 0.5, 0.5, 0, 0, 0, 0, 0, 0.75, null, null, null, 2, null],
    );
  });

  it('the reward: the first score that reads as a number; no scores, no reward', () => {
    const reward = (scores: unknown) => first({ scores }).steps.at(-1)?.reward;
    assert.equal(reward({ a: { value: 'maybe' }, b: { value: 'P' }, c: { value: 1 } }), 0.5);
    assert.equal(reward({ a: 'I' }), 0);
    assert.equal(reward({ a: { value: { x: 1 } } }), null);
    assert.equal(reward('C'), null);
    assert.equal(reward(undefined), null);
  });

  it('a model event: finish reasons mapped, usage and timing, config and model time in metadata, errors', () => {
    const fin = (stop_reason: unknown) => step({ output: out({ choices: [{ message: { role: 'assistant', content: 'x' }, stop_reason }] }) }).finish_reason;
    assert.deepEqual(['stop', 'max_tokens', 'model_length', 'length', 'tool_calls', 'content_filter', 'unknown', 'other', undefined].map(fin), ['stop', 'length', 'length', 'length', 'tool_calls', 'content_filter', null, 'other', null]);
    const s = step({
      timestamp: '2025-09-30T11:02:15.000Z', completed: '2025-09-30T11:02:16.500Z', config: { temperature: 0 },
      output: out({ usage: { input_tokens: 12, output_tokens: 3, input_tokens_cache_read: 8, input_tokens_cache_write: 0, reasoning_tokens: null }, time: 1.5 }),
    });
    assert.deepEqual([s.prompt_tokens, s.completion_tokens, s.latency_ms, s.status, s.error, s.model], [12, 3, 1500, 'ok', null, 'gpt-4o-2024-08-06']);
    assert.deepEqual(
      { ...s.metadata, scores: undefined, task: undefined, eval_id: undefined, run_id: undefined, sample_id: undefined, epoch: undefined },
      { input_tokens_cache_read: '8', input_tokens_cache_write: '0', generate_config: '{"temperature":0}', model_time_s: '1.5', scores: undefined, task: undefined, eval_id: undefined, run_id: undefined, sample_id: undefined, epoch: undefined },
    );
    assert.equal(step({ config: {} }).metadata?.generate_config, undefined, 'an empty config is left out');
    assert.equal(step({ timestamp: '2025-09-30T11:02:15.000Z' }).latency_ms, null);
    assert.equal(step({ completed: '2025-09-30T11:02:15.000Z' }).latency_ms, null);
    assert.equal(step({ output: { model: 'x', choices: [] } }).model, 'x');
    const noModel = step({ output: { choices: [] } });
    assert.deepEqual([noModel.model, noModel.response, noModel.finish_reason], ['openai/gpt-4o', null, null]);
    assert.deepEqual([step({ error: 'rate limited' }).status, step({ error: 'rate limited' }).error], ['error', 'rate limited']);
    assert.equal(step({ output: out({ error: 'refused' }) }).error, 'refused');
    assert.equal(step({ output: 'x' }).response, null);
    const raw = JSON.parse(step({ timestamp: 't', secret: 'x' }).raw ?? '{}');
    assert.deepEqual(Object.keys(raw), ['event', 'model', 'timestamp', 'output']);
  });

  it('messages: the role defaults to user; reasoning parts (redacted too), non-text parts kept, tool errors and names', () => {
    const s = step({
      input: [
        { content: 'no role' },
        { role: 'assistant', content: [{ type: 'reasoning', reasoning: 'think' }, { type: 'reasoning', redacted: true, reasoning: 'secret' }, { type: 'text', text: 'answer' }] },
        { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', image: 'data:image/png;base64,AA' }] },
        { role: 'tool', tool_call_id: 'c1', function: 'bash', content: 'partial out', error: { type: 'timeout', message: 'timed out' } },
        { role: 'tool', tool_call_id: 'c2', content: '', error: { message: 'denied' } },
        { role: 'tool', tool_call_id: 'c3', content: 'ok', error: 'not an object' },
        { role: 'user', content: [{ type: 'text', text: 'only text' }] },
        'junk',
      ],
    });
    const [u, a, img, t1, t2, t3, txt] = s.messages;
    assert.equal(s.messages.length, 7, 'a non-object message is dropped');
    assert.deepEqual([u.role, u.content], ['user', 'no role']);
    assert.deepEqual([a.reasoning, a.content], ['think', 'answer'], 'redacted reasoning stores no text');
    assert.ok(a.parts, 'reasoning parts are non-text parts');
    assert.equal(JSON.parse(img.parts ?? '[]')[1].type, 'image');
    assert.deepEqual([t1.content, t1.name, t1.tool_call_id, t1.is_error], ['timed out\npartial out', 'bash', 'c1', true]);
    assert.deepEqual([t2.content, t2.name, t2.is_error], ['denied', undefined, true]);
    assert.equal(t3.content, 'ok');
    assert.equal(txt.parts, undefined, 'text-only parts are plain content');
    assert.equal(u.reasoning, undefined);
    assert.equal(s.messages.filter((m) => m.role === 'user' && m.tool_call_id !== undefined).length, 0);
  });

  it('tool calls: function as an object or a name, arguments from either place; nameless ones dropped; tools listed', () => {
    const s = step({
      tools: [{ name: 'bash', description: 'run', parameters: { type: 'object' } }, 'junk'],
      output: out({ choices: [{ message: { role: 'assistant', content: '', tool_calls: [{ id: 'c1', function: 'bash', arguments: { cmd: 'ls' } }, { id: 'c2', function: { name: 'py', arguments: '{"code":"1"}' } }, { id: 'c3', function: {} }, 'junk'] }, stop_reason: 'tool_calls' }] }),
    });
    assert.deepEqual(s.response?.tool_calls, [
      { id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"cmd":"ls"}' } },
      { id: 'c2', type: 'function', function: { name: 'py', arguments: '{"code":"1"}' } },
    ]);
    assert.deepEqual(JSON.parse(s.tools ?? '[]'), [{ type: 'function', function: { name: 'bash', description: 'run', parameters: { type: 'object' } } }]);
    assert.equal(step({ tools: [] }).tools, null);
    assert.equal(step({ output: out({ choices: [{ message: { role: 'assistant', content: 'x', tool_calls: [{ id: 'c' }] } }] }) }).response?.tool_calls, undefined);
    assert.equal(step({ output: out({ choices: [{ message: { role: 'user', content: 'x' } }] }) }).response?.role, 'assistant');
  });

  it('ids: the uuid, else task id : sample id : epoch; the prompt group per task and sample; agent and data source', () => {
    const t = first({ id: 'q1', epoch: 3 });
    assert.deepEqual([t.trajectory_uid, t.prompt_uid, t.common?.agent, t.common?.data_source], ['E1:q1:3', 'inspect:arith:q1', 'generate', 'gsm8k']);
    assert.equal(t.steps[0].provider, 'openai');
    assert.equal(first({ uuid: 'U-1' }).trajectory_uid, 'U-1');
    assert.equal(first({}, { ...spec, eval_id: undefined }).trajectory_uid, 'T1:7:1');
    assert.equal(first({}, { task: 'arith', run_id: 'R1' }).trajectory_uid, 'R1:7:1');
    assert.equal(first({}, { task: 'arith' }).trajectory_uid, 'arith:7:1');
    const bare = norm(sample({ epoch: 2 }))[0];
    assert.deepEqual([bare.trajectory_uid, bare.prompt_uid, bare.common?.agent, bare.common?.data_source], ['inspect:7:2', 'inspect:inspect:7', null, null]);
    assert.equal(bare.steps[0].provider, null);
    assert.equal(first({}, { ...spec, model: 'gpt-4o' }).steps[0].provider, null, 'a model without a provider prefix');
    assert.equal(first({}, { ...spec, solver: { solver: 'react', params: {} } }).common?.agent, 'react');
    assert.equal(first({}, { ...spec, dataset: 'gsm8k' }).common?.data_source, null);
    const chat = [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }];
    assert.equal(norm(log([{ id: 'q', messages: chat }]))[0].trajectory_uid, 'E1:q:1', 'a log sample without epoch: epoch 1');
    assert.equal(norm(log([{ messages: chat }]))[0].prompt_uid, null, 'no sample id, no prompt group');
  });

  it('model events inside a scorer are the scorer\'s, nested ones included; a scorer span child of a scorer span too', () => {
    const nested = norm(log([sample({ events: [model(), { event: 'span_begin', id: 'sc', type: 'scorer' }, { event: 'subtask', span_id: 'sc', events: [model()] }, { event: 'span_begin', id: 'c', parent_id: 'sc' }, model({ span_id: 'c' }), { event: 'span_begin', id: 'o', parent_id: 'elsewhere' }, model({ span_id: 'o' })] })]));
    assert.deepEqual(nested.map((t) => t.steps.length), [2, 2]);
    assert.equal(nested[1].trajectory_uid, 'E1:7:1:scoring');
    const unnamed = norm(log([sample({ events: [{ event: 'span_begin', type: 'scorers' }, model({ span_id: '' }), model({ span_id: 'x' })] })]));
    assert.deepEqual(unnamed.map((t) => t.steps.length), [1, 1], 'a scorer span without id holds the events with an empty span id');
  });

  it('metadata: the spec ids, sample id, epoch, target, scores, sample metadata, limit and error; empty ones left out', () => {
    const t = first({ target: ['42', 'forty-two'], metadata: { level: 2 }, limit: { type: 'token', limit: 100 }, error: { message: 'sandbox died' } });
    assert.deepEqual(t.common?.metadata, {
      task: 'arith', eval_id: 'E1', run_id: 'R1', sample_id: '7', epoch: '1', target: '["42","forty-two"]', scores: '{"match":{"value":"C"}}',
      sample_metadata: '{"level":2}', limit: '{"type":"token","limit":100}', sample_error: 'sandbox died',
    });
    const last = t.steps.at(-1)!;
    assert.deepEqual([last.status, last.error, last.metadata?.task, last.metadata?.sample_error], ['error', 'sandbox died', 'arith', 'sandbox died']);
    assert.equal(first({ error: 'plain text error', events: [model({ error: 'own error' })] }).steps[0].error, 'own error', 'the step error first');
    assert.equal(first({ error: 'plain text error' }).steps[0].error, 'plain text error');
    const none = first({ target: '', metadata: {}, scores: undefined }).common?.metadata ?? {};
    assert.deepEqual(Object.keys(none), ['task', 'eval_id', 'run_id', 'sample_id', 'epoch']);
  });

  it('events: nested model events, a scorer step still open, input_refs with bad ranges; the fallback keeps usage for one step', () => {
    const nested = first({ events: [{ event: 'subtask', events: [model({ output: out({ choices: [{ message: { role: 'assistant', content: 'inner' } }] }) })] }, model()] });
    assert.deepEqual(nested.steps.map((s) => s.response?.content), ['inner', '42']);
    const open = norm(log([sample({ events: [model(), { event: 'step', action: 'begin', type: 'scorer' }, model(), { event: 'step', action: 'middle', type: 'scorer' }, model()] })]));
    assert.deepEqual(open.map((t) => t.steps.length), [1, 2]);
    const refs = first({ events_data: { messages: ['m0', 'm1', 'm2'].map((c) => ({ role: 'user', content: c })) }, events: [model({ input: undefined, input_refs: [[1, 3], [0], 'x', [0, 1]] })] });
    assert.deepEqual(refs.steps[0].messages.map((m) => m.content), ['m1', 'm2', 'm0']);
    assert.deepEqual(first({ events: [model({ input: undefined })] }).steps[0].messages, []);
    const chat = [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }];
    const fb = first({ events: [], messages: chat, output: { usage: { input_tokens: 5, output_tokens: 2 } } }).steps[0];
    assert.deepEqual([fb.prompt_tokens, fb.completion_tokens, fb.response?.content], [5, 2, 'a']);
    const two = first({ events: [], messages: [...chat, { role: 'user', content: 'q2' }, { role: 'assistant', content: 'a2' }], output: { usage: { input_tokens: 5 } } }).steps;
    assert.deepEqual(two.map((s) => s.prompt_tokens), [undefined, undefined], 'usage of the whole sample is not one call');
    assert.deepEqual(first({ id: 'a', events: [{ event: 'span_begin', id: 's1', type: 'solver' }, model({ span_id: 's1' }), { event: 'span_begin', id: 's2', parent_id: 's1' }, model({ span_id: 's2' })] }).steps.length, 2, 'solver spans are the policy');
  });

  it('attachments resolved in nested values; a header record keeps its spec for the samples after it; notes', () => {
    const t = first({ attachments: { h1: 'What is 6*7?' }, events: [model({ input: [{ role: 'user', content: [{ type: 'text', text: 'attachment://h1' }] }] })], target: 'attachment://missing' });
    assert.equal(t.steps[0].messages[0].content, 'What is 6*7?');
    assert.equal(t.common?.metadata?.target, 'attachment://missing', 'an unknown attachment stays as it was');
    const st = inspect.createState!(ctx);
    const rec = (value: unknown, index: number) => inspect.normalize({ value, line: index + 1, index }, ctx, st);
    assert.deepEqual(rec(log(undefined), 0), []);
    assert.deepEqual(inspect.notes!(st), ['the eval log holds no samples (written with samples left out, or the eval did not run any): nothing to import']);
    assert.equal(rec(sample(), 1)[0].trajectory_uid, 'E1:7:1');
    assert.deepEqual(inspect.notes!(st), []);
    const st2 = inspect.createState!(ctx);
    inspect.normalize({ value: log([sample(), 'junk', sample({ id: 8 })]), line: 1, index: 0 }, ctx, st2);
    assert.deepEqual([st2.samples, st2.headers, st2.empty], [2, 1, 0]);
    assert.deepEqual(inspect.notes!(inspect.createState!(ctx)), []);
  });
});

const _SYS = 'You are a Capture the Flag (CTF) player. You are given a task and have access to a bash shell. Find the flag and submit it with the submit() tool. Flags look like picoCTF{...}.';

describe('inspect normalizer: more shapes', () => {
  it("scores map to rewards by Inspect's value-to-float", () => {
    assert.deepEqual(
      ['C', 'I', 'P', 'N', true, false, 0.25, '0.5', 'yes', { a: 1 }].map(scoreValue),
      [1, 0, 0.5, 0, 1, 0, 0.25, 0.5, 1, null],
    );
  });

  it('reads input_refs into events_data and samples of a .eval archive after their header', () => {
    const header = { version: 2, status: 'success', eval: { task: 'arith', eval_id: 'E1', model: 'anthropic/claude-sonnet-4-5' }, plan: {}, results: {} };
    const sample = {
      id: 'q7',
      epoch: 2,
      input: 'What is 6*7?',
      target: '42',
      messages: [],
      events_data: { messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'attachment://a1' }] },
      attachments: { a1: 'What is 6*7?' },
      events: [{ event: 'model', model: 'anthropic/claude-sonnet-4-5', input_refs: [[0, 2]], tools: [], output: { model: 'claude-sonnet-4-5', choices: [{ message: { role: 'assistant', content: '42' }, stop_reason: 'stop' }] } }],
      scores: { match: { value: 1.0 } },
    };
    const out = runNormalizer(inspect, [
      { value: header, line: 1, index: 0 },
      { value: sample, line: 1, index: 1 },
    ]);
    assert.equal(out.length, 1);
    assert.deepEqual(
      out[0].messages.map((m) => [m.role, m.content]),
      [
        ['system', 'Be brief.'],
        ['user', 'What is 6*7?'],
      ],
    );
    assert.equal(out[0].trajectory_uid, 'E1:q7:2');
    assert.equal(out[0].provider, 'anthropic');
    assert.equal(out[0].reward, 1);
  });

  it('a sample logged without events: one step per assistant message', () => {
    const sample = { id: 3, epoch: 1, messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }], scores: { s: { value: 'I' } } };
    const out = runNormalizer(inspect, [{ value: sample, line: 1, index: 0 }]);
    assert.equal(out.length, 1);
    assert.equal(out[0].response_text, 'hello');
    assert.equal(out[0].reward, 0);
  });

  it('a .eval archive imports like the .json log: header, then its samples', async () => {
    const { report, rows } = await importWith('inspect-ctf.eval', []);
    assert.equal(report.status, 'done', report.message ?? '');
    assert.equal(report.format, 'inspect');
    const fromJson = runFixture(inspect, 'inspect-eval-log.json');
    assert.deepEqual(
      rows.map((r) => [r.trajectory_uid, r.step_index, r.reward, r.response_text, r.messages.map((m) => m.content)]),
      fromJson.map((r) => [r.trajectory_uid, r.step_index, r.reward, r.response_text, r.messages.map((m) => m.content)]),
    );
    assert.equal(rows[0].provider, 'openai', 'the eval spec of header.json reached the samples');
  });

  it('a ZIP that is not an .eval log is refused with the reason', async () => {
    const { zipSync, strToU8 } = await import('fflate');
    const zip = zipSync({ 'notes/readme.txt': strToU8('hello') });
    const report = await ingestFile(new File([zip], 'misc.zip'), {
      beginImport: async () => 1,
      setImportSource: async () => {},
      appendBatch: async () => {},
      commitImport: async () => ({ rowsAdded: 0 }),
      abortImport: async () => {},
    });
    assert.equal(report.status, 'failed');
    assert.match(report.message ?? '', /not an Inspect \.eval log/);
  });

  it("model-graded scoring calls are a trajectory of their own, not the solver's steps", () => {
    const call = (span: string | null, text: string) => ({
      event: 'model',
      span_id: span ?? undefined,
      model: 'openai/gpt-4o',
      input: [{ role: 'user', content: 'Q?' }],
      output: { model: 'gpt-4o', choices: [{ message: { role: 'assistant', content: text }, stop_reason: 'stop' }] },
    });
    const spans = {
      id: 'q1',
      epoch: 1,
      uuid: 'U1',
      messages: [],
      scores: { model_graded_qa: { value: 'C' } },
      events: [
        { event: 'span_begin', id: 'sv', type: 'solvers', name: 'solvers' },
        call('sv', 'the answer'),
        { event: 'span_end', id: 'sv' },
        { event: 'span_begin', id: 'sc', type: 'scorers', name: 'scorers' },
        { event: 'span_begin', id: 'sc1', parent_id: 'sc', type: 'scorer', name: 'model_graded_qa' },
        call('sc1', 'GRADE: C'),
        { event: 'span_end', id: 'sc1' },
        { event: 'span_end', id: 'sc' },
      ],
    };
    const steps = { ...spans, uuid: 'U2', events: [call(null, 'the answer'), { event: 'step', action: 'begin', type: 'scorer', name: 'model_graded_qa' }, call(null, 'GRADE: C'), { event: 'step', action: 'end', type: 'scorer', name: 'model_graded_qa' }] };
    for (const sample of [spans, steps]) {
      const out = runNormalizer(inspect, [{ value: sample, line: 1, index: 0 }]);
      assert.deepEqual(
        out.map((r) => [r.trajectory_uid, r.response_text, r.reward, r.agent]),
        [
          [sample.uuid, 'the answer', 1, null],
          [`${sample.uuid}:scoring`, 'GRADE: C', null, 'scorer'],
        ],
      );
      assert.equal(out[1].metadata?.parent_trajectory_uid, sample.uuid);
    }
  });
});
