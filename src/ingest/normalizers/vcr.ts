/**
 * VCR cassettes (vcrpy, pytest-recording; as used by the test suites of openllmetry, pydantic-ai,
 * LangChain): a YAML document `{interactions: [{request: {method, uri, body | parsed_body, headers},
 * response: {status: {code, message}, headers, body: {string} | parsed_body}}], version}`. Bodies are
 * JSON text, parsed YAML (`parsed_body`), SSE transcripts, or `!!binary` (base64, often gzip). Every
 * interaction with an LLM API is one step; follow-up calls join the earlier call's trajectory
 * (history linking, as for HAR). The reader turns the YAML into records (yaml-records.ts).
 */
import { strFromU8 } from 'fflate';
import { defineNormalizer, RecordError } from '../normalizer';
import type { TrajectoryDraft } from '../../contract/step';
import { isObject, num, type Obj, parseJsonDeep, str } from '../../contract/json';
import { YAML_BINARY } from '../yaml-records';
import { base64Bytes, bytesText, dateHeader, type Exchange, exchangeDraft, headerMap } from './har';
import { apiOf } from './wire-call';

function isInteraction(v: unknown): v is Obj & { request: Obj; response: Obj } {
  return isObject(v) && isObject(v.request) && isObject(v.response) && typeof v.request.uri === 'string' && typeof v.request.method === 'string';
}

function isCassette(v: unknown): v is Obj & { interactions: unknown[] } {
  return isObject(v) && Array.isArray(v.interactions) && v.interactions.some(isInteraction);
}

/** A body as vcrpy stored it → text (or an already-parsed value): `{string}` unwrapped, `!!binary` decoded and gunzipped. */
function bodyOf(side: Obj, headers: Map<string, string>): unknown {
  if ('parsed_body' in side) return side.parsed_body;
  let b: unknown = side.body;
  if (isObject(b) && 'string' in b) b = b.string;
  if (isObject(b) && typeof b[YAML_BINARY] === 'string') {
    const bytes = base64Bytes(b[YAML_BINARY] as string);
    if (!bytes) return null;
    const enc = headers.get('content-encoding') ?? '';
    // brotli (`br`, OpenAI's default) has no decoder here: say so in the step's error instead of guessing
    if (enc.includes('br') && !(bytes[0] === 0x1f && bytes[1] === 0x8b)) return 'brotli-compressed body not decoded: record the cassette with decode_compressed_response=True';
    try {
      return bytesText(bytes, enc);
    } catch {
      return strFromU8(bytes);
    }
  }
  return b;
}

function exchange(it: Obj & { request: Obj; response: Obj }): Exchange {
  const req = it.request;
  const res = it.response;
  const reqHeaders = headerMap(req.headers);
  const resHeaders = headerMap(res.headers);
  const status = isObject(res.status) ? res.status : {};
  return {
    url: str(req.uri),
    method: str(req.method),
    status: num(status.code ?? res.status),
    statusText: str(status.message),
    requestBody: parseJsonDeep(bodyOf(req, reqHeaders), 1),
    responseBody: bodyOf(res, resHeaders),
    startedAt: null,
    durationMs: null,
    ttftMs: null,
    dateHeader: dateHeader(resHeaders),
    entry: it,
  };
}

export const vcr = defineNormalizer({
  id: 'vcr',
  label: 'VCR cassette (vcrpy / pytest-recording YAML)',
  detect(sample) {
    return sample.some(isCassette) ? 0.97 : 0;
  },
  normalize(record) {
    const v = record.value;
    if (!isCassette(v)) throw new RecordError('not a VCR cassette: expected {interactions: [{request: {method, uri}, response}]}');
    const all = v.interactions.filter(isInteraction).map(exchange);
    // isInteraction: every method is text
    const llm = all.filter((x) => String(x.method).toUpperCase() === 'POST' && apiOf(x.url, x.requestBody) !== null);
    const skipped = all.length - llm.length;
    return llm.map((x) => exchangeDraft(x, skipped, 'interactions_skipped')).filter((d): d is TrajectoryDraft => d !== null);
  },
});
