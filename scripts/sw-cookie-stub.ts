/**
 * Build-time stand-in for `tough-cookie` in the gateway service worker bundle only (decision 020).
 * MSW's core loads a cookie jar for handlers that read or set cookies; the mock upstream's handlers do
 * neither, and the real jar brings the public-suffix list (~300 KB minified) into a script the browser
 * parses on every service-worker start. This jar holds no cookies: reads give none, writes are dropped.
 */
// biome-ignore lint/complexity/noStaticOnlyClass: the shape of tough-cookie's Cookie that MSW calls
export class Cookie {
  static fromJSON(): null {
    return null;
  }
}

export class MemoryCookieStore {
  idx: Record<string, unknown> = {};
}

export class CookieJar {
  getCookiesSync(): never[] {
    return [];
  }
  async setCookie(): Promise<void> {}
}
