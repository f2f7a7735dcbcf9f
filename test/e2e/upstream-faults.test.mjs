// Upstream faults through the gateway: 4xx, 5xx, network error, timeout, malformed SSE → error steps; the agent gets the error.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startApp, uniquePool, waitForQuery } from './harness.mjs';

let app;
let upstream;
let closedPort;

function faultyUpstream() {
  const server = createServer((req, res) => {
    const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': '*', 'access-control-allow-methods': 'POST, OPTIONS' };
    if (req.method === 'OPTIONS') return res.writeHead(204, cors).end();
    let text = '';
    req.on('data', (d) => (text += d));
    req.on('end', () => {
      const { model } = JSON.parse(text || '{}');
      if (model === 'f-400') return res.writeHead(400, { ...cors, 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'context_length_exceeded: too many tokens', type: 'invalid_request_error' } }));
      if (model === 'f-503') return res.writeHead(503, { ...cors, 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'overloaded' } }));
      if (model === 'f-hang') return; // never answers
      if (model === 'f-badsse') {
        res.writeHead(200, { ...cors, 'content-type': 'text/event-stream' });
        res.write('data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n');
        res.write('data: {this is not json\n\n');
        return res.end();
      }
      res.writeHead(404, cors).end();
    });
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok({ url: `http://127.0.0.1:${server.address().port}/v1`, close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) })));
}

before(async () => {
  app = await startApp();
  upstream = await faultyUpstream();
  const s = createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  closedPort = s.address().port;
  await new Promise((r) => s.close(r));
});
after(async () => {
  await app?.close();
  await upstream?.close();
});

describe('upstream faults', () => {
  it('4xx, 5xx, network error, timeout and malformed SSE become error steps; the agent gets the error', async () => {
    const page = await app.open(uniquePool('faults-up'));
    await page.evaluate(async ({ url, closed }) => {
      const s = await window.workbench.gatewaySettings();
      await window.workbench.setGatewaySettings({
        ...s,
        upstreams: [
          ...s.upstreams.filter((u) => !u.id.startsWith('f-')),
          { id: 'f-faulty', name: 'faulty', kind: 'openai', baseUrl: url, key: '', remember: false, models: ['f-*'], timeoutMs: 1500 },
          { id: 'f-down', name: 'down', kind: 'openai', baseUrl: `http://127.0.0.1:${closed}/v1`, key: '', remember: false, models: ['down'], timeoutMs: 1500 },
        ],
      });
    }, { url: upstream.url, closed: closedPort });
    const base = await page.evaluate(() => window.workbench.gatewayBaseUrl());
    const results = await page.evaluate(async (base) => {
      const call = async (model, stream = false) => {
        try {
          const res = await fetch(`${base}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: `case ${model}` }] }) });
          return { model, status: res.status, body: await res.text() };
        } catch (e) {
          return { model, status: -1, body: String(e) };
        }
      };
      return Promise.all([call('f-400'), call('f-503'), call('down'), call('f-hang'), call('f-badsse', true)]);
    }, base);
    const by = Object.fromEntries(results.map((r) => [r.model, r]));
    assert.equal(by['f-400'].status, 400);
    assert.match(by['f-400'].body, /context_length_exceeded/, 'the agent gets the upstream error unchanged');
    assert.equal(by['f-503'].status, 503);
    assert.ok(by.down.status >= 500, `network error → ${by.down.status}`);
    assert.equal(by['f-hang'].status, 504);
    assert.equal(by['f-badsse'].status, 200);
    assert.match(by['f-badsse'].body, /this is not json/, 'the stream reaches the agent as it was');
    const rows = await waitForQuery(
      page,
      `SELECT regexp_extract(messages[-1].content, 'case (\\S+)', 1) AS model, status, error FROM steps WHERE source = 'capture' ORDER BY model`,
      (r) => r.length >= 5,
      20000,
    );
    const steps = Object.fromEntries(rows.map((r) => [r.model, r]));
    for (const m of ['f-400', 'f-503', 'down', 'f-hang', 'f-badsse']) {
      assert.equal(steps[m]?.status, 'error', `${m}: ${JSON.stringify(steps[m])}`);
      assert.ok(steps[m].error, `${m} has an error text`);
    }
    await page.close();
  });
});
