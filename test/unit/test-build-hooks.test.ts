/**
 * The pool's fault-injection hooks (issue 14) and the tokenizer worker's bench hook exist only in test builds: a
 * production build of the pool worker, the page's pool client and the tokenizer worker carries none of their names, a
 * `--mode test` build carries them. Built with vite's own pipeline (the same `import.meta.env.MODE` replacement and
 * tree-shaking as `vite build`), just these entries and without minifying: ≈ 2 s for both modes on an idle machine,
 * where the full app build takes ≈ 12 s.
 */
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { build, type Rolldown } from 'vite';

const root = resolve(import.meta.dirname, '../..');
const HOOKS = ['simulateCrash', 'injectFault', 'simulated engine crash', 'benchEncode', 'libraryTokens'];

async function bundle(mode: 'production' | 'test'): Promise<string> {
  const out = await build({
    configFile: false,
    root,
    mode,
    logLevel: 'silent',
    resolve: { alias: { '@duckdb/duckdb-wasm/blocking': resolve(root, 'node_modules/@duckdb/duckdb-wasm/dist/duckdb-browser-blocking.mjs') } },
    build: {
      write: false,
      minify: false,
      target: 'es2022',
      rollupOptions: {
        input: { worker: resolve(root, 'workers/pool.worker.ts'), client: resolve(root, 'src/pool/client.ts'), tokenizer: resolve(root, 'workers/tokenizer.worker.ts') },
        preserveEntrySignatures: 'exports-only',
        // the engine's dependencies are not what this test reads; keep them out of the bundle
        external: (id) => /^(@duckdb|@huggingface|apache-arrow|comlink|idb)/.test(id),
      },
    },
  });
  const outputs = (Array.isArray(out) ? out : [out]) as Rolldown.RolldownOutput[];
  return outputs
    .flatMap((o) => o.output)
    .map((c) => (c.type === 'chunk' ? c.code : ''))
    .join('\n');
}

test('fault-injection and bench hooks: absent from a production build, present in a test build', async () => {
  const [prod, testBuild] = await Promise.all([bundle('production'), bundle('test')]);
  for (const name of HOOKS) {
    assert.ok(testBuild.includes(name), `a --mode test build carries ${name}`);
    assert.ok(!prod.includes(name), `a production build carries ${name}`);
  }
  // the worker's real API is in both (the check reads real bundles, not empty ones)
  for (const code of [prod, testBuild]) {
    assert.match(code, /commitImport/);
    assert.match(code, /countShard/);
  }
});
