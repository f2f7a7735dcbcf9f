/**
 * The app's Web Workers (workers/*.worker.ts) in Node: each runs in a worker thread whose global scope looks like a
 * dedicated worker's (web-worker-scope.ts), and this class is the page's side of one (postMessage, message and error
 * events, terminate), so the page's own code (PoolClient, WorkerImporter, WorkerExporter, Comlink) drives it unchanged.
 * The pool worker runs DuckDB-WASM's Node build (the same engine and version as the page's, duckdb-alias-hook.mjs).
 * What needs a browser stays in test/browser: OPFS, the service worker, elements.
 *
 * Structured clone in Node turns a File into a Blob without its name: `pack` sends a File as its parts and `unpack`
 * makes it again, on both sides.
 */
import { setFlagsFromString } from 'node:v8';
import { Worker as Thread } from 'node:worker_threads';

// WebAssembly on V8's baseline compiler only, as the browser tests run (scripts/browser.mjs TEST_ARGS): a DuckDB-WASM
// boot here cost 2.5 CPU-s with TurboFan's tier-up and about 1.5 without; a test's short queries never win it back.
setFlagsFromString('--liftoff-only');
// JSON.parse hands revivers the source text (Chromium ships it; Node 20 has it behind this flag): the reader keeps
// integers past 2^53 exact with it (src/ingest/json-values.ts). Set before any worker thread starts, so each has it.
setFlagsFromString('--harmony-json-parse-with-source');

const FILE = '__awFile';
type Packed = { [FILE]: true; blob: Blob; name: string; lastModified: number; type: string };

const plain = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && (Object.getPrototypeOf(v) === Object.prototype || Array.isArray(v));

export function pack(v: unknown): unknown {
  if (v instanceof File) return { [FILE]: true, blob: new Blob([v], { type: v.type }), name: v.name, lastModified: v.lastModified, type: v.type } satisfies Packed;
  if (Array.isArray(v)) return v.some((x) => x instanceof File || plain(x)) ? v.map(pack) : v;
  if (plain(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, pack(x)]));
  return v;
}

export function unpack(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(unpack);
  if (plain(v)) {
    if ((v as Partial<Packed>)[FILE]) {
      const p = v as Packed;
      return new File([p.blob], p.name, { lastModified: p.lastModified, type: p.type });
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, unpack(x)]));
  }
  return v;
}

type Listener = (e: { data?: unknown; message?: string; error?: unknown; preventDefault(): void }) => void;

/** The page's side of a dedicated worker running `entry` (a module URL) in a Node worker thread. */
export class WebWorker {
  /** Every thread started and not yet terminated: a page's workers end with the page, here with the test file. */
  private static running = new Set<Thread>();
  private thread: Thread;
  private listeners = new Map<string, Set<Listener>>();
  onmessage: Listener | null = null;
  onerror: Listener | null = null;

  constructor(entry: URL | string, opts: { name?: string } = {}) {
    const href = typeof entry === 'string' ? entry : entry.href;
    this.thread = new Thread(new URL('./web-worker-thread.mjs', import.meta.url), { workerData: { entry: href }, name: opts.name });
    WebWorker.running.add(this.thread);
    this.thread.once('exit', () => WebWorker.running.delete(this.thread));
    this.thread.on('message', (data) => this.dispatch('message', { data: unpack(data), preventDefault() {} }));
    this.thread.on('error', (error: Error) => this.dispatch('error', { message: error.message, error, preventDefault() {} }));
  }

  private dispatch(type: string, e: Parameters<Listener>[0]): void {
    if (type === 'message') this.onmessage?.(e);
    if (type === 'error') this.onerror?.(e);
    for (const fn of this.listeners.get(type) ?? []) fn(e);
  }

  postMessage(data: unknown, transfer: Transferable[] | { transfer?: Transferable[] } = []): void {
    const list = Array.isArray(transfer) ? transfer : (transfer.transfer ?? []);
    this.thread.postMessage(pack(data), list as never);
  }

  addEventListener(type: string, fn: Listener): void {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type)?.add(fn);
  }

  removeEventListener(type: string, fn: Listener): void {
    this.listeners.get(type)?.delete(fn);
  }

  terminate(): void {
    void this.thread.terminate();
  }

  /** End every worker thread still running (nested ones end with their parent thread). */
  static async terminateAll(): Promise<void> {
    await Promise.all([...WebWorker.running].map((t) => t.terminate()));
  }
}
