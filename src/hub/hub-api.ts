/**
 * The Hub's HTTP API as the importer needs it: the tree listing (paged by the `Link: <…>; rel="next"` header, as
 * huggingface_hub's `paginate` and huggingface.js's `listFiles` follow it) and file downloads from `resolve` URLs.
 *
 * A user token goes out only in the `Authorization` header of requests to the configured endpoint's origin: never to
 * another host (a `next` link pointing elsewhere is followed on the endpoint instead; the browser and node drop the
 * header on a redirect to another origin, as the Hub's CDN redirects are), and never into a URL, a message or a log.
 */
import { type HubRef, hubRefString, normalizeEndpoint, resolveUrl, treeUrl } from './hub-ref';

export interface HubEntry {
  type: 'file' | 'directory';
  /** Path in the repository. */
  path: string;
  size: number;
  /** The git object id. */
  oid: string;
  /** Files stored in LFS / Xet: `oid` is the SHA-256 of the file's bytes. */
  lfs?: { oid: string; size: number };
  xetHash?: string;
}

export interface HubRequestOptions {
  endpoint: string;
  /** A user access token (gated and private datasets); sent only to the endpoint's origin. */
  token?: string | null;
  signal?: AbortSignal;
  fetch?: typeof fetch;
}

export type HubErrorCode = 'unauthorized' | 'forbidden' | 'not-found' | 'http' | 'network' | 'bad-answer' | 'truncated';

export class HubError extends Error {
  override name = 'HubError';
  constructor(
    message: string,
    readonly code: HubErrorCode,
    readonly status: number | null = null,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** `text` with the token (and its URL-encoded form) cut out: what any message built from a server's answer goes through. */
export function scrubToken(text: string, token: string | null | undefined): string {
  if (!token || token.length < 4) return text;
  return text.split(token).join('hf_…').split(encodeURIComponent(token)).join('hf_…');
}

/** Headers for a request to `url`: the token only when `url` is on the endpoint's origin. */
export function hubHeaders(url: string, opts: Pick<HubRequestOptions, 'endpoint' | 'token'>, extra: Record<string, string> = {}): Headers {
  const h = new Headers(extra);
  if (opts.token && new URL(url).origin === new URL(normalizeEndpoint(opts.endpoint)).origin) h.set('Authorization', `Bearer ${opts.token}`);
  return h;
}

/** What the server said about a refused request, token removed, at most 200 characters. */
async function serverSays(res: Response, token: string | null | undefined): Promise<string> {
  let said = res.headers.get('x-error-message') ?? '';
  if (!said) {
    try {
      const text = await res.text();
      try {
        const j = JSON.parse(text) as { error?: unknown };
        said = typeof j.error === 'string' ? j.error : text;
      } catch {
        said = text;
      }
    } catch {
      /* no body */
    }
  }
  said = scrubToken(said.replace(/\s+/g, ' ').trim(), token);
  return said.length > 200 ? `${said.slice(0, 200)}…` : said;
}

/** The error for a refused Hub request: what happened and what to do, never the token. */
export async function hubHttpError(res: Response, what: string, opts: Pick<HubRequestOptions, 'token'>): Promise<HubError> {
  const said = await serverSays(res, opts.token);
  const tail = said ? ` The Hub said: “${said}”` : '';
  if (res.status === 401) {
    return new HubError(
      opts.token
        ? `${what}: the Hub refused the token (HTTP 401). Check that it is valid and can read this dataset.${tail}`
        : `${what}: the dataset is private or gated, or does not exist (HTTP 401). Give a Hugging Face access token that can read it.${tail}`,
      'unauthorized',
      401,
    );
  }
  if (res.status === 403) {
    return new HubError(`${what}: access refused (HTTP 403). For a gated dataset, accept its conditions on its Hub page with the account the token belongs to.${tail}`, 'forbidden', 403);
  }
  if (res.status === 404) return new HubError(`${what}: not found (HTTP 404). Check the dataset id, the revision and the path.${tail}`, 'not-found', 404);
  return new HubError(`${what}: HTTP ${res.status} ${scrubToken(res.statusText, opts.token)}.${tail}`, 'http', res.status);
}

/** A fetch that failed before any answer: unreachable, or the host does not let this page read it (CORS). */
export function networkError(url: string, e: unknown, token: string | null | undefined): HubError {
  if (e instanceof DOMException && e.name === 'AbortError') return new HubError('Cancelled.', 'network', null, { cause: e });
  const why = scrubToken(e instanceof Error ? e.message : String(e), token);
  return new HubError(
    `Could not reach ${new URL(url).host} (${why}): the host is unreachable, or it does not allow this page to read it — it must answer with CORS headers (Access-Control-Allow-Origin for this page, and allow the Authorization and Range headers).`,
    'network',
    null,
  );
}

/** `<url>; rel="next"` of a Link header (GitHub's format, which the Hub uses). */
export function nextLink(link: string | null): string | null {
  if (!link) return null;
  for (const part of link.split(',')) {
    const m = /<([^>]+)>\s*;\s*(?:[^,]*;\s*)?rel="?([^";]+)"?/.exec(part.trim());
    if (m?.[2].split(/\s+/).includes('next')) return m[1];
  }
  return null;
}

/**
 * Where to fetch the next page: the link as given when it is on the endpoint's origin; otherwise its path and query on
 * the endpoint (a mirror that advertises huggingface.co links, as huggingface_hub users patch around), so the token
 * never goes to a host the user did not configure.
 */
export function nextPageUrl(link: string, endpoint: string): string {
  const ep = new URL(normalizeEndpoint(endpoint));
  const u = new URL(link, ep);
  if (u.origin === ep.origin) return u.href;
  return new URL(u.pathname + u.search, ep.origin).href;
}

function asEntry(x: unknown): HubEntry | null {
  if (!x || typeof x !== 'object') return null;
  const o = x as Record<string, unknown>;
  if ((o.type !== 'file' && o.type !== 'directory') || typeof o.path !== 'string') return null;
  const lfs = o.lfs && typeof o.lfs === 'object' ? (o.lfs as Record<string, unknown>) : null;
  return {
    type: o.type,
    path: o.path,
    size: typeof o.size === 'number' ? o.size : 0,
    oid: typeof o.oid === 'string' ? o.oid : '',
    ...(lfs && typeof lfs.oid === 'string' ? { lfs: { oid: lfs.oid, size: typeof lfs.size === 'number' ? lfs.size : 0 } } : {}),
    ...(typeof o.xetHash === 'string' ? { xetHash: o.xetHash } : {}),
  };
}

export interface TreePage {
  entries: HubEntry[];
  /** 1-based. */
  page: number;
}

/**
 * The entries under `ref` (recursive by default: every file below the folder), page by page. A pointer at one file
 * yields that file. Pages follow the Link header until the server gives none; at most `maxPages` (a loop guard).
 */
export async function* listTree(ref: HubRef, opts: HubRequestOptions & { recursive?: boolean; maxPages?: number }): AsyncGenerator<TreePage> {
  const f = opts.fetch ?? fetch;
  const what = `Listing ${hubRefString(ref)}`;
  let url: string | null = treeUrl(opts.endpoint, ref, { recursive: opts.recursive ?? true });
  const seen = new Set<string>();
  for (let page = 1; url; page++) {
    if (page > (opts.maxPages ?? 10_000)) throw new HubError(`${what}: more than ${opts.maxPages ?? 10_000} pages; list a folder further down.`, 'bad-answer');
    if (seen.has(url)) throw new HubError(`${what}: the Hub sent the same page link twice; stopped to avoid a loop.`, 'bad-answer');
    seen.add(url);
    let res: Response;
    try {
      res = await f(url, { headers: hubHeaders(url, opts, { Accept: 'application/json' }), signal: opts.signal, credentials: 'omit' });
    } catch (e) {
      throw networkError(url, e, opts.token);
    }
    // a path that is a file: the tree API answers 404 (or a non-array); the caller tries it as a file
    if (!res.ok) throw await hubHttpError(res, what, opts);
    let body: unknown;
    try {
      body = await res.json();
    } catch (e) {
      throw new HubError(`${what}: the answer was not JSON (${e instanceof Error ? e.message : String(e)}). Is ${normalizeEndpoint(opts.endpoint)} a Hugging Face Hub?`, 'bad-answer', res.status);
    }
    if (!Array.isArray(body)) throw new HubError(`${what}: the answer was not a list of files. Is ${normalizeEndpoint(opts.endpoint)} a Hugging Face Hub?`, 'bad-answer', res.status);
    const entries: HubEntry[] = [];
    for (const x of body) {
      const e = asEntry(x);
      if (e) entries.push(e);
    }
    yield { entries, page };
    const next = nextLink(res.headers.get('link'));
    url = next ? nextPageUrl(next, opts.endpoint) : null;
  }
}

/** Every entry under `ref`, all pages read (see listTree). */
export async function listAll(ref: HubRef, opts: HubRequestOptions & { recursive?: boolean; onPage?: (p: TreePage) => void }): Promise<{ entries: HubEntry[]; pages: number }> {
  const entries: HubEntry[] = [];
  let pages = 0;
  for await (const p of listTree(ref, opts)) {
    entries.push(...p.entries);
    pages = p.page;
    opts.onPage?.(p);
  }
  return { entries, pages };
}

/**
 * Download one file of the dataset into a Blob, reporting bytes as they arrive. Refuses an answer shorter or longer than
 * `expectBytes` (the listing's size): a cut download is never imported as if whole.
 */
export async function downloadFile(ref: HubRef, opts: HubRequestOptions & { expectBytes?: number; onBytes?: (received: number, total: number) => void }): Promise<Blob> {
  const f = opts.fetch ?? fetch;
  const url = resolveUrl(opts.endpoint, ref);
  const what = `Downloading ${hubRefString(ref)}`;
  let res: Response;
  try {
    res = await f(url, { headers: hubHeaders(url, opts), signal: opts.signal, credentials: 'omit' });
  } catch (e) {
    throw networkError(url, e, opts.token);
  }
  if (!res.ok) throw await hubHttpError(res, what, opts);
  const total = opts.expectBytes ?? Number(res.headers.get('content-length') ?? 0);
  const parts: Uint8Array[] = [];
  let received = 0;
  opts.onBytes?.(0, total);
  if (res.body) {
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parts.push(value);
        received += value.byteLength;
        opts.onBytes?.(received, total);
      }
    } catch (e) {
      throw new HubError(`${what}: the download broke off after ${received} bytes (${scrubToken(e instanceof Error ? e.message : String(e), opts.token)}). Nothing of it was imported; try again.`, 'truncated', res.status);
    }
  }
  if (opts.expectBytes !== undefined && received !== opts.expectBytes) {
    throw new HubError(`${what}: got ${received} bytes, the listing says ${opts.expectBytes}. Nothing of it was imported; try again.`, 'truncated', res.status);
  }
  return new Blob(parts as BlobPart[]);
}
