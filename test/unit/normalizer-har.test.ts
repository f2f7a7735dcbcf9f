/**
 * The HTTP recording normalizer (src/ingest/normalizers/har.ts): DevTools HAR entries,
 * `{request, response}` recordings and nock entries as their tools write them — header lists and maps,
 * base64 / gzip / deflate / hex bodies, timings, failures, and what the stored `raw` keeps of credentials.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gzipSync, strToU8, zlibSync } from 'fflate';
import type { TrajectoryDraft } from '../../src/contract/step';
import type { SourceRecord } from '../../src/ingest/normalizer';
import { base64Bytes, bytesText, type Exchange, exchangeDraft, har, headerMap } from '../../src/ingest/normalizers/har';
import { ctx } from './helpers/formats';

const drafts = (value: unknown): TrajectoryDraft[] => har.normalize({ value, line: 1, index: 0 } as SourceRecord, ctx, undefined) as TrajectoryDraft[];
const step = (value: unknown) => {
  const d = drafts(value);
  assert.equal(d.length, 1);
  assert.equal(d[0].link, true);
  return d[0].steps[0];
};
const rawOf = (value: unknown) => JSON.parse(step(value).raw as string);

const chatReq = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Is the blue kettle in stock?' }] };
const chatRes = {
  id: 'chatcmpl-9',
  object: 'chat.completion',
  model: 'gpt-4o-mini-2024-07-18',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Yes, 4 left.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 14, completion_tokens: 5 },
};
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const CHAT_URL = 'https://api.openai.com/v1/chat/completions';

const harEntry = (extra: Record<string, unknown> = {}, req: Record<string, unknown> = {}, res: Record<string, unknown> = {}) => ({
  startedDateTime: '2026-12-02T09:15:00.100Z',
  time: 500,
  request: {
    method: 'POST',
    url: CHAT_URL,
    headers: [{ name: 'Content-Type', value: 'application/json' }],
    postData: { mimeType: 'application/json', text: JSON.stringify(chatReq) },
    ...req,
  },
  response: {
    status: 200,
    statusText: 'OK',
    headers: [{ name: 'content-type', value: 'application/json' }],
    content: { mimeType: 'application/json', text: JSON.stringify(chatRes) },
    ...res,
  },
  timings: { wait: 420, receive: 80 },
  ...extra,
});
const harDoc = (...entries: unknown[]) => ({ log: { version: '1.2', creator: { name: 'WebInspector' }, entries } });

const exchange = (x: Partial<Exchange> = {}): Exchange => ({
  url: CHAT_URL,
  method: 'POST',
  status: 200,
  statusText: 'OK',
  requestBody: chatReq,
  responseBody: chatRes,
  startedAt: 1000,
  durationMs: 250,
  ttftMs: null,
  dateHeader: null,
  entry: {},
  ...x,
});

describe('har: header maps and body decoding', () => {
  it('reads HAR header lists and plain header objects, lower-cased, list values joined', () => {
    assert.deepEqual([...headerMap([{ name: 'Content-Encoding', value: 'gzip' }, { name: 3, value: 'x' }, 'junk', { name: 'X-Empty' }])], [
      ['content-encoding', 'gzip'],
      ['x-empty', ''],
    ]);
    assert.deepEqual([...headerMap({ 'Content-Type': 'application/json', Accept: ['a', 'b'], 'X-None': null })], [
      ['content-type', 'application/json'],
      ['accept', 'a, b'],
      ['x-none', ''],
    ]);
    assert.deepEqual([...headerMap('content-type: text/plain')], []);
  });

  it('decodes base64 with whitespace and the URL-safe alphabet, and refuses what is not base64', () => {
    assert.equal(new TextDecoder().decode(base64Bytes('aGVs\nbG8g\td29y bGQ=') ?? new Uint8Array()), 'hello world');
    assert.deepEqual([...(base64Bytes('-_8=') ?? [])], [251, 255]);
    assert.deepEqual([...(base64Bytes('+/8=') ?? [])], [251, 255]);
    assert.equal(base64Bytes('not base64!'), null);
    assert.equal(base64Bytes('abcde'), null, 'a length of 4n+1 is never base64');
    assert.equal(base64Bytes('x{"a":1}'), null);
    assert.equal(base64Bytes('abc=d'), null, 'padding only at the end');
    assert.equal(base64Bytes('ab==='), null, 'at most two padding characters');
    assert.deepEqual([...(base64Bytes('') ?? [9])], []);
    assert.equal(base64Bytes('a==='), null);
    assert.equal(base64Bytes('a='), null, 'one character and padding: atob refuses it');
  });

  it('gunzips by magic bytes, inflates deflate only when the header says so, else reads UTF-8', () => {
    assert.equal(bytesText(gzipSync(strToU8('zipped ✓')), ''), 'zipped ✓');
    const z = zlibSync(strToU8('deflated'));
    assert.equal(z[0], 0x78);
    assert.equal(bytesText(z, 'deflate'), 'deflated');
    assert.notEqual(bytesText(z, ''), 'deflated');
    assert.equal(bytesText(strToU8('{"ok":1}'), 'deflate'), '{"ok":1}', 'deflate named but not zlib data: read as text');
    assert.equal(bytesText(strToU8('plain ✓'), 'identity'), 'plain ✓');
    assert.equal(bytesText(new Uint8Array([0x1f, 0x61]), ''), '\x1fa', 'only 1f 8b is gzip');
    assert.equal(bytesText(new Uint8Array([0x61, 0x8b]), '').length, 2);
  });

  it('decodes a base64 HAR body, a gzip base64 body without an encoding field, and leaves plain text alone', () => {
    const res = (content: Record<string, unknown>, headers: unknown[] = []) => step(harDoc(harEntry({}, {}, { headers, content })));
    assert.equal(res({ text: b64(strToU8(JSON.stringify(chatRes))), encoding: 'base64' }).response?.content, 'Yes, 4 left.');
    assert.equal(res({ text: b64(gzipSync(strToU8(JSON.stringify(chatRes)))) }).response?.content, 'Yes, 4 left.', 'H4sI… is gzip in base64');
    assert.equal(
      res({ text: b64(zlibSync(strToU8(JSON.stringify(chatRes)))) }, [{ name: 'Content-Encoding', value: 'deflate' }]).response?.content,
      'Yes, 4 left.',
      'a content-encoding header marks the body as encoded',
    );
    assert.equal(res({ text: `  ${JSON.stringify(chatRes)}` }, [{ name: 'Content-Encoding', value: 'gzip' }]).response?.content, 'Yes, 4 left.', 'a JSON text the browser already decoded');
    const errText = res({ text: 'abcd' }).error;
    assert.equal(errText, 'abcd', 'text that merely looks like base64 is not decoded without a reason');
  });

  it('keeps SSE text that the header calls gzip (DevTools stores it decoded)', () => {
    const sse = [
      { id: 'c1', object: 'chat.completion.chunk', model: 'gpt-4o-mini', choices: [{ index: 0, delta: { role: 'assistant', content: 'Stream' }, finish_reason: null }] },
      { id: 'c1', object: 'chat.completion.chunk', model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content: 'ed.' }, finish_reason: 'stop' }] },
    ]
      .map((c) => `data: ${JSON.stringify(c)}\n\n`)
      .join('');
    const headers = [{ name: 'content-encoding', value: 'gzip' }];
    assert.equal(step(harDoc(harEntry({}, {}, { headers, content: { text: `${sse}data: [DONE]\n\n` } }))).response?.content, 'Streamed.');
    const events = sse.replaceAll('data: ', 'event: chunk\ndata: ');
    assert.equal(step(harDoc(harEntry({}, {}, { headers, content: { text: events } }))).response?.content, 'Streamed.');
  });

  it('keeps a decoded text body under a gzip header even when its letters happen to be base64 (DevTools stores bodies decoded)', () => {
    const headers = [{ name: 'Content-Encoding', value: 'gzip' }];
    const s = step(harDoc(harEntry({}, {}, { status: 502, statusText: 'Bad Gateway', headers, content: { mimeType: 'text/plain', text: 'upstream connect error' } })));
    assert.equal(s.error, 'upstream connect error');
    assert.equal(step(harDoc(harEntry({}, {}, { headers, content: { text: 'abcd' } }))).error, 'abcd');
    assert.equal(step(harDoc(harEntry({}, {}, { headers: [{ name: 'Content-Encoding', value: 'deflate' }], content: { text: 'abcd' } }))).error, 'abcd');
  });

  it('says how to fix a body it cannot decompress, naming the encoding', () => {
    const broken = b64(new Uint8Array([0x1f, 0x8b, 1, 2, 3, 4, 5, 6]));
    assert.throws(
      () => drafts(harDoc(harEntry({}, {}, { content: { text: broken, encoding: 'base64' }, headers: [{ name: 'content-encoding', value: 'gzip' }] }))),
      { message: 'could not decompress a gzip body; re-export the HAR with decoded content' },
    );
    assert.throws(() => drafts(harDoc(harEntry({}, {}, { content: { text: broken, encoding: 'base64' } }))), (e: Error) => {
      assert.equal(e.message, 'could not decompress a base64 body; re-export the HAR with decoded content');
      assert.ok(e.cause instanceof Error, 'the decompressor’s error is the cause');
      return true;
    });
  });

  it('decodes a base64 request body (postData with encoding)', () => {
    const s = step(harDoc(harEntry({}, { postData: { text: b64(strToU8(JSON.stringify(chatReq))), encoding: 'base64' } })));
    assert.equal(s.messages?.[0].content, 'Is the blue kettle in stock?');
  });
});

describe('har: HAR entries', () => {
  it('takes timing from the entry: start, duration, end and the wait as time to first token', () => {
    const s = step(harDoc(harEntry()));
    assert.equal(s.started_at, Date.parse('2026-12-02T09:15:00.100Z'));
    assert.equal(s.latency_ms, 500);
    assert.equal(s.ended_at, Date.parse('2026-12-02T09:15:00.100Z') + 500);
    assert.equal(s.ttft_ms, 420);
    assert.equal(step(harDoc(harEntry({ timings: { wait: -1 } }))).ttft_ms, null, 'HAR writes -1 for a timing it does not know');
    assert.equal(step(harDoc(harEntry({ timings: { wait: 0 } }))).ttft_ms, 0);
    assert.equal(step(harDoc(harEntry({ timings: undefined }))).ttft_ms, null);
    const noStart = step(harDoc(harEntry({ startedDateTime: undefined })));
    assert.equal(noStart.started_at, null);
    assert.equal(noStart.ended_at, null);
    const noTime = step(harDoc(harEntry({ time: undefined })));
    assert.equal(noTime.ended_at, null);
    assert.equal(noTime.latency_ms, null);
  });

  it('marks a step with the API, the URL (keys redacted), the HTTP status and how many entries were skipped', () => {
    const get = { request: { method: 'GET', url: 'https://app.example.com/app.js' }, response: { status: 200, content: { text: 'x' } } };
    const d = drafts(harDoc(get, harEntry({}, { url: `${CHAT_URL}?api_key=sk-proj-abcdefghijklmnopqrstuv` }), 'not an entry', { response: {} }));
    assert.equal(d.length, 1);
    assert.deepEqual(d[0].steps[0].metadata, {
      api: 'chat',
      url: `${CHAT_URL}?api_key=[redacted]`,
      http_status: '200',
      har_entries_skipped: '1',
    });
    const m = step(harDoc(harEntry())).metadata;
    assert.deepEqual(m, { api: 'chat', url: CHAT_URL, http_status: '200' });
  });

  it('drops a POST to an LLM URL that recorded no request body', () => {
    assert.deepEqual(drafts(harDoc(harEntry({}, { postData: { mimeType: 'application/json', text: '' } }))), []);
    assert.deepEqual(drafts(harDoc(harEntry({}, { postData: undefined }))), []);
  });

  it('orders entries by start time when every entry has one, and keeps file order otherwise', () => {
    const later = harEntry({ startedDateTime: '2026-12-02T09:16:00.000Z' }, { postData: { text: JSON.stringify({ ...chatReq, messages: [{ role: 'user', content: 'second' }] }) } });
    const earlier = harEntry({ startedDateTime: '2026-12-02T09:15:00.000Z' }, { postData: { text: JSON.stringify({ ...chatReq, messages: [{ role: 'user', content: 'first' }] }) } });
    const firsts = (doc: unknown) => drafts(doc).map((d) => d.steps[0].messages?.[0].content);
    assert.deepEqual(firsts(harDoc(later, earlier)), ['first', 'second']);
    assert.deepEqual(firsts(harDoc(earlier, later)), ['first', 'second']);
    const undated = { ...later, startedDateTime: undefined };
    assert.deepEqual(firsts(harDoc(undated, earlier)), ['second', 'first']);
  });

  it('stores the entry with decoded bodies and credentials, cookies and key-like query parameters removed', () => {
    const gz = b64(gzipSync(strToU8(JSON.stringify(chatRes))));
    const entry = harEntry(
      {},
      {
        url: `${CHAT_URL}?session=abc123&page=2`,
        headers: { Authorization: 'Token 123456', 'X-Trace': 't-1' },
        cookies: [{ name: 'sid', value: 'c00k1e' }, 'odd'],
        queryString: [{ name: 'session', value: 'abc123' }, { name: 'page', value: '2' }, { name: 7, value: 'x' }, 'odd', null],
        postData: { mimeType: 'application/json', text: b64(strToU8(JSON.stringify(chatReq))), encoding: 'base64' },
      },
      { cookies: [{ name: 'sid', value: 'new' }], content: { mimeType: 'application/json', text: gz, encoding: 'base64' } },
    );
    const raw = rawOf(harDoc(entry));
    assert.deepEqual(raw.request.headers, { Authorization: '[redacted]', 'X-Trace': 't-1' });
    assert.deepEqual(raw.request.cookies, [{ name: 'sid', value: '[redacted]' }, 'odd']);
    assert.deepEqual(raw.response.cookies, [{ name: 'sid', value: '[redacted]' }]);
    assert.deepEqual(raw.request.queryString, [{ name: 'session', value: '[redacted]' }, { name: 'page', value: '2' }, { name: 7, value: 'x' }, 'odd', null]);
    assert.deepEqual(raw.request.postData, { mimeType: 'application/json', text: chatReq });
    assert.deepEqual(raw.response.content, { mimeType: 'application/json', text: JSON.stringify(chatRes) });
    assert.equal('encoding' in raw.response.content, false);
  });

  it('redacts a HAR header list by name even when the value does not look like a key', () => {
    const raw = rawOf(harDoc(harEntry({}, { headers: [{ name: 'authorization', value: 'Token abc' }, { name: 'accept', value: '*/*' }] })));
    assert.deepEqual(raw.request.headers, [
      { name: 'authorization', value: '[redacted]' },
      { name: 'accept', value: '*/*' },
    ]);
  });
});

describe('har: request/response recordings', () => {
  const rec = (extra: Record<string, unknown> = {}, req: Record<string, unknown> = {}, res: Record<string, unknown> = {}) => ({
    request: { method: 'POST', url: CHAT_URL, headers: { 'content-type': 'application/json' }, body: chatReq, ...req },
    response: { status: 200, headers: {}, body: chatRes, ...res },
    ...extra,
  });

  it('reads the start from the first of several names and the duration from its own field or the end', () => {
    const t0 = Date.parse('2026-12-02T10:00:00.000Z');
    assert.equal(step(rec({ started_at: '2026-12-02T10:00:00.000Z', duration_ms: 80 })).ended_at, t0 + 80);
    assert.equal(step(rec({ timestamp: t0, latency_ms: 81 })).latency_ms, 81);
    assert.equal(step(rec({ timestamp: t0, duration: 82 })).latency_ms, 82);
    assert.equal(step(rec({ timestamp: t0, elapsed_ms: 83 })).latency_ms, 83);
    assert.equal(step(rec({}, { timestamp: t0 })).started_at, t0);
    assert.equal(step(rec({ time: t0 })).started_at, t0);
    assert.equal(step(rec({ startedDateTime: '2026-12-02T10:00:00.000Z', started_at: 5 })).started_at, t0);
    const ended = step(rec({ started_at: t0, ended_at: t0 + 300 }));
    assert.equal(ended.latency_ms, 300);
    assert.equal(ended.ended_at, t0 + 300);
    assert.equal(step(rec({ started_at: t0 }, {}, { timestamp: t0 + 90 })).latency_ms, 90);
    assert.equal(step(rec({ ended_at: t0 })).latency_ms, null, 'an end without a start');
    assert.equal(step(rec({ started_at: t0 })).latency_ms, null, 'a start without an end');
    assert.equal(step(rec({ ttft_ms: 40 })).ttft_ms, 40);
    assert.equal(step(rec({}, {}, { ttft_ms: 41 })).ttft_ms, 41);
  });

  it('reads url, method and status from their alternative names', () => {
    const s = step({ url: CHAT_URL, method: 'GET', request: { method: 'post', headers: {}, body: chatReq }, response: { status_code: 503, reason: 'Service Unavailable', text: '' } });
    assert.equal(s.metadata?.url, CHAT_URL);
    assert.equal(drafts({ url: 'https://example.com/', method: 'GET', request: { url: CHAT_URL, body: chatReq }, response: { body: chatRes } }).length, 0, 'the outer method');
    assert.equal(drafts({ url: 'https://example.com/', method: 'post', request: { url: CHAT_URL, body: chatReq }, response: { body: chatRes } }).length, 1);
    assert.equal(s.metadata?.http_status, '503');
    assert.equal(s.error, 'HTTP 503 Service Unavailable');
    assert.equal(step(rec({}, {}, { status: undefined, statusCode: 429, body: { error: { message: 'Rate limit', code: 'rate_limit_exceeded' } } })).metadata?.http_status, '429');
    assert.equal(step(rec({}, {}, { status: 502, statusText: 'Bad Gateway', body: undefined })).error, 'HTTP 502 Bad Gateway');
    assert.equal(step(rec({}, {}, { status: 502, body: undefined })).error, 'HTTP 502');
    assert.equal(step(rec({}, {}, { body: undefined, content: chatRes })).response?.content, 'Yes, 4 left.');
  });

  it('decodes base64 request and response bodies named by encoding or bodyEncoding', () => {
    const s = step(rec({}, { body: b64(strToU8(JSON.stringify(chatReq))), encoding: 'base64' }, { body: b64(strToU8(JSON.stringify(chatRes))), bodyEncoding: 'base64' }));
    assert.equal(s.messages?.[0].content, 'Is the blue kettle in stock?');
    assert.equal(s.response?.content, 'Yes, 4 left.');
    assert.equal(step(rec({}, { body: b64(strToU8(JSON.stringify(chatReq))), bodyEncoding: 'base64' })).messages?.length, 1);
    assert.equal(step(rec({}, {}, { body: b64(strToU8(JSON.stringify(chatRes))), encoding: 'base64' })).response?.content, 'Yes, 4 left.');
  });

  it('reads a JSON array of recordings and stores each with its decoded body', () => {
    const d = drafts([rec(), { request: { method: 'GET', url: 'https://example.com/', headers: {} }, response: { status: 200, body: 'ok' } }, 'noise']);
    assert.equal(d.length, 1);
    assert.equal(d[0].steps[0].metadata?.har_entries_skipped, '1');
    const raw = rawOf(rec({}, { body: JSON.stringify(chatReq), headers: { 'x-api-key': 'abc' } }));
    assert.deepEqual(raw.request.body, chatReq);
    assert.equal(raw.request.headers['x-api-key'], '[redacted]');
    assert.deepEqual(raw.response.body, chatRes);
  });

  it('reads a response body recorded as text, and stores it where it was', () => {
    const r = { request: { method: 'POST', url: CHAT_URL, body: chatReq }, response: { status: 200, text: JSON.stringify(chatRes) } };
    assert.equal(step(r).response?.content, 'Yes, 4 left.');
    const raw = rawOf(r);
    assert.equal('body' in raw.response, false);
    assert.equal(raw.response.text, JSON.stringify(chatRes));
  });

  it('marks a call with no recorded answer, an error body, and an aborted request', () => {
    const none = step(rec({}, {}, { body: '' }));
    assert.equal(none.status, 'error');
    assert.equal(none.error, 'no response body recorded');
    assert.equal(none.finish_reason, 'error');
    const ok = step(rec());
    assert.equal(ok.status, 'ok');
    assert.equal(ok.error, null);
    assert.equal(ok.finish_reason, 'stop');
    assert.equal(ok.model, 'gpt-4o-mini-2024-07-18');
    assert.equal(ok.prompt_tokens, 14);
    const aborted = step(rec({}, {}, { status: 0, body: undefined }));
    assert.equal(aborted.error, 'HTTP 0');
    const unknown = step(rec({}, {}, { status: undefined, body: undefined }));
    assert.equal(unknown.status, 'ok', 'no status and no body: nothing says it failed');
    assert.equal(unknown.error, null);
    assert.equal(unknown.metadata?.http_status, undefined);
    const e399 = step(rec({}, {}, { status: 399, body: undefined }));
    assert.equal(e399.error, 'no response body recorded');
    const e400 = step(rec({}, {}, { status: 400, body: { error: { message: 'Bad input', type: 'invalid_request_error' } } }));
    assert.equal(e400.status, 'error');
    assert.equal(e400.error, 'Bad input');
    const http400 = step(rec({}, {}, { status: 400, body: chatRes }));
    assert.equal(http400.status, 'error');
    assert.equal(http400.error, 'HTTP 400');
    assert.equal(http400.finish_reason, 'stop', 'a finish reason the body gave is kept');
  });

  it('skips what is not a POST with a body to an LLM API', () => {
    assert.deepEqual(drafts(rec({}, { method: 'GET' })), []);
    assert.deepEqual(drafts(rec({}, { method: 'get' })), []);
    assert.equal(drafts(rec({}, { method: 'post' })).length, 1);
    assert.deepEqual(drafts(rec({}, { url: 'https://example.com/upload', body: { file: 'x' } })), []);
    assert.equal(drafts({ request: { url: CHAT_URL, body: chatReq }, response: { body: chatRes } }).length, 1, 'no method: POST assumed');
  });

  it('rejects a record that is no recording, saying which shapes it reads', () => {
    assert.throws(() => drafts({ hello: 'world' }), {
      message: 'not a HAR document (log.entries), a {request, response} recording nor a nock {scope, method, path, response} entry',
    });
    assert.throws(() => drafts({ request: { body: chatReq }, response: {} }), /not a HAR document/, 'neither url nor method');
    assert.throws(() => drafts({ request: { url: CHAT_URL }, response: {} }), /not a HAR document/, 'neither body nor headers');
    assert.throws(() => drafts({ request: { url: CHAT_URL, body: chatReq } }), /not a HAR document/);
    assert.throws(() => drafts({ log: { entries: 'none' } }), /not a HAR document/);
  });
});

describe('har: exchangeDraft', () => {
  it('returns null for what is no LLM call and names the skip counter', () => {
    assert.equal(exchangeDraft(exchange({ method: 'PUT' }), 0), null);
    assert.equal(exchangeDraft(exchange({ requestBody: undefined }), 0), null);
    assert.equal(exchangeDraft(exchange({ requestBody: null }), 0), null);
    assert.equal(exchangeDraft(exchange({ requestBody: '' }), 0), null);
    assert.equal(exchangeDraft(exchange({ url: 'https://example.com/x', requestBody: { q: 1 } }), 0), null);
    assert.notEqual(exchangeDraft(exchange({ method: null }), 0), null);
    assert.equal(exchangeDraft(exchange(), 3, 'interactions_skipped')?.steps[0].metadata?.interactions_skipped, '3');
    assert.equal(exchangeDraft(exchange(), 0)?.steps[0].metadata?.har_entries_skipped, undefined);
    assert.equal(exchangeDraft(exchange({ url: null }), 0)?.steps[0].metadata?.url, undefined);
  });

  it('keeps an error the body gives over the HTTP status and notes naive times', () => {
    const s = exchangeDraft(exchange({ status: 500, statusText: 'Internal', responseBody: { error: { message: 'The server had an error' } } }), 0)?.steps[0];
    assert.equal(s?.error, 'The server had an error');
    assert.equal(s?.finish_reason, 'error');
    const naive = exchangeDraft(exchange({ entry: { started_at: '2026-12-02 10:00:00' } }), 0)?.steps[0];
    assert.ok(Object.keys(naive?.metadata ?? {}).length > 2, 'a naive start time gets a note');
    for (const key of ['startedDateTime', 'timestamp', 'ended_at']) {
      const m = exchangeDraft(exchange({ entry: { [key]: '2026-12-02T10:00:00' } }), 0)?.steps[0].metadata ?? {};
      assert.equal(Object.keys(m).length, 4, key);
    }
    assert.equal(Object.keys(exchangeDraft(exchange({ entry: { started_at: '2026-12-02T10:00:00Z' } }), 0)?.steps[0].metadata ?? {}).length, 3);
  });
});

describe('har: nock recordings', () => {
  const nock = (extra: Record<string, unknown> = {}) => ({
    scope: 'https://api.openai.com:443',
    method: 'POST',
    path: '/v1/chat/completions',
    body: chatReq,
    status: 200,
    response: chatRes,
    rawHeaders: ['Content-Type', 'application/json', 'Openai-Organization', 'org-1'],
    responseIsBinary: false,
    ...extra,
  });
  const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

  it('joins scope and path, trimming the scope’s slashes, and reads status and timestamp', () => {
    const s = step(nock({ scope: 'https://api.openai.com//', timestamp: '2026-12-02T10:00:00Z' }));
    assert.equal(s.metadata?.url, 'https://api.openai.com/v1/chat/completions');
    assert.equal(s.metadata?.http_status, '200');
    assert.equal(s.started_at, Date.parse('2026-12-02T10:00:00Z'));
    assert.equal(s.latency_ms, null);
    assert.equal(s.ttft_ms, null);
    assert.equal(s.response?.content, 'Yes, 4 left.');
    assert.equal(step(nock({ status: 429, response: { error: { message: 'slow down' } } })).error, 'slow down');
  });

  it('decodes gzipped hex chunks and a binary hex body', () => {
    const gz = hex(gzipSync(strToU8(JSON.stringify(chatRes))));
    const chunks = [gz.slice(0, 20), gz.slice(20)];
    assert.equal(step(nock({ response: chunks, rawHeaders: ['Content-Encoding', 'gzip'] })).response?.content, 'Yes, 4 left.');
    assert.equal(step(nock({ response: hex(strToU8(JSON.stringify(chatRes))), responseIsBinary: true })).response?.content, 'Yes, 4 left.');
    const z = hex(zlibSync(strToU8(JSON.stringify(chatRes))));
    assert.equal(step(nock({ response: [z], rawHeaders: ['content-encoding', 'deflate'] })).response?.content, 'Yes, 4 left.');
    assert.equal(step(nock({ response: [z], headers: { 'Content-Encoding': 'deflate' }, rawHeaders: undefined })).response?.content, 'Yes, 4 left.', 'headers object');
  });

  it('keeps a response that is not hex as it is', () => {
    assert.equal(step(nock({ response: 'not hex at all', responseIsBinary: true })).error, 'not hex at all');
    assert.equal(step(nock({ response: 'abc', responseIsBinary: true })).error, 'abc', 'odd number of hex digits');
    assert.equal(step(nock({ response: 'beef', responseIsBinary: false })).error, 'beef', 'text that only looks like hex');
    assert.equal(step(nock({ response: hex(strToU8('ok then')), responseIsBinary: true })).error, 'ok then');
    assert.equal(step(nock({ response: JSON.stringify(chatRes), responseIsBinary: false })).response?.content, 'Yes, 4 left.');
    assert.equal(step(nock({ response: [] })).error, 'no response body recorded');
    assert.equal(step(nock({ response: ['zz'] })).error, 'zz', 'a list that is not hex chunks is a JSON value');
    assert.notEqual(step(nock({ response: ['68', 69] })).error, 'hi', 'every chunk must be hex text');
    assert.notEqual(step(nock({ response: ['68', '6'] })).error, 'h');
    assert.equal(step(nock({ response: ['6869'] })).error, 'hi');
  });

  it('reads a nock entry recorded without a response body', () => {
    const s = step(nock({ response: null, status: 204 }));
    assert.equal(s.error, 'no response body recorded');
    assert.equal(JSON.parse(s.raw as string).response, null);
  });

  it('says so when a recorded nock body does not decompress', () => {
    assert.throws(() => drafts(nock({ response: ['1f8b0102030405'] })), (e: Error) => e.message === 'could not decompress a recorded nock response body' && e.cause instanceof Error);
  });

  it('reads header pairs only, and stores the entry with credentials removed and the decoded bodies', () => {
    const gz = hex(gzipSync(strToU8(JSON.stringify(chatRes))));
    const raw = rawOf(
      nock({
        response: [gz],
        rawHeaders: ['Content-Encoding', 'gzip', 'Set-Cookie', '__cf_bm=abc', 'X-Dangling'],
        reqheaders: { authorization: 'Basic dXNlcjpwYXNz', accept: 'application/json' },
        body: JSON.stringify(chatReq),
      }),
    );
    assert.deepEqual(raw.rawHeaders, ['Content-Encoding', 'gzip', 'Set-Cookie', '[redacted]', 'X-Dangling']);
    assert.deepEqual(raw.reqheaders, { authorization: '[redacted]', accept: 'application/json' });
    assert.equal(raw.response, JSON.stringify(chatRes));
    assert.deepEqual(raw.body, chatReq);
    assert.equal(step(nock({ rawHeaders: [5, 'gzip', 'content-encoding', 'identity'] })).response?.content, 'Yes, 4 left.');
  });

  it('detects nock entries in proportion and needs an http(s) scope, a method, a path and a response', () => {
    assert.equal(har.detect([nock()]), 0.95);
    assert.equal(har.detect([[nock(), { other: 1 }]]), 0.6 + 0.35 / 2);
    assert.equal(har.detect([nock({ scope: 'ftp://x' })]), 0);
    assert.equal(har.detect([nock({ scope: 'http://localhost:11434' })]), 0.95);
    assert.equal(har.detect([nock({ scope: 'proxy+https://x' })]), 0);
    assert.equal(har.detect([nock({ method: 1 })]), 0);
    assert.equal(har.detect([nock({ path: null })]), 0);
    assert.equal(har.detect([{ ...nock(), response: undefined, status: 200 }].map(({ response: _r, ...rest }) => rest)), 0);
    assert.equal(har.detect([nock({ scope: 5 })]), 0);
    assert.deepEqual(drafts([nock(), nock({ path: '/v1/models', method: 'GET' })]).length, 1);
  });
});

describe('har: detection', () => {
  const rec = { request: { url: CHAT_URL, body: chatReq }, response: { body: chatRes } };
  it('scores a HAR document, request/response recordings by share, and nothing else', () => {
    assert.equal(har.detect([harDoc()]), 0.97);
    assert.equal(har.detect([{ a: 1 }, harDoc()]), 0.97);
    assert.ok(Math.abs(har.detect([rec]) - 0.9) < 1e-9);
    assert.equal(har.detect([rec, { a: 1 }]), 0.6 + 0.3 / 2);
    assert.equal(har.detect([[rec, rec, { a: 1 }, { b: 2 }]]), 0.6 + 0.3 / 2, 'one array record: its elements');
    assert.equal(har.detect([[rec], [rec]]), 0, 'several array records are not looked into');
    assert.ok(Math.abs(har.detect([{ request: { method: 'POST', headers: {} }, response: {} }]) - 0.9) < 1e-9);
    assert.equal(har.detect([{ request: { headers: {} }, response: {} }]), 0);
    assert.equal(har.detect([{ log: {} }]), 0);
    assert.equal(har.detect([]), 0);
    assert.equal(har.detect([null, 5, 'x']), 0, 'lines that are no object');
  });
});

describe('har normalizer', () => {
  it('does not claim OpenAI chat rows', () => {
    assert.equal(har.detect([{ messages: [{ role: 'user', content: 'hi' }] }]), 0);
  });
});

describe('har: large and broken bodies of other entries', () => {
  it('only an LLM call\'s bodies are decoded: a corrupt gzip asset, a broken upload and a 36 MB base64 download do not cost the calls', () => {
    // a DevTools HAR saved "with content": the page's assets and uploads next to its LLM calls. A 300 MB download
    // decoded whole (atob, per-byte copy, UTF-8) crashed the tab; a corrupt asset threw and rejected the whole HAR
    const corrupt = b64(new Uint8Array([0x1f, 0x8b, 8, 0, 1, 2, 3]));
    const asset = (method: string, url: string, text: string, request: Record<string, unknown> = {}) => ({
      startedDateTime: '2026-12-02T09:14:59.000Z',
      time: 5,
      request: { method, url, headers: [], ...request },
      response: { status: 200, statusText: 'OK', headers: [{ name: 'content-encoding', value: 'gzip' }], content: { mimeType: 'application/octet-stream', text, encoding: 'base64' } },
    });
    const doc = harDoc(
      harEntry(),
      asset('GET', 'http://localhost:5173/favicon.ico', corrupt),
      asset('GET', 'https://example.com/model.bin', Buffer.alloc(36 * 1024 * 1024, 7).toString('base64')),
      asset('POST', 'https://example.com/upload', corrupt, { postData: { mimeType: 'application/octet-stream', text: corrupt, encoding: 'base64' } }),
      harEntry({ startedDateTime: '2026-12-02T09:16:00.000Z' }),
    );
    const d = drafts(doc);
    assert.equal(d.length, 2, 'both LLM calls');
    assert.deepEqual(d.map((x) => [x.steps[0].response?.content, x.steps[0].metadata?.har_entries_skipped]), [['Yes, 4 left.', '3'], ['Yes, 4 left.', '3']]);
  });
});
