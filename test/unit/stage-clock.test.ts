/** The commit's stopwatch (src/pool/import-commit.ts › stageClock): the import report's timings.commit, page and CLI. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stageClock } from '../../src/pool/import-commit';

describe('stageClock', () => {
  it('each stage is the time since the previous one; a pause between stages is in none of them', async () => {
    let t = 1000;
    const { stages, mark, lap } = stageClock(
      async () => {
        t += 120; // the worker answering other calls
      },
      () => t,
    );
    t += 30.4;
    await lap('dedupe');
    t += 10;
    mark('commit');
    t += 40.6;
    mark('flush');
    assert.deepEqual(stages, { dedupe: 30, commit: 10, flush: 41 });
  });

  it('without a pause, lap is mark', async () => {
    let t = 0;
    const { stages, lap, mark } = stageClock(undefined, () => t);
    t += 20;
    await lap('insert');
    t += 5;
    mark('commit');
    assert.deepEqual(stages, { insert: 20, commit: 5 });
  });
});
