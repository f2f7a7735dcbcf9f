/**
 * Issue 15: time SQL users already know works in notebook query cells over the pool's UTC
 * TIMESTAMP columns. DuckDB-WASM has no ICU offline, so the built-in now() is a TIMESTAMPTZ that
 * supports no arithmetic; the query connection shadows it with UTC TIMESTAMP macros (decision 009).
 * Every function is checked against a value computed here, not only for "no error".
 */
import { expect } from '@esm-bundle/chai';
import { parseNotebook } from '../../src/notebook/format';
import { NotebookRuntime } from '../../src/notebook/runtime';
import type { PoolClient } from '../../src/pool/client';
import { tableToRows } from '../../src/pool/rows';
import { exporterFor, startPool } from './helpers';
import { demoSteps, insertDemo } from './notebook-demo';

describe('time functions in notebook query cells', function () {
  this.timeout(120_000);
  let pool: PoolClient;
  before(async () => {
    pool = await startPool('nb-time', true);
    // demo steps start 2026-01-01 00:00:00 UTC; one more trajectory started just now
    const recent = demoSteps('recent', 'solver', 'p3', 1, 2).map((s, i) => ({ ...s, started_at: Date.now() - 60_000 + i * 1000, ended_at: Date.now() - 59_000 + i * 1000 }));
    await insertDemo(pool);
    await insertDemo(pool, recent, 'recent.jsonl');
  });
  after(() => pool.terminate());

  async function value(sql: string): Promise<unknown> {
    const doc = parseNotebook(`\`\`\`sql id=v\n${sql}\n\`\`\`\n`);
    const rt = new NotebookRuntime(pool, `time_${Math.random().toString(36).slice(2, 8)}`);
    rt.setCells(doc.cells);
    await rt.runAll();
    const st = rt.state(doc.cells[0].key);
    rt.dispose();
    if (st.error) throw new Error(`${sql}: ${st.error}`);
    return tableToRows(st.table!)[0].v;
  }

  const hourMs = 3600_000;
  const near = (got: unknown, want: number, tol = 120_000) => {
    const ms = typeof got === 'string' ? Date.parse(got.endsWith('Z') || got.length <= 10 ? got : `${got}Z`) : Number(got);
    expect(Math.abs(ms - want), `${got} vs ${new Date(want).toISOString()}`).to.be.lessThan(tol);
  };

  it('now() / current_timestamp minus an interval, in a filter over started_at', async () => {
    near(await value('SELECT now() - interval 1 hour AS v'), Date.now() - hourMs);
    near(await value('SELECT current_timestamp - INTERVAL 1 HOUR AS v'), Date.now() - hourMs);
    near(await value("SELECT now() - INTERVAL '1 day' AS v"), Date.now() - 24 * hourMs);
    near(await value('SELECT date_add(now(), INTERVAL 1 DAY) AS v'), Date.now() + 24 * hourMs);
    expect(await value('SELECT count(*)::INTEGER AS v FROM steps WHERE started_at > now() - interval 1 hour')).to.equal(2);
    expect(await value('SELECT count(*)::INTEGER AS v FROM steps WHERE started_at > current_timestamp - interval 1 hour')).to.equal(2);
    expect(await value("SELECT typeof(now()) AS v")).to.equal('TIMESTAMP');
    near(await value('SELECT transaction_timestamp() - interval 1 minute AS v'), Date.now() - 60_000);
    near(await value('SELECT get_current_timestamp() AS v'), Date.now());
  });

  it('date_trunc, strftime, date_diff, extract, date_part over now() and started_at', async () => {
    const d = new Date();
    near(await value("SELECT date_trunc('hour', now()) AS v"), Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours()), 3600_000);
    expect(await value("SELECT date_trunc('hour', started_at) AS v FROM steps WHERE step_id = 's1:1'")).to.match(/^2026-01-01T00:00:00/);
    expect(await value("SELECT strftime(started_at, '%Y-%m-%d %H:%M:%S') AS v FROM steps WHERE step_id = 's1:1'")).to.equal('2026-01-01 00:00:01');
    expect(await value("SELECT strftime(now(), '%Y') AS v")).to.equal(String(d.getUTCFullYear()));
    expect(await value("SELECT date_diff('day', TIMESTAMP '2026-01-01', now())::INTEGER AS v")).to.equal(Math.floor((Date.now() - Date.UTC(2026, 0, 1)) / 86400_000));
    expect(await value("SELECT date_sub('second', started_at, ended_at)::INTEGER AS v FROM steps WHERE step_id = 's1:1'")).to.equal(1);
    expect(await value("SELECT extract(year FROM now())::INTEGER AS v")).to.equal(d.getUTCFullYear());
    expect(await value("SELECT date_part('dow', now())::INTEGER AS v")).to.equal(d.getUTCDay());
    expect(await value("SELECT dayname(TIMESTAMP '2026-01-01') AS v")).to.equal('Thursday');
    expect(await value("SELECT time_bucket(INTERVAL '1 hour', started_at) AS v FROM steps WHERE step_id = 's1:1'")).to.match(/^2026-01-01T00:00:00/);
  });

  it('today / current_date, epoch conversions both ways', async () => {
    const day = new Date().toISOString().slice(0, 10);
    expect(String(await value('SELECT today() AS v')).slice(0, 10)).to.equal(day);
    expect(String(await value('SELECT current_date AS v')).slice(0, 10)).to.equal(day);
    expect(await value("SELECT epoch(started_at)::BIGINT AS v FROM steps WHERE step_id = 's1:0'")).to.equal(Date.UTC(2026, 0, 1) / 1000);
    expect(await value("SELECT epoch_ms(started_at) AS v FROM steps WHERE step_id = 's1:1'")).to.equal(Date.UTC(2026, 0, 1, 0, 0, 1));
    near(await value('SELECT epoch_ms(now()) AS v'), Date.now());
    expect(await value('SELECT to_timestamp(1767225600) AS v')).to.match(/^2026-01-01T00:00:00/);
    expect(await value('SELECT to_timestamp(1767225600) - interval 1 hour AS v')).to.match(/^2025-12-31T23:00:00/);
    expect(await value("SELECT typeof(to_timestamp(1767225600)) AS v")).to.equal('TIMESTAMP');
    expect(await value('SELECT epoch_ms(1767225600000) AS v')).to.match(/^2026-01-01T00:00:00/);
    expect(await value("SELECT (to_timestamp(epoch(started_at)) = started_at) AS v FROM steps WHERE step_id = 's1:0'")).to.equal(true);
  });

  it('every other time function of the SQL reference: age, date parts, names, buckets, parsing, series', async () => {
    const d = new Date();
    // age of a timestamp against now(): one argument means "since current_date"
    expect(await value("SELECT epoch(age(TIMESTAMP '2026-01-01 12:00:00', TIMESTAMP '2026-01-01 00:00:00'))::INTEGER AS v")).to.equal(43200);
    expect(await value("SELECT date_part('year', age(now(), TIMESTAMP '2000-01-01'))::INTEGER AS v")).to.equal(d.getUTCFullYear() - 2000 - (d.getUTCMonth() === 0 && d.getUTCDate() === 1 ? 1 : 0));
    expect(await value("SELECT (age(TIMESTAMP '2000-01-01') > INTERVAL 20 YEAR) AS v")).to.equal(true);
    expect(await value("SELECT date_diff('hour', started_at, now()) > 1000 AS v FROM steps WHERE step_id = 's1:1'")).to.equal(true);
    expect(await value("SELECT datediff('minute', TIMESTAMP '2026-01-01 00:00', TIMESTAMP '2026-01-01 01:30')::INTEGER AS v")).to.equal(90);
    expect(await value("SELECT datesub('day', DATE '2026-01-01', DATE '2026-01-31')::INTEGER AS v")).to.equal(30);
    expect(await value("SELECT strptime('2026-03-04 05:06:07', '%Y-%m-%d %H:%M:%S') AS v")).to.match(/^2026-03-04T05:06:07/);
    expect(await value("SELECT strftime(DATE '2026-03-04', '%d/%m/%Y') AS v")).to.equal('04/03/2026');
    expect(await value("SELECT make_timestamp(2026, 1, 2, 3, 4, 5.0) AS v")).to.match(/^2026-01-02T03:04:05/);
    expect(String(await value('SELECT make_date(2026, 2, 3) AS v')).slice(0, 10)).to.equal('2026-02-03');
    expect(String(await value("SELECT last_day(DATE '2026-02-03') AS v")).slice(0, 10)).to.equal('2026-02-28');
    expect(await value("SELECT monthname(TIMESTAMP '2026-03-01') AS v")).to.equal('March');
    expect(await value("SELECT week(DATE '2026-01-08')::INTEGER AS v")).to.equal(2);
    expect(await value("SELECT yearweek(DATE '2026-01-08')::INTEGER AS v")).to.equal(202602);
    expect(await value("SELECT quarter(DATE '2026-05-01')::INTEGER AS v")).to.equal(2);
    expect(await value("SELECT (date_part(['year', 'month'], DATE '2026-05-01')).month::INTEGER AS v")).to.equal(5);
    expect(await value("SELECT epoch_us(TIMESTAMP '2026-01-01') AS v")).to.equal(Date.UTC(2026, 0, 1) * 1000);
    expect(String(await value("SELECT epoch_ns(TIMESTAMP '2026-01-01') AS v"))).to.equal(`${Date.UTC(2026, 0, 1)}000000`);
    expect(await value('SELECT make_timestamp(1767225600000000) AS v')).to.match(/^2026-01-01T00:00:00/);
    expect(await value("SELECT time_bucket(INTERVAL '1 day', now())::DATE = current_date AS v")).to.equal(true);
    expect(await value("SELECT count(*)::INTEGER AS v FROM generate_series(now() - INTERVAL 3 HOUR, now(), INTERVAL 1 HOUR)")).to.equal(4);
    expect(await value("SELECT count(*)::INTEGER AS v FROM range(TIMESTAMP '2026-01-01', TIMESTAMP '2026-01-02', INTERVAL 6 HOUR)")).to.equal(4);
    near(await value('SELECT localtimestamp AS v'), Date.now());
    expect(await value("SELECT typeof(current_time) AS v")).to.equal('TIME');
    expect([d.getUTCHours(), new Date().getUTCHours()]).to.include(await value('SELECT hour(current_time)::INTEGER AS v'));
    expect(await value("SELECT greatest(started_at, now() - INTERVAL 100 YEAR) = started_at AS v FROM steps WHERE step_id = 's1:1'")).to.equal(true);
    expect(await value("SELECT isfinite(now()) AS v")).to.equal(true);
    expect(await value("SELECT epoch_ms(date_trunc('day', to_timestamp(1767229200))) AS v")).to.equal(Date.UTC(2026, 0, 1));
  });

  it('a notebook view that uses now() exports, and the pool connection knows the macros too', async () => {
    const doc = parseNotebook("```sql id=last_hour\nSELECT step_id FROM steps WHERE started_at > now() - interval 1 hour ORDER BY step_id\n```\n");
    const rt = new NotebookRuntime(pool, 'time_export');
    rt.setCells(doc.cells);
    await rt.runAll();
    expect(rt.state(doc.cells[0].key).error).to.equal(null);
    const blob = await exporterFor(pool).exportQuery(`SELECT * FROM "${rt.schema}"."last_hour"`, { format: 'csv' });
    expect((await blob.text()).trim().split('\n')).to.deep.equal(['step_id', 'recent:0', 'recent:1']);
    const direct = tableToRows(await pool.query('SELECT count(*)::INTEGER AS n FROM steps WHERE started_at > now() - interval 1 hour'));
    expect(direct[0].n).to.equal(2);
    rt.dispose();
  });
});

