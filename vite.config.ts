import { cpSync, existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import { gatewayAssets } from './scripts/vite-gateway-assets';

/** Serve notebooks/ (example notebooks, demo data, agent and task configs) in dev and copy it into dist/. */
function notebooksDir(): Plugin {
  const dir = resolve(import.meta.dirname, 'notebooks');
  const types: Record<string, string> = {
    '.md': 'text/markdown; charset=utf-8',
    '.json': 'application/json',
    '.jsonl': 'application/x-ndjson',
    '.yaml': 'text/yaml',
    '.yml': 'text/yaml',
  };
  return {
    name: 'aw-notebooks',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const url = decodeURIComponent((req.url ?? '').split('?')[0]);
        const m = url.match(/\/notebooks\/(.+)$/);
        if (!m || m[1].includes('..')) return next();
        const file = join(dir, m[1]);
        if (!existsSync(file) || !statSync(file).isFile()) return next();
        res.setHeader('Content-Type', types[extname(file)] ?? 'application/octet-stream');
        res.end(readFileSync(file));
      });
    },
    closeBundle() {
      if (existsSync(resolve(import.meta.dirname, 'dist'))) cpSync(dir, resolve(import.meta.dirname, 'dist/notebooks'), { recursive: true });
    },
  };
}

export default defineConfig({
  base: './',
  plugins: [notebooksDir(), gatewayAssets()],
  resolve: {
    // The package's `./blocking` export lists node types first; point the bundler at the browser build.
    alias: { '@duckdb/duckdb-wasm/blocking': resolve(import.meta.dirname, 'node_modules/@duckdb/duckdb-wasm/dist/duckdb-browser-blocking.mjs') },
  },
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    outDir: 'dist',
    chunkSizeWarningLimit: 4000,
    assetsInlineLimit: 0,
  },
  server: { port: 5173, strictPort: false },
  preview: { port: 4173 },
  optimizeDeps: {
    // the app's one page: the dependency scan would otherwise crawl every .html under the root, bench pages included
    // (bench/virtual-lists imports @lit-labs/virtualizer, installed only to run that bench: the scan failed and the dev
    // server skipped pre-bundling for the app)
    entries: ['index.html'],
    exclude: ['@duckdb/duckdb-wasm', 'parquet-wasm'],
    // worker-only imports the dev server would otherwise discover late (and reload the page for)
    include: ['apache-arrow', 'apache-arrow/visitor/vectorassembler', 'comlink', 'hash-wasm', 'fflate', 'yaml', 'idb'],
  },
});
