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
import { startPool } from './helpers';
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
});
