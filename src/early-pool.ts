/**
 * Imported first by main.ts, so the pool worker starts loading (its script, then DuckDB's wasm once
 * `open` arrives) while the rest of the app's modules are still being evaluated (docs/decisions/036).
 */
import { assets } from './assets';
import { foreignFramer } from './app/frame-guard';

/** The Cache Storage cache the pool worker keeps the (content-hashed) DuckDB wasm in (src/pool/wasm-load.ts). */
export const WASM_CACHE = 'aw-duckdb-wasm';

// a page framed by another site does not boot (frame-guard.ts): start nothing for it
let early: Worker | null = typeof Worker === 'undefined' || foreignFramer() ? null : assets.poolWorker();

/** The worker started at load the first time, a new one after that (a restart after a crash). */
export function earlyPoolWorker(): Worker {
  const w = early ?? assets.poolWorker();
  early = null;
  return w;
}
