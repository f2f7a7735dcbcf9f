import { expect } from '@esm-bundle/chai';
import { tableFromIPC } from 'apache-arrow';
import initParquet, { readParquet } from 'parquet-wasm/esm';
import { tableToRows } from '../../src/pool/rows';
import { exporterFor, parquetWasmUrl, startPool } from './helpers';

describe('export edge cases', () => {
  it('empty results, all-NULL booleans, nested and typed columns round-trip through Parquet', async () => {
    const pool = await startPool('export-edge', true);
    const ex = exporterFor(pool);
    await initParquet({ module_or_path: parquetWasmUrl });
    const back = async (blob: Blob) => tableToRows(tableFromIPC(readParquet(new Uint8Array(await blob.arrayBuffer())).intoIPCStream()));

    const empty = await ex.exportQuery('SELECT 1 AS x, true AS b WHERE false', { format: 'parquet' });
    expect(await back(empty)).to.deep.equal([]);
    const nulls = await ex.exportQuery('SELECT range::INTEGER AS i, NULL::BOOLEAN AS b FROM range(3)', { format: 'parquet' });
    expect(await back(nulls)).to.deep.equal([{ i: 0, b: null }, { i: 1, b: null }, { i: 2, b: null }]);
    const nested = await ex.exportQuery(`SELECT [{'role': 'user', 'content': 'hi'}] AS messages, MAP {'k': 'v'} AS metadata, TIMESTAMP '2026-01-01 00:00:00' AS t`, { format: 'parquet' });
    const [r] = await back(nested);
    expect(r.messages).to.deep.equal([{ role: 'user', content: 'hi' }]);
    expect(r.metadata, 'MAP as a list of {key, value}: datasets cannot read an Arrow MAP').to.deep.equal([{ key: 'k', value: 'v' }]);
    const csv = await ex.exportQuery(`SELECT 'a,b' AS s, 1 AS n WHERE false`, { format: 'csv' });
    expect((await csv.text()).trim()).to.equal('s,n');
    pool.terminate();
  });
});
