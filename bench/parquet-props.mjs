// writeParquet with different writer properties over the workbench's own exported steps (Node build of parquet-wasm).
//   node bench/parquet-props.mjs bench/data/wb-steps-10mb.parquet
import { readFileSync } from 'node:fs';
import { Compression, EnabledStatistics, readParquet, WriterPropertiesBuilder, writeParquet } from 'parquet-wasm';

const bytes = readFileSync(process.argv[2] ?? 'bench/data/wb-steps-10mb.parquet');
const ipc = readParquet(bytes).intoIPCStream();
const { Table } = await import('parquet-wasm');
const variants = {
  current: (b) => b,
  no_dictionary: (b) => b.setDictionaryEnabled(false),
  chunk_stats: (b) => b.setStatisticsEnabled(EnabledStatistics.Chunk),
  no_dict_chunk_stats: (b) => b.setDictionaryEnabled(false).setStatisticsEnabled(EnabledStatistics.Chunk),
};
for (let round = 0; round < 3; round++) {
  for (const [name, f] of Object.entries(variants)) {
    const props = f(new WriterPropertiesBuilder().setCompression(Compression.ZSTD).setMaxRowGroupSize(50_000)).build();
    const t = Table.fromIPCStream(ipc);
    const t0 = performance.now();
    const out = writeParquet(t, props);
    console.log(round, name.padEnd(20), `${(performance.now() - t0).toFixed(0)} ms`, `${(out.byteLength / 1e6).toFixed(2)} MB`);
  }
}
