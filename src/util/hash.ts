/** Fast 64-bit non-cryptographic string hash (two 32-bit lanes), as 16 hex chars. For ids and dedupe keys, not security. */
export function hash64(s: string, seed = 0): string {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < s.length; i++) {
    const ch = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  return mixed(h1, h2);
}

const utf8 = new TextEncoder();
let scratch = new Uint8Array(1 << 16);

/**
 * A 64-bit fingerprint of a text's UTF-8 bytes, four bytes per step: to tell whether two long texts are the same
 * (a record written twice) without keeping either. Not hash64 (whose values are ids and must not change): hash64's
 * loop over UTF-16 code units costs ~20 ns a character in Chromium on the slices a reader makes of a file's text
 * (~2 s for 100 MB), this one a native encode and a quarter of the steps.
 */
export function textFingerprint(s: string): string {
  if (s.length * 3 + 4 > scratch.length) scratch = new Uint8Array(Math.max(scratch.length * 2, s.length * 3 + 4));
  const n = utf8.encodeInto(s, scratch).written;
  const words = new Int32Array(scratch.buffer, 0, n >> 2);
  let h1 = 0xdeadbeef ^ n;
  let h2 = 0x41c6ce57 ^ n;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    h1 = Math.imul(h1 ^ w, 2654435761);
    h2 = Math.imul(h2 ^ w, 1597334677);
  }
  for (let i = n & ~3; i < n; i++) {
    h1 = Math.imul(h1 ^ scratch[i], 2654435761);
    h2 = Math.imul(h2 ^ scratch[i], 1597334677);
  }
  return mixed(h1, h2);
}

/** The two lanes mixed into each other and written as 16 hex characters (hash64 and textFingerprint end alike). */
function mixed(h1: number, h2: number): string {
  const a = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  const b = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(a ^ (a >>> 13), 3266489909);
  return (b >>> 0).toString(16).padStart(8, '0') + (a >>> 0).toString(16).padStart(8, '0');
}
