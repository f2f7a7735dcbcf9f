/**
 * The reader's events as the import report shows them (src/ingest/reader.ts): warnings are warnings, record indexes
 * skip rejected values, a record's text has no line end, and the container choice in small chunks.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ReadEvent, readRecords } from '../../src/ingest/reader';
import { streamOf } from './helpers/streams';

async function read(text: string, chunk = 4096): Promise<ReadEvent[]> {
  const out: ReadEvent[] = [];
  for await (const ev of readRecords(streamOf(new TextEncoder().encode(text), chunk))) out.push(ev);
  return out;
}
const brief = (evs: ReadEvent[]) =>
  evs.map((e) => (e.kind === 'record' ? [e.record.line, e.record.index, e.record.value] : e.kind === 'reject' ? [e.line, e.reason.replace(/^malformed JSON: .*/, 'malformed')] : [e.kind, e.message]));

describe('reader: events', () => {
  it('an empty file and a whitespace file are warnings', async () => {
    assert.deepEqual(await read(''), [{ kind: 'warning', message: 'the file is empty' }]);
    assert.deepEqual(await read(' \n\n'), [{ kind: 'warning', message: 'the file holds only whitespace' }]);
  });

  it('record indexes skip rejected values: in an array, in SSE, in JSON Lines', async () => {
    assert.deepEqual(brief(await read('[{"a":1},\n{"b": },\n{"c":3}]')), [
      [1, 0, { a: 1 }],
      [2, 'malformed'],
      [3, 1, { c: 3 }],
    ]);
    assert.deepEqual(brief(await read('data: {"a":1}\n\ndata: {broken\n\ndata: {"c":3}\n\n')), [
      [1, 0, { a: 1 }],
      [3, 'malformed'],
      [5, 1, { c: 3 }],
    ]);
  });

  it('a CRLF JSON Lines record keeps its text without the CR', async () => {
    const evs = await read('{"a":1}\r\n{"b":2}\r\n');
    assert.deepEqual(
      evs.map((e) => e.kind === 'record' && e.record.text),
      ['{"a":1}', '{"b":2}'],
    );
  });

  it('only a line that starts with data: is an SSE data line', async () => {
    assert.deepEqual(brief(await read('{"a":1}\nxyz data: {"b":2}\n')), [
      [1, 0, { a: 1 }],
      [2, 'malformed'],
    ]);
  });

  it('SSE comment lines before the first event, in small chunks', async () => {
    for (const chunk of [1, 5, 4096]) {
      assert.deepEqual(brief(await read(': keep-alive\n: ping\n\ndata: {"a":1}\n\ndata: {"b":2}\n\n', chunk)), [
        [4, 0, { a: 1 }],
        [6, 1, { b: 2 }],
      ]);
    }
  });

  it('an indented first line that opens an object: the lines after it tell JSON Lines', async () => {
    for (const chunk of [1, 5, 4096]) {
      assert.deepEqual(brief(await read('  {"a": [\n{"b":1}\n{"b":2}\n', chunk)), [
        [1, 'malformed'],
        [2, 0, { b: 1 }],
        [3, 1, { b: 2 }],
      ]);
    }
  });

  it('a last line without a newline that parses is a plain record event', async () => {
    assert.deepEqual(await read('{"a":1}\n{"b":2}'), [
      { kind: 'record', record: { value: { a: 1 }, line: 1, index: 0, text: '{"a":1}' } },
      { kind: 'record', record: { value: { b: 2 }, line: 2, index: 1, text: '{"b":2}' } },
    ]);
  });
});
