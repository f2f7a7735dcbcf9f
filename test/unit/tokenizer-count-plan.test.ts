/**
 * How many workers a token count uses (count-plan.ts): the main worker alone for nothing or little to count, one more
 * helper per BYTES_PER_HELPER of pending content, never more than countWorkers() gives. The service's use of it over
 * a real pool (a small pool counted by one worker, a large pending count by every worker, nothing pending by one):
 * test/browser/tokenizer-profiles.suite.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BYTES_PER_HELPER, countingWorkerCount } from '../../src/tokenizer/count-plan';

describe('countingWorkerCount', () => {
  it('nothing pending: the main worker alone, whatever the cores', () => {
    for (const all of [1, 2, 4]) assert.equal(countingWorkerCount(0, all), 1);
    assert.equal(countingWorkerCount(0, 4, 1), 1, 'even with the threshold at 1 byte');
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
  });
});
