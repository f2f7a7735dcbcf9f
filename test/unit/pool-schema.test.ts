/**
 * The pool's SQL helpers (macros and views every SQL cell can use) and trajectory_stats, run against a real
 * DuckDB with the pool's DDL. Written to kill mutants StrykerJS found.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CURATION_HELPERS, PII_MARKS } from '../../src/pool/curation-sql';
import { DDL, MESSAGE_TYPE, SCHEMA_VERSION, STEPS_COLUMNS_DDL, trajectoryStatsSql } from '../../src/pool/schema';
import { lit, openTestPool } from './helpers/duck';
import { useSamplePool } from './helpers/sample-pool';

const pool = useSamplePool();

const M = MESSAGE_TYPE;
const one = async (sql: string) => Object.values((await pool.rows(sql))[0])[0];

describe('pool schema', () => {
  it('creates the tables and the trajectories view', async () => {
    const tables = (await pool.rows(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' ORDER BY 1`)).map((r) => r.table_name);
    for (const t of ['curation', 'import_errors', 'imports', 'near_duplicates', 'pool_meta', 'steps', 'trajectory_stats', 'trajectories', 'exact_duplicates', 'pii_scan', 'token_counts']) assert.ok(tables.includes(t), t);
    assert.equal(DDL.length, 10); // + the source_trajectory_id migration (decision 011) and token_counts (decision 017)
    assert.equal(SCHEMA_VERSION, 4); // 2: recorded in pool_meta (decision 023); 3: token_counts keyed by profile and content; 4: is_error, DOUBLE log-probs
    assert.match(STEPS_COLUMNS_DDL, /^\s*step_id VARCHAR NOT NULL,/);
    assert.equal(await one(`SELECT nextval('import_seq')`), '1');
    const cols = (await pool.rows(`DESCRIBE steps`)).map((r) => r.column_name);
    assert.equal(cols.length, 36); // 35 + source_trajectory_id
    assert.equal(await one(`SELECT typeof(response) FROM steps LIMIT 1`), MESSAGE_TYPE);
    await pool.run(`INSERT INTO steps (step_id, trajectory_uid, step_index) VALUES ('d', 'd', 0)`);
    assert.deepEqual(await pool.rows(`SELECT channel, status FROM steps WHERE step_id = 'd'`), [{ channel: 'train', status: 'ok' }]);
    await pool.run(`DELETE FROM steps WHERE step_id = 'd'`);
  });

  it('trajectory stats: every aggregate, for all or a subset', async () => {
    const all = await pool.rows(`${trajectoryStatsSql(null)} ORDER BY trajectory_uid`);
    assert.deepEqual(all.map((r) => r.trajectory_uid), ['t1', 't2', 't3', 't4']);
    const t1 = all[0];
    assert.deepEqual(
      { ...t1 },
      {
        trajectory_uid: 't1', prompt_uid: 'p1', step_count: 2, complete: true, reward_sum: 1, reward_min: 0.25, reward_max: 0.75, final_reward: 0.75,
        agents: ['coder'], models: ['gpt-x'], data_source: 'gsm8k', channel: 'train', source: 'a.jsonl', started_at: '2024-01-01 00:00:00',
        duration_ms: 4000, prompt_tokens: '40', completion_tokens: '11', error_steps: 0, ok_steps: 2,
      },
    );
    const t3 = all[2];
    assert.deepEqual([t3.complete, t3.reward_sum, t3.error_steps, t3.ok_steps, t3.duration_ms], [false, null, 1, 0, null]);
    const sub = await pool.rows(`${trajectoryStatsSql(`SELECT 't2' UNION ALL SELECT 't4'`)} ORDER BY trajectory_uid`);
    assert.deepEqual(sub.map((r) => r.trajectory_uid), ['t2', 't4']);
  });

  it('trajectories view joins the curation counts', async () => {
    const t = await pool.rows(`SELECT trajectory_uid, good_steps, bad_steps, unreviewed_steps, trainable_steps FROM trajectories ORDER BY 1`);
    assert.deepEqual(t.map((r) => Object.values(r)), [
      ['t1', 1, 0, 1, 2],
      ['t2', 0, 1, 0, 0],
      ['t3', 0, 0, 1, 1],
      ['t4', 0, 0, 1, 1],
    ]);
  });
});

describe('curation helpers', () => {
  it('each helper is documented under the name its SQL creates', async () => {
    const names = CURATION_HELPERS.map((h) => h.name);
    assert.equal(new Set(names).size, names.length);
    for (const h of CURATION_HELPERS) {
      assert.ok(h.signature.startsWith(h.name), h.name);
      assert.ok(h.doc.length > 20, h.name);
      const kind = h.kind ?? 'macro';
      assert.match(h.sql, new RegExp(`^CREATE (OR REPLACE )?${kind.toUpperCase()} (IF NOT EXISTS )?${h.name}\\b`), h.name);
    }
    assert.deepEqual(CURATION_HELPERS.filter((h) => h.kind).map((h) => [h.name, h.kind]), [['exact_duplicates', 'view'], ['near_duplicates', 'table'], ['pii_scan', 'view']]);
    const fns = (await pool.rows(`SELECT DISTINCT function_name FROM duckdb_functions() WHERE function_type = 'macro' OR function_type = 'table_macro'`)).map((r) => r.function_name);
    for (const h of CURATION_HELPERS.filter((x) => !x.kind)) assert.ok(fns.includes(h.name), h.name);
  });

  it('conversation text, hash, chars and tokens', async () => {
    assert.equal(await one(`SELECT conversation_text(messages, response) FROM steps WHERE step_id = 't1:0'`), 'system:be brief.\nuser:what is 2+2? mail the answer to ann@example.com\nassistant:let me computecalc{"x":"2+2"}');
    assert.equal(await one(`SELECT conversation_text([{'role': 'user', 'content': '  Hi   THERE '}]::${M}[], NULL)`), 'user:hi there');
    assert.equal(await one(`SELECT conversation_hash([{'role': 'user', 'content': 'Hi there'}]::${M}[], NULL) = conversation_hash([{'role': 'user', 'content': ' hi  THERE'}]::${M}[], NULL)`), true);
    assert.equal(await one(`SELECT conversation_hash([{'role': 'user', 'content': 'Hi'}]::${M}[], NULL)`), await one(`SELECT md5('user:hi')`));
    assert.equal(await one(`SELECT conversation_plain(messages, response) FROM steps WHERE step_id = 't1:0'`), 'Be brief.\nWhat is 2+2? Mail the answer to ann@example.com\nLet me compute {"x":"2+2"}');
    assert.equal(await one(`SELECT conversation_chars(messages, response) FROM steps WHERE step_id = 't1:0'`), '81');
    assert.equal(await one(`SELECT conversation_chars(NULL, NULL)`), '0');
    assert.equal(await one(`SELECT conversation_tokens(messages, response) FROM steps WHERE step_id = 't1:0'`), '21');
    assert.deepEqual([await one(`SELECT estimate_tokens('abcde')`), await one(`SELECT estimate_tokens(NULL)`)], [2, 0]);
  });

  it('exact duplicates keep the first imported copy', async () => {
    const d = await pool.rows(`SELECT step_id, dup_count, dup_rank FROM exact_duplicates ORDER BY step_id`);
    assert.equal(d.length, 5);
    assert.ok(d.every((r) => r.dup_count === 1 && r.dup_rank === 1));
    const p = await openTestPool();
    const row = { trajectory_uid: 'x', step_index: 0, messages: [{ role: 'user', content: 'Same' }] };
    await p.addSteps([{ ...row, step_id: 'late', import_id: null, source_line: 1 }, { ...row, step_id: 'b', import_id: 2, source_line: 1 }, { ...row, step_id: 'a', import_id: 2, source_line: 9 }]);
    assert.deepEqual(await p.rows(`SELECT step_id, dup_count, dup_rank FROM exact_duplicates ORDER BY dup_rank`), [
      { step_id: 'b', dup_count: 3, dup_rank: 1 },
      { step_id: 'a', dup_count: 3, dup_rank: 2 },
      { step_id: 'late', dup_count: 3, dup_rank: 3 },
    ]);
    p.close();
  });

  it('split_of is deterministic, seeded and honours the fraction', async () => {
    const rows = await pool.rows(`SELECT split_of('k' || i, 0.3, 'v1') AS s, count(*)::INTEGER AS n FROM range(2000) t(i) GROUP BY s ORDER BY s`);
    assert.equal(rows[0].s, 'train');
    assert.ok(Math.abs(Number(rows[1].n) - 600) < 80, JSON.stringify(rows));
    assert.equal(await one(`SELECT count(*) FILTER (WHERE split_of('k' || i, 0, 's') = 'val') FROM range(500) t(i)`), '0');
    assert.equal(await one(`SELECT count(*) FILTER (WHERE split_of('k' || i, 1, 's') = 'val') FROM range(500) t(i)`), '500');
    assert.equal(await one(`SELECT count(*) FILTER (WHERE split_of('k' || i, 0.5, 'a') <> split_of('k' || i, 0.5, 'b')) > 100 FROM range(500) t(i)`), true);
    const key = (await pool.rows(`SELECT md5_number('v1:key-7') % 1000000 AS h`))[0].h;
    const frac = (Number(key) + 1) / 1e6;
    assert.equal(await one(`SELECT split_of('key-7', ${frac}, 'v1')`), 'val');
    assert.equal(await one(`SELECT split_of('key-7', ${Number(key) / 1e6}, 'v1')`), 'train');
  });

  it('PII: kinds, redaction of text and of messages', async () => {
    assert.deepEqual(await one(`SELECT pii_kinds('a@b.co, +1 555-123-4567, sk-ant-abcdefghijklmnopqrst')`), ['email', 'phone', 'secret']);
    assert.deepEqual(await one(`SELECT pii_kinds('nothing here 2024-01-01')`), []);
    assert.deepEqual(await one(`SELECT pii_kinds(NULL)`), []);
    assert.equal(await one(`SELECT redact_pii('x@y.org or (555) 123 4567 with Bearer abcdefgh123')`), `${PII_MARKS.email} or ${PII_MARKS.phone} with ${PII_MARKS.secret}`);
    const m = {
      role: 'assistant', content: 'mail a@b.co', reasoning: 'key sk-proj-abcdefghijklmnop1234', name: 'n', tool_call_id: 'tc', is_error: true,
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'send', arguments: '{"to":"a@b.co"}' } }], parts: '[{"text":"+1 555 123 4567"}]',
    };
    assert.deepEqual(await one(`SELECT redact_message(${lit(m)}::${M})`), {
      ...m, content: 'mail [email]', reasoning: 'key [secret]', tool_calls: [{ id: 'c', type: 'function', function: { name: 'send', arguments: '{"to":"[email]"}' } }], parts: '[{"text":"[phone]"}]',
    });
    assert.equal(await one(`SELECT redact_message(NULL::${M})`), null);
    assert.deepEqual(await one(`SELECT [x.content FOR x IN redact_messages([${lit({ role: 'user', content: 'a@b.co' })}, NULL]::${M}[])]`), ['[email]', null]);
    assert.deepEqual(await pool.rows(`SELECT step_id, kinds FROM pii_scan ORDER BY 1`), [
      { step_id: 't1:0', kinds: ['email'] },
      { step_id: 't1:1', kinds: ['email'] },
      { step_id: 't2:0', kinds: ['email'] },
      { step_id: 't3:0', kinds: ['email', 'phone'] },
      { step_id: 't4:0', kinds: ['phone', 'secret'] },
    ]);
  });
});
