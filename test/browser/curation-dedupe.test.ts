import { expect } from '@esm-bundle/chai';
import { findNearDuplicates } from '../../src/curation/near-duplicates';
import type { PoolClient } from '../../src/pool/client';
import { insertSteps, loadStandardPool, trajectorySteps } from './curation-data';
import { startPool } from './helpers';

const worker = () => new Worker(new URL('/workers/minhash.worker.ts', location.origin), { type: 'module' });
const long = 'Explain step by step how to compute the sum of the first ten prime numbers and check every intermediate result twice before answering';

describe('dedupe and PII helpers', () => {
  let pool: PoolClient;
  before(async () => {
    pool = await startPool('curation-dedupe', true);
    await loadStandardPool(pool);
    const near = [
      trajectorySteps({ uid: 'n1', prompt: 'pn', question: long, answer: 'The sum is 129 after checking each prime.' }),
      trajectorySteps({ uid: 'n2', prompt: 'pn', question: `${long}!`, answer: 'The sum is 129 after checking each prime.' }),
      trajectorySteps({ uid: 'n3', prompt: 'pn', question: long.replace('twice', 'carefully twice'), answer: 'The sum is 129 after checking each prime.' }),
    ].flat();
    await insertSteps(pool, near, 'near.jsonl');
    // the same conversation again, in another file: exact duplicates up to case and whitespace
    const copy = trajectorySteps({ uid: 'dup-of-p0-a', prompt: 'p0', question: 'what is   6*7?', answer: 'The answer to p0-a is 42.' });
    await insertSteps(pool, copy, 'copy.jsonl');
  });
  after(() => pool.terminate());

  it('exact_duplicates finds the same conversation across files, keeping the first copy', async () => {
    const rows = await pool.rows(`SELECT step_id, dup_rank, dup_count FROM exact_duplicates WHERE dup_count > 1 ORDER BY step_id`);
    expect(rows).to.deep.equal([
      { step_id: 'dup-of-p0-a:0', dup_rank: 2, dup_count: 2 },
      { step_id: 'p0-a:0', dup_rank: 1, dup_count: 2 },
      // the first (tool-call) steps of the p3 rollouts are identical
      { step_id: 'p3-a:0', dup_rank: 1, dup_count: 3 },
      { step_id: 'p3-b:0', dup_rank: 2, dup_count: 3 },
      { step_id: 'p3-c:0', dup_rank: 3, dup_count: 3 },
    ]);
  });

  it('near-duplicates in a worker: same clusters on every run, written to near_duplicates', async () => {
    const r1 = await findNearDuplicates(pool, { worker, threshold: 0.6 });
    const first = await pool.rows(`SELECT step_id, cluster_id, similarity FROM near_duplicates ORDER BY step_id`);
    const r2 = await findNearDuplicates(pool, { worker, threshold: 0.6 });
    expect(await pool.rows(`SELECT step_id, cluster_id, similarity FROM near_duplicates ORDER BY step_id`)).to.deep.equal(first);
    expect(r2).to.deep.equal(r1);
    const cluster = first.filter((x) => String(x.step_id).startsWith('n'));
    expect(cluster.map((x) => x.step_id)).to.deep.equal(['n1:0', 'n2:0', 'n3:0']);
    expect(new Set(cluster.map((x) => x.cluster_id))).to.deep.equal(new Set(['n1:0']));
    const clusterOf = new Map(first.map((x) => [x.step_id, x.cluster_id]));
    expect(first.filter((x) => x.cluster_id === 'n1:0').length).to.equal(3);
    expect(clusterOf.get('dup-of-p0-a:0')).to.equal(clusterOf.get('p0-a:0')).and.to.be.a('string');
    expect(clusterOf.get('p3-b:0')).to.equal('p3-a:0');
    expect(clusterOf.get('p1-a:0')).to.not.equal('n1:0');
  });

  it('pii_scan and redact_pii find and replace e-mails, phones and keys', async () => {
    const scan = await pool.rows(`SELECT step_id, kinds FROM pii_scan ORDER BY step_id`);
    expect(scan.map((r) => r.step_id)).to.deep.equal(['p2-a:0', 'p2-b:0', 'p2-c:0']);
    expect(scan[1].kinds).to.deep.equal(['email', 'phone', 'secret']);
    const [r] = await pool.rows(`SELECT redact_pii(response_text) AS t, redact_messages(messages)[2].content AS u FROM steps WHERE step_id = 'p2-b:0'`);
    expect(r).to.deep.equal({ t: 'Call [phone], key [secret]', u: 'Mail [email] about 2+2' });
  });
});
