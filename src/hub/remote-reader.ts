/**
 * The remote Parquet worker's calls (workers/remote-parquet.worker.ts hosts them; protocol: api.ts; decision 071):
 * reads a file's footer and the column chunks a query needs by range (parquet-range.ts), decodes them with
 * parquet-wasm off the page's thread, and hands the Arrow bytes straight to the pool worker (its own port), which
 * registers them as a table.
 */
import * as Comlink from 'comlink';
import initParquet, * as parquetWasm from 'parquet-wasm/esm';
import type { PoolApi } from '../pool/api';
import type { RemoteParquetWorkerApi } from './api';
import { type ParquetWasm, READER_STOPPED } from './parquet-range';
import { RemoteFiles } from './remote-files';

/** A new remote Parquet worker's API; `scope` is the worker's global, whose unhandled errors tell of a parquet-wasm abort. */
export function createRemoteParquetWorkerApi(scope: Pick<EventTarget, 'addEventListener'>): RemoteParquetWorkerApi {
  let pool: Comlink.Remote<PoolApi> | null = null;
  let wasmUrl = '';
  let ready: Promise<unknown> | null = null;
  const files = new RemoteFiles(parquetWasm as unknown as ParquetWasm);

  /**
   * parquet-wasm aborts its instance on some inputs (`RuntimeError: unreachable`, thrown where no caller awaits it): the
   * calls in flight are failed with a message the page recognizes, and it starts a new worker for the next query.
   */
  const inflight = new Set<(e: Error) => void>();
  let crashed: Error | null = null;
  function crash(reason: unknown): void {
    if (!(reason instanceof WebAssembly.RuntimeError)) return;
    crashed = new Error(`${READER_STOPPED} (${reason.message}: the file's data is corrupt, or not what its footer says); it starts again for the next query.`);
    for (const fail of inflight) fail(crashed);
    inflight.clear();
  }
  scope.addEventListener('unhandledrejection', (e) => crash((e as PromiseRejectionEvent).reason));
  scope.addEventListener('error', (e) => crash((e as ErrorEvent).error));

  function guarded<T>(work: () => Promise<T>): Promise<T> {
    if (crashed) return Promise.reject(crashed);
    return new Promise<T>((resolve, reject) => {
      inflight.add(reject);
      work()
        .then(resolve, reject)
        .finally(() => inflight.delete(reject));
    });
  }

  function parquet(): Promise<unknown> {
    ready ??= initParquet({ module_or_path: wasmUrl });
    return ready;
  }

  const api: RemoteParquetWorkerApi = {
    init(port: MessagePort, parquetWasmUrl: string): void {
      pool = Comlink.wrap<PoolApi>(port);
      wasmUrl = parquetWasmUrl;
    },

    open(url: string, token: string | null) {
      return guarded(async () => {
        await parquet();
        return files.open(url, token);
      });
    },

    register(url: string, token: string | null, columns: string[], rowGroups: number[], name: string) {
      return guarded(async () => {
        if (!pool) throw new Error('remote Parquet worker not initialised');
        await parquet();
        const { ipc, stats } = await files.read(url, token, columns, rowGroups);
        const bytes = ipc.byteLength;
        await pool.registerRemote(name, Comlink.transfer(ipc, [ipc.buffer]));
        return { bytes, stats };
      });
    },

    async drop(names: string[]): Promise<void> {
      await pool?.dropRemote(names);
    },
  };
  return api;
}
