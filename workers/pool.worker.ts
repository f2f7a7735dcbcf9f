/// <reference lib="webworker" />
/**
 * The data pool: one DuckDB-WASM instance (blocking bindings, run inside this worker) and the
 * worker side of the pool API. Other workers reach it through `connect(port)`.
 */
import * as Comlink from 'comlink';
import { type PoolApi, poolApi } from '../src/pool/pool-core';

const api: PoolApi & { connect(port: MessagePort): void } = {
  ...poolApi,
  connect(port: MessagePort) {
    Comlink.expose(api, port);
  },
};

Comlink.expose(api);
