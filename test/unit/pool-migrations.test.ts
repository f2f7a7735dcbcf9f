/**
 * migrate() (src/pool/migrations.ts, docs/decisions/023) in the engine the browser runs: duckdb-wasm's
 * blocking build, in memory. The pool layouts are made from the DDL the build before versions wrote
 * (test/fixtures/pool-schema-v1.sql); browser/pool-migrate.test.ts opens such a pool through the real worker.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { detectVersion, MIGRATIONS, migrate } from '../../src/pool/migrations';
import { SCHEMA_VERSION } from '../../src/pool/schema';
import { wasmEngine } from './helpers/wasm-engine';

type Run = (sql: string) => { toArray(): unknown[] };

let shared: Awaited<ReturnType<typeof wasmEngine>> | null = null;

/** An empty in-memory database: one engine for the file (a boot ≈ 1.5 CPU-s), reset for each test (≈ 0.2). */
async function engine(): Promise<{ run: Run; rows: (sql: string) => Record<string, unknown>[] }> {
  shared ??= await wasmEngine();
  shared.db.reset();
  const conn = shared.db.connect();
  const run: Run = (sql) => conn.query(sql);
  return { run, rows: (sql) => run(sql).toArray().map((r) => ({ ...(r as object) })) };
}

const V1 = readFileSync('test/fixtures/pool-schema-v1.sql', 'utf8').replace(/^--.*$/gm, '').split(/;\s*\n/).map((s) => s.trim()).filter(Boolean);

async function v1Pool() {
  const e = await engine();
  for (const s of V1) e.run(s);
  e.run(`INSERT INTO steps (step_id, trajectory_uid, step_index, source_trajectory_id) VALUES ('t:0', 't', 0, 'own'), ('t:1', 't', 1, NULL)`);
  return e;
}

describe('pool schema migrations', () => {
  it('a new database has no version; the current one is recorded as is', async () => {
    const e = await engine();
    assert.equal(detectVersion(e.run), null);
    assert.deepEqual(migrate(e.run), { from: null, to: SCHEMA_VERSION, applied: [], refused: null });
    assert.equal(SCHEMA_VERSION, MIGRATIONS.at(-1)?.to);
  });

  it('a pool of the build before versions is version 1 and migrates to the current version, rows intact', async () => {
    const e = await v1Pool();
    assert.equal(detectVersion(e.run), 1);
    const out = migrate(e.run);
    assert.equal(out.from, 1);
    assert.equal(out.refused, null);
    assert.deepEqual(out.applied, [
      '1 → 2: schema version recorded in pool_meta',
      '2 → 3: token_counts rows kept per tokenizer profile and step content (issue 19)',
      "3 → 4: a tool result's error flag in its own field; log-probs as DOUBLE (issue 32)",
    ]);
    assert.deepEqual(e.rows(`SELECT value FROM pool_meta WHERE key = 'schema_version'`), [{ value: String(SCHEMA_VERSION) }]);
    assert.deepEqual(e.rows('SELECT step_id, source_trajectory_id FROM steps ORDER BY 1'), [{ step_id: 't:0', source_trajectory_id: 'own' }, { step_id: 't:1', source_trajectory_id: null }]);
    assert.deepEqual(migrate(e.run).applied, []);
  });

  it('a pool from before source_trajectory_id is version 0 and gets the column', async () => {
    const e = await v1Pool();
    e.run('ALTER TABLE steps DROP COLUMN source_trajectory_id');
    assert.equal(detectVersion(e.run), 0);
    const out = migrate(e.run);
    assert.equal(out.applied.length, 4);
    assert.deepEqual(e.rows('SELECT step_id, source_trajectory_id FROM steps ORDER BY 1'), [{ step_id: 't:0', source_trajectory_id: null }, { step_id: 't:1', source_trajectory_id: null }]);
  });

  it('schema 2 → 3: token_counts keeps its rows and gains profile_key and content_hash, empty (the rows are counted again)', async () => {
    const e = await v1Pool();
    migrate(e.run, MIGRATIONS.filter((m) => m.to <= 2), 2);
    e.run(`INSERT INTO token_counts (step_id, trajectory_uid, n_tokens, template_hash) SELECT step_id, trajectory_uid, 7, 'old' FROM steps`);
    const out = migrate(e.run);
    assert.deepEqual(out.applied, [
      '2 → 3: token_counts rows kept per tokenizer profile and step content (issue 19)',
      "3 → 4: a tool result's error flag in its own field; log-probs as DOUBLE (issue 32)",
    ]);
    assert.deepEqual(e.rows(`SELECT count(*)::INTEGER AS n, count(profile_key)::INTEGER AS keyed, count(content_hash)::INTEGER AS hashed, min(n_tokens) AS t FROM token_counts`), [{ n: 2, keyed: 0, hashed: 0, t: 7 }]);
    const cols = e.rows(`SELECT column_name AS c, data_type AS t FROM information_schema.columns WHERE table_name = 'token_counts' AND column_name IN ('profile_key', 'content_hash') ORDER BY 1`);
    assert.deepEqual(cols, [{ c: 'content_hash', t: 'UBIGINT' }, { c: 'profile_key', t: 'VARCHAR' }]);
  });

  it('schema 3 → 4: messages and response get is_error, log-probs become DOUBLE, every value kept', async () => {
    const e = await v1Pool();
    migrate(e.run, MIGRATIONS.filter((m) => m.to <= 3), 3);
    e.run(`INSERT INTO steps (step_id, trajectory_uid, step_index, messages, response, rollout_log_probs) VALUES ('u:0', 'u', 0,
      [{'role': 'tool', 'content': 'boom', 'reasoning': NULL, 'name': 'bash', 'tool_call_id': 'c1', 'tool_calls': NULL, 'parts': NULL}],
      {'role': 'assistant', 'content': 'ok', 'reasoning': NULL, 'name': NULL, 'tool_call_id': NULL, 'tool_calls': NULL, 'parts': NULL}, [-0.5::FLOAT, -1.25::FLOAT])`);
    const out = migrate(e.run);
    assert.deepEqual(out.applied, ["3 → 4: a tool result's error flag in its own field; log-probs as DOUBLE (issue 32)"]);
    const types = e.rows(`SELECT column_name AS c, data_type AS t FROM information_schema.columns WHERE table_name = 'steps' AND column_name IN ('messages', 'response', 'rollout_log_probs') ORDER BY 1`);
    assert.deepEqual(types.map((r) => [r.c, String(r.t).endsWith('is_error BOOLEAN)[]') || String(r.t).endsWith('is_error BOOLEAN)') || r.t]), [['messages', true], ['response', true], ['rollout_log_probs', 'DOUBLE[]']]);
    const row = e.rows(`SELECT messages[1].content AS c, messages[1].tool_call_id AS id, messages[1].is_error AS err, response.content AS r, rollout_log_probs[2] AS lp FROM steps WHERE step_id = 'u:0'`)[0];
    assert.deepEqual(row, { c: 'boom', id: 'c1', err: null, r: 'ok', lp: -1.25 });
  });

  it('a migration that fails changes nothing (earlier steps rolled back too) and says to export and rebuild', async () => {
    const e = await v1Pool();
    const steps = [
      { to: 2, what: 'first', sql: ['ALTER TABLE steps ADD COLUMN marker INTEGER'] },
      { to: 3, what: 'broken', sql: ['ALTER TABLE no_such_table ADD COLUMN x INTEGER'] },
    ];
    const out = migrate(e.run, steps, 3);
    assert.match(out.refused ?? '', /^This pool \(schema 1\) could not be migrated to schema 3: .*no_such_table.*Nothing was changed\. .*export it/s);
    assert.deepEqual(e.rows(`SELECT * FROM pool_meta`), []);
    assert.equal(e.rows(`SELECT count(*)::INTEGER AS n FROM information_schema.columns WHERE table_name = 'steps' AND column_name = 'marker'`)[0].n, 0);
    assert.equal(e.rows('SELECT count(*)::INTEGER AS n FROM steps')[0].n, 2);
  });

  it('a pool of a newer build, or with an unreadable version, is refused and left as it is', async () => {
    const e = await v1Pool();
    e.run(`INSERT INTO pool_meta VALUES ('schema_version', '${SCHEMA_VERSION + 1}')`);
    assert.match(migrate(e.run).refused ?? '', /newer version of the workbench/);
    e.run(`UPDATE pool_meta SET value = 'two' WHERE key = 'schema_version'`);
    assert.match(migrate(e.run).refused ?? '', /schema version cannot be read \(pool_meta.schema_version is 'two'/);
    assert.deepEqual(e.rows(`SELECT value FROM pool_meta`), [{ value: 'two' }]);
  });
});
