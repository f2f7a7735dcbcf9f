/** Page side: install the gateway service worker at the base path and keep it supplied with settings. */
import { type PageToWorker, SETTINGS_REQUEST } from '../core/protocol';
import { getSettings, pushSettings } from './settings';

export interface GatewayHandle {
  /** The page's base URL (the service worker's scope), e.g. `https://host/workbench/`. */
  base: string;
  /** OpenAI-style base URL for agents: `{base}gateway/v1`. */
  baseUrl: string;
  registration: ServiceWorkerRegistration;
  /** Whether this page's own requests go through the gateway (false after a hard reload until claimed). */
  controlled: boolean;
}

export interface RegisterGatewayOptions {
  /** Service worker script URL; default `{base}gateway-sw.js`. */
  script?: string;
  /** 'classic' for the bundled script (dev server and build); 'module' for an unbundled one (tests). */
  type?: WorkerType;
}

let base: string | null = null;

/** The base URL the gateway lives under; before registration, the page's own directory. */
export function gatewayBase(): string {
  return base ?? new URL('./', location.href).href;
}

export async function registerGateway(pageBase: string = new URL('./', document.baseURI).href, opts: RegisterGatewayOptions = {}): Promise<GatewayHandle> {
  if (!('serviceWorker' in navigator)) {
    throw new Error('This browser has no service workers (or the page is not on https/localhost), so the gateway cannot capture calls. Open the page over https or on localhost.');
  }
  base = new URL(pageBase, location.href).href;
  const script = opts.script ?? new URL('gateway-sw.js', base).href;
  const type = opts.type ?? 'classic';
  navigator.serviceWorker.addEventListener('message', (e: MessageEvent) => {
    if ((e.data as { type?: string })?.type === SETTINGS_REQUEST) pushSettings(e.source as ServiceWorker);
  });
  await getSettings();
  const registration = await navigator.serviceWorker.register(script, { scope: base, type, updateViaCache: 'none' });
  const ready = await navigator.serviceWorker.ready;
  if (!navigator.serviceWorker.controller) {
    // A hard reload leaves the page uncontrolled; clients.claim() takes it back without another reload.
    const changed = new Promise<void>((ok) => {
      navigator.serviceWorker.addEventListener('controllerchange', () => ok(), { once: true });
      setTimeout(ok, 3000);
    });
    ready.active?.postMessage({ type: 'aw-gateway:claim' } satisfies PageToWorker);
    await changed;
  }
  pushSettings(navigator.serviceWorker.controller ?? ready.active);
  return { base, baseUrl: `${base}gateway/v1`, registration, controlled: !!navigator.serviceWorker.controller };
}
