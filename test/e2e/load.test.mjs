// 50 concurrent streaming calls through the gateway: all complete, none lost, none mixed up.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, uniquePool, waitForQuery } from './harness.mjs';

let app;
before(async () => {
  app = await startApp();
});
after(async () => {
  await app?.close();
});

describe('load', () => {
  it('50 concurrent streaming calls all complete and each step answers its own request', async () => {
    const page = await app.open(uniquePool('load'));
    const base = await page.evaluate(() => window.workbench.gatewayBaseUrl());
    const N = 50;
    const got = await page.evaluate(
      async ({ base, N }) => {
        const one = async (i) => {
          const res = await fetch(`${base}/chat/completions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'mock-slow', stream: true, messages: [{ role: 'user', content: `marker-${i} please reply` }] }),
          });
          const text = await res.text();
          const content = text
            .split('\n')
            .filter((l) => l.startsWith('data: ') && !l.includes('[DONE]'))
            .map((l) => JSON.parse(l.slice(6)).choices?.[0]?.delta?.content ?? '')
            .join('');
          return { i, status: res.status, content };
        };
        return Promise.all(Array.from({ length: N }, (_, i) => one(i)));
      },
      { base, N },
    );
    assert.equal(got.length, N);
    for (const g of got) {
      assert.equal(g.status, 200);
      assert.match(g.content, new RegExp(`marker-${g.i}\\b`), `stream ${g.i} got its own answer`);
    }
    const rows = await waitForQuery(
      page,
      `SELECT regexp_extract(messages[-1].content, 'marker-(\\d+)', 1) AS req, regexp_extract(response.content, 'marker-(\\d+)', 1) AS res, status
       FROM steps WHERE source = 'capture' AND messages[-1].content LIKE 'marker-%'`,
      (r) => r.length >= N,
      30000,
    );
    assert.equal(rows.length, N, 'one step per call, none twice');
    assert.deepEqual(new Set(rows.map((r) => r.req)).size, N);
    for (const r of rows) {
      assert.equal(r.res, r.req, 'each step pairs its request with its response');
      assert.equal(r.status, 'ok');
    }
    await page.close();
  });
});
