/**
 * The black-box agent host: foreign agent code runs in an opaque-origin iframe (sandbox="allow-scripts",
 * no connections by CSP), so it cannot read this origin's IndexedDB / OPFS (keys, the pool). Its only
 * way out is the postMessage fetch bridge, which forwards only the gateway's API routes with their
 * methods (`checkBridgeRequest`: no dot segments or encoded separators, checked before resolving).
 */
import { abortRelayFetch } from '../gateway/page/abort';
import { checkBridgeRequest } from './bridge-url';
import type { HostToSandbox, SandboxToHost } from './sandbox-protocol';

export interface BlackBoxRunOptions {
  /** Handed to the agent as `input` (e.g. a task). */
  input?: unknown;
  timeoutMs?: number;
  onLog?: (level: string, text: string) => void;
}

const relayFetch = abortRelayFetch();

export class BlackBoxError extends Error {
  override name = 'BlackBoxError';
}

/** The agent module's text: from a URL (fetched by the page, since the sandbox can reach nothing) or as pasted. */
export async function agentSource(source: { url: string } | { code: string }): Promise<string> {
  if ('code' in source) return source.code;
  const r = await fetch(source.url);
  if (!r.ok) throw new BlackBoxError(`Could not load the agent module ${source.url}: HTTP ${r.status}. Check the URL (it must be a single-file ES module and allow CORS).`);
  return r.text();
}

/** Run one agent module in a fresh sandbox; resolves with what its function returned. */
export function runBlackBox(base: string, code: string, opts: BlackBoxRunOptions = {}): Promise<unknown> {
  const gatewayPrefix = new URL('gateway/', base).href;
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.title = 'Black-box agent sandbox';
  frame.style.display = 'none';
  frame.src = new URL('agent-sandbox.html', base).href;
  const inflight = new Map<number, AbortController>();
  const send = (m: HostToSandbox, transfer: Transferable[] = []) => frame.contentWindow?.postMessage(m, '*', transfer);

  async function bridge(m: Extract<SandboxToHost, { type: 'aw-sandbox:fetch' }>): Promise<void> {
    const checked = checkBridgeRequest(m.url, m.method, gatewayPrefix);
    if (!checked.ok) {
      send({ type: 'aw-sandbox:fail', id: m.id, message: checked.reason });
      return;
    }
    const ac = new AbortController();
    inflight.set(m.id, ac);
    try {
      const res = await relayFetch(checked.url, { method: m.method, headers: m.headers, body: m.body, signal: ac.signal, credentials: 'omit', redirect: 'error' });
      send({ type: 'aw-sandbox:head', id: m.id, status: res.status, statusText: res.statusText, headers: [...res.headers] });
      const reader = res.body?.getReader();
      for (;;) {
        const r = reader ? await reader.read() : { done: true as const, value: undefined };
        if (r.done) break;
        const bytes = r.value.slice().buffer;
        send({ type: 'aw-sandbox:chunk', id: m.id, bytes }, [bytes]);
      }
      send({ type: 'aw-sandbox:end', id: m.id });
    } catch (e) {
      send({ type: 'aw-sandbox:fail', id: m.id, message: e instanceof Error ? e.message : String(e) });
    } finally {
      inflight.delete(m.id);
    }
  }

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new BlackBoxError(`The agent did not finish within ${opts.timeoutMs ?? 600000} ms; it was stopped.`)), opts.timeoutMs ?? 600000);
    const finish = (err: Error | null, result?: unknown) => {
      clearTimeout(timer);
      removeEventListener('message', onMessage);
      for (const ac of inflight.values()) ac.abort();
      frame.remove();
      if (err) reject(err);
      else resolve(result);
    };
    const onMessage = (e: MessageEvent) => {
      if (e.source !== frame.contentWindow) return;
      const m = e.data as SandboxToHost;
      if (m.type === 'aw-sandbox:ready') send({ type: 'aw-sandbox:run', code, baseUrl: `${gatewayPrefix}v1`, input: opts.input ?? null });
      else if (m.type === 'aw-sandbox:fetch') void bridge(m);
      else if (m.type === 'aw-sandbox:abort') inflight.get(m.id)?.abort();
      else if (m.type === 'aw-sandbox:log') opts.onLog?.(m.level, m.text);
      else if (m.type === 'aw-sandbox:done') finish(null, m.result);
      else if (m.type === 'aw-sandbox:error') finish(new BlackBoxError(`The agent failed: ${m.message}`));
    };
    addEventListener('message', onMessage);
    document.body.append(frame);
  });
}
