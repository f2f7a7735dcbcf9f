/**
 * Remote `read_parquet` in queries: which calls, which columns and row groups, the rewrite — and, differentially, that
 * every query gives the same rows from the parts read by range (through a loopback Hub) as native DuckDB's read_parquet
 * of the whole file.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { cliRemoteParquet } from '../../src/cli/remote-parquet';
import type { RemoteReadReport } from '../../src/hub/remote-query';
import { neededColumns, remoteCalls, RemoteSqlError, rewriteCalls, rowGroupsFor } from '../../src/hub/remote-sql';
import { type LoopbackHub, startHub } from '../e2e/hub-server.mjs';
import { scratchDir } from '../scratch.mjs';

const COLS = ['id', 'text', 'k', 'messages', 'Score'];
const U = 'https://h.example/x.parquet';

describe('remote read_parquet calls in SQL', () => {
  it('finds remote calls with their alias; local files and strings elsewhere are left alone', () => {
    const sql = `SELECT a.id, 'read_parquet(''${U}'')' AS s FROM read_parquet('${U}') AS a JOIN parquet_scan('hf://datasets/o/n/p.parquet') b ON a.k = b.k, read_parquet('local.parquet') c -- read_parquet('${U}')`;
    const calls = remoteCalls(sql);
    assert.deepEqual(calls.map((c) => [c.url, c.fn, c.alias, sql.slice(c.start, c.end)]), [
      [U, 'read_parquet', 'a', `read_parquet('${U}')`],
      ['hf://datasets/o/n/p.parquet', 'parquet_scan', 'b', "parquet_scan('hf://datasets/o/n/p.parquet')"],
    ]);
    assert.equal(remoteCalls(`SELECT * FROM read_parquet('${U}') WHERE k = 1`)[0].alias, null);
    // a URL computed from data is never read by the workbench (SQL cannot send the pool's values anywhere)
    assert.throws(() => remoteCalls(`SELECT * FROM read_parquet('https://h.example/' || (SELECT max(step_id) FROM steps))`), /written whole, as one string.*never fetched/);
    assert.deepEqual(remoteCalls(`SELECT * FROM read_parquet(concat('${U}', 'x'))`), []);
    assert.equal(remoteCalls(`SELECT * FROM read_parquet('${U}') t LIMIT 3`)[0].alias, 't');
  });

  it('refuses options and lists of remote files with a message that says what to write', () => {
    assert.throws(() => remoteCalls(`SELECT * FROM read_parquet('${U}', hive_partitioning = true)`), (e: Error) => e instanceof RemoteSqlError && /options are not supported/.test(e.message) && e.message.includes(`read_parquet('${U}')`));
    assert.throws(() => remoteCalls(`SELECT * FROM read_parquet(['${U}', 'https://h/y.parquet'])`), /UNION ALL BY NAME/);
    assert.deepEqual(remoteCalls("SELECT * FROM read_parquet(['a.parquet', 'b.parquet'])"), []);
  });

  it('the columns a query can touch: named ones; every one when it could reach others', () => {
    const cols = (sql: string) => neededColumns(sql, remoteCalls(sql), COLS);
    assert.deepEqual(cols(`SELECT k, count(*) FROM read_parquet('${U}') WHERE id < 10 GROUP BY k`), ['id', 'k']);
    assert.deepEqual(cols(`SELECT t.messages[1].content, "score" FROM read_parquet('${U}') t`), ['messages', 'Score']);
    assert.deepEqual(cols(`SELECT count(*) FROM read_parquet('${U}')`), []);
    assert.deepEqual(cols(`SELECT x.id FROM read_parquet('${U}') x JOIN steps s USING (text)`), ['id', 'text']);
    // a * of an outer query (the notebook's wrapper, a CTE's reader, another table's t.*) reaches only what the inner query selected
    assert.deepEqual(cols(`SELECT * FROM (\nSELECT id FROM read_parquet('${U}') WHERE k = 1\n) LIMIT 1000001`), ['id', 'k']);
    assert.deepEqual(cols(`WITH x AS (SELECT text FROM read_parquet('${U}')) SELECT * FROM x NATURAL JOIN x AS y`), ['text']);
    assert.deepEqual(cols(`SELECT s.*, r.id FROM steps s JOIN read_parquet('${U}') r ON r.k = s.step_index`), ['id', 'k']);
    for (const all of [
      `SELECT * FROM read_parquet('${U}')`,
      `SELECT t.* FROM read_parquet('${U}') t`,
      `SELECT * EXCLUDE (text) FROM read_parquet('${U}')`,
      `SELECT COLUMNS('^m') FROM read_parquet('${U}')`,
      `SELECT t FROM read_parquet('${U}') t`,
      `SELECT to_json(t) FROM read_parquet('${U}') AS t`,
      `SELECT read_parquet FROM read_parquet('${U}')`,
      `SELECT a.id FROM read_parquet('${U}') a NATURAL JOIN steps`,
      `PIVOT read_parquet('${U}') ON k USING sum(id)`,
      `FROM read_parquet('${U}')`,
      `SELECT id * 2 FROM read_parquet('${U}')`,
      `SELECT #1 FROM read_parquet('${U}')`,
      `SELECT * FROM (SELECT * FROM read_parquet('${U}')) LIMIT 3`,
      `SELECT * FROM read_parquet('${U}') JOIN steps USING (k)`,
    ]) {
      assert.equal(cols(all), null, all);
    }
  });

  it('row groups: the first ones holding LIMIT + OFFSET rows, only for plain column lists over the file alone', () => {
    const need = (sql: string) => remoteCalls(sql)[0].rowsNeeded;
    assert.equal(need(`SELECT * FROM read_parquet('${U}') LIMIT 10`), 10);
    assert.equal(need(`SELECT id, text FROM read_parquet('${U}') t LIMIT 10 OFFSET 5;`), 15);
    assert.equal(need(`SELECT * FROM (\nSELECT id FROM read_parquet('${U}') LIMIT 7\n) LIMIT 1000001`), 7);
    for (const all of [
      `SELECT * FROM read_parquet('${U}')`,
      `SELECT count(*) FROM read_parquet('${U}') LIMIT 1`,
      `SELECT DISTINCT k FROM read_parquet('${U}') LIMIT 3`,
      `SELECT * FROM read_parquet('${U}') WHERE k = 1 LIMIT 3`,
      `SELECT * FROM read_parquet('${U}') ORDER BY id DESC LIMIT 3`,
      `SELECT * FROM read_parquet('${U}') t JOIN steps s ON true LIMIT 3`,
      `SELECT id, row_number() OVER () FROM read_parquet('${U}') LIMIT 3`,
      `SELECT * FROM read_parquet('${U}') LIMIT 10 PERCENT`,
      `SELECT * FROM read_parquet('${U}') UNION ALL SELECT * FROM read_parquet('${U}') LIMIT 3`,
    ]) {
      assert.equal(need(all), null, all);
    }
    assert.deepEqual(rowGroupsFor([{ numRows: 4 }, { numRows: 4 }, { numRows: 4 }], 5), [0, 1]);
    assert.deepEqual(rowGroupsFor([{ numRows: 4 }, { numRows: 4 }], 0), [0]);
    assert.deepEqual(rowGroupsFor([{ numRows: 4 }, { numRows: 4 }], null), [0, 1]);
  });

  it('rewrites each call to its relation, keeping the function name as the alias when there is none', () => {
    const sql = `SELECT read_parquet.id FROM read_parquet('${U}') JOIN read_parquet('${U}') b USING (id)`;
    const calls = remoteCalls(sql);
    assert.equal(rewriteCalls(sql, calls.map((call) => ({ call, relation: 'aw_remote.main."rp_1"' }))), 'SELECT read_parquet.id FROM aw_remote.main."rp_1" AS read_parquet JOIN aw_remote.main."rp_1" b USING (id)');
  });
});

describe('remote Parquet queries give the rows of the whole file (differential, native DuckDB)', () => {
  let hub: LoopbackHub;
  let dir: string;
  let db: DuckDBInstance;
  let file: string;
  before(async () => {
    dir = scratchDir('aw-remote-sql-');
    file = join(dir, 'src.parquet');
    db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    await c.run(
      `COPY (SELECT i AS id, md5(i::VARCHAR) || md5((i + 1)::VARCHAR) || md5((i + 2)::VARCHAR) || md5((i + 3)::VARCHAR) AS text, i % 7 AS k, [{'role': 'user', 'content': 'q' || i}, {'role': 'assistant', 'content': 'a' || i}] AS messages, (i % 11) / 10.0 AS "Score" FROM range(30000) t(i)) TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE 3000)`,
    );
    hub = await startHub({ datasets: { 'acme/rows': { files: { 'data/train.parquet': new Uint8Array(readFileSync(file)) } } } });
  });
  after(async () => {
    await hub.close();
  });

  const queries = [
    (u: string) => `SELECT k, count(*) AS n, sum(id) AS s FROM read_parquet('${u}') WHERE id % 3 = 0 GROUP BY k ORDER BY k`,
    (u: string) => `SELECT * FROM read_parquet('${u}') LIMIT 5 OFFSET 7000`,
    (u: string) => `SELECT id, messages[2].content AS a FROM read_parquet('${u}') t LIMIT 4`,
    (u: string) => `SELECT count(*) AS n FROM read_parquet('${u}')`,
    (u: string) => `SELECT t.id, t."Score" FROM read_parquet('${u}') t WHERE t.k = 3 ORDER BY t.id DESC LIMIT 3`,
    (u: string) => `SELECT t FROM read_parquet('${u}') t WHERE id = 42`,
    (u: string) => `SELECT t.* FROM read_parquet('${u}') t WHERE id = 7`,
    (u: string) => `SELECT a.id FROM read_parquet('${u}') a JOIN read_parquet('${u}') b ON a.id = b.k ORDER BY 1`,
  ];

  it('every query, hf:// and https, by range equals the whole file read by DuckDB', async () => {
    const reads: RemoteReadReport[] = [];
    const remote = cliRemoteParquet(join(dir, 'remote'), { env: { HF_ENDPOINT: hub.endpoint }, onRead: (r) => reads.push(r) });
    const c = await db.connect();
    const rows = async (sql: string) => JSON.stringify((await c.runAndReadAll(sql)).getRowObjectsJson());
    try {
      for (const q of queries) {
        for (const url of ['hf://datasets/acme/rows/data/train.parquet', `${hub.endpoint}/datasets/acme/rows/resolve/main/data/train.parquet`]) {
          const sql = q(url);
          assert.equal(await rows(await remote.sql.rewrite(sql)), await rows(q(file)), sql);
        }
      }
    } finally {
      remote.dispose();
    }
    const size = readFileSync(file).length;
    const first = reads[0];
    assert.equal(first.fileBytes, size);
    assert.deepEqual(first.columns, ['id', 'k']);
    assert.ok(first.fetchedBytes < size / 5, `fetched ${first.fetchedBytes} of ${size}`);
    // LIMIT 5 OFFSET 7000: the first row groups holding 3006 rows, not the rest
    const limited = reads.find((r) => r.rowGroups < r.totalRowGroups && !r.reused)!;
    assert.ok(limited.rows >= 7005 && limited.rowGroups < limited.totalRowGroups, JSON.stringify(limited));
    // a read past the limit is refused before anything but the footer is fetched
    const small = cliRemoteParquet(join(dir, 'remote-small'), { env: { HF_ENDPOINT: hub.endpoint }, maxFetchBytes: 64 << 10 });
    try {
      hub.reset();
      await assert.rejects(small.sql.rewrite(`SELECT text FROM read_parquet('hf://datasets/acme/rows/data/train.parquet')`), /would fetch about [\d.]+ MB \(1 of 5 columns, \d+ of \d+ row groups\), past the 64\.0 KB a query may read/);
      assert.ok(hub.bytesSent() <= 64 << 10, `${hub.bytesSent()} bytes sent`);
      assert.match(await small.sql.rewrite(`SELECT id FROM read_parquet('hf://datasets/acme/rows/data/train.parquet') LIMIT 3`), /read_parquet\('.*rp_[a-z0-9]+\.parquet'\)/);
    } finally {
      small.dispose();
    }
    assert.ok(reads.some((r) => r.reused), `a later query reused a table read before: ${JSON.stringify(reads.map((r) => [r.fetched, r.columns, r.rowGroups, r.reused]))}`);
  });
});
