/**
 * Mutation tests for the line reader (src/ingest/reader.ts) and its JSON value splitter
 * (src/ingest/json-values.ts): small inputs in the shapes real files have (JSONL logs with CRLF, a BOM,
 * a truncated last line, SSE captures, pretty-printed arrays, crash padding, gzip), each asserting line
 * numbers, record indexes and the exact reject / warning texts a user sees in the import report.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { gzipSync } from 'node:zlib';
import { looksLikeJsonLines, parseJson, parseOne, ValueSplitter } from '../../src/ingest/json-values';
import { isGzip, isParquet, type ReadEvent, type ReadOptions, readRecords, sniffEncoding, sniffMagic } from '../../src/ingest/reader';
import { streamOf } from './helpers/streams';

// Node 20 has JSON.parse source text access (Chromium and Node 21+ have it on) behind a V8 flag.
setFlagsFromString('--harmony-json-parse-with-source');

const enc = new TextEncoder();
const bytesOf = (...parts: (string | number[])[]): Uint8Array =>
  new Uint8Array(parts.flatMap((p) => (typeof p === 'string' ? [...enc.encode(p)] : p)));


type Out = { records: [unknown, number, number][]; rejects: [number, string][]; warnings: string[]; events: ReadEvent[] };

async function read(input: string | Uint8Array, opts: ReadOptions & { chunk?: number } = {}): Promise<Out> {
  const bytes = typeof input === 'string' ? enc.encode(input) : input;
  const out: Out = { records: [], rejects: [], warnings: [], events: [] };
  for await (const ev of readRecords(streamOf(bytes, opts.chunk ?? 5), opts)) {
    out.events.push(ev);
    if (ev.kind === 'record') out.records.push([ev.record.value, ev.record.line, ev.record.index]);
    else if (ev.kind === 'reject') out.rejects.push([ev.line, ev.reason]);
    else out.warnings.push(ev.message);
  }
  return out;
}

describe('reader: binary and encoding sniffing', () => {
  it('names each refused binary format by its magic number', async () => {
    const cases: [string, number[]][] = [
      ['PNG image', [0x89, 0x50, 0x4e, 0x47]],
      ['JPEG image', [0xff, 0xd8, 0xff]],
      ['GIF image', [0x47, 0x49, 0x46, 0x38]],
      ['PDF document', [0x25, 0x50, 0x44, 0x46]],
      ['ZIP archive', [0x50, 0x4b, 0x03, 0x04]],
      ['Parquet file', [0x50, 0x41, 0x52, 0x31]],
      ['SQLite / DuckDB database', [0x53, 0x51, 0x4c, 0x69]],
    ];
    for (const [name, sig] of cases) {
      assert.equal(sniffMagic(new Uint8Array([...sig, 0x20, 0x7b])), name);
      // one byte off is not that format
      assert.notEqual(sniffMagic(new Uint8Array([...sig.slice(0, -1), 0x20, 0x7b])), name);
    }
    assert.equal(sniffMagic(bytesOf('{"a":1}')), null);
    // text that begins like a PDF is still a PDF; the message names it
    await assert.rejects(read(bytesOf('%PDF-1.7\n%\u00e2\u00e3\n1 0 obj\n')), { name: 'ReadError', message: 'this is a binary file (PDF document), not JSON or JSON Lines text' });
    await assert.rejects(read(new Uint8Array(64).map((_, i) => (i * 7 + 1) % 8)), { name: 'ReadError', message: 'this is a binary file, not JSON or JSON Lines text' });
  });

  it('gzip and Parquet by their first bytes only', () => {
    assert.equal(isGzip(new Uint8Array([0x1f, 0x8b, 8])), true);
    assert.equal(isGzip(new Uint8Array([0x1f, 0x7b])), false);
    assert.equal(isGzip(new Uint8Array([0x7b, 0x8b])), false);
    assert.equal(isParquet(bytesOf('PAR1xxxx')), true);
    for (const s of ['XAR1', 'PXR1', 'PAX1', 'PARX']) assert.equal(isParquet(bytesOf(s)), false, s);
  });

  it('byte order marks: only the whole mark counts', () => {
    assert.deepEqual(sniffEncoding(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b])), { encoding: 'utf-8', bom: 3 });
    assert.deepEqual(sniffEncoding(new Uint8Array([0xff, 0xfe, 0x7b, 0])), { encoding: 'utf-16le', bom: 2 });
    assert.deepEqual(sniffEncoding(new Uint8Array([0xfe, 0xff, 0, 0x7b])), { encoding: 'utf-16be', bom: 2 });
    // a partial mark is not a BOM (these heads are plain text with a stray byte)
    for (const head of [
      [0xef, 0x41, 0x41, 0x41],
      [0x41, 0xbb, 0xbf, 0x41],
      [0xef, 0xbb, 0x41, 0x41],
      [0xff, 0x41, 0x41, 0x41],
      [0x41, 0xfe, 0x41, 0x41],
      [0xfe, 0x41, 0x41, 0x41],
      [0x41, 0xff, 0x41, 0x41],
    ]) {
      assert.deepEqual(sniffEncoding(new Uint8Array(head)), { encoding: 'utf-8', bom: 0 }, String(head));
    }
  });

  it('UTF-16 without a BOM, down to a 4-byte head', () => {
    assert.deepEqual(sniffEncoding(new Uint8Array([0x7b, 0, 0x7d, 0])), { encoding: 'utf-16le', bom: 0 });
    assert.deepEqual(sniffEncoding(new Uint8Array([0, 0x7b, 0, 0x7d])), { encoding: 'utf-16be', bom: 0 });
    const le = (s: string) => [...s].flatMap((c) => [c.charCodeAt(0), 0]);
    // stray NULs on the other side (2 of 20 pairs = 10 %) are too many for UTF-16
    const head = le('{"q":"abcdefghijkl"}');
    assert.deepEqual(sniffEncoding(new Uint8Array(head)), { encoding: 'utf-16le', bom: 0 });
    assert.notEqual(sniffEncoding(new Uint8Array([0, ...head.slice(1, 10), 0, ...head.slice(11)]))?.encoding, 'utf-16le');
    const beHead = head.map((_, i) => head[i ^ 1]);
    assert.deepEqual(sniffEncoding(new Uint8Array(beHead)), { encoding: 'utf-16be', bom: 0 });
    assert.notEqual(sniffEncoding(new Uint8Array([...beHead.slice(0, 9), 0, ...beHead.slice(10, 19), 0, ...beHead.slice(20)]))?.encoding, 'utf-16be');
    // NULs on under 30 % of the odd side (2 of 9) are not UTF-16; on 3 of 9 they are
    const sparse = (k: number) => bytesOf('{"a":"bcdefghij"}\n').map((x, i) => (i % 2 === 1 && i < 2 * k ? 0 : x));
    assert.notEqual(sniffEncoding(sparse(2))?.encoding, 'utf-16le');
    assert.equal(sniffEncoding(sparse(3))?.encoding, 'utf-16le');
  });

  it('control bytes: up to 10 % is text, more is binary; tab, LF, CR and ESC are not control bytes', () => {
    const ten = (b: number, k: number) => new Uint8Array([0x7b, ...Array(k).fill(b), ...bytesOf('"a":12345678').slice(0, 9 - k)]);
    assert.deepEqual(sniffEncoding(ten(1, 1)), { encoding: 'utf-8', bom: 0 });
    assert.equal(sniffEncoding(ten(1, 2)), null);
    for (const b of [8, 14, 31]) assert.equal(sniffEncoding(ten(b, 3)), null, `byte ${b}`);
    for (const b of [9, 10, 13, 27, 32]) assert.deepEqual(sniffEncoding(ten(b, 3)), { encoding: 'utf-8', bom: 0 }, `byte ${b}`);
  });

  it('NUL padding before the text: skipped when what follows starts JSON or an SSE field', () => {
    const pad = [0, 0, 32, 9, 10, 13, 0];
    for (const start of ['{"a":1}', '[1]', ': ping', 'data: {}', 'event: x', 'id: 1', 'retry: 10']) {
      assert.deepEqual(sniffEncoding(bytesOf(pad, start, '\n')), { encoding: 'utf-8', bom: 0 }, start);
    }
    for (const start of ['hello', 'dat: x', 'ids: 1']) assert.equal(sniffEncoding(bytesOf(pad, start, '\n')), null, start);
    assert.equal(sniffEncoding(new Uint8Array(16)), null);
    // a NUL, then text that is not UTF-8 → binary; a character cut at the head's end is fine
    assert.equal(sniffEncoding(new Uint8Array([0x7b, 0, 0x22, 0xff, 0xfe, 0x22, 0x7d])), null);
    const cut = bytesOf([0], '{"q":"', [0xc3]);
    assert.deepEqual(sniffEncoding(cut), { encoding: 'utf-8', bom: 0 });
    // padding plus a few control bytes (over 2 %) is binary
    assert.equal(sniffEncoding(bytesOf([0, 0], '{"a":', [1, 2], '1}\n')), null);
    assert.deepEqual(sniffEncoding(bytesOf([0, 0], '{"a":', [1], '1, "b": 22222222222222222222222222222222222222222222222}\n')), { encoding: 'utf-8', bom: 0 });
  });
});

describe('reader: JSON Lines', () => {
  it('line numbers, record indexes, CRLF, blank lines and the exact reject reason', async () => {
    const r = await read('{"a":1}\r\n{"a":2,}\r\n\r\n   \r\n{"a":3}\r\n');
    assert.deepEqual(r.records, [[{ a: 1 }, 1, 0], [{ a: 3 }, 5, 1]]);
    assert.equal(r.rejects.length, 1);
    assert.equal(r.rejects[0][0], 2);
    assert.match(r.rejects[0][1], /^malformed JSON: /);
    assert.deepEqual(r.warnings, []);
  });

  it('counts consumed bytes as they arrive', async () => {
    const text = '{"a":1}\n{"a":2}\n';
    const seen: number[] = [];
    await read(text, { chunk: 4, onBytes: (n) => seen.push(n) });
    assert.deepEqual(seen, [4, 8, 12, 16]);
  });

  it('a truncated last line is rejected with that line number; a whitespace tail is not', async () => {
    const r = await read('{"a":1}\n{"a":2}\n{"a":');
    assert.deepEqual(r.records.map((x) => x[1]), [1, 2]);
    assert.equal(r.rejects.length, 1);
    assert.equal(r.rejects[0][0], 3);
    assert.match(r.rejects[0][1], /^truncated last line: malformed JSON: /);
    const ok = await read('{"a":1}\n{"a":2}');
    assert.deepEqual(ok.records, [[{ a: 1 }, 1, 0], [{ a: 2 }, 2, 1]]);
    assert.deepEqual(ok.rejects, []);
    const tail = await read('{"a":1}\n   ');
    assert.deepEqual(tail.rejects, []);
    assert.equal(tail.records.length, 1);
  });

  it('lines longer than the limit are rejected by number with their length; the rest is read', async () => {
    const long = `{"t":"${'x'.repeat(40)}"}`;
    const r = await read(`{"a":1}\n${long}\n{"a":3}\n${long}`, { maxRecordChars: 30, chunk: 7 });
    assert.deepEqual(r.records, [[{ a: 1 }, 1, 0], [{ a: 3 }, 3, 1]]);
    assert.deepEqual(r.rejects, [
      [2, `line too long (${long.length} characters)`],
      [4, `line too long (${long.length} characters)`],
    ]);
    // exactly at the limit is fine
    const edge = `{"t":"${'x'.repeat(22)}"}`;
    assert.equal(edge.length, 30);
    const e = await read(`${edge}\n${edge}`, { maxRecordChars: 30, chunk: 3 });
    assert.equal(e.records.length, 2);
  });

  it('a file whose first line is not JSON is read as JSON Lines, not as a document', async () => {
    const r = await read('hello world\n{"a":1}\n{"a":2}\n');
    assert.deepEqual(r.records, [[{ a: 1 }, 2, 0], [{ a: 2 }, 3, 1]]);
    assert.deepEqual(r.rejects.map((x) => x[0]), [1]);
    const scalars = await read('1\n"two"\n');
    assert.deepEqual(scalars.records, [[1, 1, 0], ['two', 2, 1]]);
  });

  it('SSE data lines saved into a JSON Lines log, with or without the space; [DONE] with spaces', async () => {
    const r = await read('{"a":1}\ndata:{"a":2}\ndata:  {"a":3}\ndata:  [DONE]  \nevent: x\n');
    assert.deepEqual(r.records, [[{ a: 1 }, 1, 0], [{ a: 2 }, 2, 1], [{ a: 3 }, 3, 2]]);
    assert.deepEqual(r.rejects.map((x) => x[0]), [5]);
    assert.match(r.rejects[0][1], /^malformed JSON/);
  });

  it('a shard continues the line and record numbering and is always JSON Lines', async () => {
    const r = await read('[1,2]\n{"a":1}\n', { shard: { lines: 10, records: 4 } });
    assert.deepEqual(r.records, [[[1, 2], 11, 4], [{ a: 1 }, 12, 5]]);
    const blank = await read('  \n \n', { shard: { lines: 10, records: 4 } });
    assert.deepEqual(blank.events, []);
    assert.deepEqual((await read('  \n \n')).warnings, ['the file holds only whitespace']);
  });

  it('a BOM, also a doubled one (a file re-saved by a Windows editor), in chunks of any size', async () => {
    for (const chunk of [1, 2, 3, 4, 7]) {
      const one = await read(bytesOf([0xef, 0xbb, 0xbf], '{"a":1}\n{"a":2}\n'), { chunk });
      assert.deepEqual(one.records, [[{ a: 1 }, 1, 0], [{ a: 2 }, 2, 1]], `chunk ${chunk}`);
      assert.deepEqual(one.warnings, []);
      const two = await read(bytesOf([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf], '{"a":1}\n'), { chunk });
      assert.deepEqual(two.records, [[{ a: 1 }, 1, 0]], `doubled, chunk ${chunk}`);
    }
  });

  it('UTF-16 is said in a warning; invalid UTF-8 is replaced and warned about once', async () => {
    const text = '{"q":"h\u00e9"}\n';
    const le = new Uint8Array(text.length * 2);
    for (let i = 0; i < text.length; i++) le[2 * i] = text.charCodeAt(i);
    assert.deepEqual((await read(le)).warnings, ['decoded as UTF-16LE']);
    const be = new Uint8Array(text.length * 2);
    for (let i = 0; i < text.length; i++) be[2 * i + 1] = text.charCodeAt(i);
    const b = await read(be);
    assert.deepEqual(b.warnings, ['decoded as UTF-16BE']);
    assert.deepEqual(b.records, [[{ q: 'h\u00e9' }, 1, 0]]);
    const bad = await read(bytesOf('{"a":"x', [0xff], '"}\n{"a":"', [0xc3], '"}\n'), { chunk: 64 });
    assert.deepEqual(bad.warnings, ['the file has bytes that are not valid text in its encoding; they were replaced with U+FFFD']);
    assert.deepEqual(bad.records.map((x) => x[0]), [{ a: 'x\uFFFD' }, { a: '\uFFFD' }]);
  });

  it('NUL bytes in a line: the reason counts them and says whether anything else was there', async () => {
    const r = await read(bytesOf('{"a":1}\n', [0, 0, 0], '\n', [0, 0], '{"a":2}\n{"a":3}\n'));
    assert.deepEqual(r.records.map((x) => x[0]), [{ a: 1 }, { a: 3 }]);
    assert.deepEqual(r.rejects, [
      [2, '3 NUL bytes in this line (crash padding or binary data), nothing else'],
      [3, '2 NUL bytes in this record (crash padding or binary data)'],
    ]);
  });
});

describe('reader: gzip', () => {
  const lines = Array.from({ length: 200 }, (_, i) => JSON.stringify({ i, h: ((i * 2654435761) >>> 0).toString(36).repeat(3) }));

  it('decompresses, and a cut stream keeps the records before the cut with a reject at the next line', async () => {
    const gz = new Uint8Array(gzipSync(Buffer.from(`${lines.join('\n')}\n`)));
    const ok = await read(gz, { chunk: 512 });
    assert.equal(ok.records.length, 200);
    assert.deepEqual(ok.rejects, []);
    const cut = await read(gz.subarray(0, Math.floor(gz.length * 0.6)), { chunk: 512 });
    const n = cut.records.length;
    assert.ok(n > 20 && n < 200, `kept ${n}`);
    assert.ok(cut.records.every((x, i) => (x[0] as { i: number }).i === i && x[1] === i + 1));
    const last = cut.rejects.at(-1)!;
    assert.match(last[1], /^the gzip stream is truncated or corrupt from here on \(.+\); the records before were kept$/);
    // the cut line itself is rejected as truncated, the gzip reject comes after it
    assert.deepEqual(cut.rejects.map((x) => x[0]), [n + 1, n + 2]);
  });

  it('a cut gzip JSON array reports at the splitter line', async () => {
    const text = `[\n${lines.join(',\n')}\n]\n`;
    const gz = new Uint8Array(gzipSync(Buffer.from(text)));
    const cut = await read(gz.subarray(0, Math.floor(gz.length * 0.6)), { chunk: 512 });
    const n = cut.records.length;
    assert.ok(n > 20 && n < 200, `kept ${n}`);
    assert.deepEqual(cut.records.slice(0, 2).map((x) => x[1]), [2, 3]);
    const last = cut.rejects.at(-1)!;
    assert.match(last[1], /gzip stream is truncated/);
    assert.ok(last[0] >= n + 1 && last[0] <= n + 2, `gzip reject at line ${last[0]} after ${n} records`);
  });

  it('a gzip header with garbage after it is refused', async () => {
    const bad = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    await assert.rejects(read(bad), { name: 'ReadError', message: /^the gzip data is corrupt: / });
  });
});

describe('reader: JSON documents and arrays', () => {
  it('array elements: line numbers, indexes, scalars and strings with brackets, commas and escapes', async () => {
    const r = await read('[\n  {"a": "x,]}\\"{["},\n  1, "two\\\\", true,\n  null,\n  [3, {"b": [4]}]\n]\n', { chunk: 3 });
    assert.deepEqual(r.records, [
      [{ a: 'x,]}"{[' }, 2, 0],
      [1, 3, 1],
      ['two\\', 3, 2],
      [true, 3, 3],
      [null, 4, 4],
      [[3, { b: [4] }], 5, 5],
    ]);
    assert.deepEqual(r.rejects, []);
    assert.deepEqual(r.warnings, []);
  });

  it('empty arrays, leading/trailing commas and a last scalar right before ]', async () => {
    assert.deepEqual((await read('[]')).events, []);
    assert.deepEqual((await read(' [ ] \n')).events, []);
    assert.deepEqual((await read('[1,2]')).records.map((x) => x[0]), [1, 2]);
    assert.deepEqual((await read('[{"a":1},]')).records.map((x) => x[0]), [{ a: 1 }]);
    assert.deepEqual((await read('[,{"a":1}]')).records.map((x) => x[0]), [{ a: 1 }]);
  });

  it('text after the array is rejected once, with its line (it was dropped without a word)', async () => {
    const r = await read('[{"a":1}]\n\nxyz {"b":2}\n');
    assert.deepEqual(r.records.map((x) => x[0]), [{ a: 1 }]);
    assert.deepEqual(r.rejects, [[3, "unexpected character 'x' outside the top-level array"]]);
    // two exports appended into one file: both arrays are read
    const two = await read('[\n  {"a": 1}\n]\n[\n  {"a": 2}\n]\n');
    assert.deepEqual(two.records.map((x) => [x[0], x[1], x[2]]), [[{ a: 1 }, 2, 0], [{ a: 2 }, 5, 1]]);
    assert.deepEqual(two.rejects, []);
    const scalar = await read('[1, 2]\n3');
    assert.deepEqual(scalar.rejects, [[2, "unexpected character '3' outside the top-level array"]]);
    assert.deepEqual((await read('[{"a":1}]\n\uFEFF \t\r\n')).events.length, 1);
  });

  it('an array that is not closed: the open element is truncated JSON and a warning says so', async () => {
    const r = await read('[{"a":1},\n{"a":"b');
    assert.deepEqual(r.records.map((x) => x[0]), [{ a: 1 }]);
    assert.deepEqual(r.rejects, [[2, 'truncated JSON: the file ended inside this record']]);
    assert.deepEqual(r.warnings, ['the JSON array is not closed (file truncated?)']);
    const after = await read('[{"a":1},\n{"a":2}\n');
    assert.deepEqual(after.records.map((x) => [x[0], x[1]]), [[{ a: 1 }, 1], [{ a: 2 }, 2]]);
    assert.deepEqual(after.warnings, ['the JSON array is not closed (file truncated?)']);
  });

  it('an element over the size limit is rejected at its first line', async () => {
    const r = await read(`[\n{"a":1},\n{"t":"${'y'.repeat(50)}"},\n{"a":3}\n]`, { maxRecordChars: 30, chunk: 4 });
    assert.deepEqual(r.records.map((x) => [x[0], x[1], x[2]]), [[{ a: 1 }, 2, 0], [{ a: 3 }, 4, 1]]);
    assert.deepEqual(r.rejects, [[3, 'record too large (58 characters)']]);
  });

  it('pretty-printed objects one after another, and scalars between them', async () => {
    const r = await read('{\r\n  "a": 1\r\n}\r\n7\r\n{\n  "b": {"c": [1, 2]}\n}\n"s"\n', { chunk: 4 });
    assert.deepEqual(r.records, [[{ a: 1 }, 1, 0], [7, 4, 1], [{ b: { c: [1, 2] } }, 5, 2], ['s', 8, 3]]);
  });

  it('a pretty-printed document longer than eight lines whose first line is only {', async () => {
    const doc = { log: { version: '1.2', creator: { name: 'x' }, entries: [{ a: 1 }, { b: 2 }, { c: 3 }] } };
    const text = JSON.stringify(doc, null, 2);
    assert.ok(text.split('\n').length > 8);
    for (const chunk of [1, 5, 64, 4096]) {
      const r = await read(`${text}\n`, { chunk });
      assert.deepEqual(r.records, [[doc, 1, 0]], `chunk ${chunk}`);
    }
  });

  it('a broken element that swallowed others: the split keeps the good ones with their lines', async () => {
    const r = await read('[\n  {"a": 1},\n  {"a": [2, 3, "b": 4},\n  {"a": 5},\n  [6],\n  {"a": 7}\n]\n');
    assert.deepEqual(r.records.map((x) => [x[0], x[1], x[2]]), [[{ a: 1 }, 2, 0], [{ a: 5 }, 4, 1], [[6], 5, 2], [{ a: 7 }, 6, 3]]);
    assert.equal(r.rejects.length, 1);
    assert.equal(r.rejects[0][0], 3);
    assert.match(r.rejects[0][1], /^malformed JSON: .* \(the elements after it were read on their own\)$/);
    assert.deepEqual(r.warnings, []);
  });

  it('a broken element inside an array that is also cut: the warning stays, the split elements are read', async () => {
    const r = await read('[\n  {"a": [1},\n  {"a": 2},\n  {"a": 3}\n');
    assert.deepEqual(r.records.map((x) => [x[0], x[1]]), [[{ a: 2 }, 3], [{ a: 3 }, 4]]);
    assert.deepEqual(r.rejects.map((x) => x[0]), [2]);
    assert.deepEqual(r.warnings, ['the JSON array is not closed (file truncated?)']);
  });

  it('a string with an escaped quote inside a broken element does not confuse the split', async () => {
    const r = await read('[\n{"q": "say \\"[\\" {", "b": [},\n{"a": 2}\n]');
    assert.deepEqual(r.records.map((x) => [x[0], x[1]]), [[{ a: 2 }, 3]]);
    assert.deepEqual(r.rejects.map((x) => x[0]), [2]);
    // a broken element with no good element after it is one reject (the split finds nothing)
    const none = await read('[\n{"a": [1},\n{"b": [2}\n]');
    assert.deepEqual(none.records, []);
    assert.equal(none.rejects.length >= 1, true);
    assert.equal(none.rejects[0][0], 2);
  });
});

describe('reader: JSON value splitting, exactly', () => {
  const texts = async (input: string, opts: ReadOptions & { chunk?: number } = {}) =>
    (await read(input, opts)).events.map((e) => (e.kind === 'record' ? e.record.text : e.kind === 'reject' ? `reject ${e.line}: ${e.reason}` : `warning: ${e.message}`));

  it('each record keeps exactly its own text, whatever the chunks', async () => {
    for (const chunk of [1, 3, 4, 64]) {
      assert.deepEqual(await texts('[{"a":1},   {"b":2} ,\n 3 ]', { chunk }), ['{"a":1}', '{"b":2}', '3 '], `chunk ${chunk}`);
      assert.deepEqual(await texts('{\r\n "a": 1\r\n}\r\n7\r\n"s"\r\n', { chunk }), ['{\r\n "a": 1\r\n}', '7', '"s"'], `chunk ${chunk}`);
    }
    assert.deepEqual(await texts('[1,,2,]'), ['1', '2']);
  });

  it('an escaped quote as the first thing in the first string', async () => {
    assert.deepEqual((await read('["\\"x,", 2]')).records.map((x) => x[0]), ['"x,', 2]);
  });

  it('an element exactly at the size limit is read whole; one more character is too large', async () => {
    const el = `{"t":"${'z'.repeat(22)}"}`;
    assert.equal(el.length, 30);
    for (const chunk of [1, 7, 64]) {
      assert.deepEqual(await texts(`[${el}, 1]`, { maxRecordChars: 30, chunk }), [el, '1'], `chunk ${chunk}`);
      assert.deepEqual(await texts(`[${el}, 1]`, { maxRecordChars: 29, chunk }), ['reject 1: record too large (30 characters)', '1'], `chunk ${chunk}`);
    }
  });

  it('a broken element whose brackets pair up is one reject: the objects nested in it never become elements', async () => {
    const r = await read('[\n  {"a": "]\\"", "m": [\n    {"r": 1},\n    {"r": 2}\n  ], "bad": ,},\n  {"a": 7}\n]\n');
    assert.deepEqual(r.records.map((x) => [x[0], x[1]]), [[{ a: 7 }, 6]]);
    assert.deepEqual(r.rejects.map((x) => x[0]), [2]);
    assert.match(r.rejects[0][1], /^malformed JSON: /);
    assert.doesNotMatch(r.rejects[0][1], /read on their own/);
  });

  it('an element left open (no bracket mismatch) at the end: split off the elements it swallowed, the array closed after a scalar', async () => {
    const r = await read('[\n  {"a": [1, 2,\n  {"b": 3},\n  {"c": 4},\n  5\n]');
    assert.deepEqual(r.records.map((x) => [x[0], x[1], x[2]]), [[{ b: 3 }, 3, 0], [{ c: 4 }, 4, 1], [5, 5, 2]]);
    assert.deepEqual(r.rejects.map((x) => x[0]), [2]);
    assert.match(r.rejects[0][1], /\(the elements after it were read on their own\)$/);
    assert.deepEqual(r.warnings, []);
  });

  it('a split whose head parses (the unclosed bracket is in a later element) keeps both, in order', async () => {
    const r = await read('[\n  {"a": 1},\n  {"b": [2},\n  {"c": 3}\n]');
    assert.deepEqual(r.records.map((x) => [x[0], x[2]]), [[{ a: 1 }, 0], [{ c: 3 }, 1]]);
    assert.deepEqual(r.rejects.map((x) => x[0]), [3]);
  });

  it('the split picks the least indented element starts, allows spaces after the comma, and reads on after a nested split', async () => {
    const deep = await read('[\n  {"messages": [\n    {"role": "user", "content": "x"}, \n    {"role": "assistant", "content": "y"}\n  }, \n  {"a": 8},\n  {"a": 9}\n]\n');
    assert.deepEqual(deep.records.map((x) => [x[0], x[1]]), [[{ a: 8 }, 6], [{ a: 9 }, 7]]);
    assert.deepEqual(deep.rejects.map((x) => x[0]), [2]);
    assert.deepEqual(deep.warnings, []);
    const two = await read('[{"a": 1},\n{"a": [[2},\n{"a": 3},\n{"b": {"c": [},\n{"a": 4}]');
    assert.deepEqual(two.records.map((x) => [x[0], x[2]]), [[{ a: 1 }, 0], [{ a: 3 }, 1], [{ a: 4 }, 2]]);
    assert.deepEqual(two.rejects.map((x) => x[0]), [2, 4]);
    assert.deepEqual(two.warnings, []);
  });

  it('rejects inside the split-off rest are kept (text after the array)', async () => {
    const r = await read('[\n{"a": [[1},\n{"b": 2}\n] x\n');
    assert.deepEqual(r.records.map((x) => x[0]), [{ b: 2 }]);
    assert.deepEqual(r.rejects.map((x) => [x[0], x[1].replace(/^malformed JSON: .*/, 'malformed')]), [[2, 'malformed'], [4, "unexpected character 'x' outside the top-level array"]]);
    assert.deepEqual(r.warnings, []);
  });

  it('the array closed inside a nested split: no warning', async () => {
    const r = await read('[\n{"a": [[1},\n{"b": 2},\n{"c": [3},\n{"d": 4}\n]');
    assert.deepEqual(r.records.map((x) => [x[0], x[1], x[2]]), [[{ b: 2 }, 3, 0], [{ d: 4 }, 5, 1]]);
    assert.deepEqual(r.rejects.map((x) => x[0]), [2, 4]);
    assert.deepEqual(r.warnings, []);
  });

  it('a broken pretty-printed document (not an array) is one truncated reject, never split', async () => {
    const r = await read('{\n  "x": [1,\n  {"b": 2}\n}\n');
    assert.deepEqual(r.records, []);
    assert.deepEqual(r.rejects, [[1, 'truncated JSON: the file ended inside this record']]);
  });

  it('a top-level string left open at the end of a document is truncated JSON', async () => {
    const r = await read('{\n "a": 1\n}\n"abc');
    assert.deepEqual(r.records.map((x) => x[0]), [{ a: 1 }]);
    assert.deepEqual(r.rejects, [[4, 'truncated JSON: the file ended inside this record']]);
    const open = await read('{\n "a": 1\n}\n{"b": 2');
    assert.deepEqual(open.rejects, [[4, 'truncated JSON: the file ended inside this record']]);
  });
});

describe('reader: SSE and YAML', () => {
  it('SSE events: line of the data field, indexes, multi-line data, an event left open at the end', async () => {
    const text = 'event: message_start\r\ndata: {"type":"message_start"}\r\n\r\n: ping\r\n\r\nevent: x\r\ndata: {"a":\r\ndata: 1}\r\n\r\ndata: [DONE]\r\n\r\ndata: {"type":"message_stop"}';
    const r = await read(text, { chunk: 6 });
    assert.deepEqual(r.records.map((x) => [x[0], x[2]]), [[{ type: 'message_start' }, 0], [{ a: 1 }, 1], [{ type: 'message_stop' }, 2]]);
    assert.equal(r.records[0][1], 1);
    assert.ok(r.records[1][1] >= 6 && r.records[1][1] <= 7);
    assert.deepEqual(r.rejects, []);
    const bad = await read('data: {"a":1}\n\ndata: {broken\n\n');
    assert.deepEqual(bad.records.map((x) => x[0]), [{ a: 1 }]);
    assert.equal(bad.rejects.length, 1);
    assert.match(bad.rejects[0][1], /^malformed JSON/);
  });

  it('a VCR cassette (YAML) is read as YAML documents', async () => {
    const r = await read('interactions:\n- request:\n    method: POST\n    uri: https://api.openai.com/v1/chat/completions\nversion: 1\n');
    assert.equal(r.records.length, 1);
    assert.equal((r.records[0][0] as { version: number }).version, 1);
  });
});

describe('json-values', () => {
  it('integers beyond 2^53 stay exact as text; safe integers, decimals and exponents stay numbers', () => {
    assert.deepEqual(parseJson('{"id": 12345678901234567890, "neg": -98765432109876543210, "n": 3}'), { id: '12345678901234567890', neg: '-98765432109876543210', n: 3 });
    assert.deepEqual(parseJson('[9007199254740991, 9007199254740993, 12345678901234567890.5, 1e21, 2e400]'), [9007199254740991, '9007199254740993', 12345678901234567000, 1e21, Infinity]);
    // 16 digits in a string only: no change
    assert.deepEqual(parseJson('{"s": "1234567890123456", "n": 1.5}'), { s: '1234567890123456', n: 1.5 });
  });

  it('parseOne: the record keeps its text, line and index; errors say what kind', () => {
    assert.deepEqual(parseOne('{"a":1}', 4, 2), { kind: 'record', record: { value: { a: 1 }, line: 4, index: 2, text: '{"a":1}' } });
    const bad = parseOne('{"a":}', 5, 0);
    assert.equal(bad.kind, 'reject');
    assert.equal(bad.line, 5);
    const deep = parseOne(`${'['.repeat(5000)}12345678901234567890${']'.repeat(5000)}`, 1, 0);
    assert.equal(deep.kind, 'reject');
    assert.match((deep as { reason: string }).reason, /^nested more than 200 levels deep/);
  });

  it('looksLikeJsonLines: first line whole, or a later whole object at column 0 within 50 lines', () => {
    assert.equal(looksLikeJsonLines('{"a":1}'), true);
    assert.equal(looksLikeJsonLines('{"a":1}  \r\n{'), true);
    assert.equal(looksLikeJsonLines('{"a": [\n{"b":1}\n'), true);
    assert.equal(looksLikeJsonLines('{"a": [\r\n{"b":1}\r\n'), true);
    assert.equal(looksLikeJsonLines('{"a": [\n{"b":1} \n'), true);
    assert.equal(looksLikeJsonLines('{"a": [\n{"b":1}'), false, 'the last line may be incomplete');
    assert.equal(looksLikeJsonLines('{"a": [\n {"b":1}\n'), false, 'indented: part of a document');
    assert.equal(looksLikeJsonLines('{"a": [\n{"b":1},\n'), false);
    assert.equal(looksLikeJsonLines('{"a": [\n{"b": }\n'), false);
    assert.equal(looksLikeJsonLines('{\n  "a": 1\n}\n'), false);
    const filler = (k: number) => Array(k).fill('  1,').join('\n');
    assert.equal(looksLikeJsonLines(`{"a": [\n${filler(48)}\n{"b":1}\n`), true, 'line 50');
    assert.equal(looksLikeJsonLines(`{"a": [\n${filler(49)}\n{"b":1}\n`), false, 'line 51');
  });

  it('ValueSplitter in concatenated mode: values split at depth 0, lines counted', () => {
    const s = new ValueSplitter(false, 1000);
    const evs = [...s.push('{"a":1}{"b":\n2} 3\n"x"\n'), ...s.end()];
    assert.deepEqual(evs, [
      { kind: 'value', text: '{"a":1}', line: 1 },
      { kind: 'value', text: '{"b":\n2}', line: 1 },
      { kind: 'value', text: '3', line: 2 },
      { kind: 'value', text: '"x"', line: 3 },
    ]);
    assert.equal(s.line, 4);
    const t = new ValueSplitter(false, 1000);
    assert.deepEqual([...t.push('{"a": "b'), ...t.end()], [{ kind: 'value', text: '{"a": "b', line: 1, truncated: true }]);
    const u = new ValueSplitter(false, 1000);
    assert.deepEqual([...u.push('{"a": 1} 42'), ...u.end()].at(-1), { kind: 'value', text: '42', line: 1 });
  });
});
