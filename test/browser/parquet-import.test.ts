/** Parquet in: veRL prompt rows and the workbench's own step-record export round-trip. */
import { expect } from '@esm-bundle/chai';
import { exporterFor, fixture, importerFor, startPool } from './helpers';

const COLS = `step_id, trajectory_uid, prompt_uid, step_index, is_last, channel, agent, data_source, model, messages, tools, response,
  response_text, finish_reason, prompt_tokens, completion_tokens, prompt_ids, response_ids, reward, latency_ms, status, error, metadata`;

describe('Parquet import', function () {
  this.timeout(120_000);
  /** One in-memory pool for the file (a pool boot is the costliest step of a browser test), emptied before each use. */
  let pool: Awaited<ReturnType<typeof startPool>>;
  before(async function () {
    this.timeout(120_000); // a boot on a loaded CI machine can take 30 s
    pool = await startPool('pq', true);
  });
  after(() => pool.terminate());

  it('veRL prompt rows from a Parquet file', async () => {
    await pool.clear();
    const blob = await exporterFor(pool).exportQuery(
      `SELECT 'gsm8k' AS data_source, [{'role': 'user', 'content': 'What is ' || i || ' + 1?'}] AS prompt, 'math' AS ability,
        {'style': 'rule', 'ground_truth': (i + 1)::VARCHAR} AS reward_model, {'split': CASE WHEN i % 4 = 0 THEN 'test' ELSE 'train' END, 'index': i} AS extra_info
       FROM range(12) t(i)`,
      { format: 'parquet' },
    );
    const [rep] = await importerFor(pool).importFiles([new File([blob], 'train.parquet')]);
    expect(rep.status, rep.message ?? '').to.equal('done');
    expect(rep.format).to.equal('verl');
    expect(rep.rows).to.equal(12);
    const rows = await pool.rows(`SELECT messages[1].content AS q, channel, data_source, metadata['reward_model'] AS rm FROM steps ORDER BY source_line`);
    expect(rows[1].q).to.equal('What is 1 + 1?');
    expect(rows.filter((r) => r.channel === 'val').length).to.equal(3);
    expect(JSON.parse(String(rows[1].rm)).ground_truth).to.equal('2');
  });

  it("the workbench's own steps export (Parquet and JSONL) imports back with the same step records", async () => {
    await pool.clear();
    await importerFor(pool).importFiles([await fixture('core/chat.jsonl'), await fixture('bad/mixed-formats.jsonl')]);
    const ex = exporterFor(pool);
    const original = await pool.rows(`SELECT ${COLS} FROM steps ORDER BY step_id`);
    expect(original.length).to.be.greaterThan(40);
    // both exports first; then each goes back into the emptied pool (a second pool would cost a boot)
    const blobs = { parquet: await ex.exportDataset({ layout: 'steps', format: 'parquet', trainableOnly: false }), jsonl: await ex.exportDataset({ layout: 'steps', format: 'jsonl', trainableOnly: false }) };
    for (const format of ['parquet', 'jsonl'] as const) {
      await pool.clear();
      expect(await pool.rows('SELECT count(*)::INTEGER AS n FROM steps'), format).to.deep.equal([{ n: 0 }]);
      const [rep] = await importerFor(pool).importFiles([new File([blobs[format]], `steps.${format}`)]);
      expect(rep.format, format).to.equal('step-record');
      expect(rep.rows, format).to.equal(original.length);
      const back = await pool.rows(`SELECT ${COLS} FROM steps ORDER BY step_id`);
      expect(back, format).to.deep.equal(original);
    }
  });
});
