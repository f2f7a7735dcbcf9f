/** The one SQL-quoting helper, and the named queries of src/pool/queries/ and the screens' queries.ts, run against a real DuckDB with the pool's schema. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countOf, headOf } from '../../src/pool/queries/pool';
import { importHistory, POOL_TOTALS } from '../../src/views/data/queries';
import { trajectorySteps } from '../../src/views/inspector/queries';
import { STEP_COUNT } from '../../src/views/kit/queries';
import { dropSchema, TABLE_COLUMNS } from '../../src/views/notebook/queries';
import { sqlIdent, sqlQualified, sqlString } from '../../src/pool/sql';
import { SAMPLE_CURATION, SAMPLE_STEPS, useSamplePool } from './helpers/sample-pool';

const pool = useSamplePool();

const HOSTILE = [`it's`, `'; DROP TABLE steps; --`, `a"b`, `back\\slash`, `$$dollar$$`, `new\nline`, `ünï ✓ 𝄞`, ''];

describe('SQL quoting (pool/sql.ts)', () => {
  it('a string literal reads back as exactly the string, whatever it holds', async () => {
    for (const s of HOSTILE) assert.equal((await pool.rows(`SELECT ${sqlString(s)} AS v`))[0].v, s);
    assert.equal((await pool.rows(STEP_COUNT))[0].n, String(SAMPLE_STEPS.length));
  });

  it('an identifier names exactly that column, schema or table', async () => {
    for (const s of HOSTILE.filter(Boolean)) assert.deepEqual(Object.keys((await pool.rows(`SELECT 1 AS ${sqlIdent(s)}`))[0]), [s]);
    await pool.run(`CREATE SCHEMA ${sqlIdent('nb_"x')}`);
    await pool.run(`CREATE VIEW ${sqlQualified('nb_"x', 'v')} AS SELECT 7 AS n`);
    assert.equal((await pool.rows(`SELECT n FROM ${sqlQualified('nb_"x', 'v')}`))[0].n, 7);
    await pool.run(dropSchema('nb_"x'));
    assert.equal((await pool.rows(`SELECT count(*) AS n FROM information_schema.schemata WHERE schema_name = ${sqlString('nb_"x')}`))[0].n, '0');
  });
});

describe('named queries (pool/queries, views/*/queries.ts)', () => {
  it('pool totals and the import history run on the pool schema', async () => {
    const [t] = await pool.rows(POOL_TOTALS);
    assert.equal(Number(t.steps), SAMPLE_STEPS.length);
    assert.equal(Number(t.trajectories), new Set(SAMPLE_STEPS.map((s) => s.trajectory_uid)).size);
    assert.equal(Number(t.curated), SAMPLE_CURATION.length);
    await pool.run(`INSERT INTO imports (import_id, file, source_id, bytes, status, started_at) VALUES (1, 'a.jsonl', 's', 1, 'done', TIMESTAMP '2026-01-02 03:04:05'), (2, 'b.jsonl', 's2', 1, 'failed', now())`);
    const h = await pool.rows(importHistory(1));
    assert.deepEqual([h.length, h[0].import_id, h[0].file], [1, 2, 'b.jsonl']);
    assert.equal((await pool.rows(importHistory()))[1].started, '2026-01-02 03:04:05');
  });

  it('table columns for completion leave out notebook schemas and scratch tables', async () => {
    await pool.run('CREATE SCHEMA nb_hidden; CREATE TABLE nb_hidden.secret (x INT); CREATE TABLE _scratch (y INT)');
    const names = (await pool.rows(TABLE_COLUMNS)).map((r) => r.t);
    assert.ok(names.includes('steps') && names.includes('trajectories'));
    assert.ok(!names.includes('secret') && !names.includes('_scratch'));
    const steps = (await pool.rows(TABLE_COLUMNS)).find((r) => r.t === 'steps')!.c as string[];
    assert.equal(steps[0], 'step_id');
  });

  it('one trajectory’s steps in order, with curation; a hostile id is a value, not SQL', async () => {
    const uid = SAMPLE_STEPS[0].trajectory_uid as string;
    const rows = await pool.rows(trajectorySteps(uid));
    assert.equal(rows.length, SAMPLE_STEPS.filter((s) => s.trajectory_uid === uid).length);
    assert.deepEqual(rows.map((r) => Number(r.step_index)), [...rows.map((r) => Number(r.step_index))].sort((a, b) => a - b));
    assert.deepEqual(await pool.rows(trajectorySteps(`x' OR '1'='1`)), []);
  });

  it('count and head of any query', async () => {
    assert.equal((await pool.rows(countOf('SELECT * FROM steps')))[0].n, SAMPLE_STEPS.length);
    assert.equal((await pool.rows(headOf('SELECT * FROM steps', 2))).length, 2);
    assert.equal((await pool.rows(headOf('SELECT * FROM steps', -1))).length, 0);
  });
});
