import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildGraph, downstream, plotDataId, readersOf } from '../../src/notebook/graph';
import { type Cell, makeCell } from '../../src/notebook/model';
import { analyzeSql, rewriteRefs } from '../../src/notebook/sql-tokens';

const refs = (sql: string) => analyzeSql(sql).refs.map((r) => [...r.qualifier, r.name].join('.'));

describe('table references', () => {
  it('finds FROM / JOIN / comma-list tables and skips aliases', () => {
    assert.deepEqual(refs('SELECT * FROM steps s JOIN trajectories AS t USING (trajectory_uid), curation c WHERE 1'), ['steps', 'trajectories', 'curation']);
    assert.deepEqual(refs('FROM by_agent SELECT agent'), ['by_agent']);
    assert.deepEqual(refs('SELECT a FROM x LEFT JOIN y ON x.id = y.id JOIN z USING (id)'), ['x', 'y', 'z']);
  });

  it('ignores strings, quoted identifiers used as columns, comments and dollar strings', () => {
    assert.deepEqual(refs(`SELECT 'FROM fake' AS s, "from" FROM real -- FROM comment\n/* JOIN nope /* nested */ still */ WHERE x = $$ FROM dollar $$`), ['real']);
    assert.deepEqual(refs(`SELECT E'it\\'s FROM esc' FROM t2`), ['t2']);
  });

  it('excludes CTE names but keeps what the CTEs read', () => {
    const a = analyzeSql('WITH RECURSIVE g(n) AS (SELECT 1 FROM seed), h AS MATERIALIZED (SELECT * FROM g JOIN steps USING (n)) SELECT * FROM h, g');
    assert.deepEqual(a.ctes, ['g', 'h']);
    assert.deepEqual(a.refs.map((r) => r.name), ['seed', 'steps']);
  });

  it('keeps qualified names qualified and skips table functions and FROM inside calls', () => {
    assert.deepEqual(refs('SELECT extract(year FROM started_at), trim(BOTH \'x\' FROM s) FROM main.steps, range(10) r, unnest([1]) u'), ['main.steps']);
    assert.deepEqual(refs('SELECT * FROM "Quoted Name" q, (SELECT 1 FROM inner_t) sub, last_t'), ['quoted name', 'inner_t', 'last_t']);
  });

  it('sees subqueries in IN / EXISTS and data-changing statements', () => {
    assert.deepEqual(refs('SELECT * FROM a WHERE id IN (SELECT id FROM b) AND EXISTS (SELECT 1 FROM c)'), ['a', 'b', 'c']);
    const ins = analyzeSql("INSERT INTO curation (step_id) SELECT step_id FROM picked ON CONFLICT DO UPDATE SET quality = 'good'");
    assert.equal(ins.mutates, true);
    assert.deepEqual(ins.refs.map((r) => r.name), ['curation', 'picked']);
    for (const sql of ['CREATE TABLE x AS SELECT 1', 'COPY steps TO \'x.csv\'', "ATTACH 'x.db'", 'SET threads = 1', 'DELETE FROM curation', 'WITH a AS (SELECT 1) INSERT INTO t SELECT * FROM a', 'select 1; drop table steps']) {
      assert.equal(analyzeSql(sql).mutates, true, sql);
    }
    for (const sql of ['SELECT 1', "SELECT 'DELETE FROM x'", 'WITH u AS (SELECT 1) SELECT * FROM u', 'FROM steps', 'SUMMARIZE steps', '-- INSERT\nSELECT 2']) {
      assert.equal(analyzeSql(sql).mutates, false, sql);
    }
    assert.deepEqual(analyzeSql('SELECT 1; SELECT 2;').statements, ['SELECT', 'SELECT']);
  });

  it('rewrites references by position, leaving columns, strings and aliases alone', () => {
    const sql = "SELECT by_agent.agent, 'by_agent' FROM by_agent JOIN steps ON by_agent.agent = steps.agent, main.by_agent";
    const out = rewriteRefs(sql, analyzeSql(sql).refs, (n) => (n === 'by_agent' ? 'nb_x."by_agent"' : null));
    assert.equal(out, "SELECT by_agent.agent, 'by_agent' FROM nb_x.\"by_agent\" JOIN steps ON by_agent.agent = steps.agent, main.by_agent");
  });
});

function sql(id: string | undefined, source: string): Cell {
  return makeCell('sql', source, id ? { id } : {});
}

describe('dependency graph', () => {
  it('orders cells after the cells they read and finds downstream cells', () => {
    const c = [sql('c', 'SELECT * FROM b'), sql('a', 'SELECT * FROM steps'), sql('b', 'SELECT * FROM a JOIN trajectories USING (trajectory_uid)'), makeCell('plot', 'mark: dot\ndata: B\nx: x'), sql(undefined, 'SELECT 1')];
    const g = buildGraph(c, { tables: new Set(['steps', 'trajectories']) });
    const pos = (k: Cell) => g.order.indexOf(k.key);
    assert.ok(pos(c[1]) < pos(c[2]) && pos(c[2]) < pos(c[0]) && pos(c[2]) < pos(c[3]));
    assert.deepEqual(downstream(g, [c[2].key]), g.order.filter((k) => [c[2].key, c[0].key, c[3].key].includes(k)));
    assert.deepEqual(readersOf(g, ['trajectories']), [c[2].key]);
    assert.deepEqual(readersOf(g, ['steps']).length, 1);
    for (const n of g.nodes.values()) assert.equal(n.error, null);
  });

  it('reports a cycle in place on each member and blocks what reads it', () => {
    const c = [sql('x', 'SELECT * FROM y'), sql('y', 'SELECT * FROM x'), sql('z', 'SELECT * FROM y'), sql('self', 'SELECT * FROM steps')];
    const g = buildGraph(c);
    assert.match(g.nodes.get(c[0].key)!.error!, /Circular reference/);
    assert.match(g.nodes.get(c[1].key)!.error!, /Circular reference/);
    assert.match(g.nodes.get(c[2].key)!.error!, /Depends on y/);
    assert.equal(g.nodes.get(c[3].key)!.error, null);
    assert.equal(g.order.length, 4);
  });

  it('a cell reading its own id refers to the pool table, not itself', () => {
    const c = [sql('steps', 'SELECT * FROM steps WHERE reward > 0')];
    const g = buildGraph(c, { tables: new Set(['steps']) });
    assert.deepEqual(g.nodes.get(c[0].key)!.deps, []);
    assert.equal(g.nodes.get(c[0].key)!.error, null);
  });

  it('reports unknown names, duplicate ids, bad ids and plots without data', () => {
    const c = [sql('a', 'SELECT * FROM nowhere'), sql('a', 'SELECT 2'), sql('bad-id', 'SELECT 1'), makeCell('plot', 'mark: dot\ndata: missing')];
    const g = buildGraph(c, { tables: new Set(['steps']) });
    assert.match(g.nodes.get(c[0].key)!.error!, /Unknown table "nowhere"/);
    assert.match(g.nodes.get(c[1].key)!.error!, /already has id=a/);
    assert.match(g.nodes.get(c[2].key)!.error!, /Invalid cell id/);
    assert.match(g.nodes.get(c[3].key)!.error!, /Unknown data "missing"/);
    assert.equal(buildGraph([c[0]]).nodes.get(c[0].key)!.error, null, 'without a table list, unknown names are left to DuckDB');
  });
});

describe('dependency graph: each node exactly', () => {
  it('a plot reads the cell its spec names (trimmed, any case); anything else in `data` reads nothing', () => {
    assert.equal(plotDataId('mark: dot\ndata: "  By_Agent "'), 'by_agent');
    for (const src of ['mark: dot', 'data: [a, b]', 'data: 7', 'data: "  "', '- data: a', 'just text', 'data: {x: 1}', '']) assert.equal(plotDataId(src), null, src);
    assert.equal(plotDataId('data: [unclosed'), null, 'a YAML error is the chart cell’s to report');
  });

  it('every node: what it defines, reads, references and whether it writes; Markdown cells are no nodes', () => {
    const note = makeCell('md', 'SELECT * FROM a');
    const c = [
      sql('A', 'SELECT * FROM main.a, a, steps'), note, makeCell('sql', 'SELECT * FROM a', { id: undefined }), sql('w', "INSERT INTO curation VALUES ('x')"),
      makeCell('plot', 'data: a', { id: 'chart' }), makeCell('plot', 'mark: dot'), makeCell('sql', 'SELECT * FROM main.w'),
    ];
    const g = buildGraph(c);
    assert.equal(g.nodes.has(note.key), false);
    assert.deepEqual(g.byId, new Map([['a', c[0].key], ['w', c[3].key]]));
    const a = g.nodes.get(c[0].key)!;
    // the qualified main.a is the pool's, the bare `a` is this cell itself: neither is a dependency
    assert.deepEqual([a.defines, a.deps, a.external, a.refs.map((r) => [...r.qualifier, r.name].join('.')), a.mutates, a.error], ['a', [], ['steps'], ['main.a', 'a', 'steps'], false, null]);
    const anon = g.nodes.get(c[2].key)!;
    assert.deepEqual([anon.defines, anon.deps, anon.external, anon.mutates], [null, [c[0].key], [], false]);
    const w = g.nodes.get(c[3].key)!;
    assert.deepEqual([w.defines, w.deps, w.external, w.mutates], ['w', [], ['curation'], true]);
    const plot = g.nodes.get(c[4].key)!;
    assert.deepEqual([plot.defines, plot.deps, plot.external, plot.refs, plot.mutates, plot.error], [null, [c[0].key], [], [], false, null]);
    // a plot without `data` reads nothing and is no error; a qualified name is the pool's, never a cell's
    assert.deepEqual([g.nodes.get(c[5].key)!.deps, g.nodes.get(c[5].key)!.external, g.nodes.get(c[5].key)!.error], [[], [], null]);
    assert.deepEqual([g.nodes.get(c[6].key)!.deps, g.nodes.get(c[6].key)!.external], [[], []]);
    assert.deepEqual(g.order, [c[0].key, c[2].key, c[3].key, c[4].key, c[5].key, c[6].key]);
  });

  it('a cycle names its members in order; a cell reading a member names it', () => {
    const c = [sql('x', 'SELECT * FROM y'), sql('y', 'SELECT * FROM z'), sql('z', 'SELECT * FROM x'), sql('after', 'SELECT * FROM z'), makeCell('plot', 'data: y')];
    const g = buildGraph(c);
    for (const k of [c[0], c[1], c[2]]) assert.equal(g.nodes.get(k.key)!.error, 'Circular reference: x → y → z read each other. Break the cycle by changing one of these cells.');
    assert.equal(g.nodes.get(c[3].key)!.error, 'Depends on z, which is part of a circular reference.');
    assert.equal(g.nodes.get(c[4].key)!.error, 'Depends on y, which is part of a circular reference.');
    assert.deepEqual(new Set(g.order), new Set(c.map((x) => x.key)));
    // a reader seen first is on the walk's stack when the cycle closes: it is still no member
    const r = [sql('first', 'SELECT * FROM z'), sql('x', 'SELECT * FROM y'), sql('y', 'SELECT * FROM z'), sql('z', 'SELECT * FROM x')];
    assert.equal(buildGraph(r).nodes.get(r[0].key)!.error, 'Depends on z, which is part of a circular reference.');
  });
});
