/**
 * Re-import of the workbench's own steps export (src/ingest/normalizers/step-record.ts) from the shapes
 * DuckDB, Parquet readers and hand edits hand back: messages and tool calls as JSON text, the metadata map
 * as entries or pairs, timestamps as text, numbers or Dates, token ids as JSON text or typed arrays, and the
 * defaults of a row that left fields out. Written to kill mutants StrykerJS found.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stepRecord } from '../../src/ingest/normalizers/step-record';
import type { StepDraft, StepRecord } from '../../src/contract/step';
import { ctx, fixtureRecords, runNormalizer } from './helpers/formats';

const base = { step_id: 't-0:0', trajectory_uid: 't-0', step_index: 0, messages: [{ role: 'user', content: 'Fix utils.py' }] };
const draft = (extra: Record<string, unknown>) => {
  const [t] = stepRecord.normalize({ value: { ...base, ...extra }, line: 1, index: 0 }, ctx, undefined as never);
  return { t, s: t.steps[0] as StepDraft };
};
const near = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-9, `${a} ≠ ${b}`);

describe('step-record normalizer', () => {
  it('detect: 0.9 + 0.09 × the share of step rows; each id field is needed', () => {
    near(stepRecord.detect([base]), 0.99);
    near(stepRecord.detect([base, { note: 1 }]), 0.945);
    assert.equal(stepRecord.detect([]), 0);
    assert.equal(stepRecord.detect([{ note: 1 }]), 0);
    for (const k of ['step_id', 'trajectory_uid', 'step_index', 'messages'] as const) {
      const { [k]: _, ...rest } = base;
      assert.equal(stepRecord.detect([rest]), 0, k);
    }
    assert.equal(stepRecord.detect([{ ...base, step_id: 7 }]), 0, 'a numeric step id');
    assert.equal(stepRecord.detect([{ ...base, trajectory_uid: 7 }]), 0, 'a numeric trajectory id');
    assert.throws(() => draft({ step_id: 1 }), /not a step record/);
  });

  it('a row with only the ids: the defaults of every other field', () => {
    const { t, s } = draft({});
    assert.deepEqual([t.trajectory_uid, t.prompt_uid], ['t-0', undefined]);
    assert.equal(s.step_index, 0);
    assert.equal(s.is_last, null);
    assert.equal(s.channel, 'train');
    assert.equal(s.status, 'ok');
    assert.equal(s.response, null);
    assert.equal(s.metadata, null);
    assert.equal(s.raw, undefined, 'no raw key: finalize re-derives it');
    assert.deepEqual([s.source_format, s.source_line, s.source_trajectory_id], [undefined, undefined, undefined]);
    assert.deepEqual([s.prompt_ids, s.response_ids, s.rollout_log_probs, s.started_at, s.tools], [null, null, null, null, null]);
    assert.deepEqual(draft({ step_index: 'x', is_last: 'true', channel: null, status: 'failed' }).s, { ...draft({}).s, status: 'ok' });
    assert.equal(draft({ messages: 'not json' }).s.messages.length, 0);
  });

  it('every field is read: ids, flags, numbers, status and error, raw null kept', () => {
    const { t, s } = draft({
      prompt_uid: 'p-1', step_index: '2', is_last: true, channel: 'val', policy_version: '3', agent: 'swe', data_source: 'swe-bench', model: 'm', provider: 'openai',
      tools: [{ type: 'function', function: { name: 'ls' } }], response_text: 'ok', finish_reason: 'stop', prompt_tokens: 10.7, completion_tokens: '4', reward: '0.5',
      latency_ms: 1200, ttft_ms: '80', status: 'error', error: 'timeout', raw: null, source_format: 'anthropic', source_line: '12', source_trajectory_id: 'run-1',
    });
    assert.equal(t.prompt_uid, 'p-1');
    assert.deepEqual(
      [s.step_index, s.is_last, s.channel, s.policy_version, s.agent, s.data_source, s.model, s.provider, s.response_text, s.finish_reason, s.prompt_tokens, s.completion_tokens, s.reward, s.latency_ms, s.ttft_ms, s.status, s.error, s.raw, s.source_format, s.source_line, s.source_trajectory_id],
      [2, true, 'val', 3, 'swe', 'swe-bench', 'm', 'openai', 'ok', 'stop', 10, 4, 0.5, 1200, 80, 'error', 'timeout', null, 'anthropic', 12, 'run-1'],
    );
    assert.equal(s.tools, '[{"type":"function","function":{"name":"ls"}}]', 'tools as structured JSON become text');
    assert.equal(draft({ tools: '[{"x":1}]' }).s.tools, '[{"x":1}]');
  });

  it('messages and tool calls as JSON text; optional keys copied only when present', () => {
    const msgs = [
      { role: 'assistant', content: null, reasoning: 'look first', tool_calls: JSON.stringify([{ id: 'c1', type: 'function', function: { name: 'read', arguments: { path: 'a' } } }, 'junk', { function: 'x' }]) },
      { role: 'tool', content: { ok: true }, name: 'read', tool_call_id: 'c1', parts: [{ type: 'text', text: 'x' }] },
      { content: 'no role' },
      'bare text',
      { role: 'assistant', content: 'hi', tool_calls: 'nonsense' },
    ];
    const { s } = draft({ messages: JSON.stringify(msgs), response: JSON.stringify({ role: 'assistant', content: 'done' }) });
    assert.deepEqual(s.messages[0], {
      role: 'assistant', content: null, reasoning: 'look first',
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } },
        { id: null, type: 'function', function: { name: '', arguments: '' } },
      ],
    });
    assert.deepEqual(s.messages[1], { role: 'tool', content: '{"ok":true}', name: 'read', tool_call_id: 'c1', parts: '[{"type":"text","text":"x"}]' });
    assert.deepEqual(s.messages[2], { role: 'user', content: 'no role' });
    assert.deepEqual(s.messages[3], { role: 'user', content: 'bare text' });
    assert.deepEqual(s.messages[4], { role: 'assistant', content: 'hi', tool_calls: null });
    assert.deepEqual(s.response, { role: 'assistant', content: 'done' });
    assert.equal(draft({ response: 'just text' }).s.response, null);
    assert.deepEqual(draft({ messages: [{ role: 'user', content: 'x', name: null }] }).s.messages[0], { role: 'user', content: 'x', name: null }, 'a null key stays present');
  });

  it('metadata: an object, JSON text, Arrow entries or [key, value] pairs; null values as empty text', () => {
    assert.deepEqual(draft({ metadata: { a: 1, b: 'x', c: null } }).s.metadata, { a: '1', b: 'x', c: '' });
    assert.deepEqual(draft({ metadata: '{"a":"1"}' }).s.metadata, { a: '1' });
    assert.deepEqual(draft({ metadata: [{ key: 'k', value: null }, ['p', 2], ['n', null], ['bad'], { nokey: 1 }] }).s.metadata, { k: '', p: '2', n: '' });
    assert.equal(draft({ metadata: 5 }).s.metadata, null);
    assert.equal(draft({ metadata: null }).s.metadata, null);
  });

  it('timestamps: Date, epoch ms (number or digits), ISO with Z or an offset, DuckDB text as UTC', () => {
    const at = (v: unknown) => draft({ started_at: v }).s.started_at;
    assert.equal(at(new Date('2026-12-02T09:00:00Z')), Date.parse('2026-12-02T09:00:00Z'));
    assert.equal(at(1764666000000), 1764666000000);
    assert.equal(at('1764666000000'), 1764666000000);
    assert.equal(at('1764666000000.5'), 1764666000000.5);
    assert.equal(at('1764666000000.25'), 1764666000000.25);
    assert.equal(at('2026-12-02T09:00:00Z'), Date.parse('2026-12-02T09:00:00Z'));
    assert.equal(at('2026-12-02T09:00:00z'), Date.parse('2026-12-02T09:00:00Z'));
    assert.equal(at('2026-12-02T10:00:00+01:00'), Date.parse('2026-12-02T09:00:00Z'));
    assert.equal(at('2026-12-02T10:00:00+0100'), Date.parse('2026-12-02T09:00:00Z'));
    assert.equal(at('2026-12-02 09:00:00.250'), Date.parse('2026-12-02T09:00:00.250Z'));
    assert.equal(at('not a time'), null);
    assert.equal(at(''), null);
    assert.equal(draft({ ended_at: '2026-12-02 09:00:01' }).s.ended_at, Date.parse('2026-12-02T09:00:01Z'));
  });

  it('text without a zone is UTC whatever zone the machine runs in (Date.parse would read it as local time)', () => {
    const tz = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      assert.equal(draft({ started_at: '2026-12-02 09:00:00' }).s.started_at, Date.parse('2026-12-02T09:00:00Z'));
      assert.equal(draft({ started_at: '2026-12-02T09:00:00' }).s.started_at, Date.parse('2026-12-02T09:00:00Z'));
      assert.equal(draft({ started_at: '2026-12-02T04:00:00-05:00' }).s.started_at, Date.parse('2026-12-02T09:00:00Z'));
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it('token ids and log probs: a list, JSON text or a typed array; anything else is null', () => {
    const { s } = draft({ prompt_ids: '[1, 2]', response_ids: Int32Array.from([3, 4]), rollout_log_probs: [-0.5, '-1'] });
    assert.deepEqual([s.prompt_ids, s.response_ids, s.rollout_log_probs], [[1, 2], [3, 4], [-0.5, -1]]);
    assert.equal(draft({ prompt_ids: 'x' }).s.prompt_ids, null);
    assert.equal(draft({ prompt_ids: 7 }).s.prompt_ids, null);
  });
});

const REDERIVED = new Set(['source', 'source_id', 'import_id', 'source_trajectory_id']);

function comparable(r: StepRecord): Record<string, unknown> {
  return Object.fromEntries(Object.entries(r).filter(([k]) => !REDERIVED.has(k)));
}

describe('step-record normalizer: more shapes', () => {
  it('round-trips an exported JSONL exactly (ids, is_last, tokens, raw)', () => {
    const recs = fixtureRecords('step-records.jsonl');
    const rows = runNormalizer(stepRecord, recs);
    assert.equal(rows.length, recs.length);
    rows.forEach((r, i) => {
      const original = recs[i].value as StepRecord;
      assert.deepEqual(comparable(r), comparable(original), `row ${i}`);
      assert.equal(r.source_id, ctx.sourceId);
      // an export from before source_trajectory_id: the trajectory id is the source's own
      assert.equal(r.source_trajectory_id, original.source_trajectory_id ?? original.trajectory_uid);
    });
    const kept = runNormalizer(stepRecord, [{ ...recs[0], value: { ...(recs[0].value as object), trajectory_uid: 'run@0123456789ab', source_trajectory_id: 'run' } }]);
    assert.equal(kept[0].source_trajectory_id, 'run', 'a trajectory kept apart keeps its own id through export and re-import');
    assert.deepEqual(
      rows.map((r) => [r.step_id, r.is_last]),
      [
        ['0123456789ab-0:0', false],
        ['0123456789ab-0:1', false],
        ['0123456789ab-0:2', true],
        ['0123456789ab-3:0', true],
      ],
    );
    assert.deepEqual(rows[0].prompt_ids, [101, 2023, 2003]);
    assert.equal(rows[2].reward, 1);
  });

  it('reads Parquet-decoded rows: map as entries, ISO timestamps, typed arrays', () => {
    const base = fixtureRecords('step-records.jsonl')[0].value as StepRecord;
    const row = {
      ...base,
      metadata: [
        { key: 'input_tokens', value: '12' },
        { key: 'thinking', value: '{"type":"enabled"}' },
      ],
      started_at: '2026-12-02 09:00:00',
      prompt_ids: Int32Array.from([1, 2, 3]),
      messages: base.messages.map((m) => ({ role: m.role, content: m.content, reasoning: null, name: null, tool_call_id: null, tool_calls: null, parts: m.parts ?? null })),
    };
    const [r] = runNormalizer(stepRecord, [{ value: row, line: 1, index: 0 }]);
    assert.deepEqual(r.metadata, { input_tokens: '12', thinking: '{"type":"enabled"}' });
    assert.equal(r.started_at, Date.parse('2026-12-02T09:00:00Z'));
    assert.deepEqual(r.prompt_ids, [1, 2, 3]);
    assert.equal(r.messages[0].reasoning, null);
    assert.equal(r.step_id, base.step_id);
    assert.equal(r.trajectory_uid, base.trajectory_uid);
  });

  it('detects step records above plain chat rows', () => {
    assert.equal(stepRecord.detect([{ messages: [{ role: 'user', content: 'x' }] }]), 0);
  });
});

describe('step-record normalizer: schema 4 fields', () => {
  it("a tool result's is_error comes back as it was exported (true, null, or absent); text that reads like an error stays text", () => {
    const { s } = draft({
      messages: [
        { role: 'user', content: 'go' },
        { role: 'tool', content: 'boom', tool_call_id: 'c1', is_error: true },
        { role: 'tool', content: 'fine', tool_call_id: 'c2', is_error: null },
        { role: 'tool', content: '[error] old export', tool_call_id: 'c3' },
      ],
    });
    assert.deepEqual(s.messages.slice(1).map((m) => [m.content, m.is_error]), [['boom', true], ['fine', null], ['[error] old export', undefined]]);
  });
});
