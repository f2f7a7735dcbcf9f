/**
 * The black-box bridge's gate (issue 17, hole 2): a URL the sandboxed agent asks the host to fetch is
 * served only when it names one of the gateway's API routes, with that route's method, and nothing
 * in it could resolve elsewhere — dot segments (`..`, `.`), their percent-encoded forms (`%2e`),
 * encoded separators (`%2f`, `%5c`), backslashes, credentials or another origin are refused before
 * the URL is resolved; the resolved URL must then still lie under the prefix.
 */
import { parseRoute } from '../gateway/core/routes';

export type BridgeCheck = { ok: true; url: string } | { ok: false; reason: string };

const METHODS: Record<string, string> = { api: 'POST', init: 'POST', register: 'POST', complete: 'POST', passthrough: 'GET' };

/** `gatewayPrefix` is the absolute `{base}gateway/` URL. */
export function checkBridgeRequest(rawUrl: unknown, method: unknown, gatewayPrefix: string): BridgeCheck {
  const refuse = (why: string): BridgeCheck => ({ ok: false, reason: `The sandbox can reach only the gateway's API (${gatewayPrefix}v1/…): refused ${String(rawUrl).slice(0, 200)} (${why})` });
  if (typeof rawUrl !== 'string' || typeof method !== 'string') return refuse('not a URL string and method');
  if (rawUrl.length > 4096) return refuse('URL too long');
  if (/[\u0000-\u0020\u007f\\]/.test(rawUrl)) return refuse('backslash, space or control character');
  const pathAndQuery = rawUrl.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
  const path = pathAndQuery.split(/[?#]/, 1)[0];
  if (/%(2e|2f|5c|00)/i.test(path)) return refuse('percent-encoded dot, slash or backslash');
  if (path.split('/').some((seg) => seg === '.' || seg === '..')) return refuse('dot segment');
  let url: URL;
  let prefix: URL;
  try {
    url = new URL(rawUrl);
    prefix = new URL(gatewayPrefix);
  } catch {
    return refuse('not an absolute URL');
  }
  if (url.username || url.password) return refuse('credentials in the URL');
  if (url.origin !== prefix.origin) return refuse('another origin');
  if (!url.pathname.startsWith(prefix.pathname)) return refuse('outside the gateway');
  const basePath = prefix.pathname.slice(0, -'gateway/'.length);
  const m = method.toUpperCase();
  const route = parseRoute(url.pathname.slice(basePath.length), m);
  if (route.type === 'unknown') return refuse(route.reason);
  if (METHODS[route.type] !== m) return refuse(`${route.type} takes ${METHODS[route.type]}, not ${m}`);
  url.hash = '';
  return { ok: true, url: url.href };
}
