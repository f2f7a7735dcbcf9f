/**
 * The generic fallback (src/ingest/normalizers/generic.ts) for records no format claims: which key is the
 * prompt and which the answer, the ids and reward it picks up, and what it keeps of a non-object record.
 * Written to kill mutants StrykerJS found.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generic } from '../../src/ingest/normalizers/generic';
import { runNormalizer } from './helpers/formats';
import { eventPayloads, looksLikeSse, parseSse as parseSseText } from '../../src/wire/sse';

const rows = (...values: unknown[]) => runNormalizer(generic, values.map((value, index) => ({ value, line: index + 1, index })));
const one = (value: unknown) => rows(value)[0];

describe('generic normalizer', () => {
  it('detect: 0.05 when any record is an object, arrays and scalars are not', () => {
    assert.equal(generic.detect(['x', { q: 1 }]), 0.05);
    assert.equal(generic.detect([[{ q: 1 }], null]), 0);
    assert.equal(generic.detect([]), 0);
  });

  it('each prompt key and each answer key is read', () => {
    for (const k of ['prompt', 'input', 'question', 'query', 'instruction', 'text', 'problem']) {
      assert.deepEqual(one({ [k]: 'Q?' }).messages, [{ role: 'user', content: 'Q?' }], k);
    }
    for (const k of ['response', 'output', 'answer', 'completion', 'solution']) {
      assert.equal(one({ [k]: 'A.' }).response?.content, 'A.', k);
    }
  });

  it('the first key with a value wins; null, empty and missing values are skipped', () => {
    const r = one({ prompt: '', input: null, question: 'Which?', query: 'later', output: '', answer: 'This one.', solution: 'later' });
    assert.deepEqual(r.messages, [{ role: 'user', content: 'Which?' }]);
    assert.equal(r.response?.content, 'This one.');
    assert.equal(one({ prompt: 'first', problem: 'last' }).messages[0].content, 'first');
    const none = one({ note: 'no prompt, no answer' });
    assert.deepEqual(none.messages, []);
    assert.equal(none.response, null);
  });

  it('prompt and answer as content parts, objects or numbers become text; <think> is split off the answer', () => {
    const r = one({ prompt: [{ type: 'text', text: 'part one' }], answer: 42 });
    assert.equal(r.messages[0].content, 'part one');
    assert.equal(r.response?.content, '42');
    assert.equal(one({ question: 'q', answer: true }).response?.content, 'true');
    const t = one({ question: 'q', response: '<think>carry the one</think>12' });
    assert.deepEqual([t.response?.reasoning, t.response?.content], ['carry the one', '12']);
  });

  it('a messages list of objects is the conversation; one that is not all objects falls back to the prompt key', () => {
    const r = one({ messages: [{ role: 'system', content: 'Be terse.' }, { role: 'user', content: 'hi' }], prompt: 'ignored' });
    assert.deepEqual(r.messages.map((m) => [m.role, m.content]), [['system', 'Be terse.'], ['user', 'hi']]);
    assert.deepEqual(one({ messages: [{ role: 'user', content: 'hi' }, 'junk'], prompt: 'fallback' }).messages, [{ role: 'user', content: 'fallback' }]);
    assert.deepEqual(one({ messages: 'not a list', prompt: 'p' }).messages, [{ role: 'user', content: 'p' }]);
  });

  it('ids, reward (a zero reward beats the score), model and data source', () => {
    assert.equal(one({ trajectory_uid: 't', session_id: 's', trace_id: 'x' }).trajectory_uid, 't');
    assert.equal(one({ session_id: 's', trace_id: 'x' }).trajectory_uid, 's');
    assert.equal(one({ trace_id: 'x' }).trajectory_uid, 'x');
    const r = one({ reward: 0, score: 1, model: 'm-1', data_source: 'gsm8k' });
    assert.deepEqual([r.reward, r.model, r.data_source], [0, 'm-1', 'gsm8k']);
    assert.equal(one({ score: '0.5' }).reward, 0.5);
    assert.equal(one({ q: 1 }).reward, null);
  });

  it('a non-object record: its text in metadata.value; null keeps no metadata', () => {
    assert.deepEqual(one(7).metadata, { value: '7' });
    assert.deepEqual(one([1, 'a']).metadata, { value: '[1,"a"]' });
    assert.equal(one(null).metadata, null);
    assert.deepEqual(one('plain').messages, []);
    assert.equal(one('plain').response, null);
  });
});

describe('generic normalizer: more shapes', () => {
  it('keeps every record as one step with its keys in metadata', () => {
    const rows = runNormalizer(generic, [
      { value: { question: 'Why is the sky blue?', answer: 'Rayleigh scattering.', difficulty: 2, tags: ['physics'] }, line: 1, index: 0 },
      { value: { blob: { deep: [1, 2] } }, line: 2, index: 1 },
      { value: 'just text', line: 3, index: 2 },
    ]);
    assert.equal(rows.length, 3);
    assert.deepEqual(rows[0].messages, [{ role: 'user', content: 'Why is the sky blue?' }]);
    assert.equal(rows[0].response_text, 'Rayleigh scattering.');
    assert.deepEqual(rows[0].metadata, { question: 'Why is the sky blue?', answer: 'Rayleigh scattering.', difficulty: '2', tags: '["physics"]' });
    assert.deepEqual(rows[1].messages, []);
    assert.equal(rows[1].raw, '{"blob":{"deep":[1,2]}}');
    assert.equal(rows[2].metadata?.value, 'just text');
  });

  it('detects any object at 0.05 and nothing else', () => {
    assert.equal(generic.detect([{ a: 1 }]), 0.05);
    assert.equal(generic.detect([1, 'x']), 0);
  });
});

describe('sse helper', () => {
  it('parses events by the spec and tolerates missing blank lines', () => {
    const text = ': ping\nevent: message_start\ndata: {"a":1}\n\ndata: line1\ndata: line2\n\nid: 7\ndata: {"b":2}\ndata: {"c":3}\ndata: [DONE]';
    assert.deepEqual(parseSseText(text), [
      { event: 'message_start', data: '{"a":1}' },
      { event: null, data: 'line1\nline2' },
      { event: null, data: '{"b":2}' },
      { event: null, data: '{"c":3}' },
      { event: null, data: '[DONE]' },
    ]);
    assert.ok(looksLikeSse(': keep-alive\n\nevent: x\ndata: 1'));
    assert.ok(looksLikeSse('data: {}'));
    assert.ok(!looksLikeSse('{"data": 1}'));
    assert.ok(!looksLikeSse('metadata: x'));
  });

  it('unwraps {event, data} records and data lines', () => {
    assert.deepEqual(eventPayloads({ event: 'ping', data: '{"type":"ping"}' }), [{ type: 'ping' }]);
    assert.deepEqual(eventPayloads('data: [DONE]'), ['[DONE]']);
    assert.deepEqual(eventPayloads({ type: 'x', data: 1 }), [{ type: 'x', data: 1 }]);
  });
});
