/**
 * The Langfuse export normalizer (src/ingest/normalizers/langfuse.ts) on the shapes
 * Langfuse's public API and UI exports hold: observations (GET /api/public/observations, one per JSONL
 * line or a `{data: [...]}` page), scores (GET /api/public/scores), a trace with its observations
 * (GET /api/public/traces/{id}) and `{trace, observations}` bundles, with detection scores, step fields,
 * rewards from scores and the trace's metadata.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { langfuse } from '../../src/ingest/normalizers/langfuse';
import { runNormalizer } from './helpers/formats';

const rows = (...values: unknown[]) => runNormalizer(langfuse, values.map((value, index) => ({ value, line: index + 1, index })));
const score = (...values: unknown[]) => langfuse.detect(values);

/** A GENERATION observation as the Langfuse API returns it (`usage` as given). */
const generation = (id: string, usage: Record<string, unknown>, extra: Record<string, unknown>) => ({
  id,
  traceId: 'tr-1',
  type: 'GENERATION',
  name: 'OpenAI-generation',
  startTime: '2026-11-30T09:00:00.000Z',
  endTime: '2026-11-30T09:00:02.000Z',
  model: 'gpt-4o-mini',
  input: [{ role: 'user', content: `question ${id}` }],
  output: { role: 'assistant', content: `answer ${id}` },
  usage,
  level: 'DEFAULT',
  ...extra,
});
const gen = (id: string, extra: Record<string, unknown> = {}) => generation(id, { input: 10, output: 4, total: 14, unit: 'TOKENS' }, extra);
const numericScore = (name: string, value: number, extra: Record<string, unknown> = {}) => ({ id: `s-${name}`, traceId: 'tr-1', name, value, dataType: 'NUMERIC', source: 'API', ...extra });

describe('langfuse normalizer: detection', () => {
  it('0.75 + 0.2 × the share of Langfuse records; none → 0', () => {
    assert.equal(score(gen('o1')), 0.95);
    assert.equal(score(gen('o1'), { x: 1 }), 0.85);
    assert.equal(score({ x: 1 }), 0);
    assert.equal(score(), 0);
  });

  it('observations need a known type and a traceId or startTime', () => {
    assert.equal(score({ type: 'SPAN', traceId: 't' }), 0.95);
    assert.equal(score({ type: 'EVENT', startTime: '2026-11-30T09:00:00Z' }), 0.95);
    assert.equal(score({ type: 'GENERATION' }), 0);
    assert.equal(score({ type: 'generation', traceId: 't' }), 0);
    assert.equal(score({ type: 5, traceId: 't' }), 0);
  });

  it('scores need a trace id, a name, a value and a data type or source, and no type', () => {
    assert.equal(score(numericScore('accuracy', 1)), 0.95);
    assert.equal(score({ traceId: 't', name: 'n', stringValue: 'good', source: 'ANNOTATION' }), 0.95);
    assert.equal(score({ traceId: 't', name: 'n', value: 1, dataType: 'NUMERIC', type: 'custom' }), 0);
    assert.equal(score({ traceId: 't', name: 'n', value: 1 }), 0);
    assert.equal(score({ traceId: 't', name: 'n', dataType: 'NUMERIC' }), 0);
    assert.equal(score({ traceId: 1, name: 'n', value: 1, dataType: 'NUMERIC' }), 0);
    assert.equal(score({ traceId: 't', name: 1, value: 1, dataType: 'NUMERIC' }), 0);
  });

  it('trace exports: {trace, observations} and a trace that embeds them; an API page {data: [...]}', () => {
    assert.equal(score({ trace: { id: 'tr-1' }, observations: [] }), 0.95);
    assert.equal(score({ trace: { id: 'tr-1' }, observations: [gen('o1')] }), 0.95);
    assert.equal(score({ trace: { id: 'tr-1' }, observations: [{ x: 1 }] }), 0);
    assert.equal(score({ trace: 'tr-1', observations: [gen('o1')] }), 0, 'a trace id is no trace object');
    for (const key of ['sessionId', 'timestamp', 'name']) assert.equal(score({ id: 'tr-1', [key]: 'x', observations: [gen('o1')] }), 0.95, key);
    assert.equal(score({ id: 'tr-1', observations: [{ x: 1 }] }), 0);
    assert.equal(score({ id: 7, name: 'x', observations: [{ x: 1 }] }), 0);
    assert.equal(score({ data: [gen('o1')], meta: { page: 1 } }), 0.95);
    assert.equal(score({ data: [{ x: 1 }] }), 0);
  });
});

describe('langfuse normalizer: steps', () => {
  it('observations grouped by trace at the end, generations in start-time order, other types skipped', () => {
    const r = rows(
      gen('o2', { startTime: '2026-11-30T09:00:05.000Z', endTime: '2026-11-30T09:00:06.000Z' }),
      { id: 'sp', traceId: 'tr-1', type: 'SPAN', startTime: '2026-11-30T09:00:00.000Z' },
      gen('o1'),
      gen('x1', { traceId: 'tr-2' }),
      { id: 'sp2', traceId: 'tr-3', type: 'SPAN', startTime: '2026-11-30T09:00:00.000Z' },
    );
    assert.deepEqual(r.map((x) => [x.trajectory_uid, x.metadata?.observation_id, x.source_line]), [
      ['tr-1', 'o1', 3],
      ['tr-1', 'o2', 1],
      ['tr-2', 'x1', 4],
    ]);
  });

  it('a generation: messages, response, model, usage, timing, metadata fields, raw without keys', () => {
    const [s] = rows(
      gen('o1', {
        parentObservationId: 'span-1', promptName: 'qa', promptVersion: 3, version: 'v2', environment: 'production', statusMessage: 'fine',
        modelParameters: { temperature: 0.1 }, metadata: { apiKey: 'sk-proj-abcdefghijklmnopqrstuvwx' },
        completionStartTime: '2026-11-30T09:00:00.250Z', usageDetails: { input: 11, output: 5 }, input: { messages: [{ role: 'user', content: 'q' }], tools: [{ type: 'function', function: { name: 'calc', parameters: {} } }] },
      }),
    );
    assert.deepEqual(s.messages.map((m) => [m.role, m.content]), [['user', 'q']]);
    assert.equal(s.response?.content, 'answer o1');
    assert.equal(JSON.parse(s.tools ?? '[]')[0].function.name, 'calc');
    assert.equal(s.model, 'gpt-4o-mini');
    assert.deepEqual([s.prompt_tokens, s.completion_tokens], [11, 5], 'usageDetails before usage');
    assert.deepEqual([s.latency_ms, s.ttft_ms, s.status, s.error, s.finish_reason], [2000, 250, 'ok', null, null]);
    assert.equal(s.started_at, Date.parse('2026-11-30T09:00:00.000Z'));
    assert.equal(s.ended_at, Date.parse('2026-11-30T09:00:02.000Z'));
    const m = s.metadata ?? {};
    assert.deepEqual(
      [m.observation_id, m.name, m.parentObservationId, m.promptName, m.promptVersion, m.version, m.environment, m.level, m.statusMessage],
      ['o1', 'OpenAI-generation', 'span-1', 'qa', '3', 'v2', 'production', 'DEFAULT', 'fine'],
    );
    assert.equal(m.model_parameters, '{"temperature":0.1}');
    assert.ok(m.observation_metadata && !m.observation_metadata.includes('sk-proj-abc'), m.observation_metadata);
    assert.equal(m.id, undefined);
    assert.ok(s.raw && !s.raw.includes('sk-proj-abc'));
  });

  it('latency and time to first token in seconds when Langfuse gives them; the model by its provided name', () => {
    const [s] = rows(gen('o1', { latency: 1.5, timeToFirstToken: 0.2, model: null, providedModelName: 'claude-3-5-haiku' }));
    assert.deepEqual([s.latency_ms, s.ttft_ms, s.model], [1500, 200, 'claude-3-5-haiku']);
    const [t] = rows(gen('o1', { startTime: undefined, endTime: '2026-11-30T09:00:02.000Z' }));
    assert.deepEqual([t.latency_ms, t.ttft_ms], [null, null]);
    const [u] = rows(gen('o1', { endTime: undefined }));
    assert.equal(u.latency_ms, null);
  });

  it('usage in the other spellings Langfuse SDKs wrote', () => {
    const u = (usage: unknown, extra: Record<string, unknown> = {}) => {
      const [s] = rows(gen('o1', { usage, ...extra }));
      return [s.prompt_tokens, s.completion_tokens];
    };
    assert.deepEqual(u({ promptTokens: 7, completionTokens: 2 }), [7, 2]);
    assert.deepEqual(u({ prompt_tokens: 8, completion_tokens: 3 }), [8, 3]);
    assert.deepEqual(u({ input_tokens: 9, output_tokens: 4 }), [9, 4]);
    assert.deepEqual(u(undefined, { promptTokens: 6, completionTokens: 1 }), [6, 1]);
    assert.deepEqual(u('n/a'), [null, null]);
  });

  it('level ERROR is a failed step with its status message; tool calls finish as tool_calls', () => {
    const [e] = rows(gen('o1', { level: 'ERROR', statusMessage: 'Error code: 400 - context_length_exceeded', output: null }));
    assert.deepEqual([e.status, e.error, e.finish_reason, e.response], ['error', 'Error code: 400 - context_length_exceeded', 'error', null]);
    const [f] = rows(gen('o1', { level: 'ERROR' }));
    assert.equal(f.error, 'observation level ERROR');
    const [w] = rows(gen('o1', { level: 'WARNING' }));
    assert.equal(w.status, 'ok');
    const [t] = rows(gen('o1', { output: { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'calc', arguments: '{}' } }] } }));
    assert.equal(t.finish_reason, 'tool_calls');
  });

  it('a record that is nothing Langfuse knows is rejected alone; inside an API page it is skipped', () => {
    assert.throws(() => rows({ x: 1 }), /not a Langfuse trace, observation or score/);
    const r = rows({ data: [gen('o1'), { x: 1 }], meta: { page: 1, totalPages: 1 } });
    assert.equal(r.length, 1);
    // a page with one unknown item is that item alone
    assert.throws(() => rows({ data: [{ x: 1 }] }), /not a Langfuse trace/);
  });

  it('a trace whose traceId is missing: steps without a trajectory id of their own', () => {
    const { traceId: _t, ...noTrace } = gen('o1');
    const r = rows(noTrace);
    assert.equal(r.length, 1);
    assert.notEqual(r[0].trajectory_uid, '');
  });
});

describe('langfuse normalizer: scores and traces', () => {
  it('a score on a generation is that step\'s reward; other scores go to the last step', () => {
    const r = rows(
      gen('o1'),
      gen('o2', { startTime: '2026-11-30T09:00:03.000Z' }),
      numericScore('helpfulness', 0.3, { observationId: 'o1' }),
      numericScore('reward', 0.9),
      numericScore('other', 0.1, { observationId: 'span-x' }),
    );
    assert.deepEqual(r.map((x) => x.reward), [0.3, 0.9]);
    const scores = JSON.parse(r[0].metadata?.scores ?? '[]');
    assert.deepEqual(scores.map((s: { name: string }) => s.name), ['helpfulness', 'reward', 'other']);
    assert.deepEqual(scores[0], { name: 'helpfulness', value: 0.3, dataType: 'NUMERIC', observationId: 'o1' });
  });

  it('the reward: a score named like one, else the first numeric; text, categories and corrections are none', () => {
    const reward = (...scores: unknown[]) => rows(gen('o1'), ...scores).at(-1)?.reward ?? null;
    assert.equal(reward(numericScore('accuracy', 0.4), numericScore('correctness', 1)), 1);
    for (const name of ['reward', 'Score', 'correct', 'success', 'resolved']) assert.equal(reward(numericScore('a', 0.2), numericScore(name, 0.7)), 0.7, name);
    assert.equal(reward(numericScore('a', 0.2), numericScore('reward_model', 0.7)), 0.2, 'anchored name');
    assert.equal(reward(numericScore('a', 0.2), numericScore('my_score', 0.7)), 0.2, 'anchored name');
    assert.equal(reward(numericScore('quality', 0.4)), 0.4);
    assert.equal(reward({ ...numericScore('reward', 1), dataType: 'CATEGORICAL' }, numericScore('q', 0.6)), 0.6);
    assert.equal(reward({ ...numericScore('reward', 1), dataType: 'TEXT' }), null);
    assert.equal(reward({ traceId: 'tr-1', name: 'reward', stringValue: 'good', dataType: 'NUMERIC' }), null);
  });

  it('a correction (CORRECTION score) becomes corrected_output on its step; its value is not a score value', () => {
    const r = rows(gen('o1'), { id: 'c', traceId: 'tr-1', observationId: 'o1', name: 'correction', stringValue: 'the fixed answer', dataType: 'CORRECTION', source: 'ANNOTATION' });
    assert.equal(r[0].metadata?.corrected_output, 'the fixed answer');
    assert.deepEqual(JSON.parse(r[0].metadata?.scores ?? '[]'), [{ name: 'correction', dataType: 'CORRECTION', observationId: 'o1' }]);
    const none = rows(gen('o1'), { id: 'c', traceId: 'tr-1', name: 'correction', stringValue: '', dataType: 'CORRECTION', source: 'ANNOTATION' });
    assert.equal(none[0].metadata?.corrected_output, undefined);
  });

  it('a trace with its observations (GET /traces/{id}): trace fields into metadata, agent and data source', () => {
    const trace = {
      id: 'tr-9', name: 'qa-agent', sessionId: 'sess-1', userId: 'user-1', release: 'r42', tags: ['prod', 'eval'], timestamp: '2026-11-30T09:00:00Z',
      metadata: { data_source: 'gsm8k' },
      scores: [numericScore('reward', 1, { traceId: 'tr-9' })],
      corrections: [{ observationId: 'o1', correctedOutput: 'better' }],
      observations: [gen('o1', { traceId: 'tr-9' }), { id: 'ev', type: 'EVENT', traceId: 'tr-9', startTime: '2026-11-30T09:00:00Z' }, 'junk'],
    };
    const [s] = rows(trace);
    assert.equal(s.trajectory_uid, 'tr-9');
    assert.equal(s.reward, 1);
    assert.equal(s.agent, 'qa-agent');
    assert.equal(s.data_source, 'gsm8k');
    const m = s.metadata ?? {};
    assert.deepEqual([m.session_id, m.user_id, m.trace_name, m.release, m.tags, m.trace_metadata, m.corrected_output], ['sess-1', 'user-1', 'qa-agent', 'r42', '["prod","eval"]', '{"data_source":"gsm8k"}', 'better']);
    const [t] = rows({ id: 'tr-8', timestamp: 'x', tags: [], metadata: { agent: 'solver', dataset: 'math' }, observations: [gen('o1', { traceId: 'tr-8' })] });
    assert.deepEqual([t.agent, t.data_source, t.metadata?.tags, t.metadata?.trace_name, t.metadata?.scores], ['solver', 'math', undefined, undefined, undefined]);
  });

  it('{trace, observations, scores, corrections} bundles; a trace without generations makes no step', () => {
    const [s] = rows({
      trace: { id: 'tr-5', sessionId: '', corrections: [{ value: 'trace-level fix' }], scores: [numericScore('q', 0.5)] },
      observations: [gen('o1', { traceId: 'tr-5' })],
      scores: [numericScore('reward', 0.25)],
      corrections: [{ observationId: 'o1', output: 'obs fix' }],
    });
    assert.equal(s.reward, 0.25);
    assert.equal(s.metadata?.session_id, undefined, 'empty values are not kept');
    assert.ok(['obs fix', 'trace-level fix'].includes(s.metadata?.corrected_output ?? ''));
    assert.equal(JSON.parse(s.metadata?.scores ?? '[]').length, 4);
    assert.deepEqual(rows({ trace: { id: 'tr-6' }, observations: [{ id: 'sp', type: 'SPAN', traceId: 'tr-6' }] }), []);
  });
});

describe('langfuse normalizer: trace exports, bundles and corrections', () => {
  // these shapes' generations report usage without a total
  const gen = (id: string, extra: Record<string, unknown> = {}) => generation(id, { input: 10, output: 4 }, extra);

  describe('langfuse: more shapes', () => {
    it('zone-less times are noted in the step metadata; times with a zone are not', () => {
      const [naive] = rows(gen('o1', { startTime: '2026-11-30 09:00:00', endTime: '2026-11-30T09:00:02Z' }));
      assert.equal(naive.metadata?.time_zone, 'none in source: timestamps kept as written, stored as UTC');
      const [ttft] = rows(gen('o1', { completionStartTime: '2026-11-30T09:00:00.5' }));
      assert.equal(ttft.metadata?.time_zone, 'none in source: timestamps kept as written, stored as UTC');
      const [zoned] = rows(gen('o1'));
      assert.equal(zoned.metadata?.time_zone, undefined);
    });

    it('a SCORE observation of the trace is a score: the reward and the scores list', () => {
      const r = rows(gen('o1'), { id: 'sc', traceId: 'tr-1', type: 'SCORE', name: 'reward', value: 0.8, dataType: 'NUMERIC', startTime: '2026-11-30T09:00:03Z' });
      assert.equal(r.length, 1);
      assert.equal(r[0].reward, 0.8);
      assert.deepEqual(JSON.parse(r[0].metadata?.scores ?? '[]'), [{ name: 'reward', value: 0.8, dataType: 'NUMERIC' }]);
    });

    it('scores that are not objects are listed as they are and give no reward; a comment is kept', () => {
      const [s] = rows({ trace: { id: 'tr-7' }, observations: [gen('o1', { traceId: 'tr-7' })], scores: ['odd', { name: 'q', value: 0.5, comment: 'ok', dataType: 'NUMERIC' }] });
      assert.deepEqual(JSON.parse(s.metadata?.scores ?? '[]'), ['odd', { name: 'q', value: 0.5, dataType: 'NUMERIC', comment: 'ok' }]);
      assert.equal(s.reward, 0.5);
    });

    it('legacy functions in the input become tools', () => {
      const [s] = rows(gen('o1', { input: { messages: [{ role: 'user', content: 'q' }], functions: [{ name: 'calc', parameters: {} }] } }));
      assert.deepEqual(JSON.parse(s.tools ?? 'null'), [{ type: 'function', function: { name: 'calc', parameters: {} } }]);
      const [n] = rows(gen('o2'));
      assert.equal(n.tools, null, 'a list input has no tools');
    });

    it('an API page of traces with their observations; a trace with no metadata object', () => {
      const page = { data: [{ id: 'tr-a', name: 'agent-a', metadata: 'free text', observations: [gen('o1', { traceId: 'tr-a' })] }, { id: 'tr-b', timestamp: 't', metadata: null, observations: [gen('o2', { traceId: 'tr-b' })] }], meta: { page: 1 } };
      assert.equal(langfuse.detect([page]), 0.95);
      const r = rows(page);
      assert.deepEqual(r.map((x) => [x.trajectory_uid, x.agent, x.metadata?.trace_metadata ?? null]), [['tr-a', 'agent-a', 'free text'], ['tr-b', null, null]]);
    });

    it('a trace export that has a data key of its own is one trace, not a page', () => {
      const r = rows({ id: 'tr-d', name: 'n', data: ['not', 'a', 'page'], observations: [gen('o1', { traceId: 'tr-d' })] });
      assert.deepEqual(r.map((x) => x.trajectory_uid), ['tr-d']);
    });
  });
});

describe('langfuse normalizer: correction texts (issue 32)', () => {
  it("a CORRECTION score's long text (longStringValue) is the corrected output, whole; categorical labels stay in the scores", () => {
    const long = `Corrected: ${'the refund window is 60 days for unworn items; '.repeat(300)}`;
    const [r] = rows({
      id: 'tr-1',
      timestamp: '2026-11-30T09:00:00.000Z',
      name: 'chat',
      observations: [gen('g1')],
      scores: [
        { id: 'c1', traceId: 'tr-1', observationId: 'g1', name: 'output', value: 0, stringValue: null, longStringValue: long, dataType: 'CORRECTION', source: 'ANNOTATION' },
        { id: 't1', traceId: 'tr-1', name: 'tone', value: 1, stringValue: 'polite', dataType: 'CATEGORICAL', source: 'ANNOTATION' },
      ],
    });
    assert.equal(r.metadata?.corrected_output, long);
    const scores = JSON.parse(r.metadata?.scores ?? '[]');
    assert.deepEqual(scores.map((s: Record<string, unknown>) => [s.name, s.stringValue ?? null]), [['output', null], ['tone', 'polite']]);
  });
});
