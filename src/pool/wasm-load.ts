/**
 * Where the pool worker gets DuckDB's wasm from (docs/decisions/036, 051). duckdb-wasm's own loader pipes the
 * fetched body through a TransformStream into a `new Response(...)` for its progress callback; such a
 * Response has no URL and no cache behind it, so Chromium's wasm code cache never applied and every
 * start compiled the 34 MB module again. Here the module is compiled straight from a real Response:
 * - a first start: from the network, kept in Cache Storage as it streams;
 * - later starts: from the browser's HTTP cache. Only there does Chromium keep the module's optimized code beside the
 *   response (its wasm code cache), so a returning user's start skips compiling what the last session optimized;
 * - from Cache Storage when the host's headers keep the module out of the HTTP cache (`no-store`) or that fetch
 *   fails. Chromium never writes a code cache for these responses (measured: decision 051).
 */
/** Emscripten's `instantiateWasm` hook as duckdb-wasm's bindings define it. */
type InstantiateWasm = (imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) => unknown;

interface Bindings {
  mainModuleURL: string;
  _runtime: unknown;
  instantiateWasm: InstantiateWasm;
}

/** Where the module came from: the HTTP cache, Cache Storage, the network, or duckdb-wasm's own loader. */
export type WasmSource = 'http-cache' | 'cache' | 'fetch' | 'duckdb';

/** Whether the host lets the browser's HTTP cache keep a response with these headers. */
const httpCacheable = (h: Headers) => !/\bno-store\b/i.test(h.get('cache-control') ?? '');

/**
 * The module's Response: once this worker has kept the module (Cache Storage), from the HTTP cache (`force-cache`:
 * fresh or stale, the build's asset URLs are content-hashed) unless the host's headers keep it out of there
 * (`no-store`), then from Cache Storage; the first time, from the network, stored into Cache Storage as it streams
 * (other entries of `cacheName` are dropped: one build's module is kept). Not `only-if-cached`: its miss is a failed
 * request in the console of every first visit.
 */
export async function wasmResponse(moduleUrl: string, cacheName: string | null, from?: (s: WasmSource) => void): Promise<Response> {
  // absolute, as Cache Storage keys are (a relative URL made the clean-up below drop the entry just stored)
  const url = new URL(moduleUrl, location.href).href;
  from?.('fetch');
  if (cacheName && typeof caches !== 'undefined') {
    try {
      const cache = await caches.open(cacheName);
      const hit = await cache.match(url);
      if (hit && httpCacheable(hit.headers)) {
        // the HTTP cache answers without the network unless it dropped the module since
        const res = await fetch(url, { credentials: 'same-origin', cache: 'force-cache' }).catch(() => null);
        if (res?.ok) {
          from?.('http-cache');
          return res;
        }
      }
      if (hit) {
        from?.('cache');
        return hit;
      }
      const res = await fetch(url, { credentials: 'same-origin' });
      if (res.ok) {
        cache
          .put(url, res.clone())
          .then(async () => {
            for (const k of await cache.keys()) if (k.url !== url) await cache.delete(k);
          })
          .catch((e: unknown) => console.warn('pool: the DuckDB wasm was not kept in Cache Storage; the next start fetches it again', e));
      }
      return res;
    } catch {
      /* no Cache Storage here (opaque origin, some private modes): fetch as usual */
    }
  }
  return fetch(url, { credentials: 'same-origin' });
}

/**
 * Make `db.instantiate()` compile from `wasmResponse` with streaming compilation. Falls back to
 * duckdb-wasm's own loader when that fails (no `instantiateStreaming`, a wrong MIME type…).
 */
export function loadWasmFrom(db: unknown, cacheName: string | null): { source: WasmSource } {
  const b = db as Bindings;
  const used: { source: WasmSource } = { source: 'duckdb' };
  const own = b.instantiateWasm.bind(b);
  if (typeof WebAssembly.instantiateStreaming !== 'function') return used;
  b.instantiateWasm = (imports, done) => {
    // what duckdb-wasm's loader sets before instantiating: the module's imports call into this runtime
    (globalThis as { DUCKDB_RUNTIME?: unknown }).DUCKDB_RUNTIME = b._runtime;
    WebAssembly.instantiateStreaming(wasmResponse(b.mainModuleURL, cacheName, (s) => (used.source = s)), imports).then(
      (r) => done(r.instance, r.module),
      () => {
        used.source = 'duckdb';
        own(imports, done);
      },
    );
    return [];
  };
  return used;
}
