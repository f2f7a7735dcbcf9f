/**
 * How many workers a token count uses (count-plan.ts): the main worker alone for nothing or little to count, one more
 * helper per BYTES_PER_HELPER of pending content, never more than countWorkers() gives. The service's use of it over
 * a real pool (a small pool counted by one worker, a large pending count by every worker, nothing pending by one):
 * test/browser/tokenizer-profiles.suite.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BYTES_PER_HELPER, bytesToDecide, CONTENT_BYTES_SQL, countingWorkerCount, FIRST_READ, readUpTo } from '../../src/tokenizer/count-plan';
import { assistant, openTestPool, user } from './helpers/duck';

describe('countingWorkerCount', () => {
  it('nothing pending: the main worker alone, whatever the cores', () => {
    for (const all of [1, 2, 4]) assert.equal(countingWorkerCount(0, all), 1);
    assert.equal(countingWorkerCount(0, 4, 1), 1, 'even with the threshold at 1 byte');
    assert.equal(countingWorkerCount(0, 4, 0), 1, 'even with no threshold');
    assert.equal(countingWorkerCount(5, 0), 1, 'no core reported: still the main worker');
  });

  it('less than one helper’s worth: the main worker alone', () => {
    assert.equal(countingWorkerCount(1, 4), 1);
    assert.equal(countingWorkerCount(BYTES_PER_HELPER - 1, 4), 1);
    // the demo data's ≈ 233 steps are far below it (bench/tokens-helper.mjs measured them)
    assert.ok(BYTES_PER_HELPER > 1_000_000);
  });

  it('one helper per BYTES_PER_HELPER pending, up to countWorkers() - 1', () => {
    assert.equal(countingWorkerCount(BYTES_PER_HELPER, 4), 2);
    assert.equal(countingWorkerCount(2 * BYTES_PER_HELPER - 1, 4), 2);
    assert.equal(countingWorkerCount(2 * BYTES_PER_HELPER, 4), 3);
    assert.equal(countingWorkerCount(3 * BYTES_PER_HELPER, 4), 4);
    assert.equal(countingWorkerCount(100 * BYTES_PER_HELPER, 4), 4);
    assert.equal(countingWorkerCount(100 * BYTES_PER_HELPER, 2), 2);
    assert.equal(countingWorkerCount(100 * BYTES_PER_HELPER, 1), 1, 'one core: no helper');
  });

  it('the threshold can be given (the browser tests count with every worker at 1 byte)', () => {
    assert.equal(countingWorkerCount(10, 4, 5), 3);
    assert.equal(countingWorkerCount(1, 4, 1), 2);
    assert.equal(countingWorkerCount(4, 4, 1), 4);
    assert.equal(countingWorkerCount(5, 2, 0), 2, 'no threshold: every worker');
    assert.equal(countingWorkerCount(5, 3, -1), 3, 'a threshold under 0 is none');
  });
});

/** Pending steps of the given content bytes, read as the tokenizer worker reads them (a LIMIT per read), with the reads kept. */
function pending(sizes: number[]) {
  const reads: number[] = [];
  const read = async (limit: number) => {
    reads.push(limit);
    const taken = sizes.slice(0, limit);
    return { bytes: taken.reduce((a, b) => a + b, 0), steps: taken.length };
  };
  return { read, reads };
}

describe('the pending bytes a count reads (readUpTo, bytesToDecide)', () => {
  it('enough for every helper countWorkers() allows, and at least one byte', () => {
    assert.equal(bytesToDecide(4), 3 * BYTES_PER_HELPER);
    assert.equal(bytesToDecide(2, 10), 10);
    assert.equal(bytesToDecide(1), 1, 'one core: only whether anything is pending');
    assert.equal(bytesToDecide(4, 0), 1, 'no threshold: only whether anything is pending');
    // any sum from bytesToDecide on gives the workers the whole sum gives
    for (const all of [1, 2, 4]) for (const per of [0, 1, 7, BYTES_PER_HELPER]) {
      const upTo = bytesToDecide(all, per);
      assert.equal(countingWorkerCount(upTo, all, per), countingWorkerCount(upTo * 50 + 3, all, per), `all ${all}, per ${per}`);
    }
  });

  it('under upTo: the whole sum, exactly (0 for nothing pending)', async () => {
    const few = pending([5, 0, 7]);
    assert.equal(await readUpTo(few.read, 100), 12);
    assert.deepEqual(few.reads, [FIRST_READ], 'fewer steps than one read: one read');
    const many = pending(new Array(3 * FIRST_READ).fill(2));
    assert.equal(await readUpTo(many.read, 1e9), 6 * FIRST_READ);
    assert.equal(many.reads.at(-1)! >= 3 * FIRST_READ, true, 'read on until the steps run out');
    assert.equal(await readUpTo(pending([]).read, 1), 0);
    assert.equal(await readUpTo(pending([0, 0]).read, 1), 0, 'steps with no content: nothing to count');
  });

  it('stops once the sum reaches upTo, after a few reads of a part of the steps', async () => {
    // the 100 MB bench's shape: 79,261 steps of ≈ 2.1 KB, a choice made at 15 MB
    const big = pending(new Array(79_261).fill(2_127));
    const got = await readUpTo(big.read, 15_000_000);
    assert.equal(got >= 15_000_000, true);
    assert.equal(got < 79_261 * 2_127, true, 'not the whole sum');
    assert.deepEqual(big.reads, [FIRST_READ, 8_816], 'the second read sized from the first one\'s mean, with a margin');
    // steps of no content first: reads grow (×16 at most) until one has content
    const late = pending([...new Array(FIRST_READ * 20).fill(0), 9]);
    assert.equal(await readUpTo(late.read, 1), 9);
    assert.deepEqual(late.reads, [FIRST_READ, 16 * FIRST_READ, 256 * FIRST_READ]);
    // reaching upTo exactly is enough
    const exact = pending(new Array(2 * FIRST_READ).fill(1));
    assert.equal(await readUpTo(exact.read, FIRST_READ), FIRST_READ);
    assert.deepEqual(exact.reads, [FIRST_READ]);
    // a read always grows: one byte short of upTo after the first read still reads at least twice as many
    const short = pending([...new Array(FIRST_READ).fill(1), ...new Array(FIRST_READ).fill(1)]);
    assert.equal(await readUpTo(short.read, FIRST_READ + 1), 2 * FIRST_READ);
    assert.deepEqual(short.reads, [FIRST_READ, 2 * FIRST_READ]);
  });
});

describe('CONTENT_BYTES_SQL: a step\'s messages, response and tools as text', () => {
  it('grows with each part by its own bytes, and is 0 for a step with none', async () => {
    const pool = await openTestPool();
    try {
      const step = (id: string, parts: Record<string, unknown>) => ({ step_id: id, trajectory_uid: id, step_index: 0, source: 'a.jsonl', source_line: 1, import_id: 1, ...parts });
      const tools = '[{"type":"function","function":{"name":"calc"}}]';
      await pool.addSteps([
        step('a', { messages: [user('hello')], response: assistant('hi') }),
        step('b', { messages: [user('hello')], response: assistant('hi'), tools }),
        step('c', { messages: [user('hellothere')], response: assistant('hi') }),
        step('d', { messages: [user('hello')], response: assistant('hithere') }),
        step('e', {}),
      ]);
      const rows = await pool.rows(`SELECT step_id, (${CONTENT_BYTES_SQL})::INTEGER AS n FROM steps ORDER BY step_id`);
      const n = Object.fromEntries(rows.map((r) => [r.step_id, Number(r.n)]));
      assert.equal(n.a! > 'hello'.length + 'hi'.length, true, 'the messages and the response, fields and all');
      assert.equal(n.b! - n.a!, tools.length, 'tools');
      assert.equal(n.c! - n.a!, 'hellothere'.length - 'hello'.length, 'a message');
      assert.equal(n.d! - n.a!, 'hithere'.length - 'hi'.length, 'the response');
      assert.equal(n.e, 0, 'no messages, response or tools');
    } finally {
      pool.close();
    }
  });
});
