// Header redaction by NAME (issue 20, survivor 4): credentials whose value matches no key pattern
// (`Basic …`, `Token …`, a bare opaque token) must go because the header is called authorization.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactedJson, redactSecrets } from '../../src/record/redact';
import { har } from '../../src/ingest/normalizers/har';
import { records, run } from './format-helpers';

const BASIC = 'Basic dXNlcjpodW50ZXIy'; // user:hunter2
const TOKEN = 'Token 9f8e7d6c5b4a39281706';
const OPAQUE = 'opaque.session.value.12345';

describe('secret headers are redacted by name', () => {
  it('object headers: Authorization / authorization with Basic, Token and opaque values', () => {
    const out = redactSecrets({ headers: { Authorization: BASIC, authorization: TOKEN, 'Proxy-Authorization': OPAQUE, 'content-type': 'application/json' } });
    assert.deepEqual(out.headers, { Authorization: '[redacted]', authorization: '[redacted]', 'Proxy-Authorization': '[redacted]', 'content-type': 'application/json' });
  });

  it('HAR name/value headers: {name: "authorization", value: "Token …"}', () => {
    const out = redactSecrets({ request: { headers: [{ name: 'authorization', value: TOKEN }, { name: 'Authorization', value: BASIC }, { name: 'accept', value: '*/*' }] } });
    assert.deepEqual(out.request.headers, [{ name: 'authorization', value: '[redacted]' }, { name: 'Authorization', value: '[redacted]' }, { name: 'accept', value: '*/*' }]);
  });

  it('the fast path (redactedJson) sees the header names too', () => {
    for (const rec of [{ headers: { Authorization: BASIC } }, { headers: [{ name: 'authorization', value: TOKEN }] }]) {
      const text = redactedJson(rec) ?? '';
      for (const v of [BASIC, TOKEN, 'dXNlcjpodW50ZXIy', '9f8e7d6c5b4a39281706']) assert.ok(!text.includes(v), `${v} in ${text}`);
    }
  });

  it('a DevTools HAR whose authorization headers carry Basic and Token values: no credential in any step', () => {
    const recs = records('devtools-export.har');
    let n = 0;
    const text = JSON.stringify(recs).replace(/("name":\s*"[Aa]uthorization",\s*"value":\s*)"[^"]*"/g, (_m, head: string) => `${head}"${n++ % 2 ? BASIC : TOKEN}"`);
    assert.ok(n >= 2, 'the fixture has authorization headers');
    const steps = run(har, JSON.parse(text));
    assert.ok(steps.length >= 2);
    const stored = JSON.stringify(steps);
    for (const v of ['dXNlcjpodW50ZXIy', '9f8e7d6c5b4a39281706']) assert.ok(!stored.includes(v), `${v} stored`);
  });

  it('a request/response recording with an Authorization: Basic header', () => {
    const [rec] = records('http-recording.jsonl');
    const value = structuredClone(rec.value) as { request: { headers: Record<string, string> } };
    value.request.headers = { Authorization: BASIC, 'HTTP-Referer': 'https://example.org' };
    const steps = run(har, [{ ...rec, value }]);
    assert.equal(steps.length, 1);
    assert.ok(!JSON.stringify(steps).includes('dXNlcjpodW50ZXIy'));
  });
});
