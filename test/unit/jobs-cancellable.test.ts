import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { asJob, Cancellable } from '../../src/util/jobs';

describe('util/jobs: the one cancellation helper', () => {
  it('Cancellable: running between start and end, cancel aborts the signal of the current run only', () => {
    const job = new Cancellable();
    assert.equal(job.running, false);
    const first = job.start();
    assert.equal(job.running, true);
    job.cancel();
    assert.equal(first.aborted, true);
    assert.equal(job.cancelled, true);
    job.end();
    assert.equal(job.running, false);
    const second = job.start();
    assert.equal(second.aborted, false, 'a new run starts uncancelled');
    job.end();
  });

  it("asJob: aborting the signal cancels the worker's job id while the body runs, not after", async () => {
    const job = new Cancellable();
    const cancelled: number[] = [];
    let id = -1;
    await asJob(job.start(), (i) => cancelled.push(i), async (i) => {
      id = i;
      job.cancel();
    });
    assert.deepEqual(cancelled, [id]);
    const signal = job.start();
    await asJob(signal, (i) => cancelled.push(i), async () => undefined);
    job.cancel();
    assert.equal(cancelled.length, 1, 'an abort after the job settled reaches no worker');
  });
});
