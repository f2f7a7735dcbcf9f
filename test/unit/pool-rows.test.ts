/**
 * tableToRows decodes by column (a string chunk at once, lists by offsets, structs by fields): differential against
 * the value-by-value decoder (`plain` of each `vector.get`) on every format fixture imported through the real
 * pipeline, in whole tables, slices and re-batched tables, and on hand-made nested tables with nulls, empty and
 * non-ASCII strings. The one intended difference: a string starting with U+FEFF keeps it.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Field, Float16, Float64, Int32, Int64, List, makeData, makeTable, Schema, Struct, Table, tableFromIPC, Utf8, vectorFromArray } from 'apache-arrow';
import { ingestFile } from '../../src/ingest/pipeline';
import { tableToRows, tableToRowsByValue, utf8Fallbacks } from '../../src/pool/rows';

async function fixtureTables(): Promise<[string, Table][]> {
  const dir = new URL('../fixtures/formats/', import.meta.url);
  const out: [string, Table][] = [];
  for (const f of readdirSync(dir)) {
    const batches: Uint8Array[] = [];
    await ingestFile(
      new File([readFileSync(new URL(f, dir))], f),
      {
        beginImport: async () => 1,
        setImportSource: async () => {},
        appendBatch: async (_id, bytes) => {
          batches.push(bytes.slice());
        },
        commitImport: async () => ({ rowsAdded: 0 }),
        abortImport: async () => {},
      },
      {},
    ).catch(() => null);
    for (const [k, b] of batches.entries()) out.push([`${f}#${k}`, tableFromIPC(b)]);
  }
  return out;
}

describe('tableToRows (by column) = the value-by-value decoder', () => {
  it('on every fixture format as the pool stores its steps: whole, sliced, re-batched, limited', async () => {
    const tables = await fixtureTables();
    assert.ok(tables.length > 20, `${tables.length} tables`);
    let rows = 0;
    for (const [name, t] of tables) {
      assert.ok(t.schema.fields.some((f) => f.name === 'messages'), name);
      assert.deepEqual(tableToRows(t), tableToRowsByValue(t), name);
      rows += t.numRows;
      if (t.numRows > 2) {
        const mid = Math.floor(t.numRows / 2);
        const sliced = t.slice(1, t.numRows - 1);
        assert.deepEqual(tableToRows(sliced), tableToRowsByValue(sliced), `${name} sliced`);
        // two chunks per column: the second starts inside the first's child lists
        const rebatched = t.slice(0, mid).concat(t.slice(mid));
        assert.equal(rebatched.batches.length, 2);
        assert.deepEqual(tableToRows(rebatched), tableToRowsByValue(t), `${name} re-batched`);
        assert.deepEqual(tableToRows(rebatched, mid + 1), tableToRowsByValue(t, mid + 1), `${name} limited`);
      }
    }
    assert.ok(rows > 150, `${rows} rows`);
  });

  it('nested lists of structs with nulls, empty and non-ASCII strings, numbers of every width', () => {
    const msg = new Struct([new Field('role', new Utf8(), true), new Field('content', new Utf8(), true), new Field('ids', new List(new Field('item', new Int32(), true)), true)]);
    const messages = [
      [{ role: 'user', content: 'héllo 😀 naïve', ids: [1, 2] }, null, { role: null, content: '', ids: [] }],
      null,
      [],
      [{ role: 'assistant', content: 'plain ascii', ids: null }],
      [{ role: 'tool', content: '日本語 𝄞 ok', ids: [3, null, 5] }],
    ];
    const t = makeTable({
      messages: vectorFromArray(messages, new List(new Field('item', msg, true))),
      n: vectorFromArray([1n, null, -3n, 2n ** 40n, 0n], new Int64()),
      x: vectorFromArray([1.5, null, Number.NaN, -0, 2], new Float64()),
      s: vectorFromArray(['a', null, '', 'ü', '€'], new Utf8()),
      h: vectorFromArray([1.5, null, -2, 0.25, 65504], new Float16()),
    } as never) as unknown as Table;
    const want = tableToRowsByValue(t);
    const before = utf8Fallbacks.count;
    assert.deepEqual(tableToRows(t), want);
    // valid UTF-8 (multi-byte, 4-byte, ASCII alike) is decoded a chunk at once, never value by value
    assert.equal(utf8Fallbacks.count, before);
    assert.deepEqual((tableToRows(t)[0]?.messages as unknown[] | undefined)?.[0], { role: 'user', content: 'héllo 😀 naïve', ids: [1, 2] });
    assert.equal(tableToRows(t)[3]?.n, 2 ** 40);
    assert.deepEqual(tableToRows(t).map((r) => r.h), [1.5, null, -2, 0.25, 65504]);
    for (let a = 0; a < t.numRows; a++) for (let b = a; b <= t.numRows; b++) assert.deepEqual(tableToRows(t.slice(a, b)), tableToRowsByValue(t.slice(a, b)), `${a}..${b}`);
  });

  it('bytes that are not UTF-8 are decoded value by value, each with U+FFFD where it is bad', () => {
    // 'ab' then 0xFF 'd': the chunk is not UTF-8; cutting one decoding at byte offsets would shift the second value
    const bad = makeData({ type: new Utf8(), length: 3, nullCount: 0, valueOffsets: new Int32Array([0, 2, 4, 6]), data: new Uint8Array([0x61, 0x62, 0xff, 0x64, 0xf0, 0x80]) });
    const t = new Table(new Schema([new Field('s', new Utf8())]), [makeData({ type: new Struct([new Field('s', new Utf8())]), length: 3, nullCount: 0, children: [bad] }) as never]);
    const before = utf8Fallbacks.count;
    assert.deepEqual(tableToRows(t).map((r) => r.s), ['ab', '\uFFFDd', '\uFFFD\uFFFD']);
    assert.equal(utf8Fallbacks.count, before + 1);
    assert.deepEqual(tableToRows(t), tableToRowsByValue(t));
  });

  it('keeps a U+FEFF that starts a value (apache-arrow value by value drops it)', () => {
    const t = makeTable({ s: vectorFromArray(['\uFEFFbom first', 'x', '\uFEFFbom later'], new Utf8()) } as never) as unknown as Table;
    assert.deepEqual(tableToRows(t).map((r) => r.s), ['\uFEFFbom first', 'x', '\uFEFFbom later']);
    assert.deepEqual(tableToRowsByValue(t).map((r) => r.s), ['bom first', 'x', 'bom later']);
  });

  it('a column whose name repeats reads its first column, as before', () => {
    const a = vectorFromArray(['1', '2'], new Utf8());
    const b = vectorFromArray(['3', '4'], new Utf8());
    const t = new Table(new Schema([new Field('a', new Utf8()), new Field('a', new Utf8())]), [makeData({ type: new Struct([new Field('a', new Utf8()), new Field('a', new Utf8())]), length: 2, nullCount: 0, children: [a.data[0]!, b.data[0]!] }) as never]);
    assert.deepEqual(tableToRows(t), [{ a: '1' }, { a: '2' }]);
    assert.deepEqual(tableToRows(t), tableToRowsByValue(t));
  });
});
