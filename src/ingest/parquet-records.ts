import { Table, tableFromIPC } from 'apache-arrow';
import { tableToRows } from '../pool/rows';
import type { SourceRecord } from './normalizer';

type ReadParquet = (bytes: Uint8Array) => { intoIPCStream(): Uint8Array };

/** Parquet bytes → one record per row (nested lists/structs as arrays/objects), for the normalizers. */
export async function* parquetRecords(bytes: Uint8Array, readParquet: ReadParquet): AsyncGenerator<SourceRecord> {
  const table = tableFromIPC(readParquet(bytes).intoIPCStream());
  let index = 0;
  for (const batch of table.batches) {
    for (const value of tableToRows(new Table(batch))) {
      yield { value, line: index + 1, index };
      index++;
    }
  }
}
