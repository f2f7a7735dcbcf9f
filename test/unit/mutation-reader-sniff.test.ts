/**
 * The reader's encoding sniffing at its edges (src/ingest/reader.ts `sniffEncoding`), the survivors of the
 * 2026-12-04 Stryker run over lines 1–148: heads shorter than the UTF-16 test's 4 bytes, the 2 % control-byte bound,
 * SSE field names only at the start, only the first 4 KiB looked at; and the stream handed back unlocked.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readRecords, sniffEncoding } from '../../src/ingest/reader';

const bytes = (s: string) => [...new TextEncoder().encode(s)];

describe('reader: encoding sniffing at its bounds', () => {
  it('a head under 4 bytes is never taken for UTF-16: `{` with crash padding, or padding then `{`, is UTF-8 text', () => {
    assert.deepEqual(sniffEncoding(new Uint8Array([0x7b, 0])), { encoding: 'utf-8', bom: 0 });
    assert.deepEqual(sniffEncoding(new Uint8Array([0, 0x7b])), { encoding: 'utf-8', bom: 0 });
    assert.deepEqual(sniffEncoding(new Uint8Array([0, 0x7b, 0x7d])), { encoding: 'utf-8', bom: 0 });
  });

  it('with NUL padding, control bytes up to 2 % of the head are stray bytes in text; more make it binary', () => {
    // 100 bytes: a NUL (crash padding), a JSON line, 2 control bytes = exactly 2 %
    const head = (ctrl: number) => {
      const b = [0, ...bytes(`{"a":"${'x'.repeat(80)}"}`)];
      while (b.length < 100 - ctrl) b.push(0x20);
      for (let i = 0; i < ctrl; i++) b.push(0x01);
      return new Uint8Array(b);
    };
    assert.equal(head(2).length, 100);
    assert.deepEqual(sniffEncoding(head(2)), { encoding: 'utf-8', bom: 0 });
    assert.equal(sniffEncoding(head(3)), null);
  });

  it('after padding, an SSE field name must start the text (`(id: 1` is no SSE line)', () => {
    assert.deepEqual(sniffEncoding(new Uint8Array([0, 0, ...bytes('id: 1\n')])), { encoding: 'utf-8', bom: 0 });
    assert.deepEqual(sniffEncoding(new Uint8Array([0, 0, ...bytes('data: {}\n')])), { encoding: 'utf-8', bom: 0 });
    assert.equal(sniffEncoding(new Uint8Array([0, 0, ...bytes('(id: 1\n')])), null);
    assert.equal(sniffEncoding(new Uint8Array([0, 0, ...bytes('xdata: {}\n')])), null);
  });

  it('only the first 4,096 bytes are looked at: a NUL after them does not turn a head of stray control bytes binary', () => {
    // 4,096 bytes of text with 10 % control bytes (a terminal log pasted into JSON: allowed without NULs), then a NUL
    const b = bytes(`{"log":"`);
    while (b.length < 4096) b.push(b.length % 10 === 0 ? 0x1b + 1 : 0x61);
    const ctrl = b.filter((x) => x === 0x1c).length;
    assert.ok(ctrl <= 409, `${ctrl} control bytes`);
    assert.deepEqual(sniffEncoding(new Uint8Array([...b, 0])), { encoding: 'utf-8', bom: 0 });
  });
});

describe('reader: the stream', () => {
  it('is handed back unlocked once read to the end (the caller may cancel or read it again)', async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"a":1}\n'));
        c.close();
      },
    });
    const kinds: string[] = [];
    for await (const ev of readRecords(stream)) kinds.push(ev.kind);
    assert.ok(kinds.includes('record'), kinds.join());
    assert.equal(stream.locked, false);
  });
});
