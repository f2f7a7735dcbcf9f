/**
 * Optional passphrase encryption of the keys "remembered on this device" (issue 17). Without it a
 * remembered key sits in IndexedDB in clear. With it, each remembered key is stored AES-GCM-sealed
 * under a key derived from the passphrase (PBKDF2-SHA-256, random salt); the derived key is
 * non-extractable and lives only in this page's memory, so after a reload the keys stay locked
 * until the passphrase is entered again. A wrong passphrase fails on a sealed check value.
 */
export interface Sealed {
  /** base64 */
  iv: string;
  /** base64 ciphertext + GCM tag */
  ct: string;
}

export interface VaultMeta {
  kdf: 'PBKDF2-SHA-256';
  iterations: number;
  /** base64 */
  salt: string;
  /** A known text sealed with the key: opening it tells a right passphrase from a wrong one. */
  check: Sealed;
}

export class VaultError extends Error {
  override name = 'VaultError';
}

export const VAULT_ITERATIONS = 600_000;
const CHECK = 'agentworld-vault-check-v1';

const b64 = (b: Uint8Array) => {
  let s = '';
  for (const x of b) s += String.fromCharCode(x);
  return btoa(s);
};
const unb64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

export async function deriveKey(passphrase: string, salt: Uint8Array, iterations: number): Promise<CryptoKey> {
  const material = await crypto.subtle.importKey('raw', new TextEncoder().encode(passphrase), 'PBKDF2', false, ['deriveKey']);
  return crypto.subtle.deriveKey({ name: 'PBKDF2', hash: 'SHA-256', salt: salt as BufferSource, iterations }, material, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
}

export async function seal(key: CryptoKey, text: string): Promise<Sealed> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, new TextEncoder().encode(text)));
  return { iv: b64(iv), ct: b64(ct) };
}

export async function unseal(key: CryptoKey, s: Sealed): Promise<string> {
  try {
    return new TextDecoder().decode(await crypto.subtle.decrypt({ name: 'AES-GCM', iv: unb64(s.iv) as BufferSource }, key, unb64(s.ct) as BufferSource));
  } catch {
    throw new VaultError('This passphrase does not open the stored keys (wrong passphrase, or the stored data was changed).');
  }
}

/** A new vault for `passphrase`: its stored description and the derived key. */
export async function createVault(passphrase: string, iterations = VAULT_ITERATIONS): Promise<{ meta: VaultMeta; key: CryptoKey }> {
  if (passphrase.length < 8) throw new VaultError('Choose a passphrase of at least 8 characters.');
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const key = await deriveKey(passphrase, salt, iterations);
  return { meta: { kdf: 'PBKDF2-SHA-256', iterations, salt: b64(salt), check: await seal(key, CHECK) }, key };
}

/** The derived key, when `passphrase` is right; VaultError otherwise. */
export async function unlockVault(meta: VaultMeta, passphrase: string): Promise<CryptoKey> {
  const key = await deriveKey(passphrase, unb64(meta.salt), meta.iterations);
  if ((await unseal(key, meta.check)) !== CHECK) throw new VaultError('This passphrase does not open the stored keys.');
  return key;
}
