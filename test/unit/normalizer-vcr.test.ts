/**
 * The VCR cassette normalizer (src/ingest/normalizers/vcr.ts): interactions as vcrpy
 * writes them once the YAML is read (`{string}` bodies, `parsed_body`, `!!binary` gzip / deflate / brotli
 * bodies, `status: {code, message}`), detection, and which interactions are LLM calls.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gzipSync, strToU8, zlibSync } from 'fflate';
import type { TrajectoryDraft } from '../../src/contract/step';
import type { SourceRecord } from '../../src/ingest/normalizer';
import { vcr } from '../../src/ingest/normalizers/vcr';
import { YAML_BINARY } from '../../src/ingest/yaml-records';
import { ctx } from './helpers/formats';
import { importBytes, } from './helpers/real-read';

const drafts = (value: unknown): TrajectoryDraft[] => vcr.normalize({ value, line: 1, index: 0 } as SourceRecord, ctx, undefined) as TrajectoryDraft[];
const steps = (value: unknown) => drafts(value).map((d) => d.steps[0]);
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

const chatReq = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Weather in Oslo?' }] };
const chatRes = {
  id: 'chatcmpl-V1',
  object: 'chat.completion',
  model: 'gpt-4o-mini-2024-07-18',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Cold.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 9, completion_tokens: 2 },
};
const interaction = (req: Record<string, unknown> = {}, res: Record<string, unknown> = {}) => ({
  request: { method: 'POST', uri: 'https://api.openai.com/v1/chat/completions', body: JSON.stringify(chatReq), headers: { 'Content-Type': ['application/json'], authorization: ['Bearer x'] }, ...req },
  response: { status: { code: 200, message: 'OK' }, headers: { 'Content-Type': ['application/json'] }, body: { string: JSON.stringify(chatRes) }, ...res },
});
const cassette = (...interactions: unknown[]) => ({ interactions, version: 1 });
const one = (req: Record<string, unknown> = {}, res: Record<string, unknown> = {}) => {
  const s = steps(cassette(interaction(req, res)));
  assert.equal(s.length, 1);
  return s[0];
};
const binary = (bytes: Uint8Array, encoding?: string) => ({
  headers: encoding ? { 'Content-Encoding': [encoding] } : {},
  body: { string: { [YAML_BINARY]: b64(bytes) } },
});

describe('vcr: detection', () => {
  it('scores a cassette with at least one interaction that has a method and a uri', () => {
    assert.equal(vcr.detect([cassette(interaction())]), 0.97);
    assert.equal(vcr.detect([{ a: 1 }, cassette(interaction())]), 0.97);
    assert.equal(vcr.detect([cassette()]), 0);
    assert.equal(vcr.detect([{ interactions: 'x' }]), 0);
    assert.equal(vcr.detect([cassette({ request: { method: 'POST' }, response: {} })]), 0);
    assert.equal(vcr.detect([cassette({ request: { uri: 'https://x' }, response: {} })]), 0);
    assert.equal(vcr.detect([cassette({ request: { method: 'POST', uri: 'https://x' } })]), 0);
    assert.equal(vcr.detect([cassette({ request: { method: 'POST', uri: 5 }, response: {} })]), 0);
    assert.equal(vcr.detect([cassette('x', interaction())]), 0.97);
    assert.equal(vcr.detect([]), 0);
  });

  it('rejects a record that is no cassette', () => {
    assert.throws(() => drafts({ interactions: [] }), { message: 'not a VCR cassette: expected {interactions: [{request: {method, uri}, response}]}' });
  });
});

describe('vcr: interactions', () => {
  it('reads a JSON-string request and a {string} response, with the status', () => {
    const s = one();
    assert.equal(s.messages?.[0].content, 'Weather in Oslo?');
    assert.equal(s.response?.content, 'Cold.');
    assert.equal(s.metadata?.http_status, '200');
    assert.equal(s.metadata?.interactions_skipped, undefined);
    assert.equal(s.started_at, null);
    assert.equal(s.latency_ms, null);
    assert.equal(s.ttft_ms, null);
    assert.equal(s.status, 'ok');
    assert.ok(!(s.raw ?? '').includes('Bearer x'));
  });

  it('reads parsed bodies, a bare string body and a plain status number', () => {
    assert.equal(one({ body: undefined, parsed_body: chatReq }, { body: undefined, parsed_body: chatRes }).response?.content, 'Cold.');
    assert.equal(one({}, { body: JSON.stringify(chatRes) }).response?.content, 'Cold.');
    const failed = one({}, { status: 503, body: { string: '' } });
    assert.equal(failed.metadata?.http_status, '503');
    assert.equal(failed.error, 'HTTP 503');
    const msg = one({}, { status: { code: 429, message: 'Too Many Requests' }, body: { string: '' } });
    assert.equal(msg.error, 'HTTP 429 Too Many Requests');
    assert.equal(one({}, { parsed_body: null, body: { string: JSON.stringify(chatRes) } }).response, null, 'parsed_body wins even when null');
  });

  it('decodes !!binary bodies: gzip by magic bytes, deflate by header, else UTF-8', () => {
    const json = strToU8(JSON.stringify(chatRes));
    assert.equal(one({}, binary(gzipSync(json), 'gzip')).response?.content, 'Cold.');
    assert.equal(one({}, binary(gzipSync(json))).response?.content, 'Cold.');
    assert.equal(one({}, binary(zlibSync(json), 'deflate')).response?.content, 'Cold.');
    assert.equal(one({}, binary(json)).response?.content, 'Cold.');
    assert.equal(one({ body: { [YAML_BINARY]: b64(strToU8(JSON.stringify(chatReq))) } }).messages?.[0].content, 'Weather in Oslo?');
  });

  it('says a brotli body was not decoded, but gunzips a gzip body under a br header', () => {
    const s = one({}, binary(new Uint8Array([0x1b, 0x2a, 0x00, 0x00]), 'br'));
    assert.equal(s.error, 'brotli-compressed body not decoded: record the cassette with decode_compressed_response=True');
    assert.equal(one({}, binary(gzipSync(strToU8(JSON.stringify(chatRes))), 'gzip, br')).response?.content, 'Cold.');
    assert.equal(one({}, { ...binary(new Uint8Array([0x1f, 0x00, 0x41]), 'br') }).error, 'brotli-compressed body not decoded: record the cassette with decode_compressed_response=True');
  });

  it('reads a body that does not decompress as text, and a !!binary that is not base64 as nothing', () => {
    assert.equal(one({}, binary(new Uint8Array([0x78, 0x41, 0x42]), 'deflate')).error, 'xAB');
    const bad = one({}, { body: { string: { [YAML_BINARY]: 'not base64!' } } });
    assert.equal(bad.response, null);
    assert.equal(bad.error, 'no response body recorded');
    assert.deepEqual(steps(cassette(interaction({ body: { [YAML_BINARY]: '@@' } }))), [], 'a request without body is no call');
    assert.equal(one({}, { body: { string: { [YAML_BINARY]: 5 } } }).status, 'error');
  });

  it('keeps only POSTs to LLM APIs and counts the other interactions', () => {
    const get = { request: { method: 'GET', uri: 'https://api.openai.com/v1/models', body: null, headers: {} }, response: { status: { code: 200 }, body: { string: '{}' } } };
    const other = interaction({ uri: 'https://example.com/upload', body: '{"file":"x"}' });
    const s = steps(cassette(get, interaction(), other, 'junk', interaction({ method: 'post' })));
    assert.equal(s.length, 2);
    assert.equal(s[0].metadata?.interactions_skipped, '2');
    assert.deepEqual(steps(cassette(interaction({ method: 'PUT' }))), []);
    assert.deepEqual(steps(cassette({ ...interaction(), request: { ...interaction().request, method: 'GET' } })), []);
  });
});

describe('vcr: the raw record keeps the recording as written', () => {
  it('a request recorded only as parsed_body gets no body key in raw (the export differential caught this)', () => {
    const it1 = interaction({ parsed_body: chatReq });
    delete (it1.request as Record<string, unknown>).body;
    const [s] = steps(cassette(it1));
    const raw = JSON.parse(String(s?.raw)) as { request: Record<string, unknown> };
    assert.equal(Object.hasOwn(raw.request, 'body'), false);
    assert.deepEqual(raw.request.parsed_body, chatReq);
    assert.deepEqual(s?.messages, chatReq.messages);
  });
});

describe('VCR cassettes (vcrpy / pytest-recording YAML)', () => {
  it('rejects broken YAML with its line instead of reading it as JSON Lines', async () => {
    const { rejected, steps } = await importBytes(new TextEncoder().encode('interactions:\n- request:\n    uri: "unterminated\n  response: {\n'));
    assert.equal(steps.length, 0);
    assert.equal(rejected.length, 1);
    assert.match(rejected[0].reason, /not valid YAML/);
  });
});
