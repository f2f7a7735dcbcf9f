/**
 * More cases for the Langfuse export normalizer (src/ingest/normalizers/langfuse.ts), beside
 * test/unit/mutation-ingest-langfuse.test.ts: zone-less times, SCORE observations, the scores list in
 * metadata, legacy `functions`, API pages that hold traces, and trace metadata that is not an object.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { langfuse } from '../../src/ingest/normalizers/langfuse';
import { runNormalizer } from './helpers/formats';

const rows = (...values: unknown[]) => runNormalizer(langfuse, values.map((value, index) => ({ value, line: index + 1, index })));
const gen = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  traceId: 'tr-1',
  type: 'GENERATION',
  name: 'OpenAI-generation',
  startTime: '2026-11-30T09:00:00.000Z',
  endTime: '2026-11-30T09:00:02.000Z',
  model: 'gpt-4o-mini',
  input: [{ role: 'user', content: `question ${id}` }],
  output: { role: 'assistant', content: `answer ${id}` },
  usage: { input: 10, output: 4 },
  level: 'DEFAULT',
  ...extra,
});

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
