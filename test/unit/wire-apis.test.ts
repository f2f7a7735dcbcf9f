/**
 * One `Api` and one URL → API mapping (src/wire/apis.ts, decision 084): the gateway's routes, its mock upstream, the
 * Gateway tab and recorded-call import all resolve an API's path the same way, so a call captured and the same call
 * imported from a recording carry the same `metadata.api`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRoute } from '../../src/gateway/core/routes';
import { mockFetch } from '../../src/gateway/core/mock-upstream';
import { apiOf } from '../../src/ingest/normalizers/wire-call';
import { methodOf } from '../../src/views/gateway/calls';
import { Api, API_PATHS, apiOfPath, GATEWAY_APIS, gatewayApiAt } from '../../src/wire';

describe('wire/apis: one Api, one path table', () => {
  it('every API with a path is found again from it, whole or at the end of a URL (the longer path wins over the one it ends with)', () => {
    for (const [api, path] of Object.entries(API_PATHS)) {
      assert.equal(apiOfPath(path), api, path);
      assert.equal(apiOfPath(`https://api.example.com/v1/${path}?key=x#y`), api, path);
      assert.equal(apiOfPath(`https://api.example.com/v1/${path}/`), api, path);
    }
    assert.equal(apiOfPath('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse'), Api.gemini);
    assert.equal(apiOfPath('https://api.example.com/v1/chat/completions-archive'), null);
    assert.equal(apiOfPath('https://api.example.com/v1/embeddings'), null);
    assert.equal(apiOfPath(null), null);
  });

  it('the gateway routes each of its APIs at exactly its path, and nothing else', () => {
    for (const api of GATEWAY_APIS) {
      const route = parseRoute(`gateway/t1/p1/v1/${API_PATHS[api]}`, 'POST');
      assert.deepEqual(route.type === 'api' && [route.api, route.path], [api, API_PATHS[api]]);
      assert.equal(gatewayApiAt(API_PATHS[api]), api);
    }
    assert.equal(gatewayApiAt('completions'), null, 'legacy completions: imported, not routed');
    assert.equal(gatewayApiAt('x/chat/completions'), null);
    assert.equal(parseRoute('gateway/v1/completions', 'POST').type, 'unknown');
  });

  it('import, the mock upstream and the Gateway tab name a gateway API as the route does', async () => {
    for (const api of GATEWAY_APIS) {
      assert.equal(apiOf(`https://api.example.com/v1/${API_PATHS[api]}`, null), api);
      assert.equal(methodOf(api), `POST /v1/${API_PATHS[api]}`);
      const res = await mockFetch(api, JSON.stringify({ model: 'mock', messages: [{ role: 'user', content: 'hi' }], input: 'hi', max_tokens: 5 }));
      assert.equal(res.status, 200, `the mock answers ${api}`);
    }
    assert.equal(methodOf('openai-chat'), 'POST /v1/openai-chat', 'a value from an older import is shown as it is');
    assert.equal(methodOf(null), 'POST /v1/…');
    assert.equal(methodOf('constructor'), 'POST /v1/constructor');
  });
});
