/**
 * JSON values for the reader (src/ingest/json-values.ts): integer ids of any length kept exact, and the bound on the
 * split points tried in a broken array element.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { parseJson } from '../../src/ingest/json-values';
import { type ReadEvent, readRecords } from '../../src/ingest/reader';

// Node 20 has JSON.parse source text access (Chromium and Node 21+ have it on) behind a V8 flag.
setFlagsFromString('--harmony-json-parse-with-source');

async function read(text: string): Promise<ReadEvent[]> {
  const bytes = new TextEncoder().encode(text);
  const out: ReadEvent[] = [];
  for await (const ev of readRecords(new Blob([bytes]).stream())) out.push(ev);
  return out;
}

describe('json-values: big integers', () => {
  it('an integer id too long for a double (past Infinity) is kept as its text, like any id past 2^53', () => {
    const long = `1${'0'.repeat(400)}`;
    assert.deepEqual(parseJson(`{"id": ${long}, "neg": -${long}, "n": -7, "x": 1e400}`), { id: long, neg: `-${long}`, n: -7, x: Infinity });
    assert.deepEqual(parseJson(`[${long}]`), [long]);
    // strings of digits stay strings; a safe negative integer stays a number
    assert.deepEqual(parseJson('{"s": "12345678901234567890", "m": -9007199254740991, "b": -9007199254740993}'), {
      s: '12345678901234567890',
      m: -9007199254740991,
      b: '-9007199254740993',
    });
  });
});

describe('json-values: a broken array element', () => {
  it('at most 50 split points are tried: a good element after 50 broken ones is lost with them', async () => {
    const broken = (k: number) => Array.from({ length: k }, (_, i) => `{"b": [${i}},`).join('\n');
    const values = (evs: ReadEvent[]) => evs.flatMap((e) => (e.kind === 'record' ? [e.record.value] : []));
    // 49 broken elements after the first: the 50th split point starts the good one
    const within = await read(`[\n{"a": [0},\n${broken(49)}\n{"c": 3}\n]\n`);
    assert.deepEqual(values(within), [{ c: 3 }]);
    const beyond = await read(`[\n{"a": [0},\n${broken(50)}\n{"c": 3}\n]\n`);
    assert.deepEqual(values(beyond), []);
    assert.deepEqual(
      beyond.map((e) => (e.kind === 'warning' ? e.message : e.kind === 'reject' ? [e.line, e.reason] : e.kind)),
      [[2, 'truncated JSON: the file ended inside this record'], 'the JSON array is not closed (file truncated?)'],
    );
  });

  it('an element whose string is never closed: the elements after it are read on their own', async () => {
    const r = await read('[\n"abc,\n{"x": 1},\n{"y": 2}\n]\n');
    assert.deepEqual(
      r.map((e) => (e.kind === 'record' ? [e.record.line, e.record.index, e.record.value] : e.kind === 'reject' ? [e.line, e.reason.replace(/^malformed JSON: .*( \(the elements)/, 'malformed$1')] : e.message)),
      [
        [2, 'malformed (the elements after it were read on their own)'],
        [3, 0, { x: 1 }],
        [4, 1, { y: 2 }],
      ],
    );
  });

  it('text after an array closed inside a split element: a second array is read, other text rejected once', async () => {
    const r = await read('[\n{"a": [1},\n{"b": 2}\n]\n[{"c": 3}]\nxy\n');
    assert.deepEqual(
      r.map((e) => (e.kind === 'record' ? [e.record.line, e.record.value] : e.kind === 'reject' ? [e.line, e.reason.slice(0, 24)] : e.message)),
      [
        [2, 'malformed JSON: Expected'],
        [3, { b: 2 }],
        [5, { c: 3 }],
        [6, "unexpected character 'x'"],
      ],
    );
  });
});

describe('json-values: concatenated documents', () => {
  it('a stray closing bracket between pretty-printed documents is one reject; the documents after it are read', async () => {
    for (const stray of ['}', ']']) {
      const r = await read(`{\n "a": 1\n}\n${stray}\n7\n{\n "b": 2\n}\n`);
      assert.deepEqual(
        r.map((e) => (e.kind === 'record' ? [e.record.line, e.record.index, e.record.value] : e.kind === 'reject' ? [e.line, e.reason] : e.message)),
        [
          [1, 0, { a: 1 }],
          [4, `malformed JSON: Unexpected token '${stray}', "${stray}" is not valid JSON`],
          [5, 1, 7],
          [6, 2, { b: 2 }],
        ],
      );
    }
  });
});
