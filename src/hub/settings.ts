/**
 * The page's Hub settings: the endpoint (default https://huggingface.co; a mirror or a private Hub otherwise), kept in
 * localStorage like the other small page settings, and the user's access token, kept in this tab's memory only — never
 * in storage, the pool, an export, a notebook or the journal — and sent only in the Authorization header of requests
 * to the endpoint (hub-api.ts). A reload forgets it.
 */
import { DEFAULT_HUB_ENDPOINT, normalizeEndpoint, parseHubRef } from './hub-ref';

const ENDPOINT_KEY = 'aw-hub-endpoint';
let token: string | null = null;
const listeners = new Set<() => void>();

function storage(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

export function hubEndpoint(): string {
  const saved = storage()?.getItem(ENDPOINT_KEY);
  if (saved) {
    try {
      return normalizeEndpoint(saved);
    } catch {
      /* a broken saved value: the default */
    }
  }
  return DEFAULT_HUB_ENDPOINT;
}

/** Set the endpoint (validated; '' or null: back to the default); kept across reloads. Returns the normalized address. */
export function setHubEndpoint(url: string | null): string {
  const s = storage();
  if (!url) s?.removeItem(ENDPOINT_KEY);
  else s?.setItem(ENDPOINT_KEY, normalizeEndpoint(url));
  tell();
  return hubEndpoint();
}

export function hubToken(): string | null {
  return token;
}

/** Hold a token for this tab (null forgets it). Only `hf_`-style text without spaces is taken. */
export function setHubToken(t: string | null): void {
  const v = t?.trim() || null;
  if (v && /\s/.test(v)) throw new Error('A Hugging Face token is one word without spaces (hf_…).');
  token = v;
  tell();
}

export function onHubSettings(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function tell(): void {
  for (const fn of listeners) fn();
}

/** Whether pasted text is meant for the Hub (an hf:// reference, or a dataset URL on the Hub or the configured endpoint), even a malformed one. */
export function isHubReference(text: string): boolean {
  if (/^\s*hf:\/\//i.test(text)) return true;
  try {
    return parseHubRef(text, hubEndpoint()) !== null;
  } catch {
    return true;
  }
}
