/**
 * The pool where it needs a browser: DuckDB's wasm compiled from a real Response and kept in Cache Storage / the HTTP
 * cache (decisions 036, 051); the database file's size limit on OPFS; trajectory_stats rebuilt when a saved pool opens.
 * The pool worker's API on an in-memory pool: test/unit/pool-worker.test.ts.
 */
import { expect } from '@esm-bundle/chai';
import { stepsToIPC } from '../../src/record/step-arrow';
import { PoolClient } from '../../src/pool/client';
import { wasmResponse } from '../../src/pool/wasm-load';
import { poolWorker, wasm } from './helpers';
import { expectSame, importSteps, step, trajStep } from './pool-data';

describe('pool wasm', () => {
  it('once kept, takes the module from the HTTP cache, or from Cache Storage when the host says no-store; the first time from the network', async () => {
    // a small file at URLs of its own (another query) that nothing earlier put in either cache
    const url = (k: string) => `${new URL('/package.json', location.href).href}?${k}=${Date.now()}`;
    const cacheName = `aw-test-wasm-order-${Date.now()}`;
    const source = async (u: string) => {
      let s = '';
      const res = await wasmResponse(u, cacheName, (x) => (s = x));
      expect(res.ok).to.equal(true);
      expect(JSON.parse(await res.text()).name).to.be.a('string');
      return s;
    };
    const net = url('net');
    expect(await source(net)).to.equal('fetch');
    const cache = await caches.open(cacheName);
    for (let i = 0; i < 1200 && !(await cache.match(net)); i++) await new Promise((r) => setTimeout(r, 50));
    expect((await cache.keys()).map((k) => k.url)).to.deep.equal([net]);
    // kept, and the test server lets the HTTP cache keep it (max-age): from there, where Chromium keeps compiled code
    expect(await source(net)).to.equal('http-cache');
    // kept, from a host that says no-store: from Cache Storage
    const kept = url('kept');
    const body = await (await cache.match(net))!.arrayBuffer();
    await cache.put(kept, new Response(body, { headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } }));
    expect(await source(kept)).to.equal('cache');
    await caches.delete(cacheName);
  });
});

// Three boots for the file: a file limit is fixed when a saved pool opens, so each limit test opens its own pool; the
// first two boots are also the wasm cache test's first start (from the network) and its second (from the HTTP cache),
// and the saved pool's reopen is the trajectory_stats test's.
describe('pool wasm cache; file limit; trajectory_stats of a saved pool', () => {
  const wasmCache = `aw-test-wasm-${Date.now()}`;
  /** A saved pool with a 64 MiB limit; its size while still empty sizes the other test's limit (no probe boot). */
  let saved: PoolClient;
  const savedName = `pool-room-${Date.now()}`;
  const startSaved = () => PoolClient.start({ poolName: savedName, fileLimit: 64 * 1024 ** 2, wasm, wasmCache, worker: poolWorker });
  let emptyBytes = 0;
  /** The limit test's pool: its limit just above the saved pool's size while empty; started by the wasm cache test. */
  let limited: PoolClient | null = null;
  const startLimited = () =>
    PoolClient.start({ poolName: `pool-limit-${Date.now()}`, fileLimit: emptyBytes + 256 * 1024, wasm, wasmCache, worker: poolWorker });
  before(async function () {
    this.timeout(120_000); // a boot on a loaded CI machine can take 30 s
    saved = await startSaved();
    // a new pool's schema waits in the WAL until the first checkpoint (decision 036): write it to the file first
    await saved.checkpoint();
    emptyBytes = Number((await saved.rows('SELECT total_blocks * block_size AS b FROM pragma_database_size()'))[0].b);
  });
  after(async () => {
    saved.terminate();
    limited?.terminate();
    await caches.delete(wasmCache);
  });

  it('compiles DuckDB from a real Response (not duckdb-wasm\'s re-wrapped stream), kept in Cache Storage by the worker (decisions 036, 051)', async () => {
    // the saved pool's start was the first with this cache name
    expect(saved.status.wasmSource).to.equal('fetch');
    const cache = await caches.open(wasmCache);
    // stored by the worker as it streamed into the compiler
    for (let i = 0; i < 1200 && (await cache.keys()).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await cache.keys()).map((k) => new URL(k.url).pathname)).to.deep.equal([wasm.eh]);
    // kept: now asked of the HTTP cache (which the test server's max-age lets keep it)
    limited = await startLimited();
    expect(limited.status.wasmSource).to.equal('http-cache');
    expect((await limited.rows('SELECT 41 + 1 AS n'))[0].n).to.equal(42);
  });

  it('an import that would grow the database file past the limit fails cleanly and keeps nothing', async () => {
    expect(emptyBytes).to.be.greaterThan(0);
    const pool = limited ?? (await startLimited());
    limited = null;
    const id = await pool.beginImport({ file: 'big.jsonl', sourceId: 'big', bytes: 1 });
    const many = Array.from({ length: 3000 }, (_, i) => ({ ...step(i, 'big', id), raw: 'x'.repeat(2000) + i }));
    let err = '';
    try {
      await pool.appendBatch(id, stepsToIPC(many));
    } catch (e) {
      err = String(e);
    }
    expect(err).to.match(/would pass .* GiB/);
    await pool.abortImport(id, err);
    expect((await pool.rows('SELECT count(*) AS n FROM steps'))[0].n).to.equal(0);
    expect((await pool.rows(`SELECT status FROM imports WHERE import_id = ${id}`))[0].status).to.equal('failed');
    pool.terminate();
  });

  it('a commit says how large the database file is and where imports stop (the import report and Pool card show the room left)', async () => {
    const pool = saved;
    const id = await pool.beginImport({ file: 'r.jsonl', sourceId: 'r', bytes: 1 });
    await pool.appendBatch(id, stepsToIPC(Array.from({ length: 200 }, (_, i) => ({ ...step(i, 'r', id), raw: 'y'.repeat(1000) + i }))));
    const r = await pool.commitImport(id, { format: 'test', confidence: 1, records: 200, rowsMade: 200, errors: [] });
    expect(r.room?.limit).to.equal(64 * 1024 ** 2);
    expect(r.room?.bytes).to.be.greaterThan(200 * 1000);
    const room = await pool.room();
    const [{ b }] = await pool.rows('SELECT (total_blocks * block_size)::BIGINT AS b FROM pragma_database_size()');
    expect(room).to.deep.equal({ bytes: Number(b), limit: 64 * 1024 ** 2 });
    expect(r.stages && Object.keys(r.stages)).to.include.members(['dedupe', 'isLast', 'stats', 'meta', 'commit', 'flush']);
  });

  it('trajectory_stats of a saved pool: a pool whose stats do not add up (an older pool) is rebuilt when it opens', async function () {
    this.timeout(120_000);
    await importSteps(saved, [trajStep('t1', 0), trajStep('t1', 1), trajStep('t2', 0)]);
    const trajectories = await saved.rows('SELECT count(DISTINCT trajectory_uid)::INTEGER AS n FROM steps');
    expect(trajectories[0].n).to.be.greaterThan(2);
    // what a pool written before trajectory_stats looks like; the regex in the pool does not see this table
    await saved.exec('DELETE FROM trajectory_stats');
    await saved.exec('CHECKPOINT');
    expect(await saved.rows('SELECT count(*)::INTEGER AS n FROM trajectory_stats')).to.deep.equal([{ n: 0 }]);
    saved.terminate();
    saved = await startSaved();
    await expectSame(saved, 'after reopening');
    expect(await saved.rows('SELECT count(*)::INTEGER AS n FROM trajectory_stats')).to.deep.equal(trajectories);
  });
});
