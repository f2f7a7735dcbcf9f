/// <reference lib="webworker" />
/**
 * The data pool: one DuckDB-WASM instance (blocking bindings, run inside this worker) and the
 * worker side of the pool API. Other workers reach it through `connect(port)`.
 */
import * as Comlink from 'comlink';
import '../src/util/arrow-bool-fix';
import { createPoolApi, type PoolApi } from '../src/pool/pool-core';

const poolApi = createPoolApi();

let broken: Error | null = null;
const faults = new Map<string, string>();

/** Every call fails once the engine has hit a fatal error, as a crashed DuckDB-WASM instance does. */
const guarded = Object.fromEntries(
  Object.entries(poolApi).map(([k, fn]) => [
    k,
    (...args: unknown[]) => {
      if (broken) throw broken;
      const fault = faults.get(k);
      if (fault) {
        faults.delete(k);
        throw new Error(fault);
      }
      return (fn as (...a: unknown[]) => unknown)(...args);
    },
  ]),
) as PoolApi;

const api: PoolApi & { connect(port: MessagePort): void; simulateCrash(): void; injectFault(method: string, message: string): void } = {
  ...guarded,
  connect(port: MessagePort) {
    Comlink.expose(api, port);
  },
  /** Fault injection for tests: the next call of `method` fails with `message` (e.g. a storage quota error). */
  injectFault(method: string, message: string) {
    faults.set(method, message);
  },
  /** Fault injection for tests (window.workbench.debug.crashPool): behave like a wasm abort. */
  simulateCrash() {
    broken = new WebAssembly.RuntimeError('unreachable (simulated engine crash)');
    throw broken;
  },
};

Comlink.expose(api);
