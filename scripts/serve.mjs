// Minimal static file server for dist/ (no special headers), used by e2e tests and benchmarks.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.wasm': 'application/wasm', '.json': 'application/json', '.md': 'text/markdown; charset=utf-8',
  '.jsonl': 'application/x-ndjson', '.svg': 'image/svg+xml', '.png': 'image/png', '.yaml': 'text/yaml', '.gz': 'application/gzip',
  '.parquet': 'application/octet-stream',
};

/** Serve `root` under `base` (e.g. '/workbench/'); resolves to {url, close}. */
export function serve(root, { port = 0, base = '/' } = {}) {
  const dir = resolve(root);
  const server = createServer((req, res) => {
    let path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (!path.startsWith(base)) { res.writeHead(404); res.end('not found'); return; }
    path = normalize(path.slice(base.length));
    if (path.startsWith('..')) { res.writeHead(403); res.end(); return; }
    let file = join(dir, path);
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) { res.writeHead(404, { 'Content-Type': 'text/plain' }); res.end('not found'); return; }
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Content-Length': statSync(file).size });
    createReadStream(file).pipe(res);
  });
  return new Promise((ok) => server.listen(port, '127.0.0.1', () => {
    ok({ url: `http://127.0.0.1:${server.address().port}${base}`, close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(r); }) });
  }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = process.argv[2] ?? 'dist';
  const port = Number(process.argv[3] ?? 4173);
  const base = process.argv[4] ?? '/';
  serve(root, { port, base }).then(({ url }) => console.log(`serving ${root} at ${url}`));
}
