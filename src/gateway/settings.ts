/**
 * Upstream settings on the page: held in memory (keys included), persisted to IndexedDB without the
 * keys the user did not ask to remember, and pushed to the gateway service worker on every change.
 */
import { loadSettings, openJournal, saveSettings } from './journal';
import type { PageToWorker } from './protocol';
import { defaultSettings, type GatewaySettings, MOCK_UPSTREAM } from './upstream';

let current: GatewaySettings | null = null;
const listeners = new Set<(s: GatewaySettings) => void>();

export async function getSettings(): Promise<GatewaySettings> {
  if (current) return current;
  const stored = await loadSettings(await openJournal());
  current = stored ?? defaultSettings();
  if (!current.upstreams.some((u) => u.kind === 'mock')) current.upstreams.unshift({ ...MOCK_UPSTREAM });
  return current;
}

export async function setSettings(s: GatewaySettings): Promise<void> {
  current = structuredClone(s);
  await saveSettings(await openJournal(), current);
  pushSettings();
  for (const fn of listeners) fn(current);
}

export function onSettings(fn: (s: GatewaySettings) => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Send the in-memory settings (with keys) to the service worker, which keeps them in memory only. */
export function pushSettings(target?: ServiceWorker | null): void {
  const sw = target ?? navigator.serviceWorker?.controller;
  if (!sw || !current) return;
  sw.postMessage({ type: 'aw-gateway:settings', settings: current } satisfies PageToWorker);
}
