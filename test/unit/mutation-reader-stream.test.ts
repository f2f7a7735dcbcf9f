/**
 * The reader's byte stream and container choice (src/ingest/reader.ts): empty network chunks, progress reported as
 * records come out (not after the whole head), an empty gzip file, and the JSON Lines / document decision for a
 * first line that opens an object without closing it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { type ReadEvent, type ReadOptions, readRecords } from '../../src/ingest/reader';

const enc = new TextEncoder();

/** A stream of these chunks, as given (empty ones too). */
function streamOfChunks(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let k = 0;
  return new ReadableStream({
    pull(c) {
      if (k >= chunks.length) return c.close();
      c.enqueue(chunks[k++]);
    },
  });
}

async function readAll(chunks: Uint8Array[], opts: ReadOptions = {}): Promise<ReadEvent[]> {
  const out: ReadEvent[] = [];
  for await (const ev of readRecords(streamOfChunks(chunks), opts)) out.push(ev);
  return out;
}

const summary = (evs: ReadEvent[]) =>
  evs.map((e) => (e.kind === 'record' ? [e.record.line, e.record.value] : e.kind === 'reject' ? [e.line, e.reason.replace(/^malformed JSON: .*/, 'malformed')] : e.message));

describe('reader: the byte stream', () => {
  it('empty chunks from the network are skipped: progress is reported once per bytes received', async () => {
    const seen: number[] = [];
    const evs = await readAll([new Uint8Array(0), enc.encode('{"a":1}\n'), new Uint8Array(0), new Uint8Array(0), enc.encode('{"a":2}\n')], { onBytes: (n) => seen.push(n) });
    assert.deepEqual(summary(evs), [
      [1, { a: 1 }],
      [2, { a: 2 }],
    ]);
    assert.deepEqual(seen, [8, 16]);
  });

  it('records of the first 4 KiB come out before the next chunk is read', async () => {
    // a first chunk of exactly 4096 bytes: the head is complete, the reader does not wait for more
    const first = enc.encode(`{"t":"${'x'.repeat(4096 - 9)}"}\n`);
    assert.equal(first.length, 4096);
    const log: string[] = [];
    for await (const ev of readRecords(streamOfChunks([first, enc.encode('{"a":2}\n')]), { onBytes: (n) => log.push(`bytes ${n}`) })) {
      log.push(ev.kind === 'record' ? `record ${ev.record.line}` : ev.kind);
    }
    assert.deepEqual(log, ['bytes 4096', 'record 1', 'bytes 4104', 'record 2']);
  });

  it('an empty file, also gzipped, is empty; gzipped whitespace is only whitespace', async () => {
    assert.deepEqual(summary(await readAll([])), ['the file is empty']);
    assert.deepEqual(summary(await readAll([new Uint8Array(gzipSync(Buffer.alloc(0)))])), ['the file is empty']);
    assert.deepEqual(summary(await readAll([new Uint8Array(gzipSync(Buffer.from(' \n\t\n')))])), ['the file holds only whitespace']);
  });
});

describe('reader: JSON Lines or one document', () => {
  it('a broken first line that opens an object: the ninth line decides, and it is a whole object', async () => {
    const filler = Array(7).fill('  1,').join('\n');
    const text = `{"a": [\n${filler}\n{"b":1}\n{"b":2}\n`;
    for (const chunk of [1, 5, 4096]) {
      const bytes = enc.encode(text);
      const chunks: Uint8Array[] = [];
      for (let o = 0; o < bytes.length; o += chunk) chunks.push(bytes.slice(o, o + chunk));
      const evs = await readAll(chunks);
      assert.deepEqual(
        summary(evs),
        [[1, 'malformed'], ...Array.from({ length: 7 }, (_, i) => [i + 2, 'malformed']), [9, { b: 1 }], [10, { b: 2 }]],
        `chunks of ${chunk}`,
      );
    }
  });

  it('a first record longer than the 64 KiB head is JSON Lines: a broken line after it loses only itself', async () => {
    const big = JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(200_000) }] });
    const bytes = enc.encode(`${big}\n{"messages": [{"role": "user",\n{"b":1}\ndata: {"b":2}\n{"b":3}\n`);
    const chunks: Uint8Array[] = [];
    for (let o = 0; o < bytes.length; o += 8192) chunks.push(bytes.slice(o, o + 8192));
    const evs = await readAll(chunks);
    assert.deepEqual(
      summary(evs).slice(1),
      [
        [2, 'malformed'],
        [3, { b: 1 }],
        [4, { b: 2 }],
        [5, { b: 3 }],
      ],
    );
    const first = evs[0];
    assert.equal(first?.kind === 'record' && first.record.text?.length, big.length);
  });

  it('a pretty-printed document with a line longer than the head is still one document', async () => {
    const doc = { log: { version: '1.2', entries: [{ text: 'y'.repeat(100_000) }, { n: 2 }] } };
    const bytes = enc.encode(`${JSON.stringify(doc, null, 2)}\n`);
    const chunks: Uint8Array[] = [];
    for (let o = 0; o < bytes.length; o += 8192) chunks.push(bytes.slice(o, o + 8192));
    assert.deepEqual(summary(await readAll(chunks)), [[1, doc]]);
  });

  it('a whole file of one line that opens an object and ends: a truncated document', async () => {
    assert.deepEqual(summary(await readAll([enc.encode('{"a": [1, 2')])), [[1, 'truncated JSON: the file ended inside this record']]);
  });

  it('blank lines before a pretty-printed document do not decide the container, in chunks of any size', async () => {
    const bytes = enc.encode('   \n\t\n{\n  "a": 1,\n  "b": [2]\n}\n');
    for (const chunk of [1, 5, 64]) {
      const chunks: Uint8Array[] = [];
      for (let o = 0; o < bytes.length; o += chunk) chunks.push(bytes.slice(o, o + chunk));
      assert.deepEqual(summary(await readAll(chunks)), [[3, { a: 1, b: [2] }]], `chunks of ${chunk}`);
    }
  });
});
