/**
 * The gateway's exact-value scrubbing (src/gateway/core/scrub.ts): which header values count as secrets
 * (every credential header, each auth scheme stripped, cookie values), their order, and every spelling a
 * captured record may hold them in. Written to kill mutants StrykerJS found.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scrubSecrets, secretsOf } from '../../src/gateway/core/scrub';
import { defaultSettings, type GatewaySettings } from '../../src/gateway/core/upstream';

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
