/**
 * Credential stripping (src/record/redact.ts) over the key shapes providers really issue, at the edges of
 * each rule: the length floors, the word boundaries, the header names and the URL parameters, through
 * both entry points (the deep copy and the JSON fast path on a record's own text). Written to kill
 * mutants StrykerJS found.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isSecretKey, REDACTED, redactedJson, redactMessage, redactSecrets, redactString } from '../../src/record/redact';
import type { ChatMessage } from '../../src/contract/step';

const rep = (n: number, s = 'a1B2c3D4e5') => s.repeat(Math.ceil(n / s.length)).slice(0, n);

/** Key-shaped strings that must go (each at its shortest), and near misses that must stay. */
const SECRETS = [
  `sk-${rep(16)}`,
  `sk-proj-${rep(40)}`,
  `sk-ant-api03-${rep(40)}`,
  `sk-or-v1-${rep(40)}`,
  `AIza${rep(30)}`,
  'AKIAIOSFODNN7EXAMPLE',
  `ghp_${rep(30)}`,
  `gho_${rep(36)}`,
  `ghu_${rep(36)}`,
  `ghs_${rep(36)}`,
  `ghr_${rep(36)}`,
  `hf_${rep(30)}`,
  `xoxb-${rep(10)}`,
  `xoxp-${rep(24)}`,
  `xoxa-${rep(24)}`,
  `xoxr-${rep(24)}`,
];
const NEAR_MISSES = [
  `sk-${rep(15)}`,
  `AIza${rep(29)}`,
  'AKIAIOSFODNN7EXAMPL',
  'AKIAIOSFODNN7EXAMPLEX',
  `ghp_${rep(29)}`,
  `ghx_${rep(36)}`,
  `hf_${rep(29)}`,
  `xoxb-${rep(9)}`,
  `xoxz-${rep(24)}`,
  'desk-organizer-2024-edition-large',
  'Bearer abcdef',
  'Bearer',
];

describe('redactString: key shapes', () => {
  for (const s of SECRETS) {
    it(`removes ${s.slice(0, 8)}… (${s.length} chars) alone, in a sentence and quoted`, () => {
      assert.equal(redactString(s), REDACTED);
      assert.equal(redactString(`my key is ${s}, thanks`), `my key is ${REDACTED}, thanks`);
      assert.equal(redactString(`{"k":"${s}"}`), `{"k":"${REDACTED}"}`);
    });
  }
  it('keeps near misses: too short, wrong letter, inside a longer word', () => {
    for (const s of NEAR_MISSES) assert.equal(redactString(`value: ${s}.`), `value: ${s}.`, s);
  });
  it('Bearer tokens of 8 or more token characters, any spacing', () => {
    assert.equal(redactString('Authorization: Bearer abcdefgh'), `Authorization: ${REDACTED}`);
    assert.equal(redactString('Bearer   eyJhbGciOi.J9~+/=_-x'), REDACTED);
    assert.equal(redactString('Bearer\tabcdefgh12'), REDACTED);
    assert.equal(redactString('xBearer abcdefgh12'), 'xBearer abcdefgh12');
  });
  it('key parameters in URLs, up to the next & # space or quote', () => {
    assert.equal(redactString('?key=abc'), `?key=${REDACTED}`);
    assert.equal(redactString('https://g.example/v1/models?key=abc123&alt=json'), `https://g.example/v1/models?key=${REDACTED}&alt=json`);
    assert.equal(redactString('https://x.example/a?x=1&api_key=q1w2e3#frag'), `https://x.example/a?x=1&api_key=${REDACTED}#frag`);
    assert.equal(redactString('GET /s?apikey=zz9 HTTP/1.1'), `GET /s?apikey=${REDACTED} HTTP/1.1`);
    assert.equal(redactString('"https://x.example/?api-key=k9"'), `"https://x.example/?api-key=${REDACTED}"`);
    assert.equal(redactString('/ws?token=t0k3n&auth=a1&access_token=zz'), `/ws?token=${REDACTED}&auth=${REDACTED}&access_token=${REDACTED}`);
    assert.equal(redactString('/docs/key=value-pairs'), '/docs/key=value-pairs');
    assert.equal(redactString('?monkey=banana1'), '?monkey=banana1');
  });
  it('leaves strings under 8 characters alone', () => {
    assert.equal(redactString('?key=ab'), '?key=ab');
  });
});

describe('isSecretKey', () => {
  it('every documented name, any case and separator', () => {
    for (const k of [
      'Authorization', 'proxy-authorization', 'X-Api-Key', 'api-key', 'api_key', 'apikey', 'OPENAI_API_KEY', 'openai-api-key',
      'ANTHROPIC_API_KEY', 'anthropic-api-key', 'Cookie', 'Set-Cookie', 'x-goog-api-key', 'X-Auth-Token', 'access_token', 'access-token',
      'secret', 'Password', 'client_secret', 'client-secret', 'bearer',
      // vendor-prefixed credential headers, as the gateway's scrub reads them
      'x-portkey-api-key', 'helicone-auth', 'cf-aig-authorization', 'x-authorization',
    ]) assert.equal(isSecretKey(k), true, k);
  });
  it('only whole names', () => {
    for (const k of ['authorization_mode', 'authorizations', 'apikeys', 'api--key', 'my_password', 'secret_santa', 'cookies', 'token', 'name', 'api.key']) {
      assert.equal(isSecretKey(k), false, k);
    }
  });
});

describe('redactSecrets', () => {
  it('secret-named fields go whatever their value; null and empty stay as they are', () => {
    const out = redactSecrets({ headers: { authorization: 'x', Cookie: { sid: 1 }, password: null, secret: '', accept: '*/*' }, n: 3, ok: true, none: null });
    assert.deepEqual(out, { headers: { authorization: REDACTED, Cookie: REDACTED, password: null, secret: '', accept: '*/*' }, n: 3, ok: true, none: null });
  });
  it('HAR {name, value} headers by name only; other name/value pairs are walked', () => {
    const out = redactSecrets([
      { name: 'X-API-Key', value: 'plainvalue' },
      { name: 'accept', value: `sk-${rep(20)}` },
      { name: 'note', value: 'hello world' },
      { name: 'Authorization', comment: 'no value field here' },
      { name: 7, value: 'seven' },
      { name: ['authorization'], value: 'not a header' },
    ]);
    assert.deepEqual(out, [
      { name: 'X-API-Key', value: REDACTED },
      { name: 'accept', value: REDACTED },
      { name: 'note', value: 'hello world' },
      { name: 'Authorization', comment: 'no value field here' },
      { name: 7, value: 'seven' },
      { name: ['authorization'], value: 'not a header' },
    ]);
  });
  it('does not change its input, and walks 200 levels deep', () => {
    const input = { a: [{ b: `sk-${rep(20)}` }] };
    const copy = structuredClone(input);
    redactSecrets(input);
    assert.deepEqual(input, copy);
    let deep: unknown = `sk-${rep(20)}`;
    for (let i = 0; i < 200; i++) deep = [deep];
    let v = redactSecrets(deep);
    for (let i = 0; i < 200; i++) v = (v as unknown[])[0];
    assert.equal(v, REDACTED);
  });
  it('a hostile record nested 100 000 levels deep does not overflow the stack', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    assert.doesNotThrow(() => redactSecrets(deep));
    let obj: unknown = 'x';
    for (let i = 0; i < 100_000; i++) obj = { a: obj };
    assert.doesNotThrow(() => redactSecrets(obj));
  });
});

describe('redactedJson (fast path) equals the deep redaction', () => {
  const dirty: unknown[] = [
    ...SECRETS.map((s) => ({ text: `see ${s}` })),
    { headers: { Authorization: 'Basic dXNlcjpodW50ZXIy' } },
    { headers: { 'x-goog-api-key': 'g00glekey' } },
    { request: { headers: [{ name: 'cookie', value: 'sid=1' }] } },
    { request: { headers: [{ name : 'Set-Cookie', value: 'sid=1' }] } },
    { url: 'https://x.example/v1?access_token=abc123' },
    { url: 'https://x.example/v1?x=1&auth=abc123' },
    { msg: 'Bearer abcdefgh1234' },
  ];
  it('a record with a secret: its text is re-serialized without it', () => {
    for (const v of dirty) {
      const source = ` ${JSON.stringify(v, null, 1)}\n`;
      const out = redactedJson(v, source);
      assert.equal(out, JSON.stringify(redactSecrets(v)), source);
      assert.notEqual(out, JSON.stringify(v), source);
    }
  });
  it("a clean record keeps the file's own text (trimmed), whitespace and key order included", () => {
    for (const v of [{ b: 1, a: 'hello' }, { name: 'accept', value: '*/*' }, { url: 'https://x.example/?q=key' }, ...NEAR_MISSES.map((s) => ({ t: s }))]) {
      const source = `\t${JSON.stringify(v, null, 2)}`;
      assert.equal(redactedJson(v, source), JSON.stringify(v, null, 2));
    }
    assert.equal(redactedJson({ a: 1 }), '{"a":1}');
    assert.equal(redactedJson(undefined), null);
  });
});

describe('redactMessage', () => {
  const key = `sk-proj-${rep(30)}`;
  it('returns the same object when nothing is secret', () => {
    const m: ChatMessage = { role: 'assistant', content: 'fine', reasoning: 'think', parts: '[]', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] };
    assert.equal(redactMessage(m), m);
    const plain: ChatMessage = { role: 'user', content: 'hello there, friend' };
    assert.equal(redactMessage(plain), plain);
  });
  it('any one dirty tool call is enough; clean tool calls are not copied when only the text is dirty', () => {
    const calls = [
      { id: 'a', type: 'function' as const, function: { name: 'f', arguments: '{}' } },
      { id: 'b', type: 'function' as const, function: { name: 'g', arguments: `{"k":"${key}"}` } },
    ];
    const r = redactMessage({ role: 'assistant', content: null, tool_calls: calls });
    assert.equal(r.tool_calls?.[1].function.arguments, `{"k":"${REDACTED}"}`);
    const clean = calls.slice(0, 1);
    const t = redactMessage({ role: 'assistant', content: `k ${key}`, tool_calls: clean });
    assert.equal(t.content, `k ${REDACTED}`);
    assert.equal(t.tool_calls, clean);
  });
  it('redacts each field on its own, leaving the others (and null content) as they are', () => {
    const call = (args: string) => [{ id: 'c', type: 'function' as const, function: { name: 'f', arguments: args } }];
    const only = (field: 'content' | 'reasoning' | 'parts' | 'args') => {
      const m: ChatMessage = { role: 'assistant', content: field === 'content' ? `k ${key}` : null, reasoning: field === 'reasoning' ? `k ${key}` : 'plain', parts: field === 'parts' ? `["${key}"]` : null, tool_calls: call(field === 'args' ? `{"k":"${key}"}` : '{"a":1}') };
      return { m, r: redactMessage(m) };
    };
    let { m, r } = only('content');
    assert.deepEqual(r, { ...m, content: `k ${REDACTED}` });
    ({ m, r } = only('reasoning'));
    assert.deepEqual(r, { ...m, reasoning: `k ${REDACTED}` });
    ({ m, r } = only('parts'));
    assert.deepEqual(r, { ...m, parts: `["${REDACTED}"]` });
    ({ m, r } = only('args'));
    assert.deepEqual(r, { ...m, tool_calls: call(`{"k":"${REDACTED}"}`) });
    assert.equal(m.tool_calls?.[0].function.arguments, `{"k":"${key}"}`, 'input untouched');
  });
});
