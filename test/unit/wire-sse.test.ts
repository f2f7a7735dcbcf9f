/**
 * The SSE parser (src/wire/sse.ts) on the streams providers send and the logs that record them: any
 * chunking gives the same events, each WHATWG rule, the recorded-log extras (no blank lines, bare JSON
 * lines), line numbers, and the payload helpers. Written to kill mutants StrykerJS found.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { eventPayloads, looksLikeSse, parseSse, SseParser, sseData, sseObject } from '../../src/wire/sse';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/formats/${name}`, import.meta.url), 'utf8');

function chunked(text: string, size: number) {
  const p = new SseParser();
  const out = [];
  for (let i = 0; i < text.length; i += size) out.push(...p.push(text.slice(i, i + size)));
  out.push(...p.end());
  return out;
}

describe('SseParser', () => {
  for (const name of ['anthropic-stream.sse', 'openai-log-stream.sse']) {
    it(`${name}: any chunking and any line ending give the events of the whole text`, () => {
      const text = fixture(name);
      const whole = parseSse(text);
      assert.ok(whole.length >= 5);
      for (const eol of ['\n', '\r\n', '\r']) {
        const t = text.replace(/\r?\n/g, eol);
        for (const size of [1, 2, 3, 7, 64]) assert.deepEqual(chunked(t, size), whole, `${JSON.stringify(eol)} ${size}`);
      }
    });
  }

  it('WHATWG rules: comments, one leading space, multi-line data, id/retry ignored, no-data events skipped', () => {
    const text = ': hello\nid: 7\nretry: 100\nevent: ping\n\nevent: delta\ndata:  two spaces\ndata:none\ndata\n\nevent:x\ndata: [DONE]\n\n';
    assert.deepEqual(parseSse(text), [
      { event: 'delta', data: ' two spaces\nnone\n' },
      { event: 'x', data: '[DONE]' },
    ]);
  });

  it('a \\r at the end of a chunk waits for the next one: \\r\\n is one line end', () => {
    const p = new SseParser();
    assert.deepEqual(p.push('data: a\r'), []);
    assert.deepEqual(p.push('\n\r'), []);
    assert.deepEqual(p.push('\ndata: b\r\r'), [{ event: null, data: 'a' }]);
    assert.deepEqual(p.end(), [{ event: null, data: 'b' }]);
  });

  it('the end flushes the last line and the last event; a lone \\r at the end is a line end', () => {
    const p = new SseParser();
    p.push('event: done\ndata: {"a":1}\r');
    assert.deepEqual(p.end(), [{ event: 'done', data: '{"a":1}' }]);
    assert.deepEqual(parseSse('data: x'), [{ event: null, data: 'x' }]);
    assert.deepEqual(parseSse(''), []);
  });

  it('recorded logs without blank lines: a new event line or a data line after complete JSON dispatches', () => {
    const text = 'event: a\ndata: {"n":1}\nevent: b\ndata: {"n":2}\ndata: {"n":3}\ndata: [1,\ndata: 2]\ndata: plain\ndata: more';
    assert.deepEqual(parseSse(text), [
      { event: 'a', data: '{"n":1}' },
      { event: 'b', data: '{"n":2}' },
      { event: 'b', data: '{"n":3}' },
      { event: 'b', data: '[1,\n2]' },
      { event: 'b', data: 'plain\nmore' },
    ]);
    assert.deepEqual(parseSse('data: {"n":\ndata: 1}\n\n'), [{ event: null, data: '{"n":\n1}' }]);
    assert.deepEqual(parseSse('data: "quoted"\ndata: 5\n\n'), [{ event: null, data: '"quoted"\n5' }]);
  });

  it('bare JSON lines are events of their own; other unknown lines are ignored', () => {
    const text = 'data: {"a":1}\n{"b":2}\n  [3]\nfoo: bar\nid: {"c":4}\nretry: [5]\nplain words\ndata: z\n\n';
    assert.deepEqual(parseSse(text), [
      { event: null, data: '{"a":1}' },
      { event: null, data: '{"b":2}' },
      { event: null, data: '  [3]' },
      { event: null, data: 'z' },
    ]);
  });

  it('line(): events carry the line they started on', () => {
    const p = new SseParser();
    const lines = [': c', 'event: message_start', 'data: {"a":1}', '', 'data: {"b":2}', '', 'event: e', '', 'event: f', 'data: x', 'data: {"g":1}', '{"bare":1}'];
    const out = lines.flatMap((l, i) => p.line(l, i + 10));
    out.push(...p.end());
    assert.deepEqual(out, [
      { event: 'message_start', data: '{"a":1}', line: 11 },
      { event: null, data: '{"b":2}', line: 14 },
      { event: 'f', data: 'x\n{"g":1}', line: 18 },
      { event: null, data: '{"bare":1}', line: 21 },
    ]);
  });

  it('push() events carry no line numbers', () => {
    assert.deepEqual(Object.keys(parseSse('data: 1\n\n')[0]).sort(), ['data', 'event']);
  });
});

describe('looksLikeSse', () => {
  it('streams, also after a BOM, blank, comment, id and retry lines', () => {
    for (const t of ['data: {}', 'event: ping\n', '\uFEFFdata: 1', '\n\r\n: ok\nid: 1\nretry: 5\n  \ndata: 1', ':\ndata:x']) assert.equal(looksLikeSse(t), true, JSON.stringify(t));
  });
  it('not JSON, not prose, not a field too late', () => {
    for (const t of ['{"data": 1}', 'hello\ndata: 1', ' data: 1x', 'id: 1 data: 2', `${'\n'.repeat(2050)}data: 1`, 'dat: 1', 'x: 1\ndata: 1']) assert.equal(looksLikeSse(t), false, JSON.stringify(t));
  });
});

describe('payload helpers', () => {
  it('sseData: JSON when it parses, else the trimmed text; broken JSON kept as sent', () => {
    assert.deepEqual(sseData({ event: null, data: ' {"a":1} ' }), { a: 1 });
    assert.deepEqual(sseData({ event: null, data: '[1,2]' }), [1, 2]);
    assert.equal(sseData({ event: null, data: ' [DONE] ' }), '[DONE]');
    assert.equal(sseData({ event: null, data: '{"a": ' }), '{"a":');
    // a recorded `data: [DONE] ` (trailing space) or a wrapper `{"data": " [DONE]"}` is still the end marker
    assert.deepEqual(eventPayloads('data: [DONE] \n\n'), ['[DONE]']);
    assert.deepEqual(eventPayloads({ data: ' [DONE]' }), ['[DONE]']);
    assert.equal(sseData({ event: null, data: '42' }), '42');
  });
  it('sseObject: only objects', () => {
    assert.deepEqual(sseObject({ event: null, data: '{"a":1}' }), { a: 1 });
    for (const d of ['[1]', 'null', '[DONE]', '{bad', '"s"']) assert.equal(sseObject({ event: null, data: d }), null, d);
  });
  it('eventPayloads: SSE text, one data line, a wrapper, or the payload itself', () => {
    assert.deepEqual(eventPayloads('event: a\ndata: {"x":1}\n\ndata: [DONE]\n\n'), [{ x: 1 }, '[DONE]']);
    assert.deepEqual(eventPayloads('  just text  '), ['just text']);
    assert.deepEqual(eventPayloads({ event: 'message_stop', data: '{"type":"message_stop"}' }), [{ type: 'message_stop' }]);
    assert.deepEqual(eventPayloads({ data: '[DONE]' }), ['[DONE]']);
    assert.deepEqual(eventPayloads({ event: 'e', data: { y: 2 } }), [{ y: 2 }]);
    const payload = { type: 'content_block_delta', data: 'x', event: 'e' };
    assert.deepEqual(eventPayloads(payload), [payload]);
    const chunk = { object: 'chat.completion.chunk', data: 'x' };
    assert.deepEqual(eventPayloads(chunk), [chunk]);
    const two = { data: 'x', other: 1 };
    assert.deepEqual(eventPayloads(two), [two]);
    assert.deepEqual(eventPayloads([1]), [[1]]);
    assert.deepEqual(eventPayloads(null), [null]);
  });
});
