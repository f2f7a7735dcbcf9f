/**
 * An import batch (Arrow IPC stream, as stepsToIPC makes it for the browser's pool) as an uncompressed Parquet file's
 * bytes: native DuckDB reads Parquet without extensions, Arrow IPC not. Reader threads convert their own batches, so
 * the conversion runs on every core instead of on the one DuckDB thread (which then only writes and inserts the file).
 *
 * Plain pages without dictionaries or statistics: DuckDB reads every row of the file once, so neither helps it, and
 * building them was half of the conversion (measured on the 100 MB bench file's batches: 0.8 → 0.4 CPU-s per half of
 * the file, the INSERT as fast; the files 1.8× larger, decision 044).
 */
import { Compression, EnabledStatistics, Table as WasmTable, WriterPropertiesBuilder, writeParquet } from 'parquet-wasm/node';

const props = () =>
  new WriterPropertiesBuilder()
    .setCompression(Compression.UNCOMPRESSED)
    .setDictionaryEnabled(false)
    .setStatisticsEnabled(EnabledStatistics.None)
    .setMaxRowGroupSize(1 << 20)
    .build();

export function ipcToParquet(ipc: Uint8Array): Uint8Array {
  return writeParquet(WasmTable.fromIPCStream(ipc), props());
}

/** Parquet bytes start with the magic `PAR1` (an Arrow IPC stream does not). */
export function isParquetBytes(b: Uint8Array): boolean {
  return b.length >= 4 && b[0] === 0x50 && b[1] === 0x41 && b[2] === 0x52 && b[3] === 0x31;
}
