/**
 * The Langfuse blob-storage normalizer (src/ingest/normalizers/langfuse-blob.ts) on rows
 * as the S3 / Azure export writes them: ClickHouse snake_case columns, zone-less times, Map columns as
 * objects or (from Parquet) as key/value lists, and the scores / traces tables read as companion files.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StepRecord } from '../../src/contract/step';
import { createFinalizeState, finalize } from '../../src/ingest/finalize';
import type { SourceRecord } from '../../src/ingest/normalizer';
import { langfuseBlob } from '../../src/ingest/normalizers/langfuse-blob';
import { ctx, } from './helpers/formats';
import { importWith } from './helpers/ingest-files';

const TRACE = '7f3c2a91e4b84d5f9a1c6e2b8d0f4a37';

/** An observations-table row (GENERATION unless `over` says otherwise). */
function obs(id: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    project_id: 'cm4x9p2l50001ab7c3d8e9f0g',
    environment: 'production',
    metadata: {},
    level: 'DEFAULT',
    status_message: null,
    version: null,
    model_parameters: null,
    usage_details: { input: 142, output: 19, total: 161 },
    cost_details: {},
    completion_start_time: null,
    prompt_name: null,
    prompt_version: null,
    provided_model_name: 'gpt-4o-2024-08-06',
    input: JSON.stringify({ messages: [{ role: 'user', content: 'Why was INV-2291 higher?' }] }),
    output: JSON.stringify({ role: 'assistant', content: 'Egress traffic.' }),
    parent_observation_id: null,
    id,
    trace_id: TRACE,
    type: 'GENERATION',
    name: 'chat',
    start_time: '2025-03-04 10:15:02.013',
    end_time: '2025-03-04 10:15:03.513',
    ...over,
  };
}

/** A scores-table row. */
function score(name: string, value: unknown, over: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: `s-${name}`, timestamp: '2025-03-04 10:17:02.000', trace_id: TRACE, observation_id: null, name, value, source: 'EVAL', comment: null, data_type: 'NUMERIC', string_value: null, ...over };
}

/** A traces-table row. */
function trace(over: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: TRACE, timestamp: '2025-03-04 10:15:01.902', name: 'support-agent', user_id: 'cust-4471', session_id: 'chat-88', release: 'v2.3.1', metadata: { channel: 'web' }, tags: ['billing'], public: false, bookmarked: false, ...over };
}

/** Rows of an observations file through the normalizer (with companion files), then finalize; returns the steps and the notes. */
function run(values: unknown[], companions: { file: string; records: unknown[] }[] = []): { rows: StepRecord[]; notes: string[] } {
  const c = { ...ctx, companions };
  const st = langfuseBlob.createState?.(c);
  assert.ok(st);
  const fin = createFinalizeState();
  const opts = { format: langfuseBlob.id, importId: 1 };
  const rows: StepRecord[] = [];
  values.forEach((value, index) => {
    const r: SourceRecord = { value, line: index + 1, index };
    rows.push(...finalize(langfuseBlob.normalize(r, c, st), r, c, fin, opts));
  });
  const end: SourceRecord = { value: null, line: values.length + 1, index: values.length };
  rows.push(...finalize(langfuseBlob.flush?.(c, st) ?? [], end, c, fin, opts));
  return { rows, notes: langfuseBlob.notes?.(st) ?? [] };
}

describe('langfuse-blob: detection and companions', () => {
  it('observations 0.97, scores 0.9, traces 0.85, averaged over the sample', () => {
    assert.equal(langfuseBlob.detect([obs('a')]), 0.97);
    assert.equal(langfuseBlob.detect([score('reward', 1)]), 0.9);
    assert.equal(langfuseBlob.detect([trace()]), 0.85);
    assert.ok(Math.abs(langfuseBlob.detect([obs('a'), { x: 1 }]) - 0.485) < 1e-9);
    assert.equal(langfuseBlob.detect([{ x: 1 }]), 0);
  });

  it('what a row of each table needs', () => {
    const d = (v: unknown) => langfuseBlob.detect([v]);
    assert.equal(d(obs('a', { trace_id: 7 })), 0);
    assert.equal(d(obs('a', { type: 'SCORE' })), 0, 'not an observation type of the blob export');
    assert.equal(d(obs('a', { type: 5 })), 0);
    assert.equal(d({ ...obs('a'), start_time: undefined }), 0.97, 'start_time present, even empty');
    const { start_time: _, ...noStart } = obs('a');
    assert.equal(d(noStart), 0);
    for (const t of ['SPAN', 'EVENT', 'AGENT', 'TOOL', 'CHAIN', 'RETRIEVER', 'EMBEDDING', 'EVALUATOR', 'GUARDRAIL']) assert.equal(d(obs('a', { type: t })), 0.97, t);
    assert.equal(d(score('r', 1, { trace_id: null })), 0);
    assert.equal(d(score('r', 1, { name: 3 })), 0);
    const { value: _v, ...noValue } = score('r', 1);
    assert.equal(d(noValue), 0);
    const { data_type: _d, ...noType } = score('r', 1);
    assert.equal(d(noType), 0.9, 'a source is enough');
    const { data_type: _d2, source: _s, ...neither } = score('r', 1);
    assert.equal(d(neither), 0);
    assert.equal(d({ ...score('r', 1), type: 'GENERATION' }), 0);
    assert.equal(d(trace({ id: 5 })), 0);
    const { timestamp: _t, ...noTime } = trace();
    assert.equal(d(noTime), 0);
    assert.equal(d({ ...trace(), trace_id: TRACE }), 0);
    for (const k of ['session_id', 'user_id', 'bookmarked', 'public']) assert.equal(d({ id: 't', timestamp: 'x', [k]: null }), 0.85, k);
    assert.equal(d({ id: 't', timestamp: 'x', name: 'n' }), 0);
  });

  it('a companion file is accepted when all its sampled rows are scores or traces', () => {
    const accepts = langfuseBlob.companions?.accepts;
    assert.ok(accepts);
    assert.equal(accepts([score('r', 1), trace()]), true);
    assert.equal(accepts([score('r', 1), obs('a')]), false);
    assert.equal(accepts([]), false);
  });

  it('rows that are no blob-export row are rejected', () => {
    assert.throws(() => run([{ id: 'x' }]), /not a Langfuse blob-export row/);
  });
});

describe('langfuse-blob: steps', () => {
  it('generations of a trace in start order (ClickHouse times read as UTC); other types are no step', () => {
    const { rows } = run([
      obs('g2', { start_time: '2025-03-04 10:15:09.000', end_time: '2025-03-04 10:15:10.000' }),
      obs('span', { type: 'SPAN', start_time: '2025-03-04 10:15:00.000' }),
      obs('g1', { start_time: '2025-03-04T10:15:02', completion_start_time: '2025-03-04 10:15:02.400' }),
      obs('other', { trace_id: 'trace-b' }),
      obs('tool-only', { trace_id: 'trace-c', type: 'TOOL' }),
    ]);
    assert.deepEqual(rows.map((r) => [r.trajectory_uid, r.metadata?.observation_id, r.step_index]), [
      [TRACE, 'g1', 0],
      [TRACE, 'g2', 1],
      ['trace-b', 'other', 0],
    ]);
    const [g1] = rows;
    assert.deepEqual([g1.started_at, g1.ended_at, g1.latency_ms, g1.ttft_ms], [Date.parse('2025-03-04T10:15:02Z'), Date.parse('2025-03-04T10:15:03.513Z'), 1513, 400]);
  });

  it('times with a zone or as epoch numbers are taken as they are; an unreadable time is none', () => {
    const { rows } = run([obs('a', { start_time: '2025-03-04T10:15:02+02:00', end_time: Date.parse('2025-03-04T08:15:03Z') })]);
    assert.deepEqual([rows[0].started_at, rows[0].latency_ms], [Date.parse('2025-03-04T08:15:02Z'), 1000]);
    const [b] = run([obs('b', { start_time: ' 2025-03-04 10:15:02 ', end_time: 'soon' })]).rows;
    assert.deepEqual([b.started_at, b.ended_at, b.latency_ms, b.ttft_ms], [Date.parse('2025-03-04T10:15:02Z'), null, null, null]);
  });

  it('a generation: messages, tools, response, model, usage in any spelling, metadata of the non-empty columns', () => {
    const input = { messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }], tools: [{ type: 'function', function: { name: 'get_invoice', parameters: { type: 'object' } } }] };
    const [r] = run([
      obs('a', {
        input: JSON.stringify(input),
        output: JSON.stringify({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_invoice', arguments: '{}' } }] }),
        metadata: { ls_provider: 'openai' },
        model_parameters: '{"temperature": "0"}',
        cost_details: { total: 0.0005 },
        prompt_name: 'billing-system',
        prompt_version: 4,
        version: 'v1',
        parent_observation_id: 'root',
        status_message: '',
      }),
    ]).rows;
    assert.deepEqual(r.messages.map((m) => [m.role, m.content]), [['system', 'Be brief.'], ['user', 'Hi']]);
    assert.equal(JSON.parse(r.tools ?? '[]')[0].function.name, 'get_invoice');
    assert.deepEqual([r.response?.tool_calls?.[0].id, r.finish_reason, r.status, r.error], ['c1', 'tool_calls', 'ok', null]);
    assert.deepEqual([r.model, r.prompt_tokens, r.completion_tokens], ['gpt-4o-2024-08-06', 142, 19]);
    assert.deepEqual(r.metadata, {
      trace_id: TRACE,
      observation_id: 'a',
      name: 'chat',
      parent_observation_id: 'root',
      environment: 'production',
      prompt_name: 'billing-system',
      prompt_version: '4',
      version: 'v1',
      level: 'DEFAULT',
      model_parameters: '{"temperature":"0"}',
      cost_details: '{"total":0.0005}',
      usage_details: '{"input":142,"output":19,"total":161}',
      observation_metadata: '{"ls_provider":"openai"}',
      start_time: '2025-03-04 10:15:02.013',
    });
    const usage = (u: unknown) => {
      const [x] = run([obs('u', { usage_details: u, provided_model_name: null, model: 'fallback-model' })]).rows;
      return [x.prompt_tokens, x.completion_tokens, x.model, x.metadata?.usage_details ?? null];
    };
    assert.deepEqual(usage({ prompt_tokens: 5, completion_tokens: 6 }), [5, 6, 'fallback-model', '{"prompt_tokens":5,"completion_tokens":6}']);
    assert.deepEqual(usage([['input_tokens', 7], ['output_tokens', 8]]), [7, 8, 'fallback-model', '{"input_tokens":7,"output_tokens":8}']);
    assert.deepEqual(usage([{ key: 'input', value: 9 }, { key: 'output', value: 1 }, ['bad'], 'x', { k: 1 }]), [9, 1, 'fallback-model', '{"input":9,"output":1}']);
    assert.deepEqual(usage('{"input": 3}'), [3, null, 'fallback-model', '{"input":3}']);
    assert.deepEqual(usage({}), [null, null, 'fallback-model', null]);
    assert.deepEqual(usage(null), [null, null, 'fallback-model', null]);
  });

  it('level ERROR: a failed step with its status message or a default', () => {
    const [a] = run([obs('a', { level: 'ERROR', status_message: 'context_length_exceeded', output: null })]).rows;
    assert.deepEqual([a.status, a.error, a.finish_reason, a.response], ['error', 'context_length_exceeded', 'error', null]);
    const [b] = run([obs('b', { level: 'ERROR' })]).rows;
    assert.deepEqual([b.status, b.error, b.finish_reason], ['error', 'observation level ERROR', 'error']);
    const [c] = run([obs('c', { level: 'WARNING', status_message: 'slow' })]).rows;
    assert.deepEqual([c.status, c.error, c.finish_reason], ['ok', null, null]);
  });
});

describe('langfuse-blob: scores and traces', () => {
  it('a score on a generation is its reward; trace scores go to the last step; the reward is a named score, else the first number', () => {
    const scores = [
      score('helpfulness', 0.4, { observation_id: 'g1' }),
      score('tool_choice', 0, { observation_id: 'g1', data_type: 'BOOLEAN' }),
      score('quality', 'good', { data_type: 'CATEGORICAL' }),
      score('fix', 'corrected', { data_type: 'CORRECTION', string_value: 'better' }),
      score('latency_ok', 0.7),
      score('Correctness', 1),
      score('on-span', 0.1, { observation_id: 'span-1' }),
    ];
    const { rows } = run(
      [obs('g1'), obs('g2', { start_time: '2025-03-04 10:15:05.000' }), obs('span-1', { type: 'SPAN' })],
      [{ file: 'scores.jsonl', records: scores }, { file: 'other.jsonl', records: [{ nothing: true }] }],
    );
    assert.deepEqual(rows.map((r) => r.reward), [0.4, 1]);
    const listed = JSON.parse(rows[1].metadata?.scores ?? '[]');
    assert.equal(listed.length, 7);
    assert.deepEqual(listed[3], { name: 'fix', data_type: 'CORRECTION' }, "a correction's text is the step's corrected_output, not repeated here");
    assert.equal(rows[1].metadata?.corrected_output, 'better');
    assert.deepEqual(listed[0], { name: 'helpfulness', value: 0.4, data_type: 'NUMERIC', observation_id: 'g1' });
    assert.equal(rows[0].metadata?.scores, rows[1].metadata?.scores, 'the trace\'s scores on every step');
  });

  it('the first numeric score when none is named like a reward; no numeric score keeps the step\'s own', () => {
    const r1 = run([obs('g1')], [{ file: 's', records: [score('quality', 'good', { data_type: 'CATEGORICAL' }), score('helpfulness', '0.25'), score('relevance', 0.9)] }]).rows;
    assert.equal(r1[0].reward, 0.25);
    const r2 = run([obs('g1')], [{ file: 's', records: [score('own', 0.5, { observation_id: 'g1' }), score('quality', 'good', { data_type: 'CATEGORICAL' })] }]).rows;
    assert.equal(r2[0].reward, 0.5, 'a trace score that is no number leaves the step\'s reward');
    const r3 = run([obs('g1')], [{ file: 's', records: [score('note', 'n/a', { data_type: 'TEXT' })] }]).rows;
    assert.equal(r3[0].reward, null);
    const r4 = run([obs('g1'), obs('g2', { start_time: '2025-03-04 10:15:09.000' })], [{ file: 's', records: [score('own', 'x', { observation_id: 'g1', data_type: 'CATEGORICAL' })] }]).rows;
    assert.deepEqual(r4.map((r) => r.reward), [null, null]);
  });

  it('trace details into every step\'s metadata; agent and data source from its metadata or name', () => {
    const { rows, notes } = run([obs('g1')], [{ file: 'traces.jsonl', records: [trace({ metadata: [['agent', 'billing-bot'], ['dataset', 'prod-q1']] })] }]);
    const m = rows[0].metadata;
    assert.deepEqual([m?.trace_id, m?.session_id, m?.user_id, m?.trace_name, m?.release, m?.tags, m?.trace_metadata], [TRACE, 'chat-88', 'cust-4471', 'support-agent', 'v2.3.1', '["billing"]', '{"agent":"billing-bot","dataset":"prod-q1"}']);
    assert.deepEqual([rows[0].agent, rows[0].data_source], ['billing-bot', 'prod-q1']);
    assert.deepEqual(notes, ['scores and trace details read from traces.jsonl']);
    const plain = run([obs('g1')], [{ file: 't', records: [trace({ tags: [], metadata: {}, release: '' })] }]).rows[0];
    assert.equal(plain.agent, 'support-agent');
    assert.deepEqual([plain.metadata?.tags, plain.metadata?.trace_metadata, plain.metadata?.release], [undefined, undefined, undefined]);
    const ds = run([obs('g1')], [{ file: 't', records: [trace({ metadata: { data_source: 'synthetic', dataset: 'not this' } })] }]).rows[0];
    assert.equal(ds.data_source, 'synthetic');
    const none = run([obs('g1')]).rows[0];
    assert.deepEqual([none.metadata?.session_id, none.metadata?.scores, none.metadata?.trace_id], [undefined, undefined, TRACE]);
  });

  it('scores and traces in the observations file itself: kept, and a note when no generation uses them', () => {
    const mixed = run([score('reward', 1), trace(), obs('g1')]);
    assert.deepEqual([mixed.rows.length, mixed.rows[0].reward, mixed.rows[0].metadata?.session_id, mixed.notes], [1, 1, 'chat-88', []]);
    const alone = run([score('reward', 1), trace()]);
    assert.deepEqual(alone.rows, []);
    assert.deepEqual(alone.notes, ['2 trace / score row(s) hold no LLM call: import them together with the observations export to attach them to its generations']);
  });

  it('a correction or a category is no reward even with a numeric value or a reward name; names are matched whole', () => {
    const reward = (...records: unknown[]) => run([obs('g1')], [{ file: 's', records }]).rows[0].reward;
    assert.equal(reward(score('reward', 1, { data_type: 'CORRECTION', string_value: 'fixed' }), score('q', 0.3)), 0.3);
    assert.equal(reward(score('score', 1, { data_type: 'CATEGORICAL', string_value: 'good' }), score('q', 0.3)), 0.3);
    assert.equal(reward(score('q', 0.3), score('reward_model', 0.9)), 0.3, 'reward_model is not reward');
    assert.equal(reward(score('q', 0.3), score('my_score', 0.9)), 0.3, 'my_score is not score');
    assert.equal(reward(score('q', 0.3), score('success', 0.9)), 0.9);
    assert.equal(reward(score('q', 0.3), score('correct', 0.8)), 0.8);
  });

  it('metadata leaves out empty objects and Map columns; a key/value list of two-letter strings is no pair', () => {
    const [r] = run([obs('a', { usage_details: [['input', 4], 'ab'] })]).rows;
    assert.deepEqual(r.metadata, { trace_id: TRACE, observation_id: 'a', name: 'chat', environment: 'production', level: 'DEFAULT', usage_details: '{"input":4}', start_time: '2025-03-04 10:15:02.013' });
  });

  it('only companion files that held a score or trace are named', () => {
    const { notes } = run([obs('g1')], [{ file: 'scores.jsonl', records: [score('reward', 1)] }, { file: 'other.jsonl', records: [{ nothing: true }] }]);
    assert.deepEqual(notes, ['scores and trace details read from scores.jsonl']);
  });

  it('a score on a span (no generation) is the trace\'s: the last step\'s reward', () => {
    const { rows } = run([obs('g1'), obs('span-1', { type: 'SPAN' })], [{ file: 's', records: [score('reward', 0.6, { observation_id: 'span-1' })] }]);
    assert.deepEqual(rows.map((r) => r.reward), [0.6]);
  });

  it('a trace of tools only, with a trace score, makes no step', () => {
    assert.deepEqual(run([obs('t1', { type: 'TOOL' })], [{ file: 's', records: [score('reward', 1)] }]).rows, []);
  });

  it('no start time: no latency or time to first token; no output: no response and no finish reason', () => {
    const [r] = run([obs('a', { start_time: null, completion_start_time: '2025-03-04 10:15:02.400', output: null })]).rows;
    assert.deepEqual([r.started_at, r.latency_ms, r.ttft_ms, r.response, r.finish_reason, r.status], [null, null, null, null, null, 'ok']);
  });

  it('the format id and label', () => {
    assert.deepEqual([langfuseBlob.id, langfuseBlob.label], ['langfuse-blob', 'Langfuse blob-storage export (observations / traces / scores)']);
  });
});

const TA = '7f3c2a91e4b84d5f9a1c6e2b8d0f4a37';
const TB = '0b9e4d27c1a64f3e8b5d2a9c7e1f6b04';

describe('langfuse-blob normalizer', () => {
  it('scores and traces dropped with the observations: rewards on their step, trace details in metadata', async () => {
    const { report, rows } = await importWith('langfuse-blob-observations.jsonl', ['langfuse-blob-scores.jsonl', 'langfuse-blob-traces.jsonl']);
    assert.equal(report.format, 'langfuse-blob');
    assert.equal(rows.length, 3);
    const a = rows.filter((r) => r.trajectory_uid === TA).sort((x, y) => Number(x.step_index) - Number(y.step_index));
    assert.deepEqual(
      a.map((r) => r.reward),
      [0, 1],
      'the BOOLEAN score on the first generation, the NUMERIC trace score on the last; the CATEGORICAL one is no reward',
    );
    assert.equal(a[1].metadata?.session_id, 'chat-2025-03-04-88');
    assert.equal(a[1].metadata?.trace_name, 'support-agent');
    assert.equal(JSON.parse(a[1].metadata?.scores ?? '[]').length, 3);
    assert.equal(rows.find((r) => r.trajectory_uid === TB)?.reward, null);
    assert.ok(report.warnings.some((w) => /scores and trace details read from langfuse-blob-scores\.jsonl, langfuse-blob-traces\.jsonl/.test(w)), report.warnings.join(' | '));
  });
});

describe('langfuse-blob: correction rows (issue 32)', () => {
  it("a CORRECTION row's text (long_string_value, else string_value) is the step's corrected output; its text is not repeated in the scores", () => {
    const long = 'Egress traffic from the new region. '.repeat(400);
    const { rows } = run([obs('g1')], [{ file: 'scores.jsonl', records: [score('output', 0, { observation_id: 'g1', data_type: 'CORRECTION', string_value: null, long_string_value: long })] }]);
    assert.equal(rows[0].metadata?.corrected_output, long);
    assert.ok(!(rows[0].metadata?.scores ?? '').includes('Egress traffic from the new region'));
    const short = run([obs('g1')], [{ file: 'scores.jsonl', records: [score('output', 0, { data_type: 'CORRECTION', string_value: 'Egress.' })] }]);
    assert.equal(short.rows[0].metadata?.corrected_output, 'Egress.', 'a trace-level correction: the last step');
  });
});
