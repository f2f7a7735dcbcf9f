/**
 * The gateway service worker (built to `gateway-sw.js` at the base path). It owns `{base}gateway/`
 * and lets every other request pass untouched. Its scope is the base path, so the app page, its
 * workers, and same-origin agent pages under it are all routed here, visible or not.
 */
import './msw-env';
import { refusal } from '../core/admit';
import { Gateway, type GatewayEvent } from '../core/capture';
import { type JournalDb, loadSettings, openJournal } from '../core/journal';
import { ABORT_CHANNEL, type AbortMessage, CHANNEL, type PageToWorker, SETTINGS_REQUEST } from '../core/protocol';
import { defaultSettings, type GatewaySettings } from '../core/upstream';

interface ExtendableEvent extends Event {
  waitUntil(p: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  request: Request;
  clientId: string;
  respondWith(r: Promise<Response> | Response): void;
}
interface ExtendableMessageEvent extends ExtendableEvent {
  data: unknown;
}
interface SwClient {
  postMessage(m: unknown): void;
}
interface SwGlobal {
  registration: { scope: string };
  clients: { claim(): Promise<void>; matchAll(o: { type: 'window' }): Promise<SwClient[]>; get(id: string): Promise<{ url: string } | undefined> };
  skipWaiting(): Promise<void>;
  addEventListener(type: 'install' | 'activate', fn: (e: ExtendableEvent) => void): void;
  addEventListener(type: 'fetch', fn: (e: FetchEvent) => void): void;
  addEventListener(type: 'message', fn: (e: ExtendableMessageEvent) => void): void;
}

const sw = self as unknown as SwGlobal;
const basePath = new URL(sw.registration.scope).pathname;
const events = new BroadcastChannel(CHANNEL);

let dbp: Promise<JournalDb> | null = null;
const db = () => (dbp ??= openJournal());

let settings: GatewaySettings | null = null;
let waiters: ((s: GatewaySettings) => void)[] = [];

/** Keys the user did not ask to remember live only in the page's memory: ask an open page for them. */
async function currentSettings(): Promise<GatewaySettings> {
  if (settings) return settings;
  const stored = (await loadSettings(await db())) ?? defaultSettings();
  const pages = await sw.clients.matchAll({ type: 'window' });
  const needsKeys = stored.upstreams.some((u) => u.kind !== 'mock' && !u.key && (!u.remember || !!u.sealedKey));
  if (!pages.length || !needsKeys) return (settings ??= stored);
  const fromPage = new Promise<GatewaySettings | null>((ok) => {
    waiters.push(ok);
    setTimeout(() => ok(null), 400);
  });
  for (const c of pages) c.postMessage({ type: SETTINGS_REQUEST });
  settings = (await fromPage) ?? settings ?? stored;
  return settings;
}

const gateway = new Gateway(basePath, {
  db,
  settings: currentSettings,
  notify: (e: GatewayEvent) => events.postMessage(e),
});

new BroadcastChannel(ABORT_CHANNEL).addEventListener('message', (e: MessageEvent) => {
  const m = e.data as AbortMessage;
  if (m?.type === 'aw-gateway:abort' && typeof m.callId === 'string') gateway.abort(m.callId);
});

/** Serve the request, or refuse it when it is not a same-origin call from one of this origin's clients (see admit.ts). */
async function admitted(e: FetchEvent): Promise<Response | null> {
  const r = e.request;
  const client = e.clientId ? await sw.clients.get(e.clientId) : undefined;
  const why = refusal(
    { mode: r.mode, destination: r.destination, origin: r.headers.get('origin'), secFetchSite: r.headers.get('sec-fetch-site'), clientUrl: client?.url ?? null },
    location.origin,
  );
  if (why === null) return null;
  return new Response(JSON.stringify({ error: { type: 'gateway_forbidden', message: why, source: 'agentworld-gateway' } }), {
    status: 403,
    headers: { 'content-type': 'application/json', 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' },
  });
}

sw.addEventListener('install', (e) => e.waitUntil(sw.skipWaiting()));
sw.addEventListener('activate', (e) => e.waitUntil(sw.clients.claim()));

sw.addEventListener('message', (e) => {
  const m = e.data as PageToWorker;
  if (m?.type === 'aw-gateway:settings') {
    settings = m.settings;
    for (const w of waiters) w(m.settings);
    waiters = [];
  } else if (m?.type === 'aw-gateway:claim') {
    e.waitUntil(sw.clients.claim());
  }
});

sw.addEventListener('fetch', (e) => {
  const url = new URL(e.request.url);
  if (url.origin !== location.origin || !gateway.owns(url)) return;
  let release!: () => void;
  const journaled = new Promise<void>((ok) => (release = ok));
  e.respondWith(
    admitted(e).then(
      (refused) => {
        if (refused) {
          release();
          return refused;
        }
        const h = gateway.handle(e.request);
        h.done.then(release, release);
        return h.response;
      },
      (err: unknown) => {
        release();
        throw err;
      },
    ),
  );
  // keep the worker alive until the call is in the journal
  e.waitUntil(journaled);
});
