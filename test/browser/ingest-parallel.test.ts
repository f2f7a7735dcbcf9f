import { expect } from '@esm-bundle/chai';
import type { ImportReport } from '../../src/contract/reports';
import type { PoolClient } from '../../src/pool/client';
import { importerFor, startPool } from './helpers';

/** An OpenAI chat JSONL file: one conversation per line, some multi-turn with tool calls, some with their own id. */
function chatLines(n: number, seed = 1): string[] {
  let x = seed;
  const rnd = () => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648);
  return Array.from({ length: n }, (_, i) => {
    const turns = rnd() < 0.3 ? 3 : 1;
    const messages: unknown[] = [{ role: 'system', content: `sys ${i % 7}` }, { role: 'user', content: `question ${i} ${'ü'.repeat(i % 5)}` }];
    for (let t = 0; t < turns; t++) {
      if (t < turns - 1) {
        messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${t}`, type: 'function', function: { name: 'calc', arguments: `{"x":${t}}` } }] });
        messages.push({ role: 'tool', tool_call_id: `c${t}`, content: String(t) });
      } else messages.push({ role: 'assistant', content: `answer ${i}` });
    }
    const rec: Record<string, unknown> = { messages, reward: i % 3, data_source: `ds${i % 4}`, uid: `g${i % 50}` };
    if (i % 5 === 0) rec.id = `conv-${i}`;
    return JSON.stringify(rec);
  });
}

const file = (lines: string[], name: string) => new File([`${lines.join('\n')}\n`], name);

async function importWith(pool: PoolClient, f: File, shards: number | false): Promise<ImportReport> {
  const [r] = await importerFor(pool).importFiles([f], { shards, shardMinBytes: 1 });
  return r;
}

const ROWS = `SELECT * EXCLUDE (import_id) FROM steps ORDER BY step_id`;

/** Two in-memory pools for the whole file (a pool boot is the costliest step of a browser test), emptied before each comparison. */
let a: PoolClient;
let b: PoolClient;

/** The same file through 3 parallel readers and through one: the same rows, rejects and counts. */
async function compare(f: File): Promise<{ parallel: ImportReport; single: ImportReport }> {
  await Promise.all([a.clear(), b.clear()]);
  expect(await a.rows('SELECT count(*)::INT AS n FROM steps')).to.deep.equal([{ n: 0 }]);
  const parallel = await importWith(a, f, 3);
  const single = await importWith(b, f, false);
  expect(parallel.status, parallel.message ?? '').to.equal('done');
  expect(single.shards).to.equal(1);
  for (const k of ['records', 'rows', 'added', 'format'] as const) expect(parallel[k], k).to.equal(single[k]);
  expect(parallel.rejected).to.deep.equal(single.rejected);
  expect(parallel.warnings).to.deep.equal(single.warnings);
  const [ra, rb] = [await a.rows(ROWS), await b.rows(ROWS)];
  expect(ra.length).to.equal(rb.length);
  expect(JSON.stringify(ra)).to.equal(JSON.stringify(rb));
  return { parallel, single };
}

describe('parallel import of a large JSON Lines file', function () {
  this.timeout(180_000); // two imports of 3,000 lines per test, on a loaded 2-core CI machine
  before(async () => {
    [a, b] = await Promise.all([startPool('parallel-a', true), startPool('parallel-b', true)]);
  });
  after(() => {
    a.terminate();
    b.terminate();
  });

  it('three readers make exactly the rows one reader makes', async () => {
    const lines = chatLines(3000);
    lines.splice(1700, 0, '', '   '); // blank lines are no records
    const { parallel } = await compare(file(lines, 'chat.jsonl'));
    expect(parallel.shards).to.equal(3);
  });

  it('a bad line after the first shard keeps its file line number', async () => {
    const lines = chatLines(3000);
    lines[2500] = '{"messages": [truncated';
    const { parallel } = await compare(file(lines, 'bad-late.jsonl'));
    expect(parallel.shards).to.equal(3);
    expect(parallel.rejected.map((r) => r.line)).to.deep.equal([2501]);
  });

  it('falls back to one reader when a line before a shard does not parse (records would be numbered differently)', async () => {
    const lines = chatLines(3000);
    lines[500] = 'not json'; // after the lines the plan samples, inside the first shard
    const { parallel } = await compare(file(lines, 'bad-early.jsonl'));
    expect(parallel.shards).to.equal(1);
    expect(parallel.rejected.map((r) => r.line)).to.deep.equal([501]);
  });

  it('falls back to one reader when one trajectory id appears in two shards', async () => {
    const lines = chatLines(3000);
    const same = (i: number) => JSON.stringify({ session_id: 'S-1', messages: [{ role: 'user', content: `turn ${i}` }, { role: 'assistant', content: `reply ${i}` }] });
    lines[3] = same(3);
    lines[2900] = same(2900);
    const { parallel } = await compare(file(lines, 'span.jsonl'));
    expect(parallel.shards).to.equal(1);
  });
});
