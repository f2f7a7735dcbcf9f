// The CLI's import on native DuckDB (issue 22): parallel reader threads give the same steps as one reader,
// a re-run adds nothing, shards partition the sorted listing, a missing input is an error naming it; an import's
// batches wait as files until its commit (or stageBytes) and a reset drops them; reader threads end before the commit;
// an import of many trajectories commits under a small --memory-limit (decision 048).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileOf, listInputs, shardOf, UsageError } from '../../src/cli/files';
import { runImport } from '../../src/cli/import';
import { exportLayout } from '../../src/cli/main';
import { NativeDb } from '../../src/cli/native-db';
import { NativePool } from '../../src/cli/native-pool';
import { threadShardPool } from '../../src/cli/shard-pool';
import { importStatsSql } from '../../src/pool/import-commit';
import type { ImportCommit } from '../../src/pool/pool-core';
import { ingestFile } from '../../src/ingest/pipeline';
import { stepsToIPC } from '../../src/record/step-arrow';
import { demoSteps } from '../browser/notebook-demo';
// @ts-expect-error: the bench's generator is plain JavaScript without types
import { generate } from '../../bench/gen.mjs';
import { scratchDir } from '../scratch.mjs';

const tmp = scratchDir('aw-cli-unit-');
const FILE = 'test/fixtures/formats/sharegpt-llamafactory.jsonl';
const stepsSql = 'SELECT * EXCLUDE (import_id) REPLACE (map_entries(metadata) AS metadata) FROM steps ORDER BY step_id';
const json = (rows: unknown) => JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? Number(v) : v));

describe('CLI import', () => {
  let one: NativePool;
  let par: NativePool;
  before(async () => {
    one = await NativePool.open(join(tmp, 'one.duckdb'));
    par = await NativePool.open(join(tmp, 'par.duckdb'));
  });
  after(async () => {
    await one.close();
    await par.close();
  });

  it('reads a JSON Lines file in parallel threads into the same steps as one reader, and a re-run adds nothing', async () => {
    const a = await runImport(one, [FILE], { threads: 1 });
    const b = await runImport(par, [FILE], { threads: 2, shardMinBytes: 256 });
    assert.equal(a.reports[0].shards, 1);
    assert.equal(b.reports[0].shards, 2, 'the file was read by two threads');
    assert.ok(a.added > 0);
    assert.equal(json(await par.rows(stepsSql)), json(await one.rows(stepsSql)));
    const again = await runImport(one, [FILE], { threads: 1 });
    assert.equal(again.reports[0].status, 'unchanged');
    assert.equal(again.added, 0);
    const [{ n }] = await one.rows('SELECT count(*) AS n FROM steps');
    assert.equal(Number(n), a.added);
  });

  it('export --partition-by writes hive folders the page names the same way (export/parts.ts hiveFolder), holding every row', async () => {
    const out = join(tmp, 'parts');
    const r = await exportLayout(one, { layout: 'rl_steps' }, out, ['data_source', 'channel'], 512e6);
    const [{ n, sources }] = await one.rows(`SELECT count(*) AS n, count(DISTINCT (data_source, channel)) AS sources FROM read_parquet('${out}/**/*.parquet', hive_partitioning = false)`);
    assert.equal(Number(n), r.rows);
    assert.ok(r.rows > 0);
    assert.equal(r.files.length, Number(sources), 'a file per (data_source, channel)');
    for (const f of r.files) assert.match(f.slice(out.length), /^\/data_source=[^/]+\/channel=[^/]+\/part-0\.parquet$/, f);
  });

  it('batches wait until the commit (or stageBytes) and go in whole; a reset drops the ones waiting', async () => {
    const ipc = (traj: string, id: number) => stepsToIPC(demoSteps(traj, 'solver', 'p1', 1, 3).map((s) => ({ ...s, import_id: id })));
    const info: ImportCommit = { format: 'test', confidence: 1, records: 6, rowsMade: 6, errors: [] };
    const got = [];
    // 1 << 30: everything waits for the commit; 1: each batch is inserted as it comes
    for (const stageBytes of [1 << 30, 1]) {
      const pool = await NativePool.open(':memory:', { stageBytes });
      try {
        const id = await pool.beginImport({ file: 'a.jsonl', sourceId: 'a', bytes: 1 });
        await pool.appendBatch(id, ipc('dropped', id));
        await pool.resetImport(id);
        await pool.appendBatch(id, ipc('t1', id));
        await pool.appendBatch(id, ipc('t2', id));
        const r = await pool.commitImport(id, info);
        assert.equal(r.rowsAdded, 6);
        got.push(json(await pool.rows('SELECT step_id, is_last FROM steps ORDER BY rowid')));
      } finally {
        await pool.close();
      }
    }
    assert.equal(got[0], json(['t1:0', 't1:1', 't1:2', 't2:0', 't2:1', 't2:2'].map((step_id) => ({ step_id, is_last: step_id.endsWith(':2') }))));
    assert.equal(got[1], got[0]);
  });

  it("the reader threads have ended when the import commits (their memory is not the commit's)", async () => {
    const pool = await NativePool.open(':memory:');
    const file = await fileOf(FILE);
    const shards = threadShardPool(new Map([[file, FILE]]), 2);
    const live: number[] = [];
    const sink = Object.assign(Object.create(pool) as NativePool, {
      commitImport: (id: number, info: ImportCommit) => {
        live.push(shards.live);
        return pool.commitImport(id, info);
      },
    });
    try {
      const r = await ingestFile(file, sink, { shards, shardMinBytes: 256 });
      assert.equal(r.shards, 2, 'read by two threads');
      assert.deepEqual(live, [0]);
    } finally {
      await shards.close();
      await pool.close();
    }
  });

  it('an import stages its batches beside the pool, and Ctrl-C takes them away', async () => {
    const dir = scratchDir('aw-cli-stage-');
    const file = join(dir, 'chat.jsonl');
    generate(file, 24, 7); // one reader (below 48 MB), a few seconds of batches
    const child = spawn(process.execPath, ['bin/agentworld.mjs', 'import', file, '--pool', join(dir, 'p.duckdb'), '--json'], { stdio: 'ignore' });
    const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
    const inside = (d: string) => {
      try {
        return readdirSync(join(dir, d));
      } catch {
        return []; // removed between the two listings
      }
    };
    const staged = () => readdirSync(dir).filter((f) => f.startsWith('p.duckdb.stage-')).flatMap(inside);
    let seen = 0;
    for (let i = 0; i < 1200 && child.exitCode === null && !(seen = staged().length); i++) await new Promise((ok) => setTimeout(ok, 50));
    assert.ok(seen > 0, 'batch files appeared in <pool>.stage-… before the import ended');
    child.kill('SIGINT');
    assert.equal(await exited, 130);
    assert.deepEqual(readdirSync(dir).filter((f) => f.includes('.stage-')), [], 'the staging folder went with the process');
  });

  it('no batch is staged after Ctrl-C removed the stage folder, not even one the DuckDB thread was already writing', async () => {
    // the race behind a rare failure of the test above under load: the DuckDB thread's next batch re-created the folder
    // after the main thread removed it (src/cli/stage-gate.ts)
    const dir = scratchDir('aw-cli-gate-');
    const db = new NativeDb(join(dir, 'p.duckdb'));
    const conn = await db.connect();
    const parquet = new Uint8Array(1 << 20);
    parquet.set([0x50, 0x41, 0x52, 0x31]); // written as it is (no conversion): only the file matters here
    try {
      const stage = () => db.call({ op: 'stage', conn, bytes: parquet }).then(() => 'staged', (e: Error) => e.message);
      const calls = Array.from({ length: 40 }, stage);
      assert.equal(await calls[0], 'staged');
      db.dropStageSync();
      const outcomes = await Promise.all(calls);
      assert.deepEqual(readdirSync(dir).filter((f) => f.includes('.stage-')), [], 'no stage folder after the removal');
      // the queued batches: staged until the removal, refused after it (how many went first depends on the threads'
      // timing: under load all 40 were once written before the main thread got to the removal), never one staged
      // after one was refused; and a batch asked for after the removal is refused
      const refused = outcomes.findIndex((o) => o !== 'staged');
      if (refused >= 0) for (const o of outcomes.slice(refused)) assert.match(o, /interrupted/);
      assert.match(await stage(), /interrupted/);
      assert.deepEqual(readdirSync(dir).filter((f) => f.includes('.stage-')), [], 'no stage folder after a batch asked for after the removal');
    } finally {
      await db.close();
    }
  });

  it('an import of 40 000 trajectories commits at --memory-limit 48MB, every trajectory in its stats (decision 048)', async () => {
    // one stats INSERT over them all held ~1 KB of unspillable list() state per trajectory: Out of Memory at 48MB,
    // as the 1 GB bench file's 495 k trajectories were at 256MB. The steps go in as an import's batches (the pool's own
    // import transaction and commit, as runImport's reader hands them over) rather than read from a 40 000-line file:
    // the commit is the subject, and reading the file cost 5 of this test's 7 CPU-s. With the passes forced to 1
    // (statsPasses in src/cli/native-pool.ts) it fails as before ("Out of Memory Error: could not allocate block of size
    // 256.0 KiB (45.6 MiB/45.7 MiB used)"); 20 000 trajectories would not.
    const N = 40_000;
    const pool = await NativePool.open(join(tmp, 'small.duckdb'), { memoryLimit: '48MB' });
    try {
      const id = await pool.beginImport({ file: 'many.jsonl', sourceId: 'many', bytes: 1 });
      // trajectory `t-{i}`: one step, agent a{i % 7}, model m{i % 5}; in batches of 5 000 steps as the readers send them
      for (let b = 0; b < N; b += 5000) {
        const steps = Array.from({ length: 5000 }, (_, k) => ({ ...demoSteps(`t-${b + k}`, `a${(b + k) % 7}`, 'p', 1, 1)[0], model: `m${(b + k) % 5}`, import_id: id }));
        await pool.appendBatch(id, stepsToIPC(steps));
      }
      const r = await pool.commitImport(id, { format: 'test', confidence: 1, records: N, rowsMade: N, errors: [] });
      assert.equal(r.rowsAdded, N);
      const i = "split_part(trajectory_uid, '-', 2)::INTEGER";
      const [{ n, right }] = await pool.rows(`SELECT count(*) AS n, count(*) FILTER (WHERE step_count = 1 AND complete AND ok_steps = 1
        AND agents = ['a' || (${i} % 7)] AND models = ['m' || (${i} % 5)]) AS right FROM trajectory_stats`);
      assert.deepEqual([Number(n), Number(right)], [N, N]);
    } finally {
      await pool.close();
    }
  });

  it('trajectory stats made in several passes are the rows one pass makes, stale ones replaced', async () => {
    const pool = await NativePool.open(':memory:');
    try {
      await runImport(pool, [FILE], { threads: 1 });
      const got: string[] = [];
      for (const overlap of [false, true]) {
        for (const passes of [1, 3]) {
          await pool.exec('DELETE FROM trajectory_stats');
          if (overlap) await pool.exec('INSERT INTO trajectory_stats (trajectory_uid, step_count) SELECT DISTINCT trajectory_uid, 999 FROM steps');
          for (const sql of importStatsSql(1, overlap, passes)) await pool.exec(sql);
          got.push(json(await pool.rows('SELECT * FROM trajectory_stats ORDER BY trajectory_uid')));
        }
      }
      assert.ok(JSON.parse(got[0]).length > 1);
      assert.deepEqual(got, [got[0], got[0], got[0], got[0]]);
    } finally {
      await pool.close();
    }
  });

  it('shards partition the sorted listing; a missing input is named', () => {
    const all = listInputs(['test/fixtures/formats']);
    assert.deepEqual([...all].sort(), all);
    const parts = [0, 1, 2].map((i) => shardOf(all, `${i}/3`));
    assert.deepEqual(parts.flat().sort(), all);
    assert.equal(new Set(parts.flat()).size, all.length);
    assert.throws(() => listInputs(['test/fixtures/nope.jsonl']), (e) => e instanceof UsageError && /nope\.jsonl/.test(e.message));
    assert.throws(() => shardOf(all, '3/3'), UsageError);
  });

  it('a folder imports as in the page: files named by their path in it, a Cline task joined across its two files', async () => {
    const pool = await NativePool.open(':memory:');
    try {
      const { reports } = await runImport(pool, ['test/fixtures/folders/cline-task'], { threads: 1 });
      const byFile = new Map(reports.map((r) => [r.file, r]));
      assert.deepEqual([...byFile.keys()], ['tasks/1769053680585/api_conversation_history.json', 'tasks/1769053680585/task_metadata.json', 'tasks/1769053680585/ui_messages.json']);
      const history = byFile.get('tasks/1769053680585/api_conversation_history.json')!;
      assert.equal(history.rows, 3);
      assert.ok(history.warnings.includes('usage, cost and start times read from tasks/1769053680585/ui_messages.json'), history.warnings.join(' | '));
      // the UI log and the metadata add no calls of their own: read with the conversation, not failures
      for (const f of ['tasks/1769053680585/ui_messages.json', 'tasks/1769053680585/task_metadata.json']) {
        const r = byFile.get(f)!;
        assert.deepEqual([r.status, r.rows, r.readWith], ['done', 0, 'tasks/1769053680585/api_conversation_history.json'], f);
      }
      // alone, the UI log still keeps nothing and says where the calls are
      const [alone] = (await runImport(pool, ['test/fixtures/folders/cline-task/tasks/1769053680585/ui_messages.json'], { threads: 1 })).reports;
      assert.equal(alone.status, 'failed');
      assert.equal(alone.readWith, undefined);
      assert.match(alone.message ?? '', /import both files, or the folder/);
    } finally {
      await pool.close();
    }
  });
});
