import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkBridgeRequest } from '../../src/agents/bridge-url';

const BASE = 'http://127.0.0.1:4173/workbench/';
const PREFIX = `${BASE}gateway/`;

/** URLs a sandboxed agent could post to the bridge to reach something other than the gateway's API. */
const ESCAPES: [string, string][] = [
  [`${PREFIX}../index.html`, 'GET'],
  [`${PREFIX}..`, 'GET'],
  [`${PREFIX}v1/../../index.html`, 'GET'],
  [`${PREFIX}v1/./../../assets/app.js`, 'GET'],
  [`${PREFIX}%2e%2e/index.html`, 'GET'],
  [`${PREFIX}%2E%2E/index.html`, 'GET'],
  [`${PREFIX}.%2e/index.html`, 'GET'],
  [`${PREFIX}%2e./index.html`, 'GET'],
  [`${PREFIX}v1/%2e%2e/%2e%2e/gateway-sw.js`, 'GET'],
  [`${PREFIX}v1/..%2f..%2findex.html`, 'GET'],
  [`${PREFIX}v1/..%2F..%2Findex.html`, 'GET'],
  [`${PREFIX}v1/%2e%2e%2f%2e%2e%2findex.html`, 'GET'],
  [`${PREFIX}v1/..%5c..%5cindex.html`, 'GET'],
  [`${PREFIX}v1\\..\\..\\index.html`, 'GET'],
  [`${PREFIX}v1/chat/completions%00`, 'POST'],
  [`${PREFIX}v1/chat/completions/../../../../other-app/api`, 'POST'],
  [`${PREFIX}v1/models/%2e%2e/%2e%2e/%2e%2e/index.html`, 'GET'],
  [`${BASE}index.html`, 'GET'],
  [`${BASE}gateway-sw.js`, 'GET'],
  [`${BASE}gatewayX/v1/chat/completions`, 'POST'],
  ['http://127.0.0.1:4173/other-app/gateway/v1/chat/completions', 'POST'],
  ['http://localhost:4173/workbench/gateway/v1/chat/completions', 'POST'],
  ['https://evil.example/workbench/gateway/v1/chat/completions', 'POST'],
  ['http://user:pass@127.0.0.1:4173/workbench/gateway/v1/chat/completions', 'POST'],
  ['/workbench/gateway/v1/chat/completions', 'POST'],
  [`${PREFIX}v1/chat/completions `, 'POST'],
  [`${PREFIX}v1/chat/completions\n`, 'POST'],
  [`${PREFIX}v1/embeddings`, 'POST'],
  [`${PREFIX}v1/files`, 'GET'],
  [`${PREFIX}v1/chat/completions`, 'GET'],
  [`${PREFIX}v1/chat/completions`, 'DELETE'],
  [`${PREFIX}v1/models`, 'POST'],
  [`${PREFIX}init_trajectory`, 'GET'],
  [`${PREFIX}t1/p1/v1/complete_trajectory`, 'PUT'],
];

describe('black-box bridge URL gate', () => {
  it('refuses every escape in the corpus, naming the reason', () => {
    for (const [url, method] of ESCAPES) {
      const r = checkBridgeRequest(url, method, PREFIX);
      assert.equal(r.ok, false, `${method} ${url} was let through`);
      if (!r.ok) assert.match(r.reason, /The sandbox can reach only the gateway's API/);
    }
  });

  it('admits the gateway API routes with their methods, unchanged', () => {
    const ok: [string, string][] = [
      [`${PREFIX}v1/chat/completions`, 'POST'],
      [`${PREFIX}v1/responses`, 'POST'],
      [`${PREFIX}v1/messages`, 'post'],
      [`${PREFIX}v1/models`, 'GET'],
      [`${PREFIX}v1/models/gpt-4o`, 'GET'],
      [`${PREFIX}init_trajectory`, 'POST'],
      [`${PREFIX}t-abc/math%2Fm1/v1/chat/completions`.replace('%2F', '-'), 'POST'],
      [`${PREFIX}t-abc/p1/v1/register_trajectory`, 'POST'],
      [`${PREFIX}t-abc/p1/v1/complete_trajectory`, 'POST'],
      [`${PREFIX}v1/chat/completions?api-version=2024-01-01`, 'POST'],
    ];
    for (const [url, method] of ok) {
      const r = checkBridgeRequest(url, method, PREFIX);
      assert.deepEqual(r, { ok: true, url }, `${method} ${url}`);
    }
    assert.deepEqual(checkBridgeRequest(`${PREFIX}v1/chat/completions#frag`, 'POST', PREFIX), { ok: true, url: `${PREFIX}v1/chat/completions` });
  });

  it('refuses what is not a string', () => {
    assert.equal(checkBridgeRequest({ toString: () => `${PREFIX}v1/models` }, 'GET', PREFIX).ok, false);
    assert.equal(checkBridgeRequest(`${PREFIX}v1/models`, null, PREFIX).ok, false);
  });

  it('the old check (a string prefix test) let the corpus through: each escape resolves outside the prefix', () => {
    // documents why the gate checks before resolving: the URL parser turns these into paths outside the gateway
    for (const u of [`${PREFIX}../index.html`, `${PREFIX}%2e%2e/index.html`, `${PREFIX}v1/%2e%2e/%2e%2e/gateway-sw.js`]) {
      assert.ok(u.startsWith(PREFIX));
      assert.ok(!new URL(u).pathname.startsWith('/workbench/gateway/'), u);
    }
  });
});
