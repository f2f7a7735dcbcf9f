// Issue 17 hole 6: every committed write survives a reload, also one made after an import on the
// same page load (duckdb-wasm left a stale WAL behind after each checkpoint, so later WAL writes
// were lost at the next start). One write through each write path, then a reload.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, uniquePool, waitForQuery } from './harness.mjs';

let app;
before(async () => {
  app = await startApp();
});
after(async () => {
  await app?.close();
});

const q = (page, sql) => page.evaluate((s) => window.workbench.query(s), sql);

async function reload(page) {
  await page.reload();
  await page.waitForFunction(() => window.workbench?.ready !== undefined);
  await page.evaluate(() => window.workbench.ready);
}

/** Import (or re-import: it commits and checkpoints all the same) the 40-step fixture and wait for its commit. */
async function importChat(page) {
  // a re-import adds nothing and is recorded as 'unchanged' (decision 011); it commits all the same
  const committed = `SELECT count(*)::INTEGER AS n FROM imports WHERE status IN ('done', 'unchanged')`;
  const [{ n }] = await q(page, committed);
  await page.getByLabel('Import files').setInputFiles(['test/fixtures/core/chat.jsonl']);
  await waitForQuery(page, committed, (r) => r[0].n === n + 1);
}

/** Five trajectories of the imported file, one per write path. */
async function pickTrajectories(page) {
  const rows = await q(page, 'SELECT trajectory_uid AS t, min(step_id) AS s, count(*) AS n FROM steps GROUP BY ALL ORDER BY t LIMIT 5');
  assert.equal(rows.length, 5);
  return rows;
}

// Rounds: a path whose write is followed by its own CHECKPOINT (curation, split, near-duplicates, capture)
// gets a round of its own: import → write → reload (a later checkpoint in the same round would hide its lost
// write). The paths that only append to the WAL (workbench.query, an effect cell) call no CHECKPOINT, so they
// share the last round, after a second import: nothing checkpoints between their writes and the reloads,
// and the effect cell (a path of its own) writes last, so no later write's WAL flush covers it either.
// 1 page + 7 reloads (was 2 pages + 11 reloads).
describe('durability: writes after an import survive reloads', () => {
  it('labels, split, near-duplicates, capture (a round each); then after a reload and a second import, workbench.query and an effect cell survive two reloads', async () => {
    const page = await app.open(uniquePool('durable'));
    await importChat(page);
    const [t1, t2, t3, t4, t5] = await pickTrajectories(page);
    const count = async (sql) => (await q(page, `SELECT count(*)::INTEGER AS n FROM ${sql}`))[0].n;
    // Each path that checkpoints alone: an import (a re-import commits and checkpoints too), one write, a reload.
    const paths = [
      {
        name: 'setCuration',
        write: () => page.evaluate((s) => window.workbench.setCuration([s], { quality: 'bad', note: 'durable note' }), t3.s),
        read: () => count(`curation WHERE step_id = '${t3.s}' AND quality = 'bad' AND note = 'durable note'`),
        want: 1,
      },
      {
        name: 'setCurationWhere',
        write: () => page.evaluate((t) => window.workbench.setCurationWhere(`s.trajectory_uid = '${t}'`, { addTags: ['durable-tag'] }), t4.t),
        read: () => count(`curation WHERE list_contains(tags, 'durable-tag')`),
        want: t4.n,
      },
      {
        name: 'curation tools: split',
        write: async () => {
          await page.getByRole('tab', { name: 'Dashboard' }).click();
          await page.getByRole('tab', { name: 'Curation tools & SQL' }).click();
          await page.getByRole('button', { name: 'Assign split' }).click();
          await page.getByText(/train \/ \d+ val steps written/).waitFor();
        },
        read: () => count(`curation WHERE split IS NOT NULL`),
        want: async () => count('steps'),
      },
      {
        name: 'curation tools: near-duplicates',
        write: async () => {
          await page.getByRole('tab', { name: 'Dashboard' }).click();
          await page.getByRole('tab', { name: 'Curation tools & SQL' }).click();
          await page.getByRole('button', { name: 'Find near-duplicates' }).click();
          await page.getByText(/steps in \d+ clusters/).waitFor();
        },
        read: () => count('near_duplicates'),
        want: async () => count('near_duplicates'),
      },
      {
        // last: the write after the reload below follows this round's reload
        name: 'gateway capture',
        write: async () => {
          const run = await page.evaluate(() => window.workbench.runAgent({ agent: 'calculator-agent', tasks: 'math', rollouts: 1 }).then((r) => r.trajectories));
          await waitForQuery(page, `SELECT count(*) FILTER (WHERE is_last) AS done FROM steps WHERE source = 'capture'`, (r) => r[0].done === run.length);
        },
        read: () => count(`steps WHERE source = 'capture'`),
        want: async () => {
          const n = await count(`steps WHERE source = 'capture'`);
          assert.ok(n > 0);
          return n;
        },
      },
    ];
    const lost = [];
    for (const [i, p] of paths.entries()) {
      if (i > 0) await importChat(page); // the first round's import is the one above
      await p.write();
      const want = typeof p.want === 'function' ? await p.want() : p.want;
      assert.equal(await p.read(), want, `${p.name}: before the reload`);
      const steps = await count('steps');
      await reload(page);
      const got = await p.read();
      if (got !== want || (await count('steps')) !== steps) lost.push(`${p.name}: ${got} after the reload, ${want} before`);
    }
    assert.deepEqual(lost, []);

    // A write right after a reload (the WAL restarts at offset 0 after the open's checkpoint), then a second
    // import (it checkpoints), then the WAL-only paths; twice reloaded: what DuckDB replayed from the WAL at the
    // first start must still be there at the second.
    await q(page, `UPDATE steps SET model = 'after-reload' WHERE step_index = 0`);
    const n0 = await count(`steps WHERE model = 'after-reload'`);
    assert.ok(n0 > 0);
    await page.evaluate(async () => {
      const res = await fetch('notebooks/data/gsm8k-rollouts.jsonl');
      await window.workbench.importFiles([new File([await res.blob()], 'gsm8k-rollouts.jsonl')]);
    });
    const walOnly = [
      { name: 'workbench.query DELETE after a write after a reload', write: () => q(page, `DELETE FROM steps WHERE model = 'after-reload'`), read: () => count(`steps WHERE model = 'after-reload'`), want: 0 },
      { name: 'workbench.query DELETE', write: () => q(page, `DELETE FROM steps WHERE trajectory_uid = '${t2.t}'`), read: () => count(`steps WHERE trajectory_uid = '${t2.t}'`), want: 0 },
      // t5 less its first step (deleted just above)
      { name: 'workbench.query UPDATE', write: () => q(page, `UPDATE steps SET model = 'durable-update' WHERE trajectory_uid = '${t5.t}'`), read: () => count(`steps WHERE model = 'durable-update'`), want: () => count(`steps WHERE trajectory_uid = '${t5.t}'`) },
      {
        name: 'effect cell',
        write: async () => {
          await page.evaluate((t) => window.workbench.openNotebook(`# durability\n\n\`\`\`sql effect id=del\nDELETE FROM steps WHERE trajectory_uid = '${t}'\n\`\`\`\n`), t1.t);
          await page.getByRole('button', { name: 'Run del' }).click();
          await waitForQuery(page, `SELECT count(*) AS n FROM steps WHERE trajectory_uid = '${t1.t}'`, (r) => r[0].n === 0);
        },
        read: () => count(`steps WHERE trajectory_uid = '${t1.t}'`),
        want: 0,
      },
    ];
    for (const p of walOnly) {
      await p.write();
      if (typeof p.want === 'function') p.want = await p.want();
      assert.equal(await p.read(), p.want, `${p.name}: before the reloads`);
    }
    assert.ok(walOnly[2].want > 0);
    const total = await count('steps');
    for (let i = 1; i <= 2; i++) {
      await reload(page);
      assert.equal(await count('steps'), total, `reload ${i}: steps`);
      for (const p of walOnly) assert.equal(await p.read(), p.want, `reload ${i}: ${p.name}`);
    }
    // the per-trajectory stats agree with steps after the reloads too
    assert.deepEqual(await q(page, 'SELECT (SELECT count(*) FROM steps) = (SELECT sum(step_count) FROM trajectory_stats) AS ok'), [{ ok: true }]);
    await page.close();
  });
});
