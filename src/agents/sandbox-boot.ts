/**
 * Runs inside the agent sandbox (an opaque-origin iframe whose CSP forbids any connection): replaces
 * `fetch` with a bridge to the host page, which forwards only requests under the gateway, then
 * imports the foreign agent module from a blob URL and calls its default (or `run`) export.
 */
import type { HostToSandbox, SandboxToHost } from './sandbox-protocol';

interface Pending {
  resolve: (r: Response) => void;
  reject: (e: unknown) => void;
  stream: ReadableStreamDefaultController<Uint8Array> | null;
}

const pending = new Map<number, Pending>();
let seq = 0;
let baseUrl = '';
const post = (m: SandboxToHost) => parent.postMessage(m, '*');

async function bridgedFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const url = new URL(input instanceof Request ? input.url : String(input), baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`).href;
  const req = new Request(url, input instanceof Request ? input : init);
  const body = req.method === 'GET' || req.method === 'HEAD' ? null : await req.text();
  const id = ++seq;
  const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
  return new Promise<Response>((resolve, reject) => {
    pending.set(id, { resolve, reject, stream: null });
    signal?.addEventListener('abort', () => {
      post({ type: 'aw-sandbox:abort', id });
      const p = pending.get(id);
      const err = new DOMException('The agent aborted the request', 'AbortError');
      p?.stream?.error(err);
      p?.reject(err);
      pending.delete(id);
    });
    post({ type: 'aw-sandbox:fetch', id, url, method: req.method, headers: [...req.headers], body });
  });
}

globalThis.fetch = bridgedFetch;

for (const level of ['log', 'warn', 'error'] as const) {
  const orig = console[level].bind(console);
  console[level] = (...args: unknown[]) => {
    orig(...args);
    post({ type: 'aw-sandbox:log', level, text: args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ') });
  };
}

addEventListener('message', (e: MessageEvent) => {
  if (e.source !== parent) return;
  const m = e.data as HostToSandbox;
  if (m.type === 'aw-sandbox:run') {
    baseUrl = m.baseUrl;
    void run(m.code, m.input);
    return;
  }
  const p = pending.get(m.id);
  if (!p) return;
  if (m.type === 'aw-sandbox:head') {
    const stream = new ReadableStream<Uint8Array>({ start: (c) => void (p.stream = c) });
    p.resolve(new Response(m.status === 204 || m.status === 304 ? null : stream, { status: m.status, statusText: m.statusText, headers: m.headers }));
  } else if (m.type === 'aw-sandbox:chunk') p.stream?.enqueue(new Uint8Array(m.bytes));
  else if (m.type === 'aw-sandbox:end') {
    p.stream?.close();
    pending.delete(m.id);
  } else if (m.type === 'aw-sandbox:fail') {
    const err = new TypeError(m.message);
    if (p.stream) p.stream.error(err);
    else p.reject(err);
    pending.delete(m.id);
  }
});

async function run(code: string, input: unknown): Promise<void> {
  const url = URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
  try {
    const mod = (await import(/* @vite-ignore */ url)) as { default?: unknown; run?: unknown };
    const fn = typeof mod.default === 'function' ? mod.default : mod.run;
    if (typeof fn !== 'function') throw new Error('the agent module must export a default function (or `run`) taking {baseUrl, input}');
    const result: unknown = await fn({ baseUrl, input });
    post({ type: 'aw-sandbox:done', result: JSON.parse(JSON.stringify(result ?? null)) });
  } catch (e) {
    post({ type: 'aw-sandbox:error', message: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
  } finally {
    URL.revokeObjectURL(url);
  }
}

post({ type: 'aw-sandbox:ready' });
