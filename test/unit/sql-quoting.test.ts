// The one quoting helper (src/pool/sql.ts) against real DuckDB, native (the CLI's engine) and WASM (the page's):
// for any string, `SELECT <sqlString(s)>` gives back exactly s, and a column named by `sqlIdent(s)` is named s.
// A NUL (a JSON "\u0000" in a trace) ended the literal with a parser error before (issue 37 item 4).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';
import { sqlIdent, sqlName, sqlString, sqlStringList } from '../../src/pool/sql';
import { wasmEngine } from './helpers/wasm-engine';


/** Any well-formed string: every code point, NUL, quotes and backslashes included (DuckDB holds UTF-8, so no lone surrogates). */
const anyString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.constantFrom('\0', "'", '"', '\\', '\n', '$', ';', '-', '/', '*', 'a', 'é', '😀'), maxLength: 20 }),
);
const RUNS = 300;

type Engine = { one(sql: string): Promise<unknown>; close(): void };

async function native(): Promise<Engine> {
  const db = await DuckDBInstance.create(':memory:');
  const conn: DuckDBConnection = await db.connect();
  return {
    one: async (sql) => (await conn.runAndReadAll(sql)).getRowsJS()[0]?.[0],
    close: () => {
      conn.closeSync();
      db.closeSync();
    },
  };
}

async function wasm(): Promise<Engine> {
  const { conn } = await wasmEngine();
  return {
    one: async (sql) => conn.query(sql).getChildAt(0)?.get(0),
    close: () => conn.close(),
  };
}

for (const [name, open] of [['native DuckDB', native], ['DuckDB-WASM', wasm]] as const) {
  describe(`SQL quoting in ${name}`, () => {
    let db: Engine;
    before(async () => {
      db = await open();
    });
    after(() => db.close());

    it('sqlString: any string comes back exactly (NUL included)', async () => {
      await fc.assert(
        fc.asyncProperty(anyString, async (s) => {
          assert.equal(await db.one(`SELECT ${sqlString(s)}`), s);
          assert.equal(await db.one(`SELECT ${sqlString(s)} = ${sqlString(s)}`), true);
        }),
        { numRuns: RUNS },
      );
    });

    it('sqlString works where the exports put it: a comparison and a list', async () => {
      for (const s of ['a\0b', '\0', "x'\0'y", '__HIVE_DEFAULT_PARTITION__']) {
        assert.equal(await db.one(`SELECT count(*)::INTEGER FROM (SELECT ${sqlString(s)} AS v UNION ALL SELECT 'other') WHERE v::VARCHAR = ${sqlString(s)}`), 1, JSON.stringify(s));
      }
      assert.equal(await db.one(`SELECT len(${sqlStringList(['a\0', 'b'])})::INTEGER`), 2);
    });

    it('sqlIdent: any name without NUL names a column exactly; a NUL is refused with a clear error', async () => {
      await fc.assert(
        fc.asyncProperty(anyString.filter((s) => s.length > 0 && !s.includes('\0')), async (s) => {
          assert.equal(await db.one(`SELECT ${sqlIdent(s)} FROM (SELECT 7 AS ${sqlIdent(s)})`), 7);
        }),
        { numRuns: 100 },
      );
      assert.throws(() => sqlIdent('a\0b'), /NUL character/);
    });

    it('sqlName: a plain lower-case name bare, any other quoted as sqlIdent, naming the column exactly', async () => {
      assert.equal(sqlName('trajectory_uid'), 'trajectory_uid');
      assert.equal(await db.one(`SELECT ${sqlName('trajectory_uid')} FROM (SELECT 7 AS trajectory_uid)`), 7);
      assert.equal(sqlName('Reward'), '"Reward"');
      // a bare name that is a reserved word would not parse: plain names are kept out of the property (as the sidebar's
      // names come from the catalog, where such a name is rare), so it never draws one
      await fc.assert(
        fc.asyncProperty(anyString.filter((s) => s.length > 0 && !s.includes('\0') && !/^[a-z_][a-z0-9_]*$/.test(s)), async (s) => {
          assert.equal(sqlName(s), sqlIdent(s));
          assert.equal(await db.one(`SELECT ${sqlName(s)} FROM (SELECT 7 AS ${sqlIdent(s)})`), 7);
        }),
        { numRuns: 100 },
      );
    });
  });
}
