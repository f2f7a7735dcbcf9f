/**
 * The page's pool in node: the broker (PoolClient) and the engine (pool-core, served by src/pool/host.ts as
 * workers/pool.worker.ts serves it) on DuckDB-WASM's node build, joined by a MessageChannel instead of a Worker. In
 * memory (no OPFS in node); everything else is the page's code: the guard, the change feed, the import transaction.
 */
import { createRequire } from 'node:module';
import type { DuckDBBindings } from '@duckdb/duckdb-wasm/blocking';
import { tableFromIPC } from 'apache-arrow';
import '../../../src/util/arrow-bool-fix';
import type { EngineBoot } from '../../../src/pool/boot';
import { PoolClient } from '../../../src/pool/client';
import { hostPool } from '../../../src/pool/host';
import { createPoolApi } from '../../../src/pool/pool-core';

const require = createRequire(import.meta.url);
const duck = require('@duckdb/duckdb-wasm/dist/duckdb-node-blocking.cjs');
const wasm = require.resolve('@duckdb/duckdb-wasm/dist/duckdb-eh.wasm');

/**
 * duckdb-wasm's node build is CommonJS and requires apache-arrow's CommonJS build, while this code imports its ES
 * module build: two copies, whose Tables fail each other's instanceof checks (tableToIPC writes nothing). A result
 * crosses over as IPC bytes, as it does between the page's workers.
 */
const cjsArrow = require('apache-arrow');
const esm = (t: unknown) => tableFromIPC(cjsArrow.tableToIPC(t, 'stream'));
// biome-ignore lint/suspicious/noExplicitAny: duckdb-wasm's node build is untyped CommonJS here
function esmResults(db: any): DuckDBBindings {
  const connect = db.connect.bind(db);
  db.connect = () => {
    const c = connect();
    const query = c.query.bind(c);
    const prepare = c.prepare.bind(c);
    c.query = (sql: string) => esm(query(sql));
    c.prepare = (sql: string) => {
      const st = prepare(sql);
      const q = st.query.bind(st);
      st.query = (...args: unknown[]) => esm(q(...args));
      return st;
    };
    return c;
  };
  return db;
}

/**
 * The engine's boot in node: duckdb-wasm's node build, the database in memory (its node runtime does not keep what a
 * CHECKPOINT writes to a file: a reopened file held none of the tables, measured with 1.32; OPFS is the browser's).
 */
const nodeBoot: EngineBoot = async () => {
  const db = esmResults(await duck.createDuckDB({ mvp: { mainModule: wasm, mainWorker: '' }, eh: { mainModule: wasm, mainWorker: '' } }, new duck.ConsoleLogger(duck.LogLevel.ERROR), duck.NODE_RUNTIME));
  await db.instantiate(() => {});
  db.open({});
  return { db, files: null, persistent: false, isNew: true, message: 'in memory (node)', wasm: { source: 'duckdb' }, instantiated: performance.timeOrigin + performance.now() };
};

/** A page pool in node, in memory; `terminate()` ends it. */
export async function startWasmPool(): Promise<PoolClient> {
  return PoolClient.start({
    memory: true,
    wasm: { mvp: wasm, eh: wasm },
    worker: () => {
      const { port1, port2 } = new MessageChannel();
      hostPool(port2 as unknown as Worker, createPoolApi(nodeBoot));
      // what PoolClient needs of a Worker: messages, and terminate
      const terminate = () => {
        port1.close();
        port2.close();
      };
      return Object.assign(port1, { terminate }) as unknown as Worker;
    },
  });
}
