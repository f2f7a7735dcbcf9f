/**
 * The reader's text decoding (src/ingest/reader.ts): a U+FFFD the file holds is text, not a replaced byte; a
 * character cut at the end of the file is warned about; the decoding of any bytes, cut into chunks of any size,
 * is the one a lenient decoder gives over the whole file, and the warning comes iff a strict decoder refuses it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ReadEvent, readRecords } from '../../src/ingest/reader';

const REPLACED = 'the file has bytes that are not valid text in its encoding; they were replaced with U+FFFD';
const enc = new TextEncoder();
const utf8 = (...parts: (string | number[])[]): Uint8Array =>
  new Uint8Array(parts.flatMap((p) => (typeof p === 'string' ? [...enc.encode(p)] : p)));

/** UTF-16 bytes of JavaScript text (code units, so lone surrogates are written as they are), with a BOM. */
function utf16(text: string, le: boolean, bom = true): Uint8Array {
  const all = bom ? [0xfeff] : [];
  for (let i = 0; i < text.length; i++) all.push(text.charCodeAt(i));
  return new Uint8Array(all.flatMap((u) => (le ? [u & 0xff, u >> 8] : [u >> 8, u & 0xff])));
}

/** Bytes as a stream cut at the given sizes (repeated). */
function streamIn(bytes: Uint8Array, sizes: number[]): ReadableStream<Uint8Array> {
  let o = 0;
  let k = 0;
  return new ReadableStream({
    pull(c) {
      if (o >= bytes.length) return c.close();
      const n = sizes[k++ % sizes.length];
      c.enqueue(bytes.slice(o, o + n));
      o += n;
    },
  });
}

async function read(bytes: Uint8Array, sizes: number[] = [5]): Promise<ReadEvent[]> {
  const out: ReadEvent[] = [];
  for await (const ev of readRecords(streamIn(bytes, sizes))) out.push(ev);
  return out;
}

const values = (evs: ReadEvent[]) => evs.flatMap((e) => (e.kind === 'record' ? [e.record.value] : []));
const warnings = (evs: ReadEvent[]) => evs.flatMap((e) => (e.kind === 'warning' ? [e.message] : []));

describe('reader: decoding', () => {
  it('a U+FFFD the file holds (UTF-8, UTF-16LE, UTF-16BE) is read as that character, with no warning', async () => {
    const text = '{"a":"x\uFFFDy"}\n{"b":"\uFFFD\uFFFD"}\n';
    for (const sizes of [[1], [2], [3], [5], [64]]) {
      const r8 = await read(utf8(text), sizes);
      assert.deepEqual(values(r8), [{ a: 'x\uFFFDy' }, { b: '\uFFFD\uFFFD' }], `UTF-8 in chunks of ${sizes}`);
      assert.deepEqual(warnings(r8), [], `UTF-8 in chunks of ${sizes}`);
      for (const le of [true, false]) {
        const r16 = await read(utf16(text, le), sizes);
        assert.deepEqual(values(r16), [{ a: 'x\uFFFDy' }, { b: '\uFFFD\uFFFD' }]);
        assert.deepEqual(warnings(r16), [`decoded as UTF-16${le ? 'LE' : 'BE'}`], `${le} in chunks of ${sizes}`);
      }
    }
  });

  it('a character cut at the end of the file is replaced and warned about (after a last newline, or in the last line)', async () => {
    for (const sizes of [[1], [4], [64]]) {
      const afterNewline = await read(utf8('{"a":"\u00e9"}\n', [0xe6, 0x95]), sizes);
      assert.deepEqual(values(afterNewline), [{ a: '\u00e9' }]);
      assert.deepEqual(warnings(afterNewline), [REPLACED], `chunks of ${sizes}`);
      const inLine = await read(utf8('{"a":1}\n{"b":"', [0xf0, 0x9f, 0x98]), sizes);
      assert.deepEqual(values(inLine), [{ a: 1 }]);
      assert.deepEqual(warnings(inLine), [REPLACED]);
      // UTF-16: an odd last byte, and a high surrogate with nothing after it
      const odd = utf16('{"a":1}\n', true);
      assert.deepEqual(warnings(await read(new Uint8Array([...odd, 0x41]), sizes)), ['decoded as UTF-16LE', REPLACED]);
      assert.deepEqual(warnings(await read(utf16('{"a":1}\n\uD83D', false), sizes)), ['decoded as UTF-16BE', REPLACED]);
    }
  });

  it('an invalid byte right after a character split between chunks: the character is kept whole', async () => {
    // '{"t":"ab' is 8 bytes: chunks of 10 end inside 数 (e6 95 | b0), and the next chunk starts with its last byte
    const bytes = utf8('{"t":"ab\u6570', [0xff], 'c"}\n{"t":"\u00e9"}\n');
    for (const sizes of [[10], [9, 3], [10, 1], [7, 3, 64]]) {
      const r = await read(bytes, sizes);
      assert.deepEqual(values(r), [{ t: 'ab\u6570\uFFFDc' }, { t: '\u00e9' }], `chunks of ${sizes}`);
      assert.deepEqual(warnings(r), [REPLACED]);
    }
    // the same after a longer valid run (the held bytes come from the last chunk only)
    const long = utf8(`{"t":"${'x'.repeat(20)}\u{1F600}`, [0xc3], '"}\n');
    for (const sizes of [[22], [23], [24], [25], [26, 1], [21, 2]]) {
      assert.deepEqual(values(await read(long, sizes)), [{ t: `${'x'.repeat(20)}\u{1F600}\uFFFD` }], `chunks of ${sizes}`);
    }
  });

  it('UTF-16: a lone surrogate after a pair split between chunks, at odd and even offsets', async () => {
    for (const le of [true, false]) {
      const bytes = utf16('{"t":"a\u{1F600}\uDC00b"}\n{"t":"c"}\n', le);
      for (const sizes of [[1], [3], [13], [14], [15], [16], [17], [13, 2], [15, 1, 1]]) {
        const r = await read(bytes, sizes);
        assert.deepEqual(values(r), [{ t: 'a\u{1F600}\uFFFDb' }, { t: 'c' }], `${le ? 'LE' : 'BE'} in chunks of ${sizes}`);
        assert.deepEqual(warnings(r), [`decoded as UTF-16${le ? 'LE' : 'BE'}`, REPLACED]);
      }
    }
  });

  it('any bytes in any chunks decode as a lenient decoder reads the whole file, and are warned about iff a strict one refuses them', async () => {
    let seed = 20261204;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const good = ['a', 'b', ' ', '\u00e9', '\u6570', '\u{1F600}', '\uFFFD'];
    for (let round = 0; round < 160; round++) {
      const le = round % 3 === 1;
      const wide = round % 3 !== 0;
      const lines: (string | number[])[] = [];
      for (let l = 0; l < 3; l++) {
        lines.push('{"t":"');
        for (let k = rnd(12); k > 0; k--) {
          // mostly text; now and then a byte (UTF-8) or a surrogate (UTF-16) that is not valid on its own
          if (rnd(9) === 0) lines.push(wide ? String.fromCharCode([0xd800, 0xdbff, 0xdc00][rnd(3)]) : [[0xff], [0x80], [0xe6, 0x95], [0xc0, 0x80], [0xf0, 0x9f]][rnd(5)]);
          else lines.push(good[rnd(good.length)]);
        }
        lines.push('"}\n');
      }
      if (rnd(4) === 0) lines.push(wide ? '\uD800' : [0xe6]);
      const bytes = wide ? utf16(lines.map((p) => (typeof p === 'string' ? p : '')).join(''), le) : utf8(...lines);
      const sizes = [1 + rnd(7), 1 + rnd(7), 1 + rnd(40)];
      const whole = new TextDecoder(wide ? (le ? 'utf-16le' : 'utf-16be') : 'utf-8').decode(bytes);
      let strictOk = true;
      try {
        new TextDecoder(wide ? (le ? 'utf-16le' : 'utf-16be') : 'utf-8', { fatal: true }).decode(bytes);
      } catch {
        strictOk = false;
      }
      const r = await read(bytes, sizes);
      const texts = r.flatMap((e) => (e.kind === 'record' ? [e.record.text] : []));
      const expected = whole.split('\n').filter((l) => l.startsWith('{'));
      assert.deepEqual(texts, expected, `round ${round}, chunks of ${sizes}`);
      assert.equal(warnings(r).includes(REPLACED), !strictOk, `round ${round}, chunks of ${sizes}`);
    }
  });
});

describe('reader: SSE data lines in a JSON Lines log', () => {
  it('a payload with U+2028 / U+2029 in a string is read whole', async () => {
    const r = await read(utf8('{"a":1}\ndata: {"t":"x\u2028y\u2029z"}\ndata:{"u":"\u2028"}\n'), [64]);
    assert.deepEqual(values(r), [{ a: 1 }, { t: 'x\u2028y\u2029z' }, { u: '\u2028' }]);
    assert.deepEqual(
      r.flatMap((e) => (e.kind === 'record' ? [[e.record.line, e.record.index]] : [])),
      [
        [1, 0],
        [2, 1],
        [3, 2],
      ],
    );
  });
});
