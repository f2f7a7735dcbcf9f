/**
 * bench/coi.mjs's page: DuckDB-WASM's eh build against its threaded coi build (pthreads; needs a cross-origin isolated
 * page) on the pool's kinds of work, through duckdb-wasm's async API (its own worker per build: the blocking API the
 * pool worker uses has no coi build, see `blockingCoi` and docs/decisions/045-threads-coi.md). Per run, in a fresh
 * DuckDB worker: instantiate, open (OPFS or memory), append Arrow IPC batches of step-like rows in one transaction,
 * COMMIT, CHECKPOINT, scan all rows to Arrow (the export's query side), and three rollups over 1 M rows.
 */
import * as duckdb from '@duckdb/duckdb-wasm';
import { BROWSER_RUNTIME, createDuckDB, VoidLogger } from '@duckdb/duckdb-wasm/blocking';
import { rng } from '../rng.mjs';
import coiPthread from '@duckdb/duckdb-wasm/dist/duckdb-browser-coi.pthread.worker.js?url';
import coiWorker from '@duckdb/duckdb-wasm/dist/duckdb-browser-coi.worker.js?url';
import ehWorker from '@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js?url';
import coiWasm from '@duckdb/duckdb-wasm/dist/duckdb-coi.wasm?url';
import ehWasm from '@duckdb/duckdb-wasm/dist/duckdb-eh.wasm?url';
import { makeVector, Table, tableToIPC, Utf8, vectorFromArray } from 'apache-arrow';

const abs = (u: string) => new URL(u, location.href).href;

/** `coiN` is the coi build with `SET threads=N` (plain `coi` keeps its default). */
export type Build = 'eh' | 'coi' | `coi${number}`;

interface RunOptions {
  build: Build;
  storage: 'opfs' | 'memory';
  rows: number;
  tag: string;
}

let batches: Uint8Array[] | null = null;
let batchesRows = 0;

/**
 * Step-like rows: trajectories of 4 steps whose `msg` repeats the growing history (as `steps.messages` does) and `raw`
 * the step's record; words drawn with a Zipf-like skew from a 5,000-word vocabulary. ~2.3 KB per row.
 */
function makeBatches(rows: number): Uint8Array[] {
  if (batches && batchesRows === rows) return batches;
  const r = rng(7);
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const vocab = Array.from({ length: 5000 }, () => Array.from({ length: 3 + Math.floor(r() * 7) }, () => letters[Math.floor(r() * 26)]).join(''));
  const turn = () => Array.from({ length: 60 }, () => vocab[Math.floor(5000 * r() ** 3)]).join(' ');
  const ids = new Int32Array(rows);
  const traj: string[] = [];
  const msg: string[] = [];
  const raw: string[] = [];
  let history = '';
  for (let i = 0; i < rows; i++) {
    if (i % 4 === 0) history = '';
    history += (history ? '\n' : '') + turn();
    ids[i] = i;
    traj.push(`t-${Math.floor(i / 4)}`);
    msg.push(history);
    raw.push(`{"id":${i},"reward":${(r() * 2 - 1).toFixed(3)},"text":"${turn()} ${turn()}"}`);
  }
  const table = new Table({ id: makeVector(ids), traj: vectorFromArray(traj, new Utf8()), msg: vectorFromArray(msg, new Utf8()), raw: vectorFromArray(raw, new Utf8()) });
  const out: Uint8Array[] = [];
  const per = 4096;
  for (let i = 0; i < rows; i += per) out.push(tableToIPC(table.slice(i, Math.min(rows, i + per)), 'stream'));
  batches = out;
  batchesRows = rows;
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const ROLLUPS: [string, string][] = [
  ['summary', 'SELECT count(*) AS n, count(DISTINCT traj) AS t, avg(reward) AS r, sum(CASE WHEN ok THEN 1 ELSE 0 END) AS k FROM r'],
  ['top 2,000 trajectories', 'SELECT traj, count(*) AS n, sum(reward) AS s, max(reward) AS m FROM r GROUP BY traj ORDER BY s DESC LIMIT 2000'],
  ['per model', 'SELECT model, count(*) AS n, avg(reward) AS r FROM r GROUP BY model ORDER BY model'],
];

/** The stage a run is in, for the driver when a run does not answer. */
const stage = (s: string) => ((window as unknown as { coiStage: string }).coiStage = `${s} at ${Math.round(performance.now() - runStart)} ms`);
let runStart = 0;

async function run(o: RunOptions) {
  const out: Record<string, number | string> = { build: o.build, storage: o.storage, rows: o.rows };
  runStart = performance.now();
  stage('generating rows');
  const data = makeBatches(o.rows);
  const coi = o.build !== 'eh';
  const t0 = performance.now();
  stage('instantiate');
  const worker = new Worker(abs(coi ? coiWorker : ehWorker));
  const db = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), worker);
  const path = `opfs://coi-bench-${o.tag}.db`;
  try {
    await db.instantiate(abs(coi ? coiWasm : ehWasm), coi ? abs(coiPthread) : null);
    out.instantiate = performance.now() - t0;
    let t = performance.now();
    stage('open');
    await db.open(o.storage === 'opfs' ? { path, accessMode: duckdb.DuckDBAccessMode.READ_WRITE } : {});
    const conn = await db.connect();
    out.open = performance.now() - t;
    await conn.query('SET autoinstall_known_extensions=false; SET autoload_known_extensions=false');
    if (/^coi\d+$/.test(o.build)) await conn.query(`SET threads=${o.build.slice(3)}`);
    out.threads = Number((await conn.query("SELECT current_setting('threads')::INTEGER AS t")).getChild('t')?.get(0));
    await conn.query('CREATE TABLE steps (id INTEGER, traj VARCHAR, msg VARCHAR, raw VARCHAR)');
    await conn.query('BEGIN TRANSACTION');
    t = performance.now();
    for (const [i, b] of data.entries()) {
      stage(`append batch ${i + 1}/${data.length}`);
      await conn.insertArrowFromIPCStream(b.slice(), { name: 'steps', create: false });
    }
    out.append = performance.now() - t;
    t = performance.now();
    stage('COMMIT');
    await conn.query('COMMIT');
    out.commit = performance.now() - t;
    t = performance.now();
    stage('CHECKPOINT');
    await conn.query('CHECKPOINT');
    out.checkpoint = performance.now() - t;
    t = performance.now();
    stage('scan');
    const scanned = await conn.query('SELECT * FROM steps');
    out.scan = performance.now() - t;
    out.scannedRows = scanned.numRows;
    t = performance.now();
    await conn.query(
      'CREATE TABLE r AS SELECT i AS id, (i * 7919) % 627000 AS traj, (i % 8)::INTEGER AS model, (i % 1000) / 1000.0 AS reward, i % 3 = 0 AS ok FROM range(1000000) t(i)',
    );
    out.rollupTable = performance.now() - t;
    let rollups = 0;
    for (const [name, sql] of ROLLUPS) {
      stage(`rollup ${name}`);
      await conn.query(sql); // warm-up
      const times: number[] = [];
      for (let i = 0; i < 3; i++) {
        const s = performance.now();
        await conn.query(sql);
        times.push(performance.now() - s);
      }
      out[`rollup: ${name}`] = median(times);
      rollups += median(times);
    }
    out.rollups = rollups;
    out.total = performance.now() - t0;
    out.check = checksum(await conn.query(CHECK));
    await conn.close();
    if (o.storage === 'opfs') {
      // what reached the file: the eh build reopens it in a fresh worker. The WAL goes first: after the CHECKPOINT
      // everything is in the database file, and duckdb-wasm cannot delete a WAL on OPFS (decision 010), so its stale
      // bytes would be replayed over the checkpointed tables.
      await db.terminate();
      await removeOpfs(`coi-bench-${o.tag}.db.wal`, false);
      out.reopened = await reopen(path);
    }
  } catch (e) {
    out.error = e instanceof Error ? e.message : String(e);
  } finally {
    await db.terminate().catch(() => {});
    worker.terminate();
    if (o.storage === 'opfs') await removeOpfs(`coi-bench-${o.tag}.db`);
  }
  return out;
}

const CHECK = 'SELECT count(*)::BIGINT AS n, sum(length(msg))::BIGINT AS m, sum(length(raw))::BIGINT AS r, count(DISTINCT traj)::BIGINT AS t FROM steps';
const checksum = (t: { getChild(n: string): { get(i: number): unknown } | null }) => ['n', 'm', 'r', 't'].map((c) => String(t.getChild(c)?.get(0))).join('/');

async function reopen(path: string): Promise<string> {
  const worker = new Worker(abs(ehWorker));
  const db = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), worker);
  try {
    await db.instantiate(abs(ehWasm), null);
    await db.open({ path, accessMode: duckdb.DuckDBAccessMode.READ_WRITE });
    const conn = await db.connect();
    return checksum(await conn.query(CHECK));
  } catch (e) {
    return `reopen failed: ${e instanceof Error ? e.message : String(e)}`;
  } finally {
    await db.terminate().catch(() => {});
    worker.terminate();
  }
}

async function removeOpfs(name: string, withWal = true) {
  const dir = await navigator.storage.getDirectory();
  for (const n of withWal ? [name, `${name}.wal`] : [name]) {
    for (let i = 0; i < 20; i++) {
      try {
        await dir.removeEntry(n);
        break;
      } catch (e) {
        if ((e as Error).name === 'NotFoundError') break;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }
}

/** How each module gets its memory: the coi module imports a shared one (pthreads), the eh module defines its own. */
async function memories(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, url] of [['eh', ehWasm], ['coi', coiWasm]]) {
    const mod = await WebAssembly.compileStreaming(fetch(abs(url)));
    const imp = WebAssembly.Module.imports(mod).filter((i) => i.kind === 'memory').map((i) => `imports ${i.module}.${i.name}`);
    const exp = WebAssembly.Module.exports(mod).filter((i) => i.kind === 'memory').map((i) => `exports ${i.name}`);
    out[name] = [...imp, ...exp].join(', ') || 'no memory';
    out[`${name} imports`] = String(WebAssembly.Module.imports(mod).length);
  }
  return out;
}

/** The blocking API (the pool worker's) given the coi module: what happens. */
async function blockingCoi(): Promise<string> {
  const errors: string[] = [];
  const onError = (e: PromiseRejectionEvent) => errors.push(String(e.reason));
  addEventListener('unhandledrejection', onError);
  try {
    const gaveUp = new Promise<never>((_, no) => setTimeout(() => no(new Error(`instantiate() did not settle in 30 s; unhandled rejections meanwhile: ${errors.join(' | ') || 'none'}`)), 30_000));
    return await Promise.race([blockingCoiInner(), gaveUp]);
  } finally {
    removeEventListener('unhandledrejection', onError);
  }
}

async function blockingCoiInner(): Promise<string> {
  try {
    const db = await createDuckDB({ mvp: { mainModule: abs(coiWasm), mainWorker: '' }, eh: { mainModule: abs(coiWasm), mainWorker: '' } }, new VoidLogger(), BROWSER_RUNTIME);
    await db.instantiate(() => {});
    db.open({});
    const c = db.connect();
    return `instantiated: ${String(c.query("SELECT current_setting('threads') AS t").getChild('t')?.get(0))} threads`;
  } catch (e) {
    return `failed: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`;
  }
}

/** Whether this page can run the coi build at all. */
async function info() {
  return { crossOriginIsolated: globalThis.crossOriginIsolated, sharedArrayBuffer: typeof SharedArrayBuffer !== 'undefined', cores: navigator.hardwareConcurrency };
}

(window as unknown as { coiBench: unknown }).coiBench = { run, blockingCoi, info, memories };
