
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scrubSecrets, secretsOf } from '../../src/gateway/core/scrub';
import { callToStep } from '../../src/gateway/core/to-step';
import { defaultSettings, type GatewaySettings } from '../../src/gateway/core/upstream';

// not key-shaped: only exact-value scrubbing removes them
const KEY = 'vllm-local-Key-0123456789';
const OTHER = 'second-upstream-secret-42';
const AGENT = 'agent-Token-Value-fedcba98';
const settings: GatewaySettings = {
  ...defaultSettings(),
  upstreams: [
    ...defaultSettings().upstreams,
    { id: 'a', name: 'a', kind: 'openai', baseUrl: 'http://x/v1', key: KEY, remember: false, models: ['*'] },
    { id: 'b', name: 'b', kind: 'anthropic', baseUrl: 'http://y', key: OTHER, remember: true, models: [] },
    { id: 'c', name: 'c', kind: 'openai', baseUrl: 'http://z/v1', key: 'short', remember: false, models: [] },
  ],
};

describe('gateway secret scrubbing', () => {
  it('collects configured keys and credential headers, with and without their scheme', () => {
    const headers = new Headers({ authorization: `Bearer ${AGENT}`, 'x-api-key': 'xkey-0123456789', 'content-type': 'application/json', 'x-aw-upstream': 'a-long-upstream-name' });
    const s = secretsOf(settings, headers);
    for (const v of [KEY, OTHER, `Bearer ${AGENT}`, AGENT, 'xkey-0123456789']) assert.ok(s.includes(v), v);
    assert.ok(!s.includes('short'), 'values under 8 characters are not secrets');
    assert.ok(!s.includes('application/json') && !s.includes('a-long-upstream-name'), 'only credential headers');
    assert.ok(secretsOf(null, [['Authorization', 'Basic dXNlcjpwYXNzd29yZA==']]).includes('dXNlcjpwYXNzd29yZA=='));
  });

  it('removes every spelling of every secret from a captured call record, everywhere', () => {
    const secrets = secretsOf(settings, new Headers({ authorization: `Bearer ${AGENT}` }));
    const step = callToStep({
      trajectory_uid: 't', prompt_uid: 'p', step_index: 0, api: 'chat', provider: 'openai', upstream: 'a', stream: false, model: 'm',
      messages: [{ role: 'user', content: `my token is ${AGENT}` }], tools: null,
      request: { model: 'm', note: `quoted "${KEY}"`, url: `http://x/?k=${encodeURIComponent(KEY)}` },
      responseBody: { error: { message: `Incorrect API key provided: ${KEY}.` }, echo: JSON.stringify({ k: OTHER }) },
      assembled: { message: { role: 'assistant', content: `echo ${OTHER} and ${AGENT}` }, model: 'm', finish_reason: 'stop' } as never,
      http_status: 401, error: `upstream HTTP 401: Incorrect API key provided: ${KEY}.`, aborted: false,
      started_at: 0, ended_at: 0, latency_ms: 0, ttft_ms: null, state: { trajectory_uid: 't', prompt_uid: 'p', next_index: 1, channel: 'train', agent: null, upstream: null, metadata: { note: KEY }, created_at: 0, completed: null },
    });
    const before = JSON.stringify(step);
    for (const k of [KEY, OTHER, AGENT]) assert.ok(before.includes(k), `the unscrubbed record holds ${k}`);
    const clean = scrubSecrets(step, secrets);
    const text = JSON.stringify(clean);
    for (const k of [KEY, OTHER, AGENT]) assert.ok(!text.includes(k), `scrubbed record still holds ${k}`);
    assert.equal(clean.error, 'upstream HTTP 401: Incorrect API key provided: [redacted].');
    assert.equal(clean.response_text, 'echo [redacted] and [redacted]');
    assert.equal(clean.messages[0].content, 'my token is [redacted]');
    assert.equal(clean.metadata?.note, '[redacted]');
    const raw = JSON.parse(clean.raw ?? '{}');
    assert.equal(raw.request.note, 'quoted "[redacted]"');
    assert.equal(raw.response.error.message, 'Incorrect API key provided: [redacted].');
    assert.equal(raw.response.echo, JSON.stringify({ k: '[redacted]' }));
    // the record is otherwise unchanged
    assert.equal(clean.step_id, step.step_id);
    assert.equal(clean.status, 'error');
  });

  it('removes the key encoded as base64, base64url and hex, alone or at any offset inside a longer encoding', () => {
    const bytes = (s: string) => new TextEncoder().encode(s);
    const b64 = (s: string) => Buffer.from(bytes(s)).toString('base64');
    const b64url = (s: string) => Buffer.from(bytes(s)).toString('base64url');
    const hex = (s: string) => Buffer.from(bytes(s)).toString('hex');
    const secrets = secretsOf(settings, []);
    // an echo server that returns the request it got, encoded: the key sits at byte offsets 0, 1 and 2 of a block of three
    const echoes = ['', 'a', 'ab', 'abc'].flatMap((pre) => [
      `${pre}${KEY}`, `Authorization: Bearer ${KEY}`, `{"key":"${pre}${KEY}","n":1}`,
    ]);
    for (const plain of echoes) {
      for (const [name, enc] of [['base64', b64], ['base64url', b64url], ['hex', hex], ['HEX', (s: string) => hex(s).toUpperCase()]] as const) {
        const encoded = enc(plain);
        const clean = scrubSecrets({ echo: encoded, inText: `the upstream said ${encoded}.` }, secrets);
        const text = JSON.stringify(clean);
        assert.ok(text.includes('[redacted]'), `${name} of ${JSON.stringify(plain)} is scrubbed: ${text}`);
        for (const v of Object.values(clean)) {
          // whatever is left cannot be decoded back to the key
          const left = v.replace(/\[redacted\]/g, '');
          for (const dec of [Buffer.from(left, 'base64').toString('latin1'), Buffer.from(left, 'base64url').toString('latin1'), Buffer.from(left.replace(/[^0-9a-f]/gi, ''), 'hex').toString('latin1')]) {
            assert.ok(!dec.includes(KEY.slice(2, -2)), `${name}: ${JSON.stringify(left)} still decodes to the key`);
          }
        }
      }
    }
    // ordinary base64 and hex next to it stay as they are
    const other = b64('an ordinary attachment, nothing secret');
    assert.equal(scrubSecrets(other, secrets), other);
    assert.equal(scrubSecrets(hex('nothing secret here'), secrets), hex('nothing secret here'));
  });

  it('also applies the generic redaction (key-shaped strings) and leaves clean values alone', () => {
    assert.equal(scrubSecrets('sk-proj-ABCDEFGHIJKLMNOPQRSTUV in text', []), '[redacted] in text');
    assert.deepEqual(scrubSecrets({ a: 'nothing secret here', n: [1, 2, 3] }, [KEY]), { a: 'nothing secret here', n: [1, 2, 3] });
  });
});

const R = '[redacted]';
const withKeys = (...keys: (string | null)[]): GatewaySettings => ({
  ...defaultSettings(),
  upstreams: keys.map((key, i) => ({ id: `u${i}`, name: `u${i}`, kind: 'openai' as const, baseUrl: 'http://x/v1', key, remember: false, models: [] })),
});

describe('secretsOf', () => {
  it('every credential header, the value with and without its scheme, longest first', () => {
    const got = secretsOf(null, [
      ['Authorization', 'Bearer agent-tok-0001'],
      ['Proxy-Authorization', 'Basic cHJveHk6cGFzcw=='],
      ['X-Api-Key', 'xapikey-0002'],
      ['api-key', 'azurekey-0003'],
      ['x-goog-api-key', 'googkey-0004'],
      ['X-Auth-Token', 'Token authtok-0005'],
      ['content-type', 'application/json'],
      ['x-authorization-hint', 'not-a-secret-0006'],
      ['authorization-x', 'not-a-secret-0007'],
    ]);
    assert.deepEqual(got, [
      'Basic cHJveHk6cGFzcw==',
      'Bearer agent-tok-0001',
      'Token authtok-0005',
      'cHJveHk6cGFzcw==',
      'agent-tok-0001',
      'azurekey-0003',
      'xapikey-0002',
      'googkey-0004',
      'authtok-0005',
    ]);
  });

  it('vendor-prefixed credential headers of AI gateways count too (x-portkey-api-key, helicone-auth)', () => {
    const got = secretsOf(null, [
      ['x-portkey-api-key', 'pk-live-0123456789'],
      ['Helicone-Auth', 'Bearer helicone-key-0001'],
      ['cf-aig-authorization', 'Bearer cf-gateway-token-1'],
      ['x-authorization-hint', 'not-a-secret-0006'],
      ['x-monkey', 'not-a-secret-0009'],
    ]);
    for (const v of ['pk-live-0123456789', 'helicone-key-0001', 'cf-gateway-token-1']) assert.ok(got.includes(v), `${v}: ${JSON.stringify(got)}`);
    assert.ok(!got.some((v) => v.startsWith('not-a-secret')), JSON.stringify(got));
  });

  it('each scheme is stripped, whatever its case and spacing', () => {
    for (const scheme of ['Bearer', 'basic', 'TOKEN', 'Bot', 'ApiKey', 'Key']) {
      const got = secretsOf(null, [['authorization', `  ${scheme}   opaque-value-99`]]);
      assert.ok(got.includes('opaque-value-99'), `${scheme}: ${JSON.stringify(got)}`);
      assert.ok(got.includes(`${scheme}   opaque-value-99`), `${scheme}: trimmed whole value ${JSON.stringify(got)}`);
    }
    assert.deepEqual(secretsOf(null, [['authorization', 'Bearerless-token-1']]), ['Bearerless-token-1']);
    assert.deepEqual(secretsOf(null, [['authorization', 'x Bearer inner-token-1']]), ['x Bearer inner-token-1']);
  });

  it('cookie values (each pair, "=" inside a value kept), not their names', () => {
    const got = secretsOf(null, [['Cookie', 'sid=abcdefgh1234; theme=dark; tok=YWJjZGVmZ2g=; session_identifier_name']]);
    assert.deepEqual(got, ['sid=abcdefgh1234; theme=dark; tok=YWJjZGVmZ2g=; session_identifier_name', 'abcdefgh1234', 'YWJjZGVmZ2g=']);
    assert.deepEqual(secretsOf(null, [['x-api-key', 'k=v12345678;z=other-value']]), ['k=v12345678;z=other-value']);
  });

  it('equal lengths keep their order; configured keys of 8 characters or more, trimmed; none and blanks ignored', () => {
    assert.deepEqual(secretsOf(withKeys('exactly8', 'seven77', null, '', '  padded-key-1  '), new Headers()), ['padded-key-1', 'exactly8']);
    assert.deepEqual(secretsOf(null, new Headers({ authorization: 'Bearer abc' })), ['Bearer abc']);
    assert.deepEqual(secretsOf(null, new Headers({ 'X-Api-Key': 'hdrkey-0001' })), ['hdrkey-0001']);
  });
});

describe('scrubSecrets', () => {
  it('a longer secret is removed whole even when a shorter one is inside it', () => {
    const secrets = secretsOf(withKeys('abcdefgh', 'abcdefgh-and-more'), []);
    assert.equal(scrubSecrets('k=abcdefgh-and-more;j=abcdefgh', secrets), `k=${R};j=${R}`);
  });

  it('plain, JSON-escaped, doubly escaped and URL-encoded spellings; keys of objects too', () => {
    const secret = 'pa"ss\\w/rd+key&1';
    const json = JSON.stringify(secret).slice(1, -1);
    const twice = JSON.stringify(json).slice(1, -1);
    const value = {
      plain: `got ${secret}`,
      body: JSON.stringify({ key: secret }),
      raw: JSON.stringify({ body: JSON.stringify({ key: secret }) }),
      url: `http://x/?q=${encodeURIComponent(secret)}`,
      [secret]: 1,
      list: [null, 3, true, `x${secret}x`],
      nothing: null,
    };
    const out = scrubSecrets(value, [secret]);
    assert.deepEqual(out, {
      plain: `got ${R}`,
      body: `{"key":"${R}"}`,
      raw: `{"body":"{\\"key\\":\\"${R}\\"}"}`,
      url: `http://x/?q=${R}`,
      [R]: 1,
      list: [null, 3, true, `x${R}x`],
      nothing: null,
    });
    assert.ok(json !== secret && twice !== json);
    assert.equal(value.plain, `got ${secret}`, 'input untouched');
  });

  it('secrets under 8 characters are not scrubbed (they would remove ordinary words)', () => {
    assert.deepEqual(scrubSecrets({ a: 'the model said hello' }, ['hello', 'model']), { a: 'the model said hello' });
  });

  it('walks 200 levels deep', () => {
    let deep: unknown = 'leak opaque-secret-1';
    for (let i = 0; i < 200; i++) deep = [deep];
    let v = scrubSecrets(deep, ['opaque-secret-1']);
    for (let i = 0; i < 200; i++) v = (v as unknown[])[0];
    assert.equal(v, `leak ${R}`);
  });

  it('a record nested 100 000 levels deep does not overflow the stack', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    assert.doesNotThrow(() => scrubSecrets(deep, ['opaque-secret-1']));
    let list: unknown = 'x';
    for (let i = 0; i < 100_000; i++) list = [list];
    assert.doesNotThrow(() => scrubSecrets(list, ['opaque-secret-1']));
  });
});
