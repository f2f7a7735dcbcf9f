/**
 * Which requests the gateway serves (issue 17, hole 1): only `fetch()`-style calls made by pages and
 * workers of this origin that the service worker controls. A navigation (a form on another site
 * posting to `{base}gateway/…`, a link, a frame) is how a hostile page could make the browser spend
 * the user's key, so it is refused, as is any request whose metadata says it came from elsewhere.
 * Cross-origin `fetch()` never reaches this worker at all (it belongs to the other page's client).
 */
export interface RequestFacts {
  mode: string;
  destination: string;
  /** The `Origin` header, when the browser exposes it to the worker (Chromium does not for same-origin calls). */
  origin: string | null;
  /** The `Sec-Fetch-Site` header, when exposed. */
  secFetchSite: string | null;
  /** URL of the client (page or worker) that made the request; null when there is none (a navigation, or an unknown client). */
  clientUrl: string | null;
}

/** null when the request may be served; else why not, in words the caller can act on. */
export function refusal(f: RequestFacts, selfOrigin: string): string | null {
  const why = 'The gateway answers only fetch() calls from pages and workers of this app (same origin)';
  if (f.mode === 'navigate') {
    return `${why}; it refused a navigation (a form, link or frame pointing at the gateway, possibly from another site), because another site could use one to spend your API key.`;
  }
  if (f.destination !== '') return `${why}; it refused a "${f.destination}" load.`;
  if (f.secFetchSite !== null && f.secFetchSite !== 'same-origin') return `${why}; this request came from another site (Sec-Fetch-Site: ${f.secFetchSite}).`;
  if (f.origin !== null && f.origin !== selfOrigin) return `${why}; this request came from another origin (Origin: ${f.origin}).`;
  if (f.clientUrl === null) return `${why}; this request has no client page or worker of this origin.`;
  let clientOrigin: string;
  try {
    clientOrigin = new URL(f.clientUrl).origin;
  } catch {
    clientOrigin = 'null';
  }
  if (clientOrigin !== selfOrigin) return `${why}; this request came from a client of another origin (${clientOrigin}).`;
  return null;
}
