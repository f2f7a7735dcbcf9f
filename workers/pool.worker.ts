/// <reference lib="webworker" />
/**
 * The data pool: one DuckDB-WASM instance (blocking bindings, run inside this worker) and the
 * worker side of the pool API. Other workers reach it through `connect(port)`.
 */
import * as Comlink from 'comlink';
import '../src/util/arrow-bool-fix';
import { changes, type PoolChangeMessage } from '../src/pool/changes';
import type { PoolWorkerApi } from '../src/pool/client';
import { createPoolApi, type PoolApi } from '../src/pool/pool-core';
import { TEST_BUILD } from '../src/util/test-build';

const poolApi = createPoolApi();

/** Tell the main thread's broker which tables the call wrote (posted before the call's own answer, so it arrives first). */
function report(): void {
  const tables = changes.take();
  if (tables.length) (self as unknown as Worker).postMessage({ awPoolChange: tables } satisfies PoolChangeMessage);
}

let broken: Error | null = null;
const faults = new Map<string, string>();

/** Every call fails once the engine has hit a fatal error, as a crashed DuckDB-WASM instance does. */
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
) as PoolApi;

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

Comlink.expose(api);
