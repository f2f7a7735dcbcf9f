/**
 * Build-time only, so outside src/ (imported by vite.config.ts): bundles the gateway service worker and the agent
 * sandbox bootstrap into single classic scripts at the base path root (`gateway-sw.js`,
 * `agent-sandbox.js`, `agent-sandbox.html`), in `vite build` and on the dev server.
 */
import { resolve } from 'node:path';
import type { Plugin } from 'vite';

const root = resolve(import.meta.dirname, '..');
const SCRIPTS: Record<string, string> = {
  'gateway-sw.js': resolve(root, 'src/gateway/sw/sw.ts'),
  'agent-sandbox.js': resolve(root, 'src/agents/sandbox-boot.ts'),
};

/** Its own CSP: an opaque-origin document that may run its scripts and blob modules but reach no network. */
export const SANDBOX_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'self' blob:; connect-src 'none'; img-src data: blob:; style-src 'unsafe-inline'; frame-src 'none'; form-action 'none'; base-uri 'none'">
<title>Agent sandbox</title></head><body><script src="./agent-sandbox.js"></script></body></html>
`;

/** MSW's cookie jar is not needed by the mock upstream's handlers: a cookie-less stand-in keeps the worker small (decision 020). */
const ALIAS = { 'tough-cookie': resolve(root, 'scripts/sw-cookie-stub.ts') };

async function bundle(entry: string): Promise<string> {
  const { build } = await import('vite');
  const out = await build({
    configFile: false,
    logLevel: 'warn',
    resolve: { alias: ALIAS },
    build: { write: false, minify: true, target: 'es2022', lib: { entry, formats: ['iife'], name: 'awBundle', fileName: () => 'bundle.js' }, emptyOutDir: false },
  });
  const outputs = Array.isArray(out) ? out : [out];
  for (const o of outputs) {
    if ('output' in o) {
      const chunk = o.output.find((c) => c.type === 'chunk');
      if (chunk && chunk.type === 'chunk') return chunk.code;
    }
  }
  throw new Error(`gateway assets: bundling ${entry} produced no code`);
}

export function gatewayAssets(): Plugin {
  return {
    name: 'aw-gateway-assets',
    apply: () => true,
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const name = (req.url ?? '').split('?')[0].split('/').pop() ?? '';
        if (name === 'agent-sandbox.html') {
          res.setHeader('Content-Type', 'text/html; charset=utf-8');
          res.end(SANDBOX_HTML);
          return;
        }
        const entry = SCRIPTS[name];
        if (!entry) return next();
        bundle(entry).then(
          (code) => {
            res.setHeader('Content-Type', 'text/javascript');
            res.setHeader('Cache-Control', 'no-store');
            res.end(code);
          },
          (e: unknown) => next(e),
        );
      });
    },
    async generateBundle() {
      for (const [fileName, entry] of Object.entries(SCRIPTS)) this.emitFile({ type: 'asset', fileName, source: await bundle(entry) });
      this.emitFile({ type: 'asset', fileName: 'agent-sandbox.html', source: SANDBOX_HTML });
    },
  };
}
