/// <reference lib="webworker" />
/**
 * The data pool: one DuckDB-WASM instance (blocking bindings, run inside this worker, its database on OPFS) serving
 * the pool API (src/pool/pool-core.ts) to the page's broker, and to other workers through `connect(port)` (src/pool/host.ts).
 */
import '../src/util/arrow-bool-fix';
import { browserBoot } from '../src/pool/boot';
import { hostPool } from '../src/pool/host';
import { createPoolApi } from '../src/pool/pool-core';

hostPool(self as unknown as Worker, createPoolApi(browserBoot));
