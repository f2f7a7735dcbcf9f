import { expect } from '@esm-bundle/chai';
import { exporterFor, startPool } from './helpers';

describe('export fails loudly when the query fails mid-stream', () => {
  it('a Parquet export whose query errors after some chunks rejects instead of returning a truncated file', async () => {
    const pool = await startPool('export-midstream', true);
    const ex = exporterFor(pool);
    const sql = "SELECT CASE WHEN i = 250000 THEN error('boom at 250000') ELSE i END AS i, repeat('y', 100) AS s FROM range(400000) t(i)";
    for (const format of ['parquet', 'jsonl'] as const) {
      let failed: unknown = null;
      try {
        await ex.exportQuery(sql, { format });
      } catch (e) {
        failed = e;
      }
      expect(String((failed as Error | null)?.message), format).to.contain('boom at 250000');
    }
    const ok = await ex.exportQuery('SELECT i FROM range(300000) t(i)', { format: 'parquet' });
    expect(ok.size).to.be.greaterThan(1000);
    pool.terminate();
  });
});
