// The gateway's overhead (moved here from test/e2e/gateway-capture.test.mjs: a measurement, not a test): the same
// calls to a real OpenAI-compatible server on 127.0.0.1 direct (page → upstream) and through the gateway (page →
// service worker → upstream); medians of JSON calls, the first chunk of a stream and the whole stream, in ms.
import { startLocalUpstream } from '../test/fixtures/gateway/local-upstream.mjs';

/** On an app page (workbench ready): configure the local upstream, measure, return the medians. */
export async function gatewayOverhead(page, { json = 40, streams = 10 } = {}) {
  const upstream = await startLocalUpstream();
  try {
    await page.evaluate(async (url) => {
      const s = await window.workbench.gatewaySettings();
      await window.workbench.setGatewaySettings({ ...s, upstreams: [...s.upstreams.filter((u) => u.id !== 'local'), { id: 'local', name: 'local vLLM', kind: 'openai', baseUrl: url, key: 'sk-bench', remember: false, models: ['local*'] }] });
    }, upstream.url);
    return await page.evaluate(
      async ({ direct, json, streams }) => {
        const gw = window.workbench.gatewayBaseUrl();
        const body = (stream, model) => JSON.stringify({ model, stream, messages: [{ role: 'user', content: 'measure' }] });
        const headers = { 'content-type': 'application/json', authorization: 'Bearer x' };
        const p50 = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
        const one = async (base) => {
          const t = performance.now();
          await (await fetch(`${base}/chat/completions`, { method: 'POST', headers, body: body(false, 'local') })).json();
          return performance.now() - t;
        };
        const first = async (base) => {
          const t = performance.now();
          const res = await fetch(`${base}/chat/completions`, { method: 'POST', headers, body: body(true, 'local-slow') });
          const reader = res.body.getReader();
          await reader.read();
          const ttfc = performance.now() - t;
          while (!(await reader.read()).done);
          return { ttfc, total: performance.now() - t };
        };
        const out = { direct: [], gateway: [], directFirst: [], gatewayFirst: [], directTotal: [], gatewayTotal: [] };
        for (let i = 0; i < 5; i++) {
          await one(direct);
          await one(gw);
        }
        for (let i = 0; i < json; i++) {
          out.direct.push(await one(direct));
          out.gateway.push(await one(gw));
        }
        for (let i = 0; i < streams; i++) {
          const d = await first(direct);
          const g = await first(gw);
          out.directFirst.push(d.ttfc);
          out.gatewayFirst.push(g.ttfc);
          out.directTotal.push(d.total);
          out.gatewayTotal.push(g.total);
        }
        return { ...Object.fromEntries(Object.entries(out).map(([k, v]) => [k, p50(v)])), json, streams };
      },
      { direct: upstream.url, json, streams },
    );
  } finally {
    await upstream.close();
  }
}

/** One line for the bench's log. */
export function overheadLine(m) {
  return `gateway overhead p50 (ms): json direct ${m.direct.toFixed(1)}, via gateway ${m.gateway.toFixed(1)}, added ${(m.gateway - m.direct).toFixed(1)}; first chunk direct ${m.directFirst.toFixed(1)}, via gateway ${m.gatewayFirst.toFixed(1)}, added ${(m.gatewayFirst - m.directFirst).toFixed(1)}; stream total direct ${m.directTotal.toFixed(1)}, via gateway ${m.gatewayTotal.toFixed(1)}`;
}
