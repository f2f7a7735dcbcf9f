/**
 * The CLI's DuckDB thread: owns the native DuckDB instance (@duckdb/node-api) of a pool file and runs
 * what the main thread asks, one request at a time. Requests answer on the normal port, or — for the
 * pool's synchronous SQL (the import commit's dedupe, src/pool/import-commit.ts) — on a second port the
 * main thread reads with receiveMessageOnPort while it waits on a shared flag (see native-db.ts).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { createRequire } from 'node:module';
import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlIdent, sqlString } from '../pool/sql';
import { ipcToParquet, isParquetBytes } from './stage';
import { writeStaged } from './stage-gate';

export type Request =
  | { op: 'connect' }
  | { op: 'close'; conn: number }
  | { op: 'query'; conn: number; sql: string }
  | { op: 'exec'; conn: number; sql: string }
  /**
   * Exactly one statement (a prepared statement cannot hold more); `readOnly`: inside a READ ONLY transaction. Answers
   * its first `maxRows` rows (null: all) and how many it made.
   */
  | { op: 'one'; conn: number; sql: string; readOnly: boolean; run: boolean; maxRows: number | null }
  /** An import batch: Arrow IPC stream or (converted by a reader thread) Parquet bytes, staged as a file for `insertStaged`. */
  | { op: 'stage'; conn: number; bytes: Uint8Array }
  /** The connection's staged batches, in the order staged, appended to `table` by one INSERT (then deleted). */
  | { op: 'insertStaged'; conn: number; table: string }
  /** The connection's staged batches deleted unread (the import was reset or ended). */
  | { op: 'dropStaged'; conn: number };

export interface Envelope {
  id: number;
  req: Request;
  /** Answer on the sync port and raise this flag. */
  sync?: Int32Array;
}

export type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

const { path, syncPort, memoryLimit, stage, gate } = workerData as { path: string; syncPort: MessagePort; memoryLimit?: string; stage: string; gate: Int32Array };
// bounded by default (src/cli/main.ts --memory-limit): past it DuckDB spills to <pool>.tmp instead of growing (decision 040).
// A new pool file is written at storage v1.4.0, whose compression (DICT_FSST for `raw`, …) makes it ~4× smaller than
// DuckDB's default v0.10.2 (decisions 046, 048); a file made before keeps its own version. Only DuckDB ≥ 1.4 reads it.
// No extension is ever fetched or loaded on its own (the Parquet and JSON readers are built in); the rest of the
// lock comes after the pool's setup (src/cli/engine-lock.ts)
const options: Record<string, string> = { storage_compatibility_version: 'v1.4.0', autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' };
if (memoryLimit) options.memory_limit = memoryLimit;
// required, not imported: an ESM import of the CommonJS package runs the CJS export lexer over each of its modules,
// ≈ 0.15 of the ≈ 0.3 CPU-s the package's load costs a thread (every CLI command and every pool the tests open)
const { DuckDBInstance } = createRequire(import.meta.url)('@duckdb/node-api') as typeof import('@duckdb/node-api');
const instance = await DuckDBInstance.create(path, options);
const conns = new Map<number, DuckDBConnection>();
let nextConn = 0;
/** Per connection: the batch files staged for its next insertStaged, in order. */
const staged = new Map<number, string[]>();

function conn(id: number): DuckDBConnection {
  const c = conns.get(id);
  if (!c) throw new Error(`connection ${id} is closed`);
  return c;
}

async function handle(req: Request): Promise<unknown> {
  switch (req.op) {
    case 'connect': {
      const id = nextConn++;
      conns.set(id, await instance.connect());
      return id;
    }
    case 'close':
      conns.get(req.conn)?.closeSync();
      conns.delete(req.conn);
      return null;
    case 'query':
      return (await conn(req.conn).runAndReadAll(req.sql)).getRowObjectsJS();
    case 'exec':
      await conn(req.conn).run(req.sql);
      return null;
    case 'one': {
      const c = conn(req.conn);
      if (req.readOnly) await c.run('BEGIN TRANSACTION READ ONLY');
      try {
        const stmt = await c.prepare(req.sql);
        if (!req.run) return null;
        const reader = await stmt.runAndReadAll();
        const rows = reader.getRowObjectsJS();
        return { rows: req.maxRows === null ? rows : rows.slice(0, req.maxRows), count: reader.currentRowCount };
      } finally {
        if (req.readOnly) await c.run('ROLLBACK');
      }
    }
    case 'stage': {
      // No Arrow IPC reader in native DuckDB without extensions: the batch (stepsToIPC's, as the browser
      // inserts it) goes through an uncompressed Parquet file (converted here unless a reader thread sent it
      // converted, stage.ts), kept until insertStaged (decision 044)
      const file = join(stage, `${randomUUID()}.parquet`);
      const bytes = isParquetBytes(req.bytes) ? req.bytes : ipcToParquet(req.bytes);
      const written = writeStaged(gate, () => {
        mkdirSync(stage, { recursive: true });
        writeFileSync(file, bytes);
      });
      if (!written) throw new Error('the import is ending (interrupted): the batch was not staged');
      const list = staged.get(req.conn) ?? [];
      list.push(file);
      staged.set(req.conn, list);
      return null;
    }
    case 'insertStaged': {
      const list = staged.get(req.conn) ?? [];
      staged.delete(req.conn);
      try {
        // one INSERT per batch, in the order staged: one INSERT of many files buffers more than a low memory_limit
        // allows (an Out of Memory Error at 128MB, measured), one per batch ran at 64MB
        for (const file of list) {
          await conn(req.conn).run(`INSERT INTO ${sqlIdent(req.table)} SELECT * FROM read_parquet(${sqlString(file)})`);
          rmSync(file, { force: true });
        }
      } finally {
        for (const file of list) rmSync(file, { force: true });
      }
      return null;
    }
    case 'dropStaged':
      for (const file of staged.get(req.conn) ?? []) rmSync(file, { force: true });
      staged.delete(req.conn);
      return null;
  }
}

let chain: Promise<void> = Promise.resolve();
parentPort!.on('message', (m: Envelope | 'quit') => {
  if (m === 'quit') {
    chain = chain.then(() => {
      for (const c of conns.values()) c.closeSync();
      instance.closeSync();
      rmSync(stage, { recursive: true, force: true });
      parentPort!.close();
    });
    return;
  }
  chain = chain.then(async () => {
    let reply: Reply;
    try {
      reply = { id: m.id, ok: true, value: await handle(m.req) };
    } catch (e) {
      reply = { id: m.id, ok: false, error: e instanceof Error ? e.message : String(e) };
    }
    if (m.sync) {
      syncPort.postMessage(reply);
      Atomics.store(m.sync, 0, 1);
      Atomics.notify(m.sync, 0);
    } else parentPort!.postMessage(reply);
  });
});
