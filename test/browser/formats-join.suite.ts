import { expect } from '@esm-bundle/chai';
import type { WorkerImporter } from '../../src/ingest/importer';
import type { PoolClient } from '../../src/pool/client';
import { datasetSql } from '../../src/export/layouts';
import { emptyPagePool, fixture, importerFor } from './helpers';

const list = (v: unknown): unknown[] => (v == null ? [] : Array.isArray(v) ? v : Array.from(v as Iterable<unknown>));

/** Formats whose records live in several files of one drop: the importer hands each file its siblings. */
describe('import several files that belong together', () => {
  let pool: PoolClient;
  let importer: WorkerImporter;
  before(async () => {
    pool = await emptyPagePool();
    importer = importerFor(pool);
  });

  it('an OpenAI Batch output dropped with its input file gets its requests', async () => {
    const [out, inp] = await importer.importFiles([await fixture('formats/openai-batch-output.jsonl'), await fixture('formats/openai-batch-input.jsonl')]);
    expect(out.format).to.equal('openai-batch');
    expect(out.added).to.equal(4);
    expect(out.warnings.join(' | ')).to.match(/4 response\(s\) joined with their request/);
    expect(inp.added, 'the input adds no rows of its own').to.equal(0);
    expect(inp.warnings.join(' | ')).to.match(/4 request\(s\) are imported with their responses from openai-batch-output\.jsonl/);
    const rows = await pool.rows(`SELECT metadata['custom_id'] AS id, list_transform(messages, m -> m.role) AS roles, tools FROM steps WHERE import_id = ${out.importId} ORDER BY id`);
    expect(rows.map((r) => [r.id, list(r.roles).join(',')])).to.deep.equal([
      ['ticket-0001', 'system,user'],
      ['ticket-0002', 'system,user'],
      ['ticket-0003', 'system,user'],
      ['ticket-0004', 'system,user'],
    ]);
    expect(JSON.parse(String(rows[1].tools))[0].function.name).to.equal('lookup_order');
  });

  it('a Batch output alone keeps empty prompts and says the requests are missing', async () => {
    const [out] = await importer.importFiles([await fixture('formats/openai-batch-output.jsonl')]);
    expect(out.warnings.join(' | ')).to.match(/4 response\(s\) have no request/);
  });

  it('Langfuse blob-export scores and traces attach to the observations of the same drop', async () => {
    const files = await Promise.all(['langfuse-blob-observations.jsonl', 'langfuse-blob-scores.jsonl', 'langfuse-blob-traces.jsonl'].map((f) => fixture(`formats/${f}`)));
    const [obs] = await importer.importFiles(files);
    expect(obs.format).to.equal('langfuse-blob');
    const rows = await pool.rows(`SELECT step_index, reward, metadata['session_id'] AS session FROM steps WHERE import_id = ${obs.importId} AND trajectory_uid = '7f3c2a91e4b84d5f9a1c6e2b8d0f4a37' ORDER BY step_index`);
    expect(rows.map((r) => [Number(r.step_index), Number(r.reward), r.session])).to.deep.equal([
      [0, 0, 'chat-2025-03-04-88'],
      [1, 1, 'chat-2025-03-04-88'],
    ]);
  });

  it('an Inspect AI .eval archive (ZIP) imports through the real importer', async () => {
    const [rep] = await importer.importFiles([await fixture('formats/inspect-ctf.eval')]);
    expect(rep.status, rep.message ?? '').to.equal('done');
    expect(rep.format).to.equal('inspect');
    expect(rep.added).to.equal(3);
    const rows = await pool.rows(`SELECT reward FROM steps WHERE import_id = ${rep.importId} AND reward IS NOT NULL ORDER BY reward`);
    expect(rows.map((r) => Number(r.reward))).to.deep.equal([0, 1]);
  });

  it('DPO pairs imported from a LLaMA-Factory dataset come back out of the dpo export as the same pairs', async () => {
    const [rep] = await importer.importFiles([await fixture('formats/llamafactory-dpo-sharegpt.json')]);
    expect(rep.format).to.equal('llama-factory');
    const pairs = await pool.rows(`SELECT list_transform(chosen, m -> m.content) AS chosen, list_transform(rejected, m -> m.content) AS rejected, list_transform(prompt, m -> m.role) AS prompt
      FROM (${datasetSql({ layout: 'dpo', where: `s.import_id = ${rep.importId}` })}) ORDER BY prompt_uid`);
    const got = pairs.map((p) => [list(p.prompt).join(','), list(p.chosen).join(''), list(p.rejected).join('')]).sort();
    expect(got).to.deep.equal(
      [
        ['system,user', '6', 'A hexagon has six sides, which makes it a polygon with 6 edges.'],
        ['user', 'Fix off-by-one error in pagination offset', 'fixed stuff'],
      ].sort(),
    );
  });
});
