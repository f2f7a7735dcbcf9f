/**
 * An import batch (Arrow IPC stream, as stepsToIPC makes it for the browser's pool) as an uncompressed Parquet file's
 * bytes: native DuckDB reads Parquet without extensions, Arrow IPC not. Reader threads convert their own batches, so
 * the conversion runs on every core instead of on the one DuckDB thread (which then only writes and inserts the file).
 */
import { Compression, Table as WasmTable, WriterPropertiesBuilder, writeParquet } from 'parquet-wasm/node';

const props = () => new WriterPropertiesBuilder().setCompression(Compression.UNCOMPRESSED).setMaxRowGroupSize(1 << 20).build();

export function ipcToParquet(ipc: Uint8Array): Uint8Array {
  return writeParquet(WasmTable.fromIPCStream(ipc), props());
}

/** Parquet bytes start with the magic `PAR1` (an Arrow IPC stream does not). */
export function isParquetBytes(b: Uint8Array): boolean {
  return b.length >= 4 && b[0] === 0x50 && b[1] === 0x41 && b[2] === 0x52 && b[3] === 0x31;
}
