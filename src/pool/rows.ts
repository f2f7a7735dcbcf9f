import { type Data, DataType, Precision, type Table, Type, type Vector } from 'apache-arrow';

export type Row = Record<string, unknown>;

function plain(v: unknown, type: DataType | undefined): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return Number(v);
  if (type && DataType.isTimestamp(type) && typeof v === 'number') return new Date(v).toISOString();
  if (type && DataType.isDate(type) && (typeof v === 'number' || v instanceof Date)) return new Date(v as number).toISOString().slice(0, 10);
  if (type?.typeId === Type.Decimal) return Number(String(v)) / 10 ** ((type as unknown as { scale: number }).scale ?? 0);
  if (type && DataType.isMap(type)) {
    const out: Record<string, unknown> = {};
    const valueType = type.children[0].type.children[1]?.type;
    for (const [k, val] of v as Iterable<[unknown, unknown]>) out[String(k)] = plain(val, valueType);
    return out;
  }
  if (type && (DataType.isList(type) || DataType.isFixedSizeList(type))) {
    const child = type.children[0].type;
    return Array.from(v as Iterable<unknown>, (x) => plain(x, child));
  }
  if (type && DataType.isStruct(type)) {
    const out: Record<string, unknown> = {};
    const s = v as Record<string, unknown>;
    for (const f of type.children) out[f.name] = plain(s[f.name], f.type);
    return out;
  }
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return Array.from(v as unknown as ArrayLike<number>, Number);
  return v;
}

// ignoreBOM: a value that starts with U+FEFF keeps it (apache-arrow's own decoder drops it, as a stream's BOM)
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
/** Throws on bytes that are not UTF-8, so a chunk decoded at once is never cut at shifted offsets. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** How many string chunks were decoded value by value (their bytes were not UTF-8): for tests. */
export const utf8Fallbacks = { count: 0 };

/** UTF-16 length of the UTF-8 bytes [from, to): one unit per character, two for a 4-byte sequence. */
function utf16Length(b: Uint8Array, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const x = b[i] as number;
    if (x < 0x80 || x >= 0xc0) n += x >= 0xf0 ? 2 : 1;
  }
  return n;
}

/**
 * The strings of a Utf8 chunk, rows [from, to): the chunk's bytes decoded once and cut at each value's UTF-16 offset,
 * instead of one TextDecoder call per value. Null where the row is null. Falls back to one decode per value if the bytes
 * do not decode to the length their characters say (not valid UTF-8).
 */
function decodeUtf8(d: Data, from: number, to: number): (string | null)[] {
  const out: (string | null)[] = new Array(to - from);
  const offsets = d.valueOffsets as Int32Array;
  const values = d.values as Uint8Array;
  const start = offsets[from] as number;
  let text: string;
  try {
    text = strictUtf8.decode(values.subarray(start, offsets[to] as number));
  } catch {
    text = '';
  }
  let pos = 0;
  const ascii = text.length === (offsets[to] as number) - start;
  for (let i = from; i < to; i++) {
    const a = offsets[i] as number;
    const b = offsets[i + 1] as number;
    const len = ascii ? b - a : utf16Length(values, a, b);
    out[i - from] = d.getValid(i) ? text.slice(pos, pos + len) : null;
    pos += len;
  }
  if (pos === text.length && (text.length || (offsets[to] as number) === start)) return out;
  utf8Fallbacks.count++;
  for (let i = from; i < to; i++) out[i - from] = d.getValid(i) ? utf8.decode(values.subarray(offsets[i] as number, offsets[i + 1] as number)) : null;
  return out;
}

/** The Vector class of the table being decoded: a table from another copy of apache-arrow (duckdb-wasm's in Node) has its own. */
type VectorClass = new (data: Data[]) => Vector;

/**
 * Rows [from, to) of one Arrow chunk as plain values (what `plain(vector.get(i))` gives), decoded by column: strings
 * per chunk, lists by their offsets into the decoded child, structs from their decoded fields. Other types go through
 * `plain` value by value.
 */
function decodeData(d: Data, from: number, to: number, V: VectorClass): unknown[] {
  const type = d.type as DataType;
  switch (type.typeId) {
    case Type.Utf8:
      return decodeUtf8(d, from, to);
    case Type.Int:
    case Type.Float: {
      // half floats are stored as Uint16 bits: apache-arrow's get() converts them
      if (type.typeId === Type.Float && (type as unknown as { precision: Precision }).precision === Precision.HALF) break;
      const values = d.values as ArrayLike<number | bigint>;
      const out: unknown[] = new Array(to - from);
      for (let i = from; i < to; i++) {
        const v = values[i];
        out[i - from] = d.getValid(i) ? (typeof v === 'bigint' ? Number(v) : v) : null;
      }
      return out;
    }
    case Type.List: {
      const offsets = d.valueOffsets as Int32Array;
      const child = d.children[0] as Data;
      const base = offsets[from] as number;
      const items = decodeData(child, base, offsets[to] as number, V);
      const out: unknown[] = new Array(to - from);
      for (let i = from; i < to; i++) out[i - from] = d.getValid(i) ? items.slice((offsets[i] as number) - base, (offsets[i + 1] as number) - base) : null;
      return out;
    }
    case Type.Struct: {
      const fields = (type as unknown as { children: { name: string }[] }).children;
      const cols = fields.map((_, k) => decodeData(d.children[k] as Data, from, to, V));
      const out: unknown[] = new Array(to - from);
      for (let i = from; i < to; i++) {
        if (!d.getValid(i)) {
          out[i - from] = null;
          continue;
        }
        const o: Record<string, unknown> = {};
        for (let k = 0; k < fields.length; k++) o[(fields[k] as { name: string }).name] = (cols[k] as unknown[])[i - from];
        out[i - from] = o;
      }
      return out;
    }
  }
  const v = new V([d]);
  const out: unknown[] = new Array(to - from);
  for (let i = from; i < to; i++) out[i - from] = plain(v.get(i), type);
  return out;
}

/** Arrow table → plain row objects (BigInt as number, timestamps as ISO text, nested values as arrays/objects). */
export function tableToRows(t: Table, limit = Number.POSITIVE_INFINITY): Row[] {
  const fields = t.schema.fields;
  const n = Math.min(t.numRows, limit);
  const out: Row[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = {};
  for (let j = 0; j < fields.length; j++) {
    const name = (fields[j] as { name: string }).name;
    // by name, as the value-by-value decoder reads it (a duplicated name reads its first column)
    const col = t.getChild(name) as Vector | null;
    if (!col) continue;
    const V = col.constructor as VectorClass;
    let at = 0;
    for (const d of col.data) {
      if (at >= n) break;
      const take = Math.min(d.length, n - at);
      const values = decodeData(d, 0, take, V);
      for (let i = 0; i < take; i++) (out[at + i] as Row)[name] = values[i];
      at += take;
    }
  }
  return out;
}

/** The row objects the value-by-value decoder gives (`plain` of each `vector.get`): the reference tableToRows is checked against. */
export function tableToRowsByValue(t: Table, limit = Number.POSITIVE_INFINITY): Row[] {
  const fields = t.schema.fields;
  const cols = fields.map((f) => t.getChild(f.name) as Vector);
  const n = Math.min(t.numRows, limit);
  const out: Row[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const row: Row = {};
    for (let j = 0; j < fields.length; j++) row[fields[j].name] = plain(cols[j].get(i), fields[j].type);
    out[i] = row;
  }
  return out;
}

/** One cell value of a table as plain JS. */
export function cellValue(t: Table, col: number, row: number): unknown {
  const f = t.schema.fields[col];
  return plain(t.getChildAt(col)?.get(row), f.type);
}
