/**
 * Notebook statement classification and table references (src/notebook/sql-tokens.ts) against DuckDB's
 * own parser (native `@duckdb/node-api`): for the example notebooks' SQL and for hand-written edge cases,
 * the statement count equals DuckDB's `extractStatements` and the tables referenced equal its
 * `getTableNames`. Plus what only we decide: whether a cell changes data, and the statement heads.
 * Written to kill mutants StrykerJS found.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { parseNotebook } from '../../src/notebook/format';
import { analyzeSql, identName, rewriteRefs, tokenize, type TableRef } from '../../src/notebook/sql-tokens';

let con: DuckDBConnection;
before(async () => {
  con = await (await DuckDBInstance.create(':memory:')).connect();
});
after(() => con.closeSync());

const NOTEBOOKS = ['tour.md', 'sft-curation.md', 'rl-rewards.md', 'tool-calls.md'];
const notebookSql = NOTEBOOKS.flatMap((f) =>
  parseNotebook(readFileSync(new URL(`../../notebooks/${f}`, import.meta.url), 'utf8')).cells.filter((c) => c.kind === 'sql').map((c) => c.source),
);

const EDGE = [
  'SELECT * FROM steps s JOIN trajectories AS t USING (trajectory_uid), curation c WHERE 1 = 1',
  'FROM by_agent SELECT agent',
  'SELECT a FROM x LEFT JOIN y ON x.id = y.id JOIN z USING (id) ORDER BY 1 LIMIT 3',
  "SELECT 'FROM fake' AS s, \"from\" FROM real -- FROM comment\n/* JOIN nope /* nested */ still */ WHERE x = $$ FROM dollar $$",
  "SELECT E'it\\'s FROM esc' FROM t2",
  'WITH RECURSIVE g(n) AS (SELECT 1 FROM seed), h AS MATERIALIZED (SELECT * FROM g JOIN steps USING (n)) SELECT * FROM h, g',
  'WITH a AS NOT MATERIALIZED (SELECT 1 FROM src) SELECT * FROM a, other',
  "SELECT extract(year FROM started_at), trim(BOTH 'x' FROM s) FROM main.steps, range(10) r, unnest([1]) u",
  'SELECT * FROM "Quoted ""Name""" q, (SELECT 1 FROM inner_t) sub, last_t',
  'SELECT * FROM a WHERE id IN (SELECT id FROM b) AND EXISTS (SELECT 1 FROM c) OR x = ANY (SELECT y FROM d)',
  'SELECT * FROM a, LATERAL (SELECT * FROM b WHERE b.id = a.id) l',
  'SELECT (SELECT max(x) FROM m) AS top, CASE WHEN EXISTS (SELECT 1 FROM n) THEN 1 ELSE 0 END FROM o',
  'SELECT * FROM p UNION ALL SELECT * FROM q EXCEPT SELECT * FROM r',
  'SELECT * FROM s1 WINDOW w AS (PARTITION BY a) QUALIFY row_number() OVER w = 1',
  'SELECT * FROM cat.sch.tbl, sch2.tbl2',
  'SELECT count(*) FROM t1 GROUP BY ALL HAVING count(*) > 1',
  'SELECT * FROM t3 USING SAMPLE 10%',
  'SELECT x::INT, y->>\'$.a\', 1.5e3, .5, $1, ? FROM t4',
  'SELECT * FROM read_parquet(\'x.parquet\') JOIN t5 ON true',
  'DESCRIBE steps',
  'SUMMARIZE curation',
  'SELECT * FROM t6; SELECT * FROM t7;',
  'INSERT INTO curation (step_id) SELECT step_id FROM picked ON CONFLICT DO UPDATE SET quality = \'good\'',
  'UPDATE curation SET quality = NULL FROM t8 WHERE curation.step_id = t8.step_id',
  'DELETE FROM curation WHERE step_id IN (SELECT step_id FROM t9)',
  'CREATE TABLE tmp AS SELECT * FROM steps',
  'COPY (SELECT * FROM steps) TO \'out.csv\'',
  'SELECT "select" FROM t10 AS "join"',
  "PIVOT t11 ON agent IN ('coder', 'critic') USING count(*)",
  'SELECT * FROM t12 NATURAL JOIN t13 ASOF JOIN t14 USING (ts)',
];

let compared = 0;
describe('statements and references agree with DuckDB\'s parser', () => {
  for (const [i, sql] of [...notebookSql, ...EDGE].entries()) {
    it(`#${i}: ${sql.replace(/\s+/g, ' ').slice(0, 70)}`, async () => {
      const a = analyzeSql(sql);
      const duckCount = (await con.extractStatements(sql)).count;
      assert.equal(a.statements.length, duckCount, `statements ${JSON.stringify(a.statements)}`);
      const theirs = [...new Set(con.getTableNames(sql, false).map((n) => n.toLowerCase()))].sort();
      // DuckDB 1.5's getTableNames returns nothing for several queries it parses (a JOIN … USING, parameters,
      // more than one statement, INSERT / UPDATE / DELETE): no oracle there, only where it answers
      if (!theirs.length) return;
      compared++;
      const ours = [...new Set(a.refs.map((r) => r.name))].sort();
      assert.deepEqual(ours, theirs);
    });
  }
  it('the example notebooks have SQL to compare, and DuckDB answered for most queries', () => {
    assert.ok(notebookSql.length >= 20, String(notebookSql.length));
    assert.ok(compared >= 30, String(compared));
  });
});

describe('classification', () => {
  it('heads, one per statement, upper-cased; a semicolon inside parentheses, strings or comments splits nothing', () => {
    assert.deepEqual(analyzeSql("select 1; -- ; \n Insert into t values (';'); ;FROM x").statements, ['SELECT', 'INSERT', 'FROM']);
    assert.deepEqual(analyzeSql('SELECT (SELECT 1; ) ; SELECT 2').statements, ['SELECT', 'SELECT']);
    assert.deepEqual(analyzeSql('(SELECT 1) UNION (SELECT 2)').statements, []);
    assert.deepEqual(analyzeSql('').statements, []);
  });
  it('every data- or settings-changing head mutates, whatever its case', () => {
    for (const head of ['insert', 'update', 'delete', 'create', 'drop', 'alter', 'copy', 'attach', 'detach', 'set', 'reset', 'install', 'load', 'pragma', 'checkpoint', 'force', 'vacuum', 'begin', 'commit', 'rollback', 'abort', 'export', 'import', 'use', 'truncate', 'merge', 'call', 'comment', 'start', 'end', 'prepare', 'execute', 'deallocate']) {
      assert.equal(analyzeSql(`${head.toUpperCase()} x`).mutates, true, head);
      assert.equal(analyzeSql(`SELECT 1; ${head} x`).mutates, true, head);
    }
  });
  it('WITH … INSERT/UPDATE/DELETE/MERGE mutates at the top level only', () => {
    for (const verb of ['INSERT INTO t SELECT * FROM a', 'UPDATE t SET x = 1', 'DELETE FROM t', 'MERGE INTO t USING a ON true WHEN MATCHED THEN DELETE']) {
      assert.equal(analyzeSql(`WITH a AS (SELECT 1) ${verb}`).mutates, true, verb);
    }
    assert.equal(analyzeSql("WITH a AS (SELECT 'delete' AS insert) SELECT * FROM a").mutates, false);
    assert.equal(analyzeSql('SELECT 1 AS delete').mutates, false);
    assert.equal(analyzeSql('SELECT * FROM t WHERE x IN (SELECT 1) -- update').mutates, false);
  });
  it('reads only: select, from, describe, summarize, show, explain, pivot, values, with … select', () => {
    for (const sql of ['SELECT 1', 'FROM steps', 'DESCRIBE steps', 'SUMMARIZE steps', 'SHOW TABLES', 'EXPLAIN SELECT 1', 'PIVOT t ON a', 'VALUES (1)', 'WITH u AS (SELECT 1) SELECT * FROM u', '/* drop */ SELECT 2']) {
      assert.equal(analyzeSql(sql).mutates, false, sql);
    }
  });
});

describe('tokens', () => {
  it('every kind, with exact spans', () => {
    const sql = "SELECT a1, \"q\"\"x\", 'it''s', E'a\\'b', $tag$ $ $tag$, $1, ?, 1.5e3, .5, x::int, a<>b, a->b -- c\n/* d */\t$$x$$ 数据";
    const toks = tokenize(sql);
    assert.equal(toks.map((t) => t.text).join(''), sql);
    for (const t of toks) assert.equal(sql.slice(t.start, t.end), t.text);
    const sig = toks.filter((t) => t.type !== 'ws').map((t) => `${t.type}:${t.text}`);
    assert.deepEqual(sig, [
      'word:SELECT', 'word:a1', 'punct:,', 'qident:"q""x"', 'punct:,', "string:'it''s'", 'punct:,', "string:E'a\\'b'", 'punct:,', 'string:$tag$ $ $tag$', 'punct:,',
      'param:$1', 'punct:,', 'param:?', 'punct:,', 'number:1.5e3', 'punct:,', 'number:.5', 'punct:,', 'word:x', 'punct:::', 'word:int', 'punct:,', 'word:a', 'punct:<>', 'word:b', 'punct:,',
      'word:a', 'punct:->', 'word:b', 'comment:-- c', 'comment:/* d */', 'string:$$x$$', 'word:数据',
    ]);
  });
  it('unterminated strings, identifiers and comments run to the end', () => {
    for (const [sql, type] of [["'abc", 'string'], ['"abc', 'qident'], ['/* abc', 'comment'], ['$q$ abc', 'string'], ['-- abc', 'comment']] as const) {
      const [t] = tokenize(sql);
      assert.deepEqual([t.type, t.text, t.end], [type, sql, sql.length], sql);
    }
    assert.deepEqual(tokenize("'a''").map((t) => t.text), ["'a''"]);
  });
  it('identName', () => {
    assert.equal(identName({ type: 'qident', text: '"My ""T"""', start: 0, end: 0 }), 'my "t"');
    assert.equal(identName({ type: 'word', text: 'Steps', start: 0, end: 0 }), 'steps');
  });
  it('rewriteRefs: only unqualified references the function maps, in source order', () => {
    const sql = 'SELECT * FROM b, a JOIN main.a ON true JOIN c USING (x)';
    const refs = analyzeSql(sql).refs;
    assert.equal(rewriteRefs(sql, [...refs].reverse(), (n) => (n === 'c' ? null : `nb.${n}`)), 'SELECT * FROM nb.b, nb.a JOIN main.a ON true JOIN c USING (x)');
    assert.equal(rewriteRefs(sql, [], () => 'z'), sql);
  });
});

const names = (sql: string) => analyzeSql(sql).refs.map((r) => [...r.qualifier, r.name].join('.'));
const spans = (sql: string) => analyzeSql(sql).refs.map((r) => sql.slice(r.start, r.end));

describe('bugs: what a cell could hide from the classifier', () => {
  it('a -- comment ends at a lone CR, as in DuckDB: the DROP after it is a second statement that writes', () => {
    // DuckDB ran `SELECT 1 -- c\r; DROP TABLE u` as two statements and dropped u
    const a = analyzeSql('SELECT 1 -- c\r; DROP TABLE u');
    assert.deepEqual(a.statements, ['SELECT', 'DROP']);
    assert.equal(a.mutates, true);
    assert.equal(analyzeSql('SELECT 1 -- c\rFROM t').refs.length, 1);
    assert.deepEqual(tokenize('-- a\r\nx').map((t) => [t.type, t.text]), [['comment', '-- a'], ['ws', '\r\n'], ['word', 'x']]);
  });
  it('EXPLAIN ANALYZE runs the statement it explains: a write under it mutates; plain EXPLAIN does not run it', () => {
    // DuckDB inserted a row for each of these
    for (const sql of [
      'EXPLAIN ANALYZE INSERT INTO t VALUES (1)',
      'explain analyse delete from t',
      'EXPLAIN (ANALYZE) UPDATE t SET x = 1',
      'EXPLAIN (FORMAT json, ANALYZE) INSERT INTO t VALUES (1)',
      'EXPLAIN ANALYZE VERBOSE CREATE TABLE x AS SELECT 1', // DuckDB 1.5 rejects VERBOSE; counted anyway
      'EXPLAIN ANALYZE WITH a AS (SELECT 5) INSERT INTO t SELECT * FROM a',
      'SELECT 1; EXPLAIN ANALYZE COPY t TO \'x.csv\'',
    ]) {
      const a = analyzeSql(sql);
      assert.equal(a.mutates, true, sql);
      assert.equal(a.statements.at(-1), 'EXPLAIN', sql);
    }
    for (const sql of ['EXPLAIN INSERT INTO t VALUES (4)', 'EXPLAIN ANALYZE SELECT * FROM t', 'EXPLAIN (FORMAT json) DELETE FROM t', 'EXPLAIN ANALYZE WITH a AS (SELECT 1) SELECT * FROM a']) {
      assert.equal(analyzeSql(sql).mutates, false, sql);
    }
    assert.deepEqual(names('EXPLAIN ANALYZE SELECT * FROM t JOIN u ON true'), ['t', 'u']);
  });
  it('DESCRIBE TABLE t and SUMMARIZE TABLE t read t (not a table named "table")', () => {
    assert.deepEqual(names('DESCRIBE TABLE t'), ['t']);
    assert.deepEqual(names('summarize table main.steps'), ['main.steps']);
    assert.deepEqual(names('SHOW TABLE t'), ['t']);
    assert.deepEqual(spans('DESCRIBE  TABLE "My T"'), ['"My T"']);
  });
  it('SHOW t reads t; SHOW TABLES / ALL TABLES / DATABASES read no table', () => {
    assert.deepEqual(names('SHOW t'), ['t']);
    assert.deepEqual(names('show main.steps'), ['main.steps']);
    assert.deepEqual(names('SELECT 1; SHOW "My T"'), ['my t']);
    for (const sql of ['SHOW TABLES', 'SHOW ALL TABLES', 'show databases']) assert.deepEqual(names(sql), [], sql);
    // not at a statement head: a column or alias named show
    assert.deepEqual(names('SELECT show FROM t'), ['t']);
  });
  it("UNPIVOT … INTO NAME k VALUE v names columns, not a table called name", () => {
    assert.deepEqual(names('UNPIVOT t ON a, b INTO NAME k VALUE v'), ['t']);
    assert.deepEqual(names('SELECT * FROM (UNPIVOT t ON COLUMNS(*) INTO NAME k VALUE v) u JOIN w ON true'), ['t', 'w']);
    // an INSERT INTO a table called name still reads it; so does one after an UNPIVOT statement
    assert.deepEqual(names('INSERT INTO name SELECT 1'), ['name']);
    assert.deepEqual(names('UNPIVOT t ON a INTO NAME k VALUE v; INSERT INTO name SELECT 1'), ['t', 'name']);
    assert.deepEqual(names('INSERT INTO name UNPIVOT t ON a INTO NAME k VALUE v'), ['name', 't']);
  });
  it('TABLESAMPLE belongs to one table of a FROM list: the tables after it still count', () => {
    assert.deepEqual(names('SELECT * FROM t TABLESAMPLE 10%, u'), ['t', 'u']);
    assert.deepEqual(names('SELECT * FROM t TABLESAMPLE reservoir(5 ROWS), u JOIN v ON true'), ['t', 'u', 'v']);
    // USING SAMPLE is a clause of the whole query: nothing after it is a table
    assert.deepEqual(names('SELECT * FROM t USING SAMPLE 10%'), ['t']);
  });
});

describe('where a write could hide: the same statements as DuckDB 1.5 (checked by running each: u dropped or not)', () => {
  it('strings, identifiers and comments', () => {
    const cases: [string, string[]][] = [
      ['SELECT 1 /* a /* b */ ; DROP TABLE u; */', ['SELECT']],
      ["SELECT E'a\\'; DROP TABLE u; --'", ['SELECT']],
      ["SELECT 'a\\'; DROP TABLE u; --'", ['SELECT', 'DROP']],
      ["SELECT e'x\\\\'; DROP TABLE u", ['SELECT', 'DROP']],
      ['SELECT $$a$$; DROP TABLE u; --$$', ['SELECT', 'DROP']],
      ['SELECT $x$ $$ $x$; DROP TABLE u', ['SELECT', 'DROP']],
      ['SELECT $tag$ x $TAG$ ; DROP TABLE u; $tag$', ['SELECT']],
      ['SELECT "a""; DROP TABLE u; --"', ['SELECT']],
      ['SELECT 1 --x\f; DROP TABLE u', ['SELECT']],
    ];
    for (const [sql, heads] of cases) {
      const a = analyzeSql(sql);
      assert.deepEqual([a.statements, a.mutates], [heads, heads.includes('DROP')], sql);
    }
  });
});

describe('tokens', () => {
  it('a token that ends the text ends exactly at its length', () => {
    for (const [sql, type] of [['abc', 'word'], ['x数据', 'word'], ['12.5e3', 'number'], ['$abc', 'param'], ['-- c', 'comment'], ['/* c */', 'comment'], ["E'a\\'", 'string']] as const) {
      const toks = tokenize(sql);
      assert.deepEqual(toks.map((t) => [t.type, t.start, t.end]), [[type, 0, sql.length]], sql);
    }
    assert.deepEqual(tokenize('a b').map((t) => t.end), [1, 2, 3]);
  });
  it('whitespace runs are one token; every two-character operator is one token', () => {
    assert.deepEqual(tokenize(' \t\r\n x').map((t) => [t.type, t.text]), [['ws', ' \t\r\n '], ['word', 'x']]);
    const ops = ['::', '<=', '>=', '<>', '!=', '||', '->', '=>', '**', '//'];
    assert.deepEqual(tokenize(`a${ops.join('a')}a`).filter((t) => t.type === 'punct').map((t) => t.text), ops);
    assert.deepEqual(tokenize('a<b').map((t) => t.text), ['a', '<', 'b']);
    assert.deepEqual(tokenize('a=').map((t) => t.text), ['a', '=']);
  });
  it('strings: doubled quotes, backslashes only in E-strings (either case), dollar tags', () => {
    const sig = (sql: string) => tokenize(sql).filter((t) => t.type !== 'ws').map((t) => `${t.type}:${t.text}`);
    assert.deepEqual(sig("'a\\' b'"), ["string:'a\\'", 'word:b', "string:'"]);
    assert.deepEqual(sig("e'a\\'b' c"), ["string:e'a\\'b'", 'word:c']);
    assert.deepEqual(sig("E'a''b' c"), ["string:E'a''b'", 'word:c']);
    assert.deepEqual(sig("x'a'"), ['word:x', "string:'a'"]);
    assert.deepEqual(sig('"a""b" c'), ['qident:"a""b"', 'word:c']);
    assert.deepEqual(sig('$a1$ x $b$ y $a1$ z'), ['string:$a1$ x $b$ y $a1$', 'word:z']);
    assert.deepEqual(sig('$_$ x $_$ $1 $ab $'), ['string:$_$ x $_$', 'param:$1', 'param:$ab', 'param:$']);
    assert.deepEqual(sig('$1 $$ x $$'), ['param:$1', 'string:$$ x $$']);
    assert.deepEqual(sig('$1$ x'), ['param:$1', 'param:$', 'word:x']);
    assert.deepEqual(sig('/* a /* b */ c */ d'), ['comment:/* a /* b */ c */', 'word:d']);
    assert.deepEqual(sig('/* a */* b'), ['comment:/* a */', 'punct:*', 'word:b']);
    // a lone / or * inside a block comment neither opens nor closes a level
    assert.deepEqual(sig('/* a/b */ c'), ['comment:/* a/b */', 'word:c']);
    assert.deepEqual(sig('/* a*b */ c'), ['comment:/* a*b */', 'word:c']);
    assert.deepEqual(sig('x\n-- c\ny'), ['word:x', 'comment:-- c', 'word:y']);
  });
  it('numbers, words and parameters', () => {
    const sig = (sql: string) => tokenize(sql).filter((t) => t.type !== 'ws').map((t) => `${t.type}:${t.text}`);
    assert.deepEqual(sig('1.5e3 .5 t.x a$b _c 9a ? x.'), ['number:1.5e3', 'number:.5', 'word:t', 'punct:.', 'word:x', 'word:a$b', 'word:_c', 'number:9', 'word:a', 'param:?', 'word:x', 'punct:.']);
    assert.deepEqual(sig('a1 Ü数'), ['word:a1', 'word:Ü数']);
  });
});

describe('classification', () => {
  it('a stray ) does not hide the next statement', () => {
    const a = analyzeSql('SELECT 1); DROP TABLE t');
    assert.deepEqual([a.statements, a.mutates], [['SELECT', 'DROP'], true]);
    assert.deepEqual(names('SELECT 1) ; SELECT * FROM a, b'), ['a', 'b']);
  });
  it('a statement that starts with ( has no head and does not carry the previous WITH', () => {
    assert.deepEqual(analyzeSql('WITH a AS (SELECT 1) SELECT 1; (SELECT 2) UNION (SELECT 3)').statements, ['WITH']);
    assert.equal(analyzeSql('WITH a AS (SELECT 1) SELECT 1; (SELECT 2) insert').mutates, false);
  });
  it('WITH … a write verb: only a word at the top level, only when the statement runs', () => {
    assert.equal(analyzeSql('WITH a AS (SELECT 1) SELECT "insert" FROM a').mutates, false);
    assert.equal(analyzeSql("WITH a AS (SELECT 1) SELECT 'delete' FROM a").mutates, false);
    assert.equal(analyzeSql('EXPLAIN WITH a AS (SELECT 1) INSERT INTO t SELECT * FROM a').mutates, false);
    assert.equal(analyzeSql('with a as (select 1) Update t set x = 1').mutates, true);
    assert.equal(analyzeSql('SELECT 1; WITH a AS (SELECT 1) DELETE FROM t').mutates, true);
  });
  it('EXPLAIN options: ANALYZE in either spelling, inside or outside the option list', () => {
    for (const sql of ['EXPLAIN (ANALYSE) INSERT INTO t VALUES (1)', 'EXPLAIN (analyze true) DELETE FROM t', 'EXPLAIN VERBOSE ANALYZE DROP TABLE t', 'EXPLAIN ANALYSE (FORMAT json) DELETE FROM t']) {
      assert.deepEqual([analyzeSql(sql).statements, analyzeSql(sql).mutates], [['EXPLAIN'], true], sql);
    }
    for (const sql of ['EXPLAIN', 'EXPLAIN (FORMAT json', 'EXPLAIN VERBOSE DELETE FROM t', 'EXPLAIN SELECT 1; DELETE FROM t']) {
      assert.equal(analyzeSql(sql).mutates, sql.endsWith('DELETE FROM t') && sql.includes(';'), sql);
    }
  });
});

describe('classification: what the first Stryker run left', () => {
  it('a semicolon inside parentheses, at any depth, splits nothing', () => {
    assert.deepEqual(analyzeSql('SELECT (SELECT 1; SELECT 2)').statements, ['SELECT']);
    assert.deepEqual(analyzeSql('SELECT ((1); SELECT 2)').statements, ['SELECT']);
    assert.equal(analyzeSql('WITH a AS (SELECT 1) SELECT ((1), insert)').mutates, false);
  });
  it('WITH … MERGE mutates even when no other write verb follows', () => {
    assert.equal(analyzeSql('WITH a AS (SELECT 1) MERGE INTO t USING a ON true WHEN MATCHED THEN DO NOTHING').mutates, true);
  });
  it('only the EXPLAIN options decide whether it runs, not an ANALYZE elsewhere in the text', () => {
    assert.equal(analyzeSql('EXPLAIN DELETE FROM t WHERE analyze = 1').mutates, false);
    assert.equal(analyzeSql('SELECT 1 AS analyze; EXPLAIN DELETE FROM t').mutates, false);
  });
  it('a CTE body with nested parentheses: the next CTE is still a CTE', () => {
    const a = analyzeSql('WITH a AS (SELECT (1)), b AS (SELECT 2) SELECT * FROM a, b');
    assert.deepEqual([a.ctes, a.refs], [['a', 'b'], []]);
    assert.equal(analyzeSql('EXPLAIN (FORMAT (json), ANALYZE) DELETE FROM t').mutates, true);
  });
});

describe('CTE names', () => {
  const cte = (sql: string) => {
    const a = analyzeSql(sql);
    return { ctes: a.ctes, refs: a.refs.map((r) => [...r.qualifier, r.name].join('.')) };
  };
  it('recursive, column lists, [NOT] MATERIALIZED, several, quoted; a CTE name is no reference unless qualified', () => {
    assert.deepEqual(cte('WITH RECURSIVE g(n) AS (SELECT 1 FROM seed), "H" AS NOT MATERIALIZED (SELECT * FROM g), i AS (FROM h) SELECT * FROM i, main.g, x'), {
      ctes: ['g', 'h', 'i'],
      refs: ['seed', 'main.g', 'x'],
    });
    assert.deepEqual(cte('with a as materialized (select 1) from a'), { ctes: ['a'], refs: [] });
  });
  it('stops at what is no CTE: WITH ORDINALITY, a name without AS, AS without (, no comma', () => {
    assert.deepEqual(cte('SELECT * FROM unnest([1]) WITH ORDINALITY AS o, t'), { ctes: [], refs: ['t'] });
    assert.deepEqual(cte('WITH a AS SELECT 1 FROM b'), { ctes: [], refs: ['b'] });
    assert.deepEqual(cte('WITH a AS (SELECT 1) b AS (SELECT 2) SELECT * FROM a, b'), { ctes: ['a'], refs: ['b'] });
    assert.deepEqual(cte('WITH a AS (SELECT 1), 1 AS (SELECT 2) FROM a'), { ctes: ['a'], refs: [] });
    assert.deepEqual(cte('WITH a (x) SELECT 1 FROM b'), { ctes: [], refs: ['b'] });
    assert.deepEqual(cte('WITH a (x AS (SELECT 1) SELECT 1'), { ctes: [], refs: [] });
    assert.deepEqual(cte('WITH a AS (SELECT 1 FROM b'), { ctes: ['a'], refs: ['b'] });
    assert.deepEqual(cte('WITH'), { ctes: [], refs: [] });
    for (const sql of ['WITH a', 'WITH a AS', 'WITH a AS NOT']) assert.deepEqual(cte(sql), { ctes: [], refs: [] }, sql);
    assert.deepEqual(cte('WITH a x (SELECT 1) SELECT * FROM a'), { ctes: [], refs: ['a'] });
    assert.deepEqual(cte('WITH a AS (SELECT 1) x b AS (SELECT 2) SELECT * FROM b'), { ctes: ['a'], refs: ['b'] });
  });
});

describe('table references', () => {
  it('after each table keyword', () => {
    const cases: [string, string[]][] = [
      ['INSERT INTO t1 (a, b) SELECT a, b FROM t2', ['t1', 't2']],
      ['UPDATE t SET x = 1', ['t']],
      ['SELECT 1; update t SET x = 1', ['t']],
      ['WITH a AS (SELECT 1) UPDATE t SET x = 1 FROM a', ['t']],
      ['INSERT INTO t SELECT 1 ON CONFLICT DO UPDATE SET x = 1', ['t']],
      ['TABLE t', ['t']],
      ['SELECT * FROM (TABLE t)', ['t']],
      ['CREATE TABLE t AS SELECT 1', []],
      ['DESCRIBE t', ['t']],
      ['SUMMARIZE t', ['t']],
      ['PIVOT t ON agent, model USING count(*)', ['t']],
      ['UNPIVOT t ON a, b', ['t']],
      ["COPY t TO 'x.csv'", ['t']],
      ['SELECT * FROM a JOIN b ON true', ['a', 'b']],
      ['DESCRIBE SELECT * FROM t', ['t']],
      ['DESCRIBE WITH a AS (SELECT 1) SELECT * FROM a', []],
      ['SELECT * FROM ONLY t', ['t']],
      ['SELECT * FROM a, LATERAL generate_series(1, a.n) g', ['a']],
      ['SELECT * FROM a, LATERAL (SELECT * FROM b) l', ['a', 'b']],
      ['SELECT * FROM unnest([1]) u, (VALUES (1)) v', []],
    ];
    for (const [sql, want] of cases) assert.deepEqual(names(sql), want, sql);
  });
  it('qualified names with exact spans; a dot without a name after it ends the name', () => {
    const sql = 'SELECT * FROM cat.sch."T x", s2.t2, t3., "q"';
    assert.deepEqual(spans(sql), ['cat.sch."T x"', 's2.t2', 't3', '"q"']);
    assert.deepEqual(analyzeSql(sql).refs.map((r) => [r.qualifier, r.name]), [[['cat', 'sch'], 't x'], [['s2'], 't2'], [[], 't3'], [[], 'q']]);
    assert.deepEqual(names('SELECT * FROM a.b.c JOIN d.e ON true'), ['a.b.c', 'd.e']);
  });
  it('a ( opens a subquery after each opener word, whatever its case; after a function name it opens arguments', () => {
    const openers = ['from', 'join', 'in', 'exists', 'as', 'any', 'all', 'some', 'lateral', 'select', 'where', 'and', 'or', 'not', 'on', 'union', 'intersect', 'except', 'values', 'with', 'array', 'materialized', 'then', 'else', 'when', 'having', 'copy', 'is', 'by', 'distinct'];
    for (const op of openers) assert.ok(names(`SELECT 1 ${op.toUpperCase()} (SELECT 1 FROM sub)`).includes('sub'), op);
    assert.deepEqual(names('SELECT extract(year FROM t), f (SELECT 1 FROM u), "g"(x FROM v) FROM w'), ['w']);
    assert.deepEqual(names('SELECT count(x) FROM t'), ['t']);
  });
  it('each word that ends a FROM list: the names after a comma are no tables', () => {
    for (const w of ['where', 'group', 'having', 'order', 'limit', 'offset', 'qualify', 'window', 'union', 'intersect', 'except', 'select', 'returning', 'set', 'values', 'to', 'sample']) {
      assert.deepEqual(names(`SELECT * FROM a ${w.toUpperCase()} b, c`), ['a'], w);
    }
  });
  it('commas of a FROM list only: not in a call, a list or a SET, at their own depth', () => {
    assert.deepEqual(names('SELECT * FROM (SELECT 1 FROM a, b) s WHERE id IN (c, d)'), ['a', 'b']);
    assert.deepEqual(names('SELECT * FROM a WHERE id IN (1, b)'), ['a']);
    assert.deepEqual(names('SELECT * FROM a JOIN (SELECT x, y FROM b) c ON true, d'), ['a', 'b', 'd']);
    assert.deepEqual(names('INSERT INTO t BY NAME SELECT x, y FROM u'), ['t', 'u']);
    assert.deepEqual(names('INSERT INTO t (x, y) VALUES (1, 2)'), ['t']);
    assert.deepEqual(names('SELECT f(a, b) FROM t'), ['t']);
    assert.deepEqual(names('SELECT * FROM t, read_csv(\'x\') r, u'), ['t', 'u']);
  });
  it('a table function is no table, except INSERT INTO t (cols)', () => {
    assert.deepEqual(names("SELECT * FROM read_parquet('x') JOIN main.f(1) ON true"), []);
    assert.deepEqual(names('INSERT INTO main.t (a) VALUES (1)'), ['main.t']);
  });
});

describe('rewriteRefs', () => {
  it('skips qualified references and the ones rename leaves (null); keeps the text between', () => {
    const sql = 'SELECT * FROM z, main.a, a JOIN y ON true';
    const refs = analyzeSql(sql).refs;
    assert.equal(rewriteRefs(sql, refs, (n) => (n === 'y' ? null : `nb_${n}`)), 'SELECT * FROM nb_z, main.a, nb_a JOIN y ON true');
    const manual: TableRef[] = [{ name: 'b', qualifier: [], start: 6, end: 7 }, { name: 'a', qualifier: [], start: 4, end: 5 }];
    assert.equal(rewriteRefs('x y a b c', manual, (n) => n.toUpperCase()), 'x y A B c');
  });
});
