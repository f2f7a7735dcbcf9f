/**
 * Survivors of the StrykerJS runs over the wire layer's stream code (src/wire/{sse,anthropic,openai-chat}.ts,
 * session 6), killed with inputs in the shapes providers send and logs record. Kept apart from the older
 * mutation-wire-*.test.ts files so an incremental run re-tests only the mutants these tests reach.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventPayloads, parseSse, SseParser } from '../../src/wire/sse';

describe('sse', () => {
  it('a data buffer holding complete JSON after extra leading spaces still dispatches at the next data line', () => {
    // `data:  {…}` keeps one space after the one the rule strips
    assert.deepEqual(parseSse('data:  {"n":1}\ndata: {"n":2}\n\n'), [
      { event: null, data: ' {"n":1}' },
      { event: null, data: '{"n":2}' },
    ]);
  });

  it('multi-line data is tested as JSON joined by \\n: a string cut by a line end is not complete', () => {
    // joined without the line end, `{"a":"x` + `y"}` would parse and split the event in two
    assert.deepEqual(parseSse('data: {"a":"x\ndata: y"}\ndata: {"b":1}\n\n'), [{ event: null, data: '{"a":"x\ny"}\n{"b":1}' }]);
  });

  it('a parser reused after end() starts from an empty buffer', () => {
    const p = new SseParser();
    p.push('data: {"a":1}\n\ndata: half');
    assert.deepEqual(p.end(), [{ event: null, data: 'half' }]);
    assert.deepEqual(p.push('data: {"b":2}\n\n'), [{ event: null, data: '{"b":2}' }]);
  });

  it('only a line that starts like JSON is a bare event; an unknown field with a JSON value is ignored', () => {
    assert.deepEqual(parseSse('data: {"a":1}\n\nextra: {"x":1}\nmeta: [1]\n{"b":2}\n'), [
      { event: null, data: '{"a":1}' },
      { event: null, data: '{"b":2}' },
    ]);
  });

  it('eventPayloads: a number or a record typed by `object` is the payload itself', () => {
    assert.deepEqual(eventPayloads(5), [5]);
    const rec = { event: 'done', data: '{"x":1}', object: 'response' };
    assert.deepEqual(eventPayloads(rec), [rec]);
  });
});
