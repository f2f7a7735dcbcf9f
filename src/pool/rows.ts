import { DataType, type Table, Type, type Vector } from 'apache-arrow';

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

/** Arrow table → plain row objects (BigInt as number, timestamps as ISO text, nested values as arrays/objects). */
export function tableToRows(t: Table, limit = Number.POSITIVE_INFINITY): Row[] {
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
