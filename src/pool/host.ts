/**
 * Serving a pool engine's API on a message endpoint (workers/pool.worker.ts: its `self`), so the worker entry only
 * hosts. After every call the tables it wrote are posted to the broker (before the call's own
 * answer, so they arrive first); once the engine has hit a fatal error every call fails, as a crashed DuckDB-WASM
 * instance does. The fault hooks exist in test builds only.
 */
import * as Comlink from 'comlink';
import { changes, type PoolChangeMessage } from './changes';
import type { PoolApi, PoolWorkerApi } from './api';
import { TEST_BUILD } from '../util/test-build';

/** Where the API is served: a worker's `self`, or a MessagePort. */
export type PoolEndpoint = Comlink.Endpoint;

export function hostPool(endpoint: PoolEndpoint, poolApi: PoolApi): PoolWorkerApi {
  const report = () => {
    const tables = changes.take();
    if (tables.length) endpoint.postMessage({ awPoolChange: tables } satisfies PoolChangeMessage);
  };
  let broken: Error | null = null;
  const faults = new Map<string, string>();
  const guarded = Object.fromEntries(
    Object.entries(poolApi).map(([k, fn]) => [
      k,
      (...args: unknown[]) => {
        if (broken) throw broken;
        const fault = TEST_BUILD ? faults.get(k) : undefined;
        if (fault) {
          faults.delete(k);
          throw new Error(fault);
        }
        let r: unknown;
        try {
          r = (fn as (...a: unknown[]) => unknown)(...args);
        } finally {
          if (!(r instanceof Promise)) report();
        }
        return r instanceof Promise ? r.finally(report) : r;
      },
    ]),
  ) as unknown as PoolApi;
  const api: PoolWorkerApi = {
    ...guarded,
    connect(port: MessagePort) {
      Comlink.expose(api, port);
    },
    // Fault injection for tests. The object is written inside the condition so a production build (TEST_BUILD folds to
    // false) drops it whole; only test builds (`vite build --mode test`, which `npm test` and the bench run) carry it.
    ...(TEST_BUILD
      ? {
          /** The next call of `method` fails with `message` (e.g. a storage quota error). */
          injectFault(method: string, message: string) {
            faults.set(method, message);
          },
          /** Behave like a wasm abort (window.workbench.debug.crashPool). */
          simulateCrash() {
            broken = new WebAssembly.RuntimeError('unreachable (simulated engine crash)');
            throw broken;
          },
        }
      : {}),
  };
  Comlink.expose(api, endpoint);
  return api;
}
