/**
 * Upstream settings on the page: held in memory (keys included), persisted to IndexedDB without the
 * keys the user did not ask to remember, and pushed to the gateway service worker on every change.
 * Remembered keys are stored in clear unless the user sets a passphrase: then they are stored
 * sealed (vault.ts) and, after a reload, stay locked until `unlockKeys(passphrase)`.
 */
import { loadSettings, openJournal, saveSettings } from '../core/journal';
import type { PageToWorker } from '../core/protocol';
import { defaultSettings, type GatewaySettings, MOCK_UPSTREAM } from '../core/upstream';
import { createVault, seal, unlockVault, unseal, VaultError } from '../core/vault';

let current: GatewaySettings | null = null;
/** The passphrase-derived key (non-extractable), in this page's memory only. */
let vaultKey: CryptoKey | null = null;

export type KeyProtection = 'clear' | 'locked' | 'unlocked';

/** How remembered keys are stored: in clear, or encrypted (locked until the passphrase is entered, or unlocked). */
export function keyProtection(): KeyProtection {
  if (!current?.vault) return 'clear';
  return vaultKey ? 'unlocked' : 'locked';
}

/** What goes to IndexedDB: no unremembered key; remembered keys sealed when a passphrase is set. */
async function storable(s: GatewaySettings): Promise<GatewaySettings> {
  if (!s.vault) return { ...s, upstreams: s.upstreams.map((u) => ({ ...u, sealedKey: null })) };
  const upstreams = await Promise.all(
    s.upstreams.map(async (u) => {
      if (!u.remember) return { ...u, key: null, sealedKey: null };
      if (!u.key) return { ...u, key: null };
      if (!vaultKey) throw new VaultError('Unlock the stored keys with your passphrase before saving a remembered key.');
      return { ...u, key: null, sealedKey: await seal(vaultKey, u.key) };
    }),
  );
  return { ...s, upstreams };
}

export async function getSettings(): Promise<GatewaySettings> {
  if (current) return current;
  const stored = await loadSettings(await openJournal());
  current = stored ?? defaultSettings();
  if (!current.upstreams.some((u) => u.kind === 'mock')) current.upstreams.unshift({ ...MOCK_UPSTREAM });
  return current;
}

export async function setSettings(s: GatewaySettings): Promise<void> {
  const next = structuredClone(s);
  if (current?.vault && next.vault === undefined) next.vault = current.vault;
  const stored = await storable(next);
  current = next;
  await saveSettings(await openJournal(), stored);
  pushSettings();
}

/** Encrypt remembered keys from now on with a key derived from `passphrase` (at least 8 characters). */
export async function protectKeys(passphrase: string): Promise<void> {
  const s = await getSettings();
  if (s.vault && !vaultKey) throw new VaultError('The stored keys are locked: unlock them first.');
  const { meta, key } = await createVault(passphrase);
  vaultKey = key;
  await setSettings({ ...s, vault: meta });
}

/** After a reload: decrypt the remembered keys into memory (VaultError on a wrong passphrase; nothing changes then). */
export async function unlockKeys(passphrase: string): Promise<void> {
  const s = await getSettings();
  if (!s.vault) return;
  const key = await unlockVault(s.vault, passphrase);
  const keys = await Promise.all(s.upstreams.map((u) => (u.sealedKey ? unseal(key, u.sealedKey) : Promise.resolve(u.key))));
  vaultKey = key;
  current = { ...s, upstreams: s.upstreams.map((u, i) => ({ ...u, key: keys[i] })) };
  pushSettings();
}

/** Store remembered keys in clear again (unlocked), or, when locked (passphrase lost), forget the sealed keys. */
export async function unprotectKeys(): Promise<void> {
  const s = await getSettings();
  const locked = !!s.vault && !vaultKey;
  vaultKey = null;
  await setSettings({ ...s, vault: null, upstreams: s.upstreams.map((u) => (locked && u.sealedKey ? { ...u, key: null, sealedKey: null } : { ...u, sealedKey: null })) });
}

/** Drop what this page holds in memory and read the settings back, as a reload does (tests, and "lock now"). */
export async function reloadSettings(): Promise<GatewaySettings> {
  current = null;
  vaultKey = null;
  return getSettings();
}

/** Send the in-memory settings (with keys) to the service worker, which keeps them in memory only. */
export function pushSettings(target?: ServiceWorker | null): void {
  const sw = target ?? navigator.serviceWorker?.controller;
  if (!sw || !current) return;
  sw.postMessage({ type: 'aw-gateway:settings', settings: current } satisfies PageToWorker);
}
