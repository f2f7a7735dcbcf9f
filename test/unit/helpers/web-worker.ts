/**
 * The app's Web Workers (workers/*.worker.ts) in Node: each runs in a worker thread whose global scope looks like a
 * dedicated worker's (web-worker-scope.ts), and this class is the page's side of one (postMessage, message and error
 * events, terminate), so the page's own code (PoolClient, WorkerImporter, WorkerExporter, Comlink) drives it unchanged.
 * The pool worker runs DuckDB-WASM's Node build (the same engine and version as the page's, duckdb-blocking-node.mjs).
 * What needs a browser stays in test/browser: OPFS, the service worker, elements.
 *
 * Structured clone in Node turns a File into a Blob without its name: `pack` sends a File as its parts and `unpack`
 * makes it again, on both sides.
 */
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { isMainThread, Worker as Thread, threadId, workerData } from 'node:worker_threads';
import { scratchDir } from '../../scratch.mjs';
import { duckdbEh } from './duckdb-module.mjs';

// WebAssembly on V8's baseline compiler only, as the browser tests run (scripts/browser.mjs TEST_ARGS): a DuckDB-WASM
// boot here cost 2.5 CPU-s with TurboFan's tier-up and about 1.5 without; a test's short queries never win it back.
setFlagsFromString('--liftoff-only');
// JSON.parse hands revivers the source text (Chromium ships it; Node 20 has it behind this flag): the reader keeps
// integers past 2^53 exact with it (src/ingest/json-values.ts). Set before any worker thread starts, so each has it.
setFlagsFromString('--harmony-json-parse-with-source');

/**
 * Where this process's worker bundles go (a folder made on first use, removed when the process ends) and the
 * repository's root; a thread gets its parent's (workerData), since its own copy of this module is bundled.
 */
type Bundles = { dir: string | null; root: string };
const bundles: Bundles = isMainThread ? { dir: null, root: fileURLToPath(new URL('../../../', import.meta.url)) } : workerData.bundles;
/** The bundles this thread has started a worker from: entry URL → bundle file. */
const bundled = new Map<string, string>();

/**
 * A worker module (`workers/<name>.worker.ts`) with web-worker-scope.ts first and everything both import as one ES
 * module, built by esbuild once per process (a file of the process's bundle folder, which every thread reads), as
 * web-test-runner.config.mjs serves the workers to the browser tests and vite builds them: through tsx, each thread
 * registered its loader and compiled the worker's few hundred modules one by one (a pool worker's thread ≈ 0.8 CPU-s
 * before its first message, an ingest worker's 0.9; bundled 0.3 and 0.2). What a resolve hook did in each thread:
 * - `@duckdb/duckdb-wasm/blocking` (the page's blocking bindings, the browser build in vite and web-test-runner) is
 *   the package's Node build, of the same version, with its Node runtime (duckdb-blocking-node.mjs);
 * - that build is CommonJS and requires apache-arrow's CommonJS build, while the app's modules import its ES build:
 *   two copies whose Tables do not know each other (a Table from one encoded by the other's tableToIPC came out
 *   empty). The app's imports of apache-arrow (and its subpaths) name the CommonJS build too, so there is one copy;
 * - `import.meta.url` is the worker module's URL in every module of the bundle (as in the browser's bundle), so
 *   `new URL('./ingest-shard.worker.ts', import.meta.url)` names the nested worker's source; `require` (the bundled
 *   CommonJS modules' Node built-ins) resolves from there too; DuckDB's build (Emscripten's loader) is the one module
 *   that reads `__filename` and `__dirname`: its own, as Node gives them.
 * Synchronous (`new Worker` is): esbuild's buildSync, so no plugins, hence aliases only.
 */
function bundleOf(href: string): string {
  const known = bundled.get(href);
  if (known) return known;
  bundles.dir ??= scratchDir('aw-worker-bundles-');
  const file = join(bundles.dir, `${fileURLToPath(href).slice(bundles.root.length).replace(/[/\\]/g, '__')}.mjs`);
  if (!existsSync(file)) {
    // written whole, then renamed: another thread may be reading the folder
    writeFileSync(`${file}.${threadId}.tmp`, bundle(href));
    renameSync(`${file}.${threadId}.tmp`, file);
  }
  bundled.set(href, file);
  return file;
}

/** The bundle's code; a module that fails to build throws its build errors when the thread loads it, as a worker would. */
function bundle(href: string): string {
  const require = createRequire(join(bundles.root, 'package.json'));
  const esbuild: typeof import('esbuild') = require('esbuild');
  const scope = join(bundles.root, 'test/unit/helpers/web-worker-scope.ts');
  const duck = require.resolve('@duckdb/duckdb-wasm/dist/duckdb-node-blocking.cjs');
  try {
    return esbuild.buildSync({
      bundle: true, format: 'esm', platform: 'node', target: 'es2022', tsconfig: 'tsconfig.json', write: false, logLevel: 'silent', absWorkingDir: bundles.root,
      stdin: { contents: `import ${JSON.stringify(scope)};\nimport ${JSON.stringify(fileURLToPath(href))};\n`, resolveDir: bundles.root, sourcefile: href, loader: 'ts' },
      alias: { '@duckdb/duckdb-wasm/blocking': './test/unit/helpers/duckdb-blocking-node.mjs', 'apache-arrow': './node_modules/apache-arrow' },
      define: { 'import.meta.url': JSON.stringify(href), __filename: JSON.stringify(duck), __dirname: JSON.stringify(dirname(duck)) },
      banner: { js: `import { createRequire as __awRequire } from 'node:module';\nconst require = __awRequire(${JSON.stringify(href)});` },
    }).outputFiles[0].text;
  } catch (e) {
    return `throw new Error(${JSON.stringify(e instanceof Error ? e.message : String(e))});\n`;
  }
}

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
    const duckdb = href.endsWith('/workers/pool.worker.ts') ? duckdbEh() : undefined;
    this.thread = new Thread(pathToFileURL(bundleOf(href)), { workerData: { bundles, duckdb }, name: opts.name });
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
