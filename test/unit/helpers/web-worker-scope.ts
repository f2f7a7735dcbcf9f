/**
 * A dedicated worker's global scope in a Node worker thread (web-worker.ts): `self`, `postMessage`, message events,
 * `close`, nested workers (`Worker`), and `fetch` of file: URLs (the wasm modules the workers load by URL).
 */
import { readFile } from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import { pack, unpack, WebWorker } from './web-worker';

type Listener = (e: { data: unknown }) => void;
const port = parentPort;
if (!port) throw new Error('web-worker-scope.ts runs only in a worker thread');
const handlers = new Map<Listener, (data: unknown) => void>();
const scope = globalThis as Record<string, unknown>;

scope.self = globalThis;
scope.postMessage = (data: unknown, transfer: Transferable[] | { transfer?: Transferable[] } = []) =>
  port.postMessage(pack(data), (Array.isArray(transfer) ? transfer : (transfer.transfer ?? [])) as never);
scope.addEventListener = (type: string, fn: Listener) => {
  if (type !== 'message' || handlers.has(fn)) return;
  const h = (data: unknown) => fn({ data: unpack(data) });
  handlers.set(fn, h);
  port.on('message', h);
};
scope.removeEventListener = (type: string, fn: Listener) => {
  const h = handlers.get(fn);
  if (type !== 'message' || !h) return;
  port.off('message', h);
  handlers.delete(fn);
};
scope.close = () => port.close();
scope.Worker = WebWorker;
const netFetch = globalThis.fetch;
scope.fetch = async (input: string | URL | Request, init?: RequestInit) => {
  const url = typeof input === 'string' || input instanceof URL ? String(input) : input.url;
  if (!url.startsWith('file:')) return netFetch(input, init);
  const body = await readFile(new URL(url));
  return new Response(body, { headers: { 'content-type': url.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream' } });
};
