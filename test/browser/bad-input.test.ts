/** The bad-input corpus (test/fixtures/bad/): good records kept, bad lines reported by number, the pool untouched by failures. */
import { expect } from '@esm-bundle/chai';
import type { ImportReport } from '../../src/contract/reports';
import type { PoolClient } from '../../src/pool/client';
import { fixture, importerFor, startPool } from './helpers';

describe('bad input corpus', function () {
  this.timeout(180_000);
  let pool: PoolClient;
  let importer: ReturnType<typeof importerFor>;

  before(async () => {
    pool = await startPool('bad-input', true);
    importer = importerFor(pool);
  });
  after(() => pool.terminate());

  const steps = async () => Number((await pool.rows('SELECT count(*) AS n FROM steps'))[0].n);
  const lines = (r: ImportReport) => r.rejected.map((x) => x.line);

  async function imp(name: string): Promise<{ rep: ImportReport; before: number; after: number }> {
    const before = await steps();
    const [rep] = await importer.importFiles([await fixture(`bad/${name}`)]);
    return { rep, before, after: await steps() };
  }

  it('malformed JSON lines', async () => {
    const { rep, before, after } = await imp('malformed.jsonl');
    expect(rep.status).to.equal('done');
    expect(rep.records).to.equal(4);
    expect(lines(rep)).to.deep.equal([2, 4, 6]);
    expect(rep.rejected[0].reason).to.match(/malformed JSON/);
    expect(after - before).to.equal(4);
  });

  it('a truncated last line', async () => {
    const { rep } = await imp('truncated-last-line.jsonl');
    expect(rep.rows).to.equal(4);
    expect(lines(rep)).to.deep.equal([5]);
    expect(rep.rejected[0].reason).to.match(/truncated last line/);
  });

  it('a truncated gzip keeps the records before the cut', async () => {
    const { rep, before, after } = await imp('truncated.jsonl.gz');
    expect(rep.status).to.equal('done');
    expect(rep.rows).to.be.greaterThan(100).and.lessThan(3000);
    expect(after - before).to.equal(rep.rows);
    expect(rep.rejected.at(-1)?.reason).to.match(/gzip stream is truncated/);
  });

  it('empty and whitespace-only files say so and add nothing', async () => {
    for (const [name, msg] of [['empty.jsonl', 'empty'], ['whitespace.jsonl', 'only whitespace']] as const) {
      const { rep, before, after } = await imp(name);
      expect(rep.rows).to.equal(0);
      expect(rep.warnings.join(' ')).to.contain(msg);
      expect(after).to.equal(before);
    }
  });

  it('a binary file (PNG renamed .jsonl) fails clearly and leaves the pool unchanged', async () => {
    const { rep, before, after } = await imp('image.png.jsonl');
    expect(rep.status).to.equal('failed');
    expect(rep.message).to.match(/binary file \(PNG image\)/);
    expect(after).to.equal(before);
    const [row] = await pool.rows(`SELECT status, message FROM imports WHERE import_id = ${rep.importId}`);
    expect(row.status).to.equal('failed');
  });

  it('UTF-8 BOM, UTF-16 LE and BE, CRLF', async () => {
    for (const [name, n] of [['bom.jsonl', 3], ['utf16le.jsonl', 3], ['utf16be.jsonl', 3], ['crlf.jsonl', 5]] as const) {
      const { rep } = await imp(name);
      expect(rep.rows, name).to.equal(n);
      expect(rep.rejected, name).to.deep.equal([]);
      const [r] = await pool.rows(`SELECT messages[1].content AS c FROM steps WHERE import_id = ${rep.importId} ORDER BY source_line LIMIT 1`);
      expect(r.c, name).to.equal('question 0');
    }
  });

  it('invalid UTF-8 bytes: records kept with U+FFFD, and a warning', async () => {
    const { rep } = await imp('invalid-utf8.jsonl');
    expect(rep.rows).to.equal(3);
    expect(rep.warnings.join(' ')).to.match(/not valid text/);
  });

  it('a JSON array with a broken element in the middle', async () => {
    const { rep } = await imp('array-broken-middle.json');
    expect(rep.records).to.equal(4);
    expect(lines(rep)).to.deep.equal([4]);
  });

  it('mixed formats in one file', async () => {
    const { rep } = await imp('mixed-formats.jsonl');
    expect(rep.records).to.equal(7);
    expect(rep.rows).to.equal(7);
    expect(rep.rejected).to.deep.equal([]);
    const fmts = await pool.rows(`SELECT DISTINCT source_format AS f FROM steps WHERE import_id = ${rep.importId} ORDER BY f`);
    expect(fmts.map((x) => x.f)).to.deep.equal(['anthropic', 'openai-chat', 'sharegpt']);
    expect(rep.warnings.join(' ')).to.match(/mixed formats/);
  });

  it('10,000 levels of nesting do not break the file', async () => {
    const { rep } = await imp('deep-nesting.jsonl');
    expect(rep.records + rep.rejected.length).to.equal(3);
    const got = await pool.rows(`SELECT messages[1].content AS c FROM steps WHERE import_id = ${rep.importId} ORDER BY source_line`);
    expect(got.map((x) => x.c)).to.include.members(['question 0', 'question 2']);
  });

  it('integers beyond 2^53 stay exact where they are ids', async () => {
    const { rep } = await imp('big-ints.jsonl');
    const ids = await pool.rows(`SELECT DISTINCT trajectory_uid AS t FROM steps WHERE import_id = ${rep.importId} ORDER BY t`);
    expect(ids.map((x) => x.t)).to.deep.equal(['123456789012345678901', '123456789012345678902']);
  });

  it('duplicate step ids: kept once; a second import of the same file adds nothing', async () => {
    const { rep, before, after } = await imp('duplicate-step-ids.jsonl');
    expect(rep.records).to.equal(4);
    expect(after - before).to.equal(3);
    const again = await imp('duplicate-step-ids.jsonl');
    expect(again.rep.added).to.equal(0);
    expect(again.after).to.equal(again.before);
  });

  it('a 50 MB single line', async () => {
    const text = JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(50 * 1024 * 1024) }, { role: 'assistant', content: 'long' }] });
    const file = new File([text, '\n', JSON.stringify({ messages: [{ role: 'user', content: 'small' }, { role: 'assistant', content: 'ok' }] }), '\n'], 'huge-line.jsonl');
    const [rep] = await importer.importFiles([file]);
    expect(rep.status).to.equal('done');
    expect(rep.rows).to.equal(2);
    const [r] = await pool.rows(`SELECT max(length(messages[1].content)) AS n FROM steps WHERE import_id = ${rep.importId}`);
    expect(r.n).to.equal(50 * 1024 * 1024);
  });
});
