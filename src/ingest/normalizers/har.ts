import { gunzipSync, strFromU8, unzlibSync } from 'fflate';
import { defineNormalizer, RecordError } from '../normalizer';
import { isSecretKey, REDACTED, redactSecrets, redactString } from '../../record/redact';
import type { TrajectoryDraft } from '../../contract/step';
import { isObject, noteNaiveTimes, num, type Obj, parseJsonDeep, str, timeMs } from '../../contract/json';
import { apiOf, wireStep } from './wire-call';

/** HAR `{name, value}` list or a plain object → lower-cased header map. */
export function headerMap(h: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (Array.isArray(h)) for (const x of h) if (isObject(x) && typeof x.name === 'string') out.set(x.name.toLowerCase(), str(x.value) ?? '');
  if (isObject(h)) for (const [k, v] of Object.entries(h)) out.set(k.toLowerCase(), str(Array.isArray(v) ? v.join(', ') : v) ?? '');
  return out;
}

/** Base64 (also URL-safe) → bytes; null when it is not base64. atob drops whitespace and refuses anything else outside the alphabet. */
export function base64Bytes(s: string): Uint8Array | null {
  const standard = s.replace(/-/g, '+').replace(/_/g, '/');
  let text: string;
  try {
    text = atob(standard);
  } catch {
    return null;
  }
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

const isGzip = (b: Uint8Array) => b[0] === 0x1f && b[1] === 0x8b;
const isZlib = (b: Uint8Array, contentEncoding: string) => contentEncoding.includes('deflate') && b[0] === 0x78;

export function bytesText(bytes: Uint8Array, contentEncoding: string): string {
  if (isGzip(bytes)) return strFromU8(gunzipSync(bytes));
  if (isZlib(bytes, contentEncoding)) return strFromU8(unzlibSync(bytes));
  return strFromU8(bytes);
}

/** A recorded body → text (or an already-parsed JSON value): base64 and gzip undone. */
function decodeBody(body: unknown, encoding: string | null, headers: Map<string, string>): unknown {
  if (typeof body !== 'string') return body;
  const contentEncoding = headers.get('content-encoding') ?? '';
  // without `encoding: base64`, text is base64 only when it decodes to gzip / zlib data: DevTools stores bodies
  // decoded under the original content-encoding header, and plain words can be valid base64 too (the first
  // characters tell, before a large text is decoded whole)
  if (encoding !== 'base64') {
    const head = base64Bytes(body.slice(0, 8));
    if (!head || (!isGzip(head) && !isZlib(head, contentEncoding))) return body;
  }
  const bytes = base64Bytes(body);
  if (!bytes) return body;
  try {
    return bytesText(bytes, contentEncoding);
  } catch (cause) {
    throw new RecordError(`could not decompress a ${contentEncoding || 'base64'} body; re-export the HAR with decoded content`, { cause });
  }
}

export interface Exchange {
  url: string | null;
  method: string | null;
  status: number | null;
  statusText: string | null;
  requestBody: unknown;
  responseBody: unknown;
  startedAt: number | null;
  durationMs: number | null;
  ttftMs: number | null;
  /** The response's `Date` header (RFC 7231, second precision), epoch ms. */
  dateHeader: number | null;
  entry: Obj;
}

/** A response's `Date` header as epoch ms (null when absent or not a date). */
export function dateHeader(headers: Map<string, string>): number | null {
  const d = headers.get('date');
  return d ? timeMs(d) : null;
}

type WithRequest = Obj & { request: Obj };

/**
 * A HAR entry. Only an LLM call's bodies are decoded: a HAR saved "with content" also holds the page's assets,
 * uploads and downloads, and decoding a 225 MB base64 download whole crashed the tab (a 300 MB HAR); a corrupt
 * asset body threw and cost the whole file. A request body is decoded when it is a POST (its body may name the
 * API); one that cannot be decoded, to a URL of no LLM API, is no call; the response only for a call.
 */
function harExchange(e: WithRequest): Exchange {
  const req = e.request;
  const res = isObject(e.response) ? e.response : {};
  const post = isObject(req.postData) ? req.postData : {};
  const content = isObject(res.content) ? res.content : {};
  const timings = isObject(e.timings) ? e.timings : {};
  const url = str(req.url);
  const method = str(req.method);
  let requestBody: unknown;
  if ((method ?? 'POST').toUpperCase() === 'POST') {
    try {
      requestBody = parseJsonDeep(decodeBody(post.text, str(post.encoding), headerMap(req.headers)), 1);
    } catch (e) {
      if (apiOf(url, null) !== null) throw e;
    }
  }
  const call = requestBody !== undefined && apiOf(url, requestBody) !== null;
  return {
    url,
    method,
    status: num(res.status),
    statusText: str(res.statusText),
    requestBody,
    responseBody: call ? decodeBody(content.text, str(content.encoding), headerMap(res.headers)) : undefined,
    startedAt: timeMs(e.startedDateTime),
    durationMs: num(e.time),
    // HAR writes -1 for a timing that does not apply
    ttftMs: timings.wait === -1 ? null : num(timings.wait),
    dateHeader: dateHeader(headerMap(res.headers)),
    entry: e,
  };
}

/** The `{request: {url, headers, body}, response: {status, headers, body}}` recording shape. */
function plainExchange(e: WithRequest & { response: Obj }): Exchange {
  const req = e.request;
  const res = e.response;
  const reqHeaders = headerMap(req.headers);
  const resHeaders = headerMap(res.headers);
  const started = timeMs(e.startedDateTime ?? e.started_at ?? e.timestamp ?? req.timestamp ?? e.time);
  const ended = timeMs(e.ended_at ?? res.timestamp);
  const duration = num(e.duration_ms ?? e.latency_ms ?? e.duration ?? e.elapsed_ms) ?? (started !== null && ended !== null ? ended - started : null);
  return {
    url: str(req.url ?? e.url),
    method: str(req.method ?? e.method),
    status: num(res.status ?? res.status_code ?? res.statusCode),
    statusText: str(res.statusText ?? res.reason),
    requestBody: parseJsonDeep(decodeBody(req.body, str(req.encoding ?? req.bodyEncoding), reqHeaders), 1),
    responseBody: decodeBody(res.body ?? res.text ?? res.content, str(res.encoding ?? res.bodyEncoding), resHeaders),
    startedAt: started,
    durationMs: duration,
    ttftMs: num(e.ttft_ms ?? res.ttft_ms),
    dateHeader: dateHeader(resHeaders),
    entry: e,
  };
}

/** nock `rawHeaders`: a flat `[name, value, name, value, …]` list. */
function rawHeaderMap(raw: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (!Array.isArray(raw)) return out;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i];
    // Stryker disable next-line StringLiteral: only content-encoding is read, and no fallback text names an encoding
    const value = str(raw[i + 1]) ?? '';
    if (typeof name === 'string') out.set(name.toLowerCase(), value);
  }
  return out;
}

function hexBytes(hex: string): Uint8Array | null {
  if (!/^(?:[0-9a-f]{2})+$/i.test(hex)) return null;
  return Uint8Array.from(hex.match(/../g) as string[], (h) => Number.parseInt(h, 16));
}

/** A nock response body: JSON, text, or (gzipped / `responseIsBinary`) hex text, possibly one string per chunk. */
function nockBody(e: Obj, headers: Map<string, string>): unknown {
  const r = e.response;
  // a list of text chunks is joined; hexBytes refuses what is not whole hex bytes (also an empty list)
  const hexChunks = Array.isArray(r) && r.every((c) => typeof c === 'string');
  // anything else that is not hex text (an object, a list) is refused by hexBytes below
  if (!hexChunks && e.responseIsBinary !== true) return r;
  const bytes = hexBytes(hexChunks ? (r as string[]).join('') : String(r));
  if (!bytes) return r;
  try {
    // Stryker disable next-line StringLiteral: any text without 'deflate' reads the same; gzip is known by its bytes
    return bytesText(bytes, headers.get('content-encoding') ?? '');
  } catch (cause) {
    throw new RecordError('could not decompress a recorded nock response body', { cause });
  }
}

/** A nock recording entry (`nock.recorder.rec({output_objects: true})`, nock back fixtures): `{scope, method, path, body, status, response, rawHeaders}`. */
function nockExchange(e: Obj): Exchange {
  const headers = rawHeaderMap(e.rawHeaders);
  for (const [k, v] of headerMap(e.headers)) headers.set(k, v);
  // isNockEntry: scope and path are strings
  const scope = String(e.scope).replace(/\/+$/, '');
  return {
    url: `${scope}${String(e.path)}`,
    method: str(e.method),
    status: num(e.status),
    statusText: null,
    requestBody: parseJsonDeep(e.body, 1),
    responseBody: nockBody(e, headers),
    startedAt: timeMs(e.timestamp),
    durationMs: null,
    ttftMs: null,
    dateHeader: dateHeader(headers),
    entry: e,
  };
}

function isNockEntry(v: unknown): v is Obj {
  return isObject(v) && /^https?:\/\//.test(String(v.scope)) && typeof v.method === 'string' && typeof v.path === 'string' && 'response' in v;
}

const SECRETISH_PARAM = /key|token|auth|secret|signature|sig|session|password/i;

/** The entry as stored in `raw`: decoded bodies, credentials, cookies and key-like query params removed. */
function sanitizedEntry(x: Exchange): unknown {
  const e = structuredClone(x.entry);
  for (const side of ['request', 'response'] as const) {
    const part = e[side];
    if (!isObject(part)) continue;
    if (Array.isArray(part.cookies)) part.cookies = part.cookies.map((c) => (isObject(c) ? { ...c, value: REDACTED } : c));
    if (Array.isArray(part.queryString))
      part.queryString = part.queryString.map((q) => (isObject(q) && SECRETISH_PARAM.test(String(q.name)) ? { ...q, value: REDACTED } : q));
  }
  // header maps and {name, value} lists are redacted by name in redactSecrets below; a flat nock list is not
  const rawHeaders = e.rawHeaders;
  if (Array.isArray(rawHeaders)) e.rawHeaders = rawHeaders.map((h, i) => (i % 2 === 1 && isSecretKey(String(rawHeaders[i - 1])) ? REDACTED : h));
  // a nock entry (every other recording has a request object): its bodies are top-level
  if (!isObject(e.request)) {
    e.body = x.requestBody;
    e.response = x.responseBody;
  }
  const req = e.request as Obj | undefined;
  const res = e.response as Obj | undefined;
  if (isObject(req?.postData)) req.postData = { ...req.postData, text: x.requestBody, encoding: undefined };
  // a body written as `body` is replaced by its decoded text; one recorded only as `parsed_body` (pydantic-ai's
  // cassettes) stays as written: the raw record gets no key its source did not have
  else if (isObject(req) && 'body' in req) req.body = x.requestBody;
  if (isObject(res?.content)) res.content = { ...res.content, text: x.responseBody, encoding: undefined };
  else if (isObject(res) && 'body' in res) res.body = x.responseBody;
  return redactSecrets(e);
}

/** One recorded exchange → a one-step draft the history linker may join to an earlier call; null when it is no LLM call. */
export function exchangeDraft(x: Exchange, skipped: number, skippedKey = 'har_entries_skipped'): TrajectoryDraft | null {
  if ((x.method ?? 'POST').toUpperCase() !== 'POST' || x.requestBody === undefined || x.requestBody === null || x.requestBody === '') return null;
  const api = apiOf(x.url, x.requestBody);
  if (!api) return null;
  const step = wireStep(api, x.requestBody, x.responseBody, x.url);
  const httpFailed = x.status !== null && (x.status === 0 || x.status >= 400);
  const failed = httpFailed || step.error !== null || (x.status !== null && x.status < 400 && !step.response);
  const error = failed ? (step.error ?? (httpFailed ? `HTTP ${x.status}${x.statusText ? ` ${x.statusText}` : ''}` : 'no response body recorded')) : null;
  const { time_source: _, ...own } = step.metadata ?? {};
  const metadata: Record<string, string> = { ...noteNaiveTimes(own, x.entry.startedDateTime, x.entry.started_at, x.entry.timestamp, x.entry.ended_at), api };
  // no time in the recording: the response's own creation time, else its Date header, and the step says which
  const started = x.startedAt ?? step.started_at ?? x.dateHeader;
  if (x.startedAt === null && started !== null) metadata.time_source = step.started_at != null ? 'response created' : 'response Date header';
  if (x.url) metadata.url = redactString(x.url);
  if (x.status !== null) metadata.http_status = String(x.status);
  if (skipped) metadata[skippedKey] = String(skipped);
  return {
    link: true,
    steps: [
      {
        ...step,
        finish_reason: failed ? (step.finish_reason ?? 'error') : step.finish_reason,
        status: failed ? 'error' : 'ok',
        error,
        started_at: started,
        ended_at: x.startedAt !== null && x.durationMs !== null ? x.startedAt + x.durationMs : null,
        latency_ms: x.durationMs,
        ttft_ms: x.ttftMs,
        metadata,
        raw: JSON.stringify(sanitizedEntry(x)),
      },
    ],
  };
}

function isPlainExchange(v: unknown): v is WithRequest & { response: Obj } {
  if (!isObject(v) || !isObject(v.request) || !isObject(v.response)) return false;
  const r = v.request;
  return (typeof r.url === 'string' || typeof r.method === 'string') && ('body' in r || 'headers' in r);
}

function isHar(v: unknown): v is { log: { entries: unknown[] } } {
  return isObject(v) && isObject(v.log) && Array.isArray(v.log.entries);
}

/** HAR (browser DevTools "Save all as HAR"), request/response recordings and nock recordings: every LLM API call becomes a step. */
export const har = defineNormalizer({
  id: 'har',
  label: 'HAR / HTTP recording',
  detect(sample) {
    const items = sample.length === 1 && Array.isArray(sample[0]) ? sample[0] : sample;
    if (items.some(isHar)) return 0.97;
    const nock = items.filter(isNockEntry).length;
    if (nock) return 0.6 + 0.35 * (nock / items.length);
    const hits = items.filter(isPlainExchange).length;
    return hits ? 0.6 + 0.3 * (hits / items.length) : 0;
  },
  normalize(record) {
    const v = record.value;
    const isEntry = (e: unknown): e is WithRequest => isObject(e) && isObject(e.request);
    let exchanges: Exchange[];
    if (isHar(v)) exchanges = v.log.entries.filter(isEntry).map(harExchange);
    else if (Array.isArray(v)) exchanges = [...v.filter(isPlainExchange).map(plainExchange), ...v.filter(isNockEntry).map(nockExchange)];
    else if (isPlainExchange(v)) exchanges = [plainExchange(v)];
    else if (isNockEntry(v)) exchanges = [nockExchange(v)];
    else throw new RecordError('not a HAR document (log.entries), a {request, response} recording nor a nock {scope, method, path, response} entry');
    if (exchanges.every((x) => x.startedAt !== null)) exchanges.sort((a, b) => a.startedAt! - b.startedAt!);
    const llm = exchanges.filter((x) => (x.method ?? 'POST').toUpperCase() === 'POST' && apiOf(x.url, x.requestBody) !== null);
    const skipped = exchanges.length - llm.length;
    return llm.map((x) => exchangeDraft(x, skipped)).filter((d): d is TrajectoryDraft => d !== null);
  },
});
