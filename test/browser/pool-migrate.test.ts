/**
 * Schema versions (docs/decisions/023): a pool saved by the build before versions were recorded opens
 * and migrates with its data intact; a pool saved by a newer build is not written, stays readable, and
 * says so. The old pool is made with that build's own DDL (test/fixtures/pool-schema-v1.sql, taken
 * from commit a90f27a) and filled by a real import, then reopened by this build in a new worker. What each migration
 * does to a pool's tables and rows (from version 0, 2, 3; a failed one; a newer pool): test/unit/pool-migrations.test.ts.
 */
import { expect } from '@esm-bundle/chai';
import { PoolClient } from '../../src/pool/client';
import { SCHEMA_HASH } from '../../src/pool/schema-hash';
import { MESSAGE_TYPE, SCHEMA_VERSION } from '../../src/pool/schema';
import { fixture, importerFor, poolWorker, wasm } from './helpers';

const open = (poolName: string) => PoolClient.start({ poolName, wasm, worker: poolWorker });

/** A persistent pool laid out exactly as the build before schema versions left it, with one real import and a label. */
async function oldPool(name: string): Promise<{ steps: unknown; count: number }> {
  const pool = await open(name);
  // a new pool, before it is laid out the old way: no migration, and its pool_meta holds the schema's hash and version
  expect(pool.status.schema.migratedFrom).to.equal(null);
  expect(await pool.rows(`SELECT key, value FROM pool_meta ORDER BY key`)).to.deep.equal([
    { key: 'schema_hash', value: SCHEMA_HASH },
    { key: 'schema_version', value: String(SCHEMA_VERSION) },
  ]);
  const drops = (await pool.rows(`SELECT table_name AS t, table_type AS k FROM information_schema.tables WHERE table_schema = 'main'`)).map(
    (r) => `DROP ${r.k === 'VIEW' ? 'VIEW' : 'TABLE'} IF EXISTS "${String(r.t)}";`,
  );
  const ddl = (await (await fetch('/test/fixtures/pool-schema-v1.sql')).text()).replace(/^--.*$/gm, '');
  // one call: the pool rebuilds trajectory_stats after SQL that drops steps, so steps must exist again when it returns
  await pool.exec(`${drops.join('\n')}\nDROP SEQUENCE IF EXISTS import_seq;\n${ddl}`);
  const [report] = await importerFor(pool).importFiles([await fixture('core/chat.jsonl')]);
  expect(report.status).to.equal('done');
  await pool.exec(`INSERT INTO curation (step_id, quality) SELECT step_id, 'good' FROM steps ORDER BY step_id LIMIT 1`);
  expect(await pool.rows(`SELECT * FROM pool_meta`)).to.deep.equal([]);
  const snap = await snapshot(pool);
  await pool.checkpoint();
  pool.terminate();
  return snap;
}

/** The message struct before schema 4 (no is_error): a snapshot compares values, so later schemas are cast back to it. */
const V1_MESSAGE = MESSAGE_TYPE.replace(', is_error BOOLEAN', '');

async function snapshot(pool: PoolClient): Promise<{ steps: unknown; count: number }> {
  const [r] = await pool.rows(`SELECT count(*)::INTEGER AS n, hash(list(s ORDER BY s.step_id))::VARCHAR AS h FROM (
    SELECT * REPLACE (messages::${V1_MESSAGE}[] AS messages, response::${V1_MESSAGE} AS response, rollout_log_probs::FLOAT[] AS rollout_log_probs)
    FROM (SELECT COLUMNS(c -> c <> 'source_trajectory_id') FROM steps)) s`);
  return { steps: r.h, count: Number(r.n) };
}

// One pool through every reopen (a boot is the costliest step here): made new, laid out the old way, migrated, reopened
// at this build's schema, then made a pool of a newer build. Each `it` goes on from the state the one before left.
describe('pool schema migrations', function () {
  this.timeout(300_000);
  const name = `migrate-v1-${Date.now()}`;
  /** The pool as the test before left it, open. */
  let pool: PoolClient | null = null;
  const take = () => {
    if (!pool) throw new Error('needs the pool the test before left open');
    const p = pool;
    pool = null;
    return p;
  };

  it('a pool saved before schema versions opens, is migrated to the current version, and keeps every row and label', async () => {
    const before = await oldPool(name);
    expect(before.count).to.be.greaterThan(0);
    const migrated = await open(name);
    expect(migrated.status.persistent).to.equal(true);
    expect(migrated.status.message).to.equal(null);
    expect(migrated.status.schema.migratedFrom).to.equal(1);
    expect(migrated.status.schema.version).to.equal(SCHEMA_VERSION);
    expect(await snapshot(migrated)).to.deep.equal(before);
    expect(await migrated.rows(`SELECT value FROM pool_meta WHERE key = 'schema_version'`)).to.deep.equal([{ value: String(SCHEMA_VERSION) }]);
    expect((await migrated.rows(`SELECT count(*)::INTEGER AS n FROM curation WHERE quality = 'good'`))[0].n).to.equal(1);
    expect((await migrated.rows('SELECT sum(step_count)::INTEGER AS n FROM trajectories'))[0].n).to.equal(before.count);
    // still a working pool: another import commits
    const [again] = await importerFor(migrated).importFiles([await fixture('formats/openai-responses.jsonl')]);
    expect(again.status).to.equal('done');
    pool = migrated;
  });

  it('a pool at this build\'s schema reopens without running the DDL again; another schema_hash (a changed DDL) or a dropped view runs it (decision 036)', async () => {
    const first = take();
    // a helper replaced by hand outlives a reopen only when the DDL is not run again
    await first.exec(`CREATE OR REPLACE MACRO estimate_tokens(t) AS 42`);
    await first.checkpoint();
    first.terminate();
    const second = await open(name);
    expect(second.status.schema.migratedFrom).to.equal(null);
    expect((await second.rows(`SELECT estimate_tokens('abcd') AS n`))[0].n).to.equal(42);
    await second.exec(`UPDATE pool_meta SET value = 'stale' WHERE key = 'schema_hash'`);
    second.terminate();
    const third = await open(name);
    expect((await third.rows(`SELECT estimate_tokens('abcd') AS n`))[0].n).to.equal(1);
    expect(await third.rows(`SELECT value FROM pool_meta WHERE key = 'schema_hash'`)).to.deep.equal([{ value: SCHEMA_HASH }]);
    const trajectories = await third.rows(`SELECT count(*)::INT AS n FROM trajectories`);
    expect(trajectories[0].n).to.be.greaterThan(0);
    // a view or macro of the pool dropped by SQL (an effect cell) is made again at the next open, the hash matching or not
    await third.exec(`DROP VIEW trajectories`);
    await third.exec(`DROP MACRO split_of`);
    await third.checkpoint();
    third.terminate();
    const fourth = await open(name);
    expect(await fourth.rows(`SELECT count(*)::INT AS n FROM trajectories`)).to.deep.equal(trajectories);
    expect(await fourth.rows(`SELECT count(*)::INT AS n FROM duckdb_functions() WHERE function_name = 'split_of'`)).to.not.deep.equal([{ n: 0 }]);
    pool = fourth;
  });

  it('a pool saved by a newer build is not written: its rows stay readable, the status says why, imports are refused', async () => {
    // the pool of the tests before: migrated, with rows from two imports
    const first = take();
    expect((await first.rows('SELECT count(*)::INTEGER AS n FROM steps'))[0].n).to.be.greaterThan(0);
    await first.exec(`UPDATE pool_meta SET value = '99' WHERE key = 'schema_version'`);
    const before = await snapshot(first);
    await first.checkpoint();
    first.terminate();

    const newer = await open(name);
    expect(newer.status.schema.refused).to.include(`newer version of the workbench (schema 99; this one knows up to ${SCHEMA_VERSION})`);
    expect(newer.status.message).to.equal(newer.status.schema.refused);
    expect(await snapshot(newer)).to.deep.equal(before);
    const [refused] = await importerFor(newer).importFiles([await fixture('formats/alpaca.jsonl')]);
    expect(refused.status).to.equal('failed');
    expect(refused.message).to.match(/newer version of the workbench/);
    expect(await newer.rows(`SELECT value FROM pool_meta WHERE key = 'schema_version'`)).to.deep.equal([{ value: '99' }]);
    newer.terminate();
  });

  after(() => pool?.terminate());
});
