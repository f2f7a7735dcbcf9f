/** One call for the app boot: register the gateway service worker, start the capture sink, return the window.workbench additions (agents add theirs: agents/services.ts). */
import type { PoolClient } from '../../pool/client';
import { abortRelayFetch } from './abort';
import { gatewayBaseUrl } from './api';
import { type GatewayHandle, registerGateway } from './register';
import { getSettings, setSettings } from './settings';
import { type CaptureSink, startCaptureSink } from './sink';

export interface GatewayServices {
  gateway: GatewayHandle | null;
  /** Why the gateway is not running, when it is not (no service workers, registration failed). */
  error: string | null;
  sink: CaptureSink;
  api: {
    gatewayBaseUrl: typeof gatewayBaseUrl;
    gatewaySettings: typeof getSettings;
    setGatewaySettings: typeof setSettings;
    captureStats: CaptureSink['stats'];
    /** `fetch` for gateway calls whose abort (init.signal) also aborts the upstream request. */
    gatewayFetch: typeof fetch;
  };
}

/**
 * `sink: false` for a tab that does not own the saved pool: it must not move journal entries into a
 * temporary pool (they would be marked pooled and never reach the saved one).
 */
export async function startGatewayServices(
  pool: PoolClient,
  base: string = new URL('./', document.baseURI).href,
  opts: { sink?: boolean; registration?: Promise<GatewayHandle> } = {},
): Promise<GatewayServices> {
  const sink = opts.sink === false ? idleSink() : startCaptureSink(pool);
  let gateway: GatewayHandle | null = null;
  let error: string | null = null;
  try {
    // the app starts registering while the pool opens (opts.registration, from registerGateway)
    gateway = await (opts.registration ?? registerGateway(base));
  } catch (e) {
    error = `The gateway could not start, so agent calls are not captured: ${e instanceof Error ? e.message : String(e)}`;
  }
  return {
    gateway,
    error,
    sink,
    api: { gatewayBaseUrl, gatewaySettings: getSettings, setGatewaySettings: setSettings, captureStats: () => sink.stats(),
      gatewayFetch: abortRelayFetch(),
    },
  };
}

function idleSink(): CaptureSink {
  return { stop() {}, flush: async () => 0, stats: () => ({ pooled: 0, flushes: 0, lastFlushAt: null, lastError: 'this tab does not own the pool; another tab moves captured calls into it' }) };
}
