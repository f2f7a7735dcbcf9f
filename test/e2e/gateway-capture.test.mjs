// The gateway end to end on the built app (dist/, as a user gets it): the agent worker through the
// service worker, hidden tabs, reload mid-run, a real OpenAI-compatible upstream on 127.0.0.1, and the
// gateway's overhead.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startLocalUpstream } from '../fixtures/gateway/local-upstream.mjs';
import { startApp, uniquePool } from './harness.mjs';

let app;
let srv;
let browser;
let upstream;

before(async () => {
  app = await startApp();
  srv = { url: app.url };
  browser = { context: app.context };
  upstream = await startLocalUpstream();
});

after(async () => {
  await shared?.close();
  await app?.close();
  await upstream?.close();
});

/**
 * One app page for the tests that need no fresh pool or reload of their own (the local upstream, the black-box
 * agent, the panel): each tags its calls and filters by its tag or upstream. Saves 2 app boots.
 */
let shared = null;
async function sharedPage() {
  shared ??= await open(uniquePool('gw-shared'));
  return shared;
}

async function open(pool, extra = '') {
  const page = await app.open(pool, extra);
  page.on('console', (m) => m.type() === 'error' && console.error('console:', m.text()));
  return page;
}

/** The capture journal (IndexedDB `aw-gateway`, store `journal`) as the page sees it. */
function journal(page) {
  return page.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const req = indexedDB.open('aw-gateway');
        req.onerror = () => reject(req.error);
        req.onsuccess = () => {
          const all = req.result.transaction('journal').objectStore('journal').getAll();
          all.onsuccess = () => {
            resolve(all.result);
            req.result.close();
          };
          all.onerror = () => reject(all.error);
        };
      }),
  );
}

async function waitFor(page, sql, ok, timeout = 30000) {
  const t0 = Date.now();
  for (;;) {
    const rows = await page.evaluate((q) => window.workbench.query(q), sql);
    if (ok(rows)) return rows;
    if (Date.now() - t0 > timeout) throw new Error(`timed out: ${sql} → ${JSON.stringify(rows).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const AGENT = { name: 'calculator-agent', system_prompt: 'Use the calculator.', model: 'mock', tools: ['calculator'], max_turns: 4, upstream: 'mock', task_set: 'math', reward: null, logprobs: true, temperature: null };
const TASKS = {
  name: 'math', data_source: 'math-small', reward: { type: 'numeric', tolerance: 1e-6 },
  tasks: [{ id: 'm1', prompt: 'What is 17 * 23?', answer: '391' }, { id: 'm2', prompt: 'What is (125 - 37) / 4?', answer: '22' }, { id: 'm3', prompt: 'What is 2^10 - 24?', answer: '1000' }],
};

test('the white-box agent in a worker, from a background tab: 4 rollouts per task → GRPO groups in the pool', async () => {
  const page = await open(uniquePool('gw-agent'));
  const front = await browser.context.newPage();
  await front.goto('about:blank');
  await front.bringToFront();
  // Headless Chromium keeps background tabs "visible"; minimizing the window hides them for real.
  const cdp = await browser.context.newCDPSession(page);
  const { windowId } = await cdp.send('Browser.getWindowForTarget');
  await cdp.send('Browser.setWindowBounds', { windowId, bounds: { windowState: 'minimized' } });
  await page.waitForFunction(() => document.visibilityState === 'hidden', null, { timeout: 5000 }).catch(() => {});
  const visibility = await page.evaluate(() => document.visibilityState);
  console.log(`# agent tab visibility during the run: ${visibility}`);
  const res = await page.evaluate(({ agent, tasks }) => window.workbench.runAgent({ agent, tasks, rollouts: 4 }), { agent: AGENT, tasks: TASKS });
  assert.equal(res.trajectories.length, 12);
  const groups = await waitFor(page, `SELECT prompt_uid, count(DISTINCT trajectory_uid) AS n, sum(CASE WHEN is_last THEN reward END) AS reward_sum FROM steps WHERE source = 'capture' AND agent = 'calculator-agent' AND reward IS NOT NULL GROUP BY prompt_uid ORDER BY prompt_uid`, (r) => r.length === 3 && r.every((g) => g.n === 4));
  // seed 3 of every group skips the tool and answers off by one (the mock's scripted mistake): rewards 1,1,1,0.
  assert.deepEqual(groups.map((g) => [g.prompt_uid, g.n, g.reward_sum]), [['math/m1', 4, 3], ['math/m2', 4, 3], ['math/m3', 4, 3]]);
  const shape = await page.evaluate(() => window.workbench.query(`SELECT count(*) AS steps, count(DISTINCT trajectory_uid) AS trajs, sum(CASE WHEN is_last THEN 1 ELSE 0 END) AS lasts, min(len(rollout_log_probs)) AS lp, min(len(response_ids)) AS ids, max(step_index) AS max_index, count(DISTINCT channel) AS channels FROM steps WHERE agent = 'calculator-agent'`));
  assert.deepEqual(shape[0], { steps: 21, trajs: 12, lasts: 12, lp: 4, ids: 4, max_index: 1, channels: 1 });
  // the first call of every rollout but the scripted off-by-one one calls the calculator
  const tool = await page.evaluate(() => window.workbench.query(`SELECT response.tool_calls[1].function.name AS fn, metadata['data_source'] AS ds, count(*) AS n FROM steps WHERE agent = 'calculator-agent' AND step_index = 0 AND prompt_uid = 'math/m1' GROUP BY ALL ORDER BY fn NULLS LAST`));
  assert.deepEqual(tool, [{ fn: 'calculator', ds: 'math-small', n: 3 }, { fn: null, ds: 'math-small', n: 1 }]);
  await cdp.send('Browser.setWindowBounds', { windowId, bounds: { windowState: 'normal' } });
  await front.close();
  await page.close();
});

test('a reload mid-run loses no finished call', async () => {
  const page = await open(uniquePool('gw-reload'));
  const slow = { ...AGENT, name: 'slow-agent', model: 'mock-slow' };
  await page.evaluate(({ agent, tasks }) => { void window.workbench.runAgent({ agent, tasks, rollouts: 4 }).catch(() => {}); }, { agent: slow, tasks: TASKS });
  const t0 = Date.now();
  while ((await journal(page)).filter((e) => e.step.agent === 'slow-agent' && e.step.status === 'ok').length < 4) {
    assert.ok(Date.now() - t0 < 30000, 'the slow agent made no progress');
    await new Promise((r) => setTimeout(r, 100));
  }
  await page.reload();
  await page.waitForFunction(() => window.workbench?.ready !== undefined);
  await page.evaluate(() => window.workbench.ready);
  await new Promise((r) => setTimeout(r, 1500));
  const journaled = (await journal(page)).filter((e) => e.step.agent === 'slow-agent').map((e) => e.step_id).sort();
  assert.ok(journaled.length >= 4);
  const aborted = (await journal(page)).filter((e) => e.step.agent === 'slow-agent' && e.step.metadata?.aborted).length;
  console.log(`# reload mid-run: ${journaled.length} calls journaled, ${aborted} of them cut off by the reload (recorded as aborted)`);
  const pooled = await waitFor(page, `SELECT step_id FROM steps WHERE agent = 'slow-agent' ORDER BY step_id`, (r) => r.length >= journaled.length);
  assert.deepEqual(pooled.map((r) => r.step_id).sort(), journaled);
  await page.close();
});

// before the shared page opens: an open app page would take the bare page's capture into its own pool
test('capture needs no app page: a bare same-origin page under the base is captured, and the app replays it on start', async () => {
  const pool = uniquePool('gw-nopage');
  const first = await open(pool);
  await first.close();
  const bare = await browser.context.newPage();
  await bare.goto(`${srv.url}some/agent/page.html`);
  assert.equal(await bare.evaluate(() => !!navigator.serviceWorker.controller), true);
  const tag = `no page open ${Date.now()}`;
  const r = await bare.evaluate(async ({ base, tag }) => {
    const res = await fetch(`${base}gateway/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'mock', messages: [{ role: 'user', content: tag }] }) });
    return res.status;
  }, { base: srv.url, tag });
  assert.equal(r, 200);
  await bare.close();
  const again = await open(pool);
  const rows = await waitFor(again, `SELECT status FROM steps WHERE messages[-1].content = '${tag}'`, (x) => x.length === 1);
  assert.equal(rows[0].status, 'ok');
  await again.close();
});

test('a real OpenAI-compatible server on 127.0.0.1: key from settings, never stored; and the gateway overhead', async () => {
  const page = await sharedPage();
  const KEY = 'sk-local-SECRETSECRETSECRET9876';
  await page.evaluate(async ({ url, key }) => {
    const s = await window.workbench.gatewaySettings();
    await window.workbench.setGatewaySettings({ ...s, upstreams: [...s.upstreams.filter((u) => u.id !== 'local'), { id: 'local', name: 'local vLLM', kind: 'openai', baseUrl: url, key, remember: false, models: ['local*'] }] });
  }, { url: upstream.url, key: KEY });
  const r = await page.evaluate(async () => {
    const res = await fetch(window.workbench.gatewayBaseUrl() + '/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer agent-key-not-used' }, body: JSON.stringify({ model: 'local', messages: [{ role: 'user', content: 'hi local' }] }) });
    return { status: res.status, body: await res.json() };
  });
  assert.equal(r.status, 200);
  assert.equal(r.body.choices[0].message.content, 'Hello from the local upstream.');
  assert.equal(upstream.seen.at(-1).authorization, `Bearer ${KEY}`);
  const stored = await waitFor(page, `SELECT provider, model, response_text, raw, metadata['upstream'] AS up FROM steps WHERE metadata['upstream'] = 'local'`, (x) => x.length >= 1);
  assert.equal(stored[0].response_text, 'Hello from the local upstream.');
  const journaled = JSON.stringify(await journal(page));
  assert.ok(!journaled.includes('SECRETSECRET') && !journaled.includes('agent-key-not-used'));
  assert.ok(!JSON.stringify(stored).includes('SECRETSECRET'));

  // Overhead: the same calls direct (page → upstream) and through the gateway (page → service worker → upstream).
  const m = await page.evaluate(async (direct) => {
    const gw = window.workbench.gatewayBaseUrl();
    const body = (stream, model) => JSON.stringify({ model, stream, messages: [{ role: 'user', content: 'measure' }] });
    const headers = { 'content-type': 'application/json', authorization: 'Bearer x' };
    const p50 = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const json = async (base) => {
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
    for (let i = 0; i < 5; i++) { await json(direct); await json(gw); }
    for (let i = 0; i < 40; i++) { out.direct.push(await json(direct)); out.gateway.push(await json(gw)); }
    for (let i = 0; i < 10; i++) {
      const d = await first(direct); const g = await first(gw);
      out.directFirst.push(d.ttfc); out.gatewayFirst.push(g.ttfc); out.directTotal.push(d.total); out.gatewayTotal.push(g.total);
    }
    return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, p50(v)]));
  }, upstream.url);
  console.log(`# overhead p50 (ms): json direct ${m.direct.toFixed(1)}, via gateway ${m.gateway.toFixed(1)}, added ${(m.gateway - m.direct).toFixed(1)}; first chunk direct ${m.directFirst.toFixed(1)}, via gateway ${m.gatewayFirst.toFixed(1)}, added ${(m.gatewayFirst - m.directFirst).toFixed(1)}; stream total direct ${m.directTotal.toFixed(1)}, via gateway ${m.gatewayTotal.toFixed(1)}`);
  assert.ok(m.gatewayFirst < m.gatewayTotal - 300, 'first chunk must arrive before the upstream finishes');
});

test('a black-box agent in the sandbox reaches the gateway (streaming too) and nothing else', async () => {
  const page = await sharedPage();
  const tag = `black box ${Date.now()}`;
  const code = `
    export default async function ({ baseUrl, input }) {
      const post = (body) => fetch(baseUrl + '/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const json = await (await post({ model: 'mock', messages: [{ role: 'user', content: input.tag }] })).json();
      const res = await post({ model: 'mock-slow', stream: true, messages: [{ role: 'user', content: input.tag + ' stream' }] });
      const reader = res.body.getReader(); let chunks = 0; while (!(await reader.read()).done) chunks++;
      const outside = await fetch('https://example.com/steal').then(() => 'reached', (e) => 'refused: ' + e.message);
      const origin = await fetch(new URL('../../notebooks/tasks/math.json', baseUrl).href).then(() => 'reached', (e) => 'refused: ' + e.message);
      let idb = 'refused';
      try { indexedDB.open('aw-gateway'); idb = 'opened'; } catch (e) { idb = 'refused: ' + e.name; }
      return { text: json.choices[0].message.content, chunks, outside, origin, idb, origin_seen: self.origin };
    }`;
  const r = await page.evaluate(({ code, tag }) => window.workbench.runBlackBox({ code }, { tag }), { code, tag });
  assert.match(r.text, /mock model answering: black box/);
  assert.ok(r.chunks > 3, 'the stream reached the sandbox in chunks');
  assert.match(r.outside, /^refused: The sandbox can reach only the gateway/);
  assert.match(r.origin, /^refused/);
  assert.match(r.idb, /^refused/);
  assert.equal(r.origin_seen, 'null');
  const rows = await waitFor(page, `SELECT count(*) AS n FROM steps WHERE messages[-1].content LIKE '${tag}%'`, (x) => x[0].n === 2);
  assert.equal(rows[0].n, 2);
});

test('the <aw-gateway> panel: live status strip, and the CORS hint when an upstream cannot be reached', async () => {
  const page = await sharedPage();
  await page.evaluate(() => document.querySelector('aw-app').selectTab('gateway'));
  const panel = page.locator('aw-gateway');
  await panel.getByRole('button', { name: 'Add upstream' }).click();
  await panel.getByLabel('Upstream base URL').fill('http://127.0.0.1:9/v1');
  await panel.getByRole('button', { name: 'Test connection' }).click();
  await panel.getByRole('alert').filter({ hasText: 'OLLAMA_ORIGINS' }).waitFor({ timeout: 10000 });
  assert.match(await panel.getByRole('alert').filter({ hasText: 'OLLAMA_ORIGINS' }).first().textContent(), /--allowed-origins/);
  await page.evaluate(async () => {
    for (let i = 0; i < 3; i++) await fetch(window.workbench.gatewayBaseUrl() + '/chat/completions', { method: 'POST', body: JSON.stringify({ model: 'mock', messages: [{ role: 'user', content: `panel ${i}` }] }) });
  });
  await page.waitForFunction(() => /([3-9]|\d\d+) calls\/min/.test(document.querySelector('aw-app').shadowRoot.querySelector('aw-gateway').shadowRoot.textContent), null, { timeout: 5000 });
});
