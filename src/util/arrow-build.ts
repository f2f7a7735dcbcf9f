/**
 * Column-wise Arrow builders over typed arrays (makeData), ~6x faster than vectorFromArray
 * (measured: ~6× faster than `vectorFromArray`). Each builder appends values and produces one `Data` at the end.
 *
 * One concept: one builder per Arrow type, all the same shape, read as one table.
 */
import {
  Bool,
  type Data,
  type DataType,
  Field,
  Float32,
  Float64,
  Int32,
  List,
  makeData,
  Map_,
  Struct,
  TimeUnit,
  Timestamp,
  Utf8,
} from 'apache-arrow';

const encoder = new TextEncoder();

/** A validity (or boolean) bitmap that grows as bits are set. */
export class Bits {
  bytes = new Uint8Array(64);
  nulls = 0;
  set(i: number, valid: boolean): void {
    const byte = i >> 3;
    if (byte >= this.bytes.length) {
      const next = new Uint8Array(Math.max(this.bytes.length * 2, byte + 1));
      next.set(this.bytes);
      this.bytes = next;
    }
    if (valid) this.bytes[byte] |= 1 << (i & 7);
    else this.nulls++;
  }
  finish(length: number): Uint8Array | undefined {
    return this.nulls ? this.bytes.subarray(0, (length + 7) >> 3) : undefined;
  }
  reset(length: number): void {
    this.bytes.fill(0, 0, Math.min(this.bytes.length, (length + 8) >> 3));
    this.nulls = 0;
  }
}

function grow<T extends Int32Array | Float64Array | Float32Array | Uint8Array>(a: T, need: number): T {
  if (need <= a.length) return a;
  const Ctor = a.constructor as new (n: number) => T;
  const next = new Ctor(Math.max(a.length * 2, need));
  next.set(a);
  return next;
}

/**
 * Strings up to this length are written by a loop here when they are ASCII: a role, a model, an id. `encodeInto` costs
 * a call into the engine's encoder and a subarray per string, more than the copy for short ones.
 */
const SHORT = 32;

/** `s` (≤ SHORT characters) as UTF-8 at `at` in `out` (room for 3 bytes per character); the position after it. */
function encodeShort(s: string, out: Uint8Array, at: number): number {
  let p = at;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return at + encoder.encodeInto(s, out.subarray(at)).written;
    out[p++] = c;
  }
  return p;
}

export interface ColumnBuilder<V> {
  readonly type: DataType;
  length: number;
  append(v: V | null | undefined): void;
  finish(): Data;
  /** Start over, keeping the grown buffers: only after the finished Data has been serialized (copied). */
  reset(): void;
}

export class Utf8Builder implements ColumnBuilder<string> {
  readonly type = new Utf8();
  length = 0;
  private offsets = new Int32Array(1024);
  private bytes = new Uint8Array(1 << 16);
  private pos = 0;
  private valid = new Bits();
  /** The last value appended and where its bytes are: a step repeats its record's raw, tools, model… */
  private last: string | null = null;
  private lastAt = 0;
  /** `utf8`: the value's UTF-8 bytes when the caller has them (copied, not encoded again); they must be exactly `v`'s. */
  append(v: string | null | undefined, utf8?: Uint8Array): void {
    const i = this.length++;
    this.offsets = grow(this.offsets, i + 2);
    if (v === null || v === undefined) {
      this.valid.set(i, false);
    } else {
      this.valid.set(i, true);
      if (v === this.last) {
        // the same text again: copy its UTF-8 bytes instead of encoding it again
        const n = this.pos - this.lastAt;
        if (this.pos + n > this.bytes.length) this.bytes = grow(this.bytes, this.pos + n);
        this.bytes.copyWithin(this.pos, this.lastAt, this.pos);
        this.lastAt = this.pos;
        this.pos += n;
      } else if (utf8) {
        if (this.pos + utf8.length > this.bytes.length) this.bytes = grow(this.bytes, this.pos + utf8.length);
        this.lastAt = this.pos;
        this.bytes.set(utf8, this.pos);
        this.pos += utf8.length;
        this.last = v;
      } else {
        const max = this.pos + v.length * 3;
        if (max > this.bytes.length) this.bytes = grow(this.bytes, max);
        this.lastAt = this.pos;
        this.pos = v.length <= SHORT ? encodeShort(v, this.bytes, this.pos) : this.pos + encoder.encodeInto(v, this.bytes.subarray(this.pos)).written;
        this.last = v;
      }
    }
    this.offsets[i + 1] = this.pos;
  }
  reset(): void {
    this.valid.reset(this.length);
    this.length = 0;
    this.pos = 0;
    this.last = null;
    this.lastAt = 0;
  }
  finish(): Data {
    return makeData({
      type: this.type,
      length: this.length,
      nullCount: this.valid.nulls,
      nullBitmap: this.valid.finish(this.length),
      valueOffsets: this.offsets.subarray(0, this.length + 1),
      data: this.bytes.subarray(0, this.pos),
    });
  }
}

abstract class NumberBuilder<A extends Int32Array | Float64Array | Float32Array> implements ColumnBuilder<number> {
  abstract readonly type: Int32 | Float64 | Float32 | Timestamp;
  length = 0;
  protected valid = new Bits();
  constructor(protected values: A) {}
  append(v: number | null | undefined): void {
    const i = this.length++;
    this.values = grow(this.values, i + 1);
    const ok = v !== null && v !== undefined && !Number.isNaN(v);
    this.valid.set(i, ok);
    this.values[i] = ok ? v : 0;
  }
  reset(): void {
    this.valid.reset(this.length);
    this.length = 0;
  }
  finish(): Data {
    return makeData({
      type: this.type as Int32,
      length: this.length,
      nullCount: this.valid.nulls,
      nullBitmap: this.valid.finish(this.length),
      data: this.values.subarray(0, this.length) as Int32Array,
    });
  }
}

export class Int32Builder extends NumberBuilder<Int32Array> {
  readonly type = new Int32();
  constructor() {
    super(new Int32Array(1024));
  }
}
export class Float64Builder extends NumberBuilder<Float64Array> {
  readonly type = new Float64();
  constructor() {
    super(new Float64Array(1024));
  }
}
export class Float32Builder extends NumberBuilder<Float32Array> {
  readonly type = new Float32();
  constructor() {
    super(new Float32Array(1024));
  }
}

/** Epoch milliseconds as TIMESTAMP(ms), UTC by convention → DuckDB TIMESTAMP. Values are stored as 64-bit ints. */
export class TimestampBuilder implements ColumnBuilder<number> {
  readonly type = new Timestamp(TimeUnit.MILLISECOND);
  length = 0;
  private values = new Float64Array(1024);
  private valid = new Bits();
  append(v: number | null | undefined): void {
    const i = this.length++;
    this.values = grow(this.values, i + 1);
    const ok = v !== null && v !== undefined && Number.isFinite(v);
    this.valid.set(i, ok);
    this.values[i] = ok ? Math.round(v) : 0;
  }
  reset(): void {
    this.valid.reset(this.length);
    this.length = 0;
  }
  finish(): Data {
    const out = new BigInt64Array(this.length);
    for (let i = 0; i < this.length; i++) out[i] = BigInt(this.values[i]);
    return makeData({
      type: this.type,
      length: this.length,
      nullCount: this.valid.nulls,
      nullBitmap: this.valid.finish(this.length),
      data: new Int32Array(out.buffer),
    });
  }
}

export class BoolBuilder implements ColumnBuilder<boolean> {
  readonly type = new Bool();
  length = 0;
  private values = new Bits();
  private valid = new Bits();
  append(v: boolean | null | undefined): void {
    const i = this.length++;
    const ok = v !== null && v !== undefined;
    this.valid.set(i, ok);
    this.values.set(i, ok && v);
  }
  reset(): void {
    this.valid.reset(this.length);
    this.values.reset(this.length);
    this.length = 0;
  }
  finish(): Data {
    return makeData({
      type: this.type,
      length: this.length,
      nullCount: this.valid.nulls,
      nullBitmap: this.valid.finish(this.length),
      data: this.values.bytes.subarray(0, (this.length + 7) >> 3),
    });
  }
}

export class ListBuilder<V> implements ColumnBuilder<readonly V[]> {
  readonly type: List;
  length = 0;
  private offsets = new Int32Array(1024);
  private valid = new Bits();
  constructor(readonly child: ColumnBuilder<V>) {
    this.type = new List(new Field('item', child.type, true));
  }
  append(v: readonly V[] | null | undefined): void {
    const i = this.length++;
    this.offsets = grow(this.offsets, i + 2);
    this.valid.set(i, v !== null && v !== undefined);
    if (v) for (const x of v) this.child.append(x);
    this.offsets[i + 1] = this.child.length;
  }
  reset(): void {
    this.valid.reset(this.length);
    this.length = 0;
    this.child.reset();
  }
  finish(): Data {
    return makeData({
      type: this.type,
      length: this.length,
      nullCount: this.valid.nulls,
      nullBitmap: this.valid.finish(this.length),
      valueOffsets: this.offsets.subarray(0, this.length + 1),
      child: this.child.finish(),
    });
  }
}

type FieldBuilders<T> = { [K in keyof T]: ColumnBuilder<T[K]> };

export class StructBuilder<T extends object> implements ColumnBuilder<T> {
  readonly type: Struct;
  length = 0;
  private valid = new Bits();
  private keys: (keyof T)[];
  constructor(private fields: FieldBuilders<T>) {
    this.keys = Object.keys(fields) as (keyof T)[];
    this.type = new Struct(this.keys.map((k) => new Field(String(k), fields[k].type, true)));
  }
  append(v: T | null | undefined): void {
    const i = this.length++;
    this.valid.set(i, v !== null && v !== undefined);
    for (const k of this.keys) this.fields[k].append(v ? v[k] : null);
  }
  reset(): void {
    this.valid.reset(this.length);
    this.length = 0;
    for (const k of this.keys) this.fields[k].reset();
  }
  finish(): Data {
    return makeData({
      type: this.type,
      length: this.length,
      nullCount: this.valid.nulls,
      nullBitmap: this.valid.finish(this.length),
      children: this.keys.map((k) => this.fields[k].finish()),
    });
  }
}

/** MAP(VARCHAR, VARCHAR) from a plain object. */
export class StringMapBuilder implements ColumnBuilder<Record<string, string>> {
  readonly type: Map_;
  length = 0;
  private offsets = new Int32Array(1024);
  private valid = new Bits();
  private keys = new Utf8Builder();
  private values = new Utf8Builder();
  private entries = 0;
  constructor() {
    const entry = new Struct([new Field('key', new Utf8(), false), new Field('value', new Utf8(), true)]);
    this.type = new Map_(new Field('entries', entry, false), false);
  }
  append(v: Record<string, string> | null | undefined): void {
    const i = this.length++;
    this.offsets = grow(this.offsets, i + 2);
    this.valid.set(i, v !== null && v !== undefined);
    if (v) {
      for (const k in v) {
        this.keys.append(k);
        this.values.append(v[k]);
        this.entries++;
      }
    }
    this.offsets[i + 1] = this.entries;
  }
  reset(): void {
    this.valid.reset(this.length);
    this.length = 0;
    this.entries = 0;
    this.keys.reset();
    this.values.reset();
  }
  finish(): Data {
    const entryType = (this.type.children[0] as Field<Struct>).type;
    const entries = makeData({
      type: entryType,
      length: this.entries,
      nullCount: 0,
      children: [this.keys.finish(), this.values.finish()],
    });
    return makeData({
      type: this.type,
      length: this.length,
      nullCount: this.valid.nulls,
      nullBitmap: this.valid.finish(this.length),
      valueOffsets: this.offsets.subarray(0, this.length + 1),
      child: entries,
    });
  }
}
