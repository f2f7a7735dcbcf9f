/**
 * The reader's line splitting (src/ingest/reader.ts): the line size limit whatever the chunks, the end of an SSE
 * capture, and SSE data lines saved into a JSON Lines log.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ReadOptions, readRecords } from '../../src/ingest/reader';
import { streamOf } from './helpers/streams';

async function read(text: string, chunk: number, opts: ReadOptions = {}): Promise<(string | number | unknown)[][]> {
  const out: (string | number | unknown)[][] = [];
  for await (const ev of readRecords(streamOf(new TextEncoder().encode(text), chunk), opts)) {
    out.push(ev.kind === 'record' ? [ev.record.line, ev.record.index, ev.record.value] : ev.kind === 'reject' ? [ev.line, ev.reason] : [ev.message]);
  }
  return out;
}

describe('reader: the line size limit', () => {
  it('a line over the limit is rejected also when it arrives whole in one chunk; one at the limit is read', async () => {
    const at = `{"t":"${'x'.repeat(22)}"}`;
    const over = `{"t":"${'x'.repeat(23)}"}`;
    assert.equal(at.length, 30);
    for (const chunk of [3, 7, 4096]) {
      assert.deepEqual(
        await read(`${at}\n${over}\n{"a":3}\n${over}`, chunk, { maxRecordChars: 30 }),
        [
          [1, 0, { t: 'x'.repeat(22) }],
          [2, 'line too long (31 characters)'],
          [3, 1, { a: 3 }],
          [4, 'line too long (31 characters)'],
        ],
        `chunks of ${chunk}`,
      );
    }
  });
});

describe('reader: SSE captures', () => {
  it('an event dispatched by the last line (no newline after it) keeps its own reject reason', async () => {
    for (const chunk of [4, 4096]) {
      const r = await read('data: {"a":1}\n\ndata: {broken\nevent: end', chunk);
      assert.equal(r.length, 2);
      assert.deepEqual(r[0], [1, 0, { a: 1 }]);
      assert.equal(r[1][0], 3);
      assert.match(String(r[1][1]), /^malformed JSON: /, `chunks of ${chunk}`);
    }
  });

  it('[DONE] with spaces around it ends the stream without a reject', async () => {
    assert.deepEqual(await read('data: {"a":1}\n\ndata:  [DONE] \n\n', 4096), [[1, 0, { a: 1 }]]);
  });
});

describe('reader: SSE data lines in a JSON Lines log', () => {
  it('a broken payload is rejected for its own JSON; a [DONE] line without data: is not JSON', async () => {
    const r = await read('{"a":1}\ndata: {"b":\n[DONE]\ndata: {"c":3}\n', 4096);
    assert.deepEqual(r[0], [1, 0, { a: 1 }]);
    assert.deepEqual([r[1][0], r[2][0]], [2, 3]);
    // the payload's error (the whole line would fail at its 'd')
    assert.equal(r[1][1], 'malformed JSON: Unexpected end of JSON input');
    assert.match(String(r[2][1]), /^malformed JSON: /);
    assert.deepEqual(r[3], [4, 1, { c: 3 }]);
    assert.equal(r.length, 4);
  });
});
