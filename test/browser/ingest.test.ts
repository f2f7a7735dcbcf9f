import { expect } from '@esm-bundle/chai';
import { tableFromIPC } from 'apache-arrow';
import initParquet, { readParquet } from 'parquet-wasm/esm';
import { tableToRows } from '../../src/pool/rows';
import { exporterFor, fixture, importerFor, parquetWasmUrl, startPool } from './helpers';

describe('import → query → export', () => {
  it('imports chat JSONL, keeps good lines, reports bad ones, exports Parquet that reads back', async () => {
    const pool = await startPool('ingest-basic', true);
    const importer = importerFor(pool);
    const file = await fixture('core/chat.jsonl');
    const [rep] = await importer.importFiles([file]);
    expect(rep.status, rep.message ?? '').to.equal('done');
    expect(rep.format).to.equal('openai-chat');
    expect(rep.records).to.equal(30);
    expect(rep.rejected.map((r) => r.line)).to.deep.equal([11, 21]);
    // 30 conversations; every third has two assistant turns
    expect(rep.rows).to.equal(40);
    expect(rep.added).to.equal(40);
    const [t] = await pool.rows(`SELECT count(DISTINCT trajectory_uid) AS t, count(*) FILTER (WHERE is_last) AS last FROM steps`);
    expect(t).to.deep.equal({ t: 30, last: 30 });
    const [tc] = await pool.rows(`SELECT response.tool_calls[1].function.arguments AS a FROM steps WHERE response.tool_calls IS NOT NULL LIMIT 1`);
    expect(JSON.parse(String(tc.a)).expression).to.match(/^\d+\*7$/);
    const errs = await pool.rows('SELECT line FROM import_errors ORDER BY line');
    expect(errs.map((e) => e.line)).to.deep.equal([11, 21]);

    const [again] = await importer.importFiles([file]);
    expect(again.added).to.equal(0);
    expect((await pool.rows('SELECT count(*) AS n FROM steps'))[0].n).to.equal(40);

    const exporter = exporterFor(pool);
    const blob = await exporter.exportDataset({ layout: 'sft', format: 'parquet' });
    await initParquet({ module_or_path: parquetWasmUrl });
    const back = tableToRows(tableFromIPC(readParquet(new Uint8Array(await blob.arrayBuffer())).intoIPCStream()));
    expect(back.length).to.equal(30);
    const withTool = back.find((r) => (r.messages as unknown[]).length === 5) as { messages: { role: string; tool_calls: unknown }[] };
    expect(withTool.messages.map((m) => m.role)).to.deep.equal(['system', 'user', 'assistant', 'tool', 'assistant']);
    const jsonl = await exporter.exportQuery('SELECT step_id, reward FROM steps ORDER BY step_id', { format: 'jsonl' });
    expect((await jsonl.text()).trim().split('\n').length).to.equal(40);
    pool.terminate();
  });
});
