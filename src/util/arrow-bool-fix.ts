/**
 * apache-arrow's IPC writer emits an empty values buffer for a BOOLEAN column whose values are all
 * null (vectorassembler.mjs, assembleBoolVector: "placeholder empty data buffer"). arrow-rs, and so
 * parquet-wasm, rejects that ("Need at least 1 bytes for bitmap in buffers[0]"), which made any export
 * with an all-NULL boolean column fail. Write a zero-filled bitmap instead. Imported for its effect.
 */
import type { Data } from 'apache-arrow';
import { VectorAssembler } from 'apache-arrow/visitor/vectorassembler';

type Visit = (this: VectorAssembler, data: Data) => VectorAssembler;
const proto = VectorAssembler.prototype as unknown as { visitBool: Visit };
const original = proto.visitBool;

proto.visitBool = function (this: VectorAssembler, data: Data) {
  if (data.length > 0 && data.nullCount >= data.length) {
    const zeros = new Uint8Array(((data.offset % 8) + data.length + 7) >> 3);
    return original.call(this, Object.create(data, { nullCount: { value: 0 }, values: { value: zeros } }) as Data);
  }
  return original.call(this, data);
};
