import { DuckDBInstance } from '@duckdb/node-api';
import { rmSync } from 'node:fs';
import { STEPS_COLUMNS_DDL } from '../src/pool/schema';
const OLD = (name: string) => `INSERT INTO steps BY NAME
             SELECT * REPLACE (coalesce(is_last, step_index = max(step_index) OVER (PARTITION BY trajectory_uid)) AS is_last)
             FROM "${name}" s
             WHERE NOT EXISTS (SELECT 1 FROM steps t WHERE t.step_id = s.step_id)
             QUALIFY row_number() OVER (PARTITION BY step_id ORDER BY source_line) = 1`;
const NEW = (name: string) => `INSERT INTO steps BY NAME
    SELECT s.* REPLACE (coalesce(s.is_last, s.step_index = l.last_index) AS is_last)
    FROM "${name}" s JOIN (SELECT trajectory_uid, max(step_index) AS last_index FROM "${name}" GROUP BY ALL) l ON l.trajectory_uid = s.trajectory_uid
    WHERE NOT EXISTS (SELECT 1 FROM steps t WHERE t.step_id = s.step_id)`;
for (const [label, sql] of [['old', OLD], ['new', NEW], ['old', OLD], ['new', NEW]] as const) {
  rmSync('/tmp/cc.db', { force: true }); rmSync('/tmp/cc.db.wal', { force: true });
  const db = await DuckDBInstance.create('/tmp/cc.db');
  const c = await db.connect();
  await c.run('SET threads=1');
  await c.run(`CREATE TABLE steps (${STEPS_COLUMNS_DDL})`);
  await c.run(`CREATE TABLE _stage_1 AS SELECT * EXCLUDE (k) REPLACE (step_id || '~' || k AS step_id, trajectory_uid || '~' || k AS trajectory_uid, NULL::BOOLEAN AS is_last) FROM read_parquet('bench/data/wb-steps-10mb.parquet'), range(10) r(k)`);
  await c.run('CHECKPOINT');
  const dd = (await c.runAndReadAll(`SELECT count(*) - count(DISTINCT step_id) FROM _stage_1`)).getRows();
  const t0 = performance.now();
  await c.run('BEGIN'); await c.run(sql('_stage_1')); await c.run('COMMIT');
  const t1 = performance.now();
  await c.run('CHECKPOINT');
  const t2 = performance.now();
  const r = (await c.runAndReadAll(`SELECT count(*), count(*) FILTER (WHERE is_last), hash(string_agg(step_id || is_last::VARCHAR, ',' ORDER BY step_id)) FROM steps`)).getRows();
  console.log(label, 'insert', Math.round(t1 - t0), 'checkpoint', Math.round(t2 - t1), JSON.stringify(r, (_, v) => typeof v === 'bigint' ? String(v) : v), 'dupcheck', String(dd[0][0]));
  c.closeSync(); db.closeSync();
}
