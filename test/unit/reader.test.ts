
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { type ReadEvent, readRecords, type ReadOptions, sniffEncoding } from '../../src/ingest/reader';
import { streamOf } from './helpers/streams';

async function read(input: string | Uint8Array, chunk = 7): Promise<{ records: { v: unknown; line: number }[]; rejects: { line: number; reason: string }[]; warnings: string[] }> {
  const bytes = typeof input === 'string' ? new TextEncoder().encode(input) : input;
  const out = { records: [] as { v: unknown; line: number }[], rejects: [] as { line: number; reason: string }[], warnings: [] as string[] };
  const evs: ReadEvent[] = [];
  for await (const ev of readRecords(streamOf(bytes, chunk))) evs.push(ev);
  for (const ev of evs) {
    if (ev.kind === 'record') out.records.push({ v: ev.record.value, line: ev.record.line });
    else if (ev.kind === 'reject') out.rejects.push({ line: ev.line, reason: ev.reason });
    else out.warnings.push(ev.message);
  }
  return out;
}

describe('reader', () => {
  it('JSONL: bad lines reported by number, good kept, CRLF and blank lines', async () => {
    const r = await read('{"a":1}\r\n{"a":2,}\r\n\r\n{"a":3}\r\n');
    assert.deepEqual(r.records, [{ v: { a: 1 }, line: 1 }, { v: { a: 3 }, line: 4 }]);
    assert.equal(r.rejects.length, 1);
    assert.equal(r.rejects[0].line, 2);
    assert.match(r.rejects[0].reason, /malformed JSON/);
  });

  it('JSONL whose first line is malformed: that line is rejected, the good lines after it are kept', async () => {
    for (const first of ['{"messages": [}', '{"messages": [', '{"a": 1,,}']) {
      const r = await read(`${first}\n{"a":2}\n{"a":3}\n`);
      assert.deepEqual(r.records.map((x) => [x.v, x.line]), [[{ a: 2 }, 2], [{ a: 3 }, 3]], first);
      assert.deepEqual(r.rejects.map((x) => x.line), [1], first);
    }
  });

  it('JSONL: truncated last line', async () => {
    const r = await read('{"a":1}\n{"a":2}\n{"a":');
    assert.equal(r.records.length, 2);
    assert.equal(r.rejects[0].line, 3);
    assert.match(r.rejects[0].reason, /truncated last line/);
  });

  it('UTF-8 BOM, UTF-16 LE and BE', async () => {
    const text = '{"q":"héllo ☃"}\n{"q":"b"}\n';
    const bom = await read(new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text)]));
    assert.equal(bom.records.length, 2);
    const le = new Uint8Array(2 + text.length * 2);
    le[0] = 0xff;
    le[1] = 0xfe;
    for (let i = 0; i < text.length; i++) {
      le[2 + 2 * i] = text.charCodeAt(i) & 0xff;
      le[3 + 2 * i] = text.charCodeAt(i) >> 8;
    }
    const r1 = await read(le);
    assert.deepEqual(r1.records.map((x) => x.v), [{ q: 'héllo ☃' }, { q: 'b' }]);
    const be = new Uint8Array(text.length * 2);
    for (let i = 0; i < text.length; i++) {
      be[2 * i] = text.charCodeAt(i) >> 8;
      be[2 * i + 1] = text.charCodeAt(i) & 0xff;
    }
    const r2 = await read(be);
    assert.deepEqual(r2.records.map((x) => x.v), [{ q: 'héllo ☃' }, { q: 'b' }]);
  });

  it('invalid UTF-8 bytes are replaced and warned about', async () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('{"a":"x'), 0xff, 0xfe, ...new TextEncoder().encode('"}\n{"a":2}\n')]);
    const r = await read(bytes);
    assert.equal(r.records.length, 2);
    assert.ok(r.warnings.some((w) => /not valid text/.test(w)));
  });

  it('gzip is decompressed; truncated gzip keeps what came before', async () => {
    const lines = Array.from({ length: 2000 }, (_, i) => JSON.stringify({ i, pad: 'x'.repeat(50) })).join('\n');
    const gz = gzipSync(Buffer.from(lines));
    const ok = await read(new Uint8Array(gz), 4096);
    assert.equal(ok.records.length, 2000);
    const cut = new Uint8Array(gz.subarray(0, Math.floor(gz.length / 2)));
    const r = await read(cut, 4096);
    assert.ok(r.records.length > 100 && r.records.length < 2000, `kept ${r.records.length}`);
    assert.ok(r.records.every((x, i) => (x.v as { i: number }).i === i));
    assert.match(r.rejects.at(-1)!.reason, /gzip stream is truncated/);
  });

  it('empty, whitespace-only and binary files', async () => {
    assert.deepEqual((await read('')).warnings, ['the file is empty']);
    assert.deepEqual((await read('  \n\n \t')).warnings, ['the file holds only whitespace']);
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);
    await assert.rejects(read(png), /binary file \(PNG image\)/);
  });

  it('JSON array with a broken element in the middle', async () => {
    const r = await read('[\n  {"a": 1},\n  {"a": 2,, "b": "x,]}"},\n  {"a": "3 ] }"}\n]\n');
    assert.deepEqual(r.records.map((x) => x.v), [{ a: 1 }, { a: '3 ] }' }]);
    assert.deepEqual(r.records.map((x) => x.line), [2, 4]);
    assert.equal(r.rejects[0].line, 3);
  });

  it('JSONL: an SSE data line saved among JSON lines is read as its payload; [DONE] is skipped', async () => {
    const r = await read('{"a":1}\ndata: {"a":2}\ndata: [DONE]\ndata: {broken\n');
    assert.deepEqual(r.records.map((x) => [x.v, x.line]), [[{ a: 1 }, 1], [{ a: 2 }, 2]]);
    assert.deepEqual(r.rejects.map((x) => x.line), [4]);
  });

  it('crash padding (a run of NUL bytes) in the first 4 KiB rejects only its own line; the other 20 lines are kept', async () => {
    const line = (i: number) => JSON.stringify({ messages: [{ role: 'user', content: `q${i}` }, { role: 'assistant', content: `a${i}` }] });
    const enc = new TextEncoder();
    const parts: Uint8Array[] = [];
    for (let i = 1; i <= 10; i++) parts.push(enc.encode(`${line(i)}\n`));
    parts.push(new Uint8Array(600), enc.encode('\n')); // line 11: what a crash leaves behind
    for (let i = 11; i <= 20; i++) parts.push(enc.encode(`${line(i)}\n`));
    parts.push(new Uint8Array(40)); // and padding at the end, with no newline
    const bytes = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
    let o = 0;
    for (const p of parts) {
      bytes.set(p, o);
      o += p.length;
    }
    assert.ok(bytes.indexOf(0) < 4096);
    const r = await read(bytes, 997);
    assert.equal(r.records.length, 20);
    assert.deepEqual(r.rejects.map((x) => x.line), [11, 22]);
    assert.match(r.rejects[0].reason, /NUL bytes/);
    // a NUL-prefixed record line is that line's problem, not the file's
    const glued = await read(`{"a":1}\n\u0000\u0000{"a":2}\n{"a":3}\n`);
    assert.deepEqual(glued.records.map((x) => x.v), [{ a: 1 }, { a: 3 }]);
    assert.deepEqual(glued.rejects.map((x) => x.line), [2]);
  });

  it('binary files are still refused: magic numbers, and heads that are not text', async () => {
    const elfLike = new Uint8Array(512).map((_, i) => (i * 37) % 256);
    await assert.rejects(read(elfLike), /binary file/);
    const sqliteNoMagic = new Uint8Array([0x7b, 0, 1, 2, 3, 0, 0, 0, 0xff, 0xfe, 0x80, 0x81, 0, 0, 5, 6, 0x90, 0, 0, 0, 0x11, 0x12, 0x13, 0, 0]);
    await assert.rejects(read(sqliteNoMagic), /binary file/);
  });

  it('a broken array element with an unbalanced [ does not swallow the good elements after it', async () => {
    const r = await read('[\n  {"a": 1},\n  {"a": [2, 3, "b": 4},\n  {"a": 5},\n  {"a": 6}\n]\n');
    assert.deepEqual(r.records.map((x) => x.v), [{ a: 1 }, { a: 5 }, { a: 6 }]);
    assert.deepEqual(r.records.map((x) => x.line), [2, 4, 5]);
    assert.deepEqual(r.rejects.map((x) => x.line), [3]);
    assert.deepEqual(r.warnings, []);
    // two levels unbalanced, and two broken elements
    const two = await read('[{"a": 1},\n{"a": [[2},\n{"a": 3},\n{"b": {"c": [},\n{"a": 4}]');
    assert.deepEqual(two.records.map((x) => x.v), [{ a: 1 }, { a: 3 }, { a: 4 }]);
    assert.deepEqual(two.rejects.map((x) => x.line), [2, 4]);
    assert.deepEqual(two.warnings, []);
    // a broken element whose brackets pair up is one reject; its nested lines never become elements
    const nested = await read('[\n  {"messages": [\n    {"role": "user", "content": "x"},\n    {"role": "assistant", "content": "y"}\n  ], "bad": ,},\n  {"a": 7}\n]\n');
    assert.deepEqual(nested.records.map((x) => x.v), [{ a: 7 }]);
    assert.deepEqual(nested.rejects.map((x) => x.line), [2]);
    // unbalanced, pretty-printed: the split is at the array's own elements, not at nested objects
    const deep = await read('[\n  {"messages": [\n    {"role": "user", "content": "x"},\n    {"role": "assistant", "content": "y"}\n  },\n  {"a": 8},\n  {"a": 9}\n]\n');
    assert.deepEqual(deep.records.map((x) => x.v), [{ a: 8 }, { a: 9 }]);
    assert.deepEqual(deep.rejects.map((x) => x.line), [2]);
    assert.deepEqual(deep.warnings, []);
    // an element left open at the very end is still a truncated record, and the array not closed is said
    const cut = await read('[{"a": 1},\n{"a": [2');
    assert.deepEqual(cut.records.map((x) => x.v), [{ a: 1 }]);
    assert.match(cut.rejects[0].reason, /truncated JSON/);
    assert.match(cut.warnings.join(' '), /not closed/);
  });

  it('a pretty-printed single object and concatenated objects', async () => {
    const one = await read('{\n  "log": {\n    "entries": [1, 2]\n  }\n}\n');
    assert.deepEqual(one.records.map((x) => x.v), [{ log: { entries: [1, 2] } }]);
    const two = await read('{\n "a": 1\n}\n{\n "a": 2\n}\n');
    assert.deepEqual(two.records.map((x) => x.line), [1, 4]);
  });

  it('SSE text, with [DONE] and comments', async () => {
    const r = await read('event: message_start\ndata: {"type":"message_start"}\n\n: ping\n\ndata: {"type":"x"}\n\ndata: [DONE]\n\n');
    assert.deepEqual(r.records.map((x) => x.v), [{ type: 'message_start' }, { type: 'x' }]);
    assert.deepEqual(r.records.map((x) => x.line), [1, 6]);
  });

  const sourceText = (() => {
    let seen = false;
    JSON.parse('1', (_k, v, ctx?: { source?: string }) => {
      seen = ctx?.source === '1';
      return v;
    });
    return seen;
  })();

  it('integers beyond 2^53 stay exact as text', { skip: !sourceText && 'JSON.parse source text access needs Chromium / Node 21+' }, async () => {
    const r = await read('{"id": 12345678901234567890, "n": 3, "f": 1.5}\n');
    assert.deepEqual(r.records[0].v, { id: '12345678901234567890', n: 3, f: 1.5 });
  });

  it('a record nested deeper than 200 levels is a reject with its line (JSON Lines, a JSON array, SSE); 200 levels are read', async () => {
    const nest = (n: number) => `${'{"a":['.repeat(n / 2)}1${']}'.repeat(n / 2)}`;
    const reason = 'nested more than 200 levels deep: a record this deep is hostile or broken (the importer reads 200 levels, as it redacts them); the other records are read';
    for (const depth of [202, 10_000, 100_000]) {
      const jsonl = await read(`{"ok": 1}\n{"messages": [{"role": "user", "content": ${nest(depth)}}]}\n{"ok": 3}\n`, 4096);
      assert.deepEqual(jsonl.records.map((x) => x.line), [1, 3], `${depth}`);
      assert.deepEqual(jsonl.rejects, [{ line: 2, reason }], `${depth}`);
      const array = await read(`[\n  {"ok": 1},\n  ${nest(depth)},\n  {"ok": 3}\n]\n`, 4096);
      assert.deepEqual([array.records.length, array.rejects], [2, [{ line: 3, reason }]], `${depth}`);
      const sse = await read(`data: {"ok": 1}\n\ndata: ${nest(depth)}\n\n`, 4096);
      assert.deepEqual([sse.records.length, sse.rejects.map((x) => x.reason)], [1, [reason]], `${depth}`);
    }
    // brackets inside strings do not count; 200 levels are read
    const inText = await read(`{"s": "${'['.repeat(1000)}\\"${'{'.repeat(1000)}"}\n${nest(200)}\n`, 4096);
    assert.deepEqual([inText.records.length, inText.rejects], [2, []]);
  });

  it('a single multi-megabyte line', async () => {
    const big = JSON.stringify({ text: 'y'.repeat(5_000_000) });
    const r = await read(`${big}\n{"a":1}\n`, 65536);
    assert.equal(r.records.length, 2);
    assert.equal((r.records[0].v as { text: string }).text.length, 5_000_000);
  });
});

describe('reader: SSE that starts with a comment', () => {
  it('is read as SSE', async () => {
    const text = ': keep-alive\n\ndata: {"id":"c1","object":"chat.completion.chunk"}\n\ndata: [DONE]\n\n';
    const bytes = new TextEncoder().encode(text);
    const out: unknown[] = [];
    for await (const ev of readRecords(streamOf(bytes, 5))) if (ev.kind === 'record') out.push(ev.record.value);
    assert.deepEqual(out, [{ id: 'c1', object: 'chat.completion.chunk' }]);
  });
});

describe('reader: text decoding', () => {
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
});

describe('reader: events as the import report shows them', () => {
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
});

describe('reader: line splitting', () => {
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
});

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

describe('reader: the byte stream and container choice', () => {
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
});
