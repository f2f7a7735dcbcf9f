import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generic } from '../../src/ingest/normalizers/generic';
import { eventPayloads, looksLikeSse, parseSse as parseSseText } from '../../src/wire/sse';
import { runNormalizer } from './helpers/formats';

describe('generic normalizer', () => {
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
