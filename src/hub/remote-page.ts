/**
 * The page's remote Parquet (decision 071): files read in their own worker (workers/remote-parquet.worker.ts), tables
 * registered in the pool's attached in-memory database, every query the pool runs rewritten first (PoolClient.setRewriter).
 */
import * as Comlink from 'comlink';
import type { PoolClient } from '../pool/client';
import { remoteRelation } from '../pool/remote-tables';
import type { RemoteParquetWorkerApi } from './api';
import { READER_STOPPED } from './parquet-range';
import { type RemoteBackend, RemoteParquetSql, type RemoteQueryOptions } from './remote-query';


export function pageRemoteParquet(pool: PoolClient, make: () => Worker, parquetWasmUrl: string, opts: RemoteQueryOptions): RemoteParquetSql {
  let worker: Worker | null = null;
  let api: Promise<Comlink.Remote<RemoteParquetWorkerApi>> | null = null;
  const reset = () => {
    worker?.terminate();
    worker = null;
    api = null;
  };
  const get = () =>
    (api ??= (async () => {
      worker = make();
      const remote = Comlink.wrap<RemoteParquetWorkerApi>(worker);
      const port = await pool.port();
      await remote.init(Comlink.transfer(port, [port]), parquetWasmUrl);
      return remote;
    })());
  /** A crashed reader is replaced for the next call (its files' state went with its wasm instance). */
  const call = async <T>(fn: (w: Comlink.Remote<RemoteParquetWorkerApi>) => Promise<T>): Promise<T> => {
    try {
      return await fn(await get());
    } catch (e) {
      if ((e instanceof Error ? e.message : String(e)).includes(READER_STOPPED)) reset();
      throw e;
    }
  };
  const backend: RemoteBackend = {
    open: (url, token) => call((w) => w.open(url, token)),
    register: (url, token, columns, rowGroups, name) => call((w) => w.register(url, token, columns, rowGroups, name)),
    drop: (names) => call((w) => w.drop(names)),
    relation: remoteRelation,
  };
  const remote = new RemoteParquetSql(backend, opts);
  // a pool restart empties the attached database and kills the worker's port: forget both
  pool.onRestart(() => {
    reset();
    remote.forget();
  });
  pool.setRewriter((sql) => remote.rewrite(sql));
  return remote;
}
