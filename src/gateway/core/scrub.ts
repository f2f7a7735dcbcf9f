/**
 * Secrets out of captured calls (issue 17, hole 3). An upstream can echo the key it was sent (a 401
 * "Incorrect API key provided: …", a debug echo server, a model repeating its input), so before a
 * call is journaled every string in its record is scrubbed of the exact values of every configured
 * key and every credential header the agent sent (in plain, JSON-escaped and URL-encoded spelling, and
 * encoded as base64, base64url or hex), and then of key-shaped strings and secret-named fields (`redactSecrets`).
 */
import { REDACTED, redactSecrets } from '../../record/redact';
import type { GatewaySettings } from './upstream';

/** Shorter values are not treated as secrets (they would redact ordinary words). */
export const MIN_SECRET_LENGTH = 8;

/** Authorization / API-key / auth-token / cookie headers, also vendor-prefixed (x-goog-api-key, x-portkey-api-key, helicone-auth). */
const CREDENTIAL_HEADER = /^(?:[\w-]*-)?(authorization|api-key|auth-token|auth|cookie)$/i;

/** The secret values a call may leak: configured keys and the credential headers of the request, with and without their scheme. */
export function secretsOf(settings: GatewaySettings | null, headers: Headers | Iterable<[string, string]>): string[] {
  const out = new Set<string>();
  const add = (v: string | null | undefined) => {
    const s = v?.trim();
    if (s && s.length >= MIN_SECRET_LENGTH) out.add(s);
  };
  // Stryker disable next-line ArrayDeclaration: with no settings there are no upstreams; a made-up element has no key and adds nothing
  for (const u of settings?.upstreams ?? []) add(u.key);
  for (const [name, value] of headers instanceof Headers ? headers.entries() : headers) {
    if (!CREDENTIAL_HEADER.test(name)) continue;
    add(value);
    // one space after the scheme is enough: add() trims the rest
    add(value.replace(/^\s*(Bearer|Basic|Token|Bot|ApiKey|Key)\s/i, ''));
    if (name.toLowerCase() === 'cookie') for (const part of value.split(';')) add(part.split('=').slice(1).join('='));
  }
  // longest first, so a key is removed before a value it contains
  return [...out].sort((a, b) => b.length - a.length);
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * The base64 characters that encode only the secret's own bits, when the secret starts `offset` bytes
 * (0–2) into a block of three: the secret encoded alone, or anywhere inside a longer encoded text (an
 * echo server that base64-encodes the request it got), holds one of the three.
 */
function base64Core(bytes: Uint8Array, offset: number): string {
  const all = new Uint8Array(offset + bytes.length);
  all.set(bytes, offset);
  let bits = '';
  for (const b of all) bits += b.toString(2).padStart(8, '0');
  const first = Math.ceil((offset * 8) / 6);
  const end = Math.floor(bits.length / 6);
  let out = '';
  for (let i = first; i < end; i++) out += BASE64[Number.parseInt(bits.slice(i * 6, i * 6 + 6), 2)];
  return out;
}

function spellings(secret: string): string[] {
  const s = new Set([secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)]);
  // a JSON string inside a JSON string (e.g. `raw`, or a body echoed into a message)
  s.add(JSON.stringify(JSON.stringify(secret).slice(1, -1)).slice(1, -1));
  const bytes = new TextEncoder().encode(secret);
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  s.add(hex);
  s.add(hex.toUpperCase());
  for (const offset of [0, 1, 2]) {
    const core = base64Core(bytes, offset);
    s.add(core);
    s.add(core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return [...s].filter((x) => x.length >= MIN_SECRET_LENGTH);
}

/** Every spelling of every secret, longest first (so a spelling is removed before a shorter one it contains). */
export function secretSpellings(secrets: readonly string[]): string[] {
  return [...new Set(secrets.flatMap(spellings))].sort((a, b) => b.length - a.length);
}

/** `text` with every spelling in `spellings` (see secretSpellings) replaced. */
export function scrubText(text: string, spellings: readonly string[]): string {
  let s = text;
  for (const k of spellings) s = s.replaceAll(k, REDACTED);
  return s;
}

/** A deep copy of `value` with every spelling of every secret replaced, then the generic redaction. */
export function scrubSecrets<T>(value: T, secrets: readonly string[]): T {
  const all = secretSpellings(secrets);
  const walk = (v: unknown, depth: number): unknown => {
    if (depth > 200) return v;
    if (typeof v === 'string') return scrubText(v, all);
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    if (v === null || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[walk(k, depth + 1) as string] = walk(x, depth + 1);
    return out;
  };
  return redactSecrets(walk(value, 0) as T);
}
