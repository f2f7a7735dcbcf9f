/**
 * The notebook runtime on the page's pool (the real pool worker, here in a Node worker thread: helpers/page-workers.ts):
 * cells run as views in the notebook's schema, downstream cells rerun, errors stay in place, effects run only when
 * asked; time SQL over the pool's UTC TIMESTAMP columns (issue 15: DuckDB-WASM has no ICU offline, so the query
 * connection shadows now() and friends with UTC TIMESTAMP macros, decision 009), every function checked against a value
 * computed here; and query cells cannot write, whatever the tokenizer thinks of their text (issue 17 hole 4): every
 * payload runs as a non-effect cell (with and without a view id), steps and curation unchanged afterwards.
 * One pool for the file; each part starts from its own data.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import { expect } from '@esm-bundle/chai';
import { parseNotebook } from '../../src/notebook/format';
import type { Cell } from '../../src/notebook/model';
import { NotebookRuntime } from '../../src/notebook/runtime';
import type { PoolClient } from '../../src/pool/client';
import { tableToRows } from '../../src/pool/rows';
import { demoSteps, insertDemo } from '../browser/notebook-demo';
import { exporterFor, startPool } from './helpers/page-workers';

let pool: PoolClient;
before(async () => {
  pool = await startPool('nb-runtime');
});
after(() => pool.terminate());

const NB = `---
title: runtime test
---

\`\`\`sql id=by_agent
SELECT agent, count(*)::INTEGER AS n, sum(reward) AS reward FROM steps GROUP BY agent ORDER BY agent
\`\`\`

\`\`\`sql id=top
SELECT agent, n FROM by_agent WHERE n > 0 ORDER BY n DESC
\`\`\`

\`\`\`sql id=total
SELECT sum(n)::INTEGER AS total FROM top
\`\`\`

\`\`\`sql id=broken
SELECT agent,
  nope FROM steps
\`\`\`

\`\`\`sql id=after_broken
SELECT * FROM broken
\`\`\`

\`\`\`sql id=good_steps
SELECT count(*)::INTEGER AS good FROM curation WHERE quality = 'good'
\`\`\`

\`\`\`sql effect
INSERT INTO curation (step_id, quality) SELECT step_id, 'good' FROM steps WHERE reward > 0
\`\`\`

\`\`\`sql id=sneaky
DELETE FROM curation
\`\`\`

\`\`\`sql id=lazy run=false
SELECT * FROM steps
\`\`\`

\`\`\`sql id=unknown
SELECT * FROM nowhere_table
\`\`\`
`;

function byId(cells: Cell[], id: string): Cell {
  return cells.find((c) => c.options.id === id)!;
}

describe('notebook runtime on a real pool', () => {
  before(async () => {
    await pool.clear();
    await insertDemo(pool);
  });

  it('runs a notebook: views, downstream, errors in place, effects only on request', async () => {
    const doc = parseNotebook(NB);
    const rt = new NotebookRuntime(pool, 'rt1');
    rt.setCells(doc.cells);
    await rt.runAll();
    const st = (id: string) => rt.state(byId(doc.cells, id).key);
    const rows = (id: string) => tableToRows(st(id).table!);
    expect(rows('by_agent')).to.deep.equal([{ agent: 'critic', n: 4, reward: 0.5 }, { agent: 'solver', n: 9, reward: 3 }]);
    expect(rows('top')).to.deep.equal([{ agent: 'solver', n: 9 }, { agent: 'critic', n: 4 }]);
    expect(rows('total')).to.deep.equal([{ total: 13 }]);
    expect(st('broken').status).to.equal('error');
    expect(st('broken').error).to.match(/nope/);
    expect(st('broken').error).to.not.include('nb_rt1');
    expect(st('broken').errorLine).to.equal(2);
    expect(st('after_broken').error).to.match(/Waiting for broken/);
    expect(st('sneaky').error).to.match(/Mark it as an effect cell/);
    expect(st('unknown').error).to.match(/Unknown table "nowhere_table"/);
    expect(st('lazy').status).to.equal('idle');
    expect(st('lazy').table).to.equal(null);
    // Views live in the notebook's schema, not in main.
    expect((await pool.rows(`SELECT count(*)::INTEGER AS n FROM "${rt.schema}".lazy`))[0].n).to.equal(13);
    expect((await pool.rows(`SELECT count(*)::INTEGER AS n FROM information_schema.tables WHERE table_schema = 'main' AND table_name = 'by_agent'`))[0].n).to.equal(0);
    // The effect cell did not run on open.
    expect(rows('good_steps')).to.deep.equal([{ good: 0 }]);
    const effect = doc.cells.find((c) => c.options.effect)!;
    await rt.runCell(effect.key);
    await rt.idle();
    expect(rt.state(effect.key).status).to.equal('done');
    expect(rows('good_steps'), 'cells reading curation rerun after the effect').to.deep.equal([{ good: 4 }]);
    rt.dispose();
  });

  it('reruns downstream cells when an upstream cell changes, and ignores superseded runs', async () => {
    const doc = parseNotebook(NB);
    const rt = new NotebookRuntime(pool, 'rt2');
    rt.setCells(doc.cells);
    await rt.runAll();
    const top = byId(doc.cells, 'top');
    const total = byId(doc.cells, 'total');
    const before = rt.state(total.key).runId;
    const edit = (sql: string) => {
      doc.cells = doc.cells.map((c) => (c.options.id === 'by_agent' ? { ...c, source: sql } : c));
      rt.setCells(doc.cells);
      return rt.runCell(byId(doc.cells, 'by_agent').key);
    };
    const first = edit("SELECT agent, count(*)::INTEGER AS n FROM steps WHERE agent = 'critic' GROUP BY agent");
    const second = edit("SELECT agent, count(*)::INTEGER AS n FROM steps WHERE agent = 'solver' GROUP BY agent");
    await Promise.all([first, second]);
    expect(tableToRows(rt.state(top.key).table!)).to.deep.equal([{ agent: 'solver', n: 9 }]);
    expect(tableToRows(rt.state(total.key).table!)).to.deep.equal([{ total: 9 }]);
    expect(rt.state(total.key).runId - before, 'the superseded cascade did not run total').to.equal(1);
    rt.dispose();
  });

  it('two notebooks with the same cell id never see each other', async () => {
    const a = parseNotebook('```sql id=x\nSELECT 1 AS v\n```\n\n```sql id=y\nSELECT v FROM x\n```\n');
    const b = parseNotebook('```sql id=x\nSELECT 2 AS v\n```\n\n```sql id=y\nSELECT v FROM x\n```\n');
    const ra = new NotebookRuntime(pool, 'iso_a');
    const rb = new NotebookRuntime(pool, 'iso_b');
    ra.setCells(a.cells);
    rb.setCells(b.cells);
    await Promise.all([ra.runAll(), rb.runAll()]);
    expect(tableToRows(ra.state(a.cells[1].key).table!)).to.deep.equal([{ v: 1 }]);
    expect(tableToRows(rb.state(b.cells[1].key).table!)).to.deep.equal([{ v: 2 }]);
    ra.dispose();
    rb.dispose();
  });

  it('new data in the pool reruns the cells that read steps / trajectories', async () => {
    const doc = parseNotebook('```sql id=n\nSELECT count(*)::INTEGER AS n FROM steps\n```\n\n```sql id=t\nSELECT count(*)::INTEGER AS t FROM trajectories\n```\n\n```sql id=k\nSELECT 7 AS k\n```\n');
    const rt = new NotebookRuntime(pool, 'rt_change');
    rt.setCells(doc.cells);
    await rt.runAll();
    const [n, t, k] = doc.cells.map((c) => c.key);
    const n0 = tableToRows(rt.state(n).table!)[0].n as number;
    const t0 = tableToRows(rt.state(t).table!)[0].t as number;
    const kRun = rt.state(k).runId;
    await insertDemo(pool, demoSteps('new1', 'solver', 'p9', 1, 3), 'more.jsonl');
    await rt.idle();
    expect(tableToRows(rt.state(n).table!)[0].n).to.equal(n0 + 3);
    expect(tableToRows(rt.state(t).table!)[0].t).to.equal(t0 + 1);
    expect(rt.state(k).runId, 'a cell that reads no pool table does not rerun').to.equal(kRun);
    rt.dispose();
  });
});

describe('time functions in notebook query cells', () => {
  before(async () => {
    await pool.clear();
    // demo steps start 2026-01-01 00:00:00 UTC; one more trajectory started just now
    const recent = demoSteps('recent', 'solver', 'p3', 1, 2).map((s, i) => ({ ...s, started_at: Date.now() - 60_000 + i * 1000, ended_at: Date.now() - 59_000 + i * 1000 }));
    await insertDemo(pool);
    await insertDemo(pool, recent, 'recent.jsonl');
  });

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


/** Each of these is a query cell that tries to change the pool. */
const PAYLOADS: Record<string, string> = {
  dollarQuote: 'SELECT 1e$a$ ) t; DELETE FROM steps; SELECT * FROM (SELECT 1 x$a$',
  dollarQuoteView: 'SELECT 1 e$a$; DELETE FROM steps; SELECT 1 x$a$',
  nestedDollar: "SELECT $o$ $i$ $o$ AS s; DELETE FROM curation; SELECT $i$ ' $i$ AS t",
  commentHidesSemicolon: 'SELECT 1 /* outer /* inner */ still comment; */ AS a; DELETE FROM steps',
  lineComment: 'SELECT 1 AS a -- trailing\n; DELETE FROM curation',
  plainDelete: 'DELETE FROM steps',
  update: "UPDATE curation SET quality = 'bad'",
  insertViaCte: "WITH g AS (SELECT step_id FROM steps) INSERT INTO curation (step_id, quality) SELECT step_id, 'good' FROM g",
  createOrReplace: 'CREATE OR REPLACE TABLE steps AS SELECT * FROM steps LIMIT 0',
  createOrReplaceCuration: 'CREATE OR REPLACE TABLE curation AS SELECT * FROM curation LIMIT 0',
  truncate: 'TRUNCATE curation',
  drop: 'DROP TABLE curation',
  pragma: 'PRAGMA disable_checkpoint_on_shutdown',
  attach: "ATTACH ':memory:' AS other",
  copy: "COPY steps TO 'out.csv'",
  call: 'CALL checkpoint()',
  set: "SET VARIABLE x = 1",
  setConfig: 'SET threads = 1',
  nextvalInSelect: "SELECT nextval('import_seq') AS n",
  semicolonThenWrite: "SELECT ';' AS s; DELETE FROM steps",
};

describe('untrusted notebook: query cells cannot write', () => {
  const fingerprint = async () =>
    (
      await pool.rows(`SELECT (SELECT count(*) FROM steps)::INTEGER AS steps, (SELECT coalesce(sum(hash(step_id)), 0)::VARCHAR FROM steps) AS h,
        (SELECT count(*) FROM curation)::INTEGER AS curation, (SELECT coalesce(sum(hash(step_id || quality)), 0)::VARCHAR FROM curation) AS hc,
        (SELECT count(*) FROM information_schema.tables WHERE table_name IN ('steps', 'curation', 'trajectories'))::INTEGER AS tables`)
    )[0];

  // A fresh pool state for every payload, so one that got through cannot hide the next.
  beforeEach(async () => {
    await pool.clear();
    await insertDemo(pool);
    await pool.exec(`INSERT INTO curation (step_id, quality) SELECT step_id, 'good' FROM steps WHERE step_index = 0`);
  });

  for (const [name, sql] of Object.entries(PAYLOADS)) {
    for (const withId of [false, true]) {
      it(`${name}${withId ? ' (as a view)' : ''} leaves steps and curation unchanged`, async () => {
        const before = await fingerprint();
        expect(before.steps).to.be.greaterThan(0);
        expect(before.curation).to.be.greaterThan(0);
        const doc = parseNotebook(`\`\`\`sql${withId ? ' id=x' : ''}\n${sql}\n\`\`\`\n`);
        const rt = new NotebookRuntime(pool, `u_${name}_${withId ? 'v' : 'q'}`);
        rt.setCells(doc.cells);
        await rt.runAll();
        const st = rt.state(doc.cells[0].key);
        rt.dispose();
        expect(await fingerprint(), `${name}: ${st.status} ${st.error}`).to.deep.equal(before);
        expect(st.status, `${name} must be refused`).to.equal('error');
        expect(st.error).to.be.a('string').and.not.equal('');
      });
    }
  }

  it('a query cell with several statements is refused with a clear error', async () => {
    const doc = parseNotebook('```sql\nSELECT 1e$a$ ) t; DELETE FROM steps; SELECT * FROM (SELECT 1 x$a$\n```\n');
    const rt = new NotebookRuntime(pool, 'u_multi');
    rt.setCells(doc.cells);
    await rt.runAll();
    expect(rt.state(doc.cells[0].key).error).to.match(/more than one statement/);
    rt.dispose();
  });

  it('a query cell that tries to write is told to become an effect cell', async () => {
    const doc = parseNotebook("```sql\nSELECT nextval('import_seq') AS n\n```\n");
    const rt = new NotebookRuntime(pool, 'u_write');
    rt.setCells(doc.cells);
    await rt.runAll();
    expect(rt.state(doc.cells[0].key).error).to.match(/read-only/);
    rt.dispose();
  });

  it('read-only queries of every SELECT-like form still work', async () => {
    const before = await fingerprint();
    const doc = parseNotebook(
      [
        "```sql id=a\nSELECT ';DELETE FROM steps;' AS s, $$ $a$ ; $$ AS d -- ; DELETE FROM steps\n```",
        '```sql id=b\nWITH t AS (SELECT agent FROM steps) SELECT count(*)::INTEGER AS n FROM t\n```',
        '```sql id=c\nFROM steps SELECT step_id LIMIT 2\n```',
        '```sql id=d\nSUMMARIZE steps\n```',
        '```sql id=e\nDESCRIBE steps\n```',
        '```sql id=f\nVALUES (1, 2), (3, 4)\n```',
        '```sql\nSELECT n FROM b;\n```',
        '```sql id=g run=false\nSELECT * FROM steps\n```',
      ].join('\n\n'),
    );
    const rt = new NotebookRuntime(pool, 'u_ok');
    rt.setCells(doc.cells);
    await rt.runAll();
    const states = doc.cells.map((c) => rt.state(c.key));
    expect(states.map((s) => s.error)).to.deep.equal(doc.cells.map(() => null));
    expect(tableToRows(states[0].table!)).to.deep.equal([{ s: ';DELETE FROM steps;', d: ' $a$ ; ' }]);
    expect(tableToRows(states[1].table!)).to.deep.equal([{ n: before.steps }]);
    expect(states[2].table!.numRows).to.equal(2);
    expect(states[5].table!.numRows).to.equal(2);
    expect(tableToRows(states[6].table!)).to.deep.equal([{ n: before.steps }]);
    expect(states[7].status).to.equal('idle');
    expect((await pool.rows(`SELECT count(*)::INTEGER AS n FROM "${rt.schema}".g`))[0].n, 'run=false still defines its view').to.equal(before.steps);
    expect(await fingerprint()).to.deep.equal(before);
    rt.dispose();
  });
});

describe('stopping a notebook on an in-memory pool', () => {
  it('is refused instead of losing the data (issue 17 hole 8: a stop restarts the engine; saved pools: test/browser/notebook-stop)', async () => {
    const rt = new NotebookRuntime(pool, 'stop_mem');
    let err = '';
    await rt.stop().catch((e: Error) => (err = e.message));
    expect(err).to.match(/in memory .* would empty it/);
    expect(pool.restarts).to.equal(0);
    rt.dispose();
  });
});
