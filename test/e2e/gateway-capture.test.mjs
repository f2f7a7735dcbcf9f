// The gateway end to end on the built app (dist/, as a user gets it): the agent worker through the
// service worker, hidden tabs, reload mid-run, a real OpenAI-compatible upstream on 127.0.0.1. The gateway's
// overhead is measured by `npm run bench` (bench/gateway.mjs), not here.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { startLocalUpstream } from '../fixtures/gateway/local-upstream.mjs';
import { startApp, uniquePool } from './harness.mjs';
import { scratchDir } from '../scratch.mjs';

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
 * One app page for every test after the first (the first needs none open): the page the first test opens again on its
 * pool. Each test tags its calls or filters by its agent or upstream; the reload mid-run comes last. 6 app boots → 2.
 */
let shared = null;

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

/** `promise`, or a failure saying `what` did not happen within `ms` (a hang detector, not a timing assertion). */
async function within(promise, ms, what) {
  let timer;
  try {
    return await Promise.race([promise, new Promise((_, fail) => { timer = setTimeout(() => fail(new Error(what)), ms); })]);
  } finally {
    clearTimeout(timer);
  }
}

const AGENT = { name: 'calculator-agent', system_prompt: 'Use the calculator.', model: 'mock', tools: ['calculator'], max_turns: 4, upstream: 'mock', task_set: 'math', reward: null, logprobs: true, temperature: null };
const TASKS = {
  name: 'math', data_source: 'math-small', reward: { type: 'numeric', tolerance: 1e-6 },
  tasks: [{ id: 'm1', prompt: 'What is 17 * 23?', answer: '391' }, { id: 'm2', prompt: 'What is (125 - 37) / 4?', answer: '22' }, { id: 'm3', prompt: 'What is 2^10 - 24?', answer: '1000' }],
};

// first, with no app page open: an open app page would take the bare page's capture into its own pool
test('capture needs no app page: a bare same-origin page under the base is captured, and the app replays it on start', async () => {
  const pool = uniquePool('gw-nopage');
  // a first visit of the app installs the gateway's service worker (registered at the start of its boot, beside the
  // pool): that page is closed once the worker is active, before its own pool (never used again) has finished starting
  const first = await browser.context.newPage();
  await first.goto(`${srv.url}?pool=${uniquePool('gw-first-visit')}`);
  await first.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
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
  // the app opened again on the pool: it replays the capture, and stays open for the tests below
  shared = await open(pool);
  const rows = await waitFor(shared, `SELECT status FROM steps WHERE messages[-1].content = '${tag}'`, (x) => x.length === 1);
  assert.equal(rows[0].status, 'ok');
});

test('the white-box agent in a worker, from a background tab: 4 rollouts per task → GRPO groups in the pool', async () => {
  const page = shared;
  const front = await browser.context.newPage();
  await front.goto('about:blank');
  await front.bringToFront();
  // Headless Chromium keeps background tabs "visible"; minimizing the window hides them for real.
  const cdp = await browser.context.newCDPSession(page);
  const { windowId } = await cdp.send('Browser.getWindowForTarget');
  await cdp.send('Browser.setWindowBounds', { windowId, bounds: { windowState: 'minimized' } });
  try {
    await page.waitForFunction(() => document.visibilityState === 'hidden', null, { timeout: 5000 }).catch(() => {});
    const visibility = await page.evaluate(() => document.visibilityState);
    console.log(`# agent tab visibility during the run: ${visibility}`);
    const res = await page.evaluate(({ agent, tasks }) => window.workbench.runAgent({ agent, tasks, rollouts: 4 }), { agent: AGENT, tasks: TASKS });
    assert.equal(res.trajectories.length, 12);
  } finally {
    // the page is shown again for the tests after this one
    await cdp.send('Browser.setWindowBounds', { windowId, bounds: { windowState: 'normal' } });
    await front.close();
  }
  const groups = await waitFor(page, `SELECT prompt_uid, count(DISTINCT trajectory_uid) AS n, sum(CASE WHEN is_last THEN reward END) AS reward_sum FROM steps WHERE source = 'capture' AND agent = 'calculator-agent' AND reward IS NOT NULL GROUP BY prompt_uid ORDER BY prompt_uid`, (r) => r.length === 3 && r.every((g) => g.n === 4));
  // seed 3 of every group skips the tool and answers off by one (the mock's scripted mistake): rewards 1,1,1,0.
  assert.deepEqual(groups.map((g) => [g.prompt_uid, g.n, g.reward_sum]), [['math/m1', 4, 3], ['math/m2', 4, 3], ['math/m3', 4, 3]]);
  const shape = await page.evaluate(() => window.workbench.query(`SELECT count(*) AS steps, count(DISTINCT trajectory_uid) AS trajs, sum(CASE WHEN is_last THEN 1 ELSE 0 END) AS lasts, min(len(rollout_log_probs)) AS lp, min(len(response_ids)) AS ids, max(step_index) AS max_index, count(DISTINCT channel) AS channels FROM steps WHERE agent = 'calculator-agent'`));
  assert.deepEqual(shape[0], { steps: 21, trajs: 12, lasts: 12, lp: 4, ids: 4, max_index: 1, channels: 1 });
  // the first call of every rollout but the scripted off-by-one one calls the calculator
  const tool = await page.evaluate(() => window.workbench.query(`SELECT response.tool_calls[1].function.name AS fn, metadata['data_source'] AS ds, count(*) AS n FROM steps WHERE agent = 'calculator-agent' AND step_index = 0 AND prompt_uid = 'math/m1' GROUP BY ALL ORDER BY fn NULLS LAST`));
  assert.deepEqual(tool, [{ fn: 'calculator', ds: 'math-small', n: 3 }, { fn: null, ds: 'math-small', n: 1 }]);
  await cdp.detach();

  // the run exports as GRPO-ready rl_steps that native DuckDB reads: a group per prompt, every trajectory with its
  // reward and a prompt (was test/e2e/gateway-app.test.mjs's own 4-rollout run of the built-in agent)
  assert.match(await page.evaluate(() => window.workbench.gatewayBaseUrl()), /\/workbench\/gateway\/v1$/);
  const blob = await page.evaluateHandle(() => window.workbench.exportDataset({ layout: 'rl_steps', format: 'parquet', where: "agent = 'calculator-agent'" }));
  const b64 = await page.evaluate(async (b) => {
    const buf = new Uint8Array(await b.arrayBuffer());
    let s = '';
    for (let i = 0; i < buf.length; i += 0x8000) s += String.fromCharCode(...buf.subarray(i, i + 0x8000));
    return btoa(s);
  }, blob);
  const file = join(scratchDir('aw-gw-'), 'rl_steps.parquet');
  writeFileSync(file, Buffer.from(b64, 'base64'));
  const conn = await (await DuckDBInstance.create(':memory:')).connect();
  const res = await conn.runAndReadAll(`SELECT count(DISTINCT prompt_uid) AS g, count(DISTINCT trajectory_uid) AS t, count(*) FILTER (WHERE reward IS NOT NULL) AS rewarded,
    bool_and(len(prompt) > 0) AS prompts FROM read_parquet('${file}')`);
  const [g, t, rewarded, prompts] = res.getRows()[0];
  assert.deepEqual([Number(g), Number(t), prompts], [3, 12, true]);
  assert.ok(Number(rewarded) >= 12, 'the final step of every trajectory has its reward');
});

test('a real OpenAI-compatible server on 127.0.0.1: key from settings, never stored; a stream is relayed as it comes', async () => {
  const page = shared;
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


  // streamed, not buffered: the first chunk reaches the page while the upstream still holds the rest of the stream
  // (the gateway's overhead, once measured here, is in `npm run bench`: bench/gateway.mjs)
  const first = page.evaluate(async () => {
    const res = await fetch(window.workbench.gatewayBaseUrl() + '/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'local-held', stream: true, messages: [{ role: 'user', content: 'held stream' }] }) });
    window.__held = res.body.getReader();
    return new TextDecoder().decode((await window.__held.read()).value);
  });
  assert.match(await within(first, 30000, 'no chunk reached the page while the upstream held the rest of the stream (buffered?)'), /"content":"Hello "/);
  assert.equal(upstream.holding(), 1, 'the upstream still holds the rest of the stream');
  upstream.release();
  const rest = await page.evaluate(async () => {
    let text = '';
    for (let r = await window.__held.read(); !r.done; r = await window.__held.read()) text += new TextDecoder().decode(r.value);
    return text;
  });
  assert.match(rest, /"content":"upstream"[\s\S]*\[DONE\]/);
});

test('a black-box agent in the sandbox reaches the gateway (streaming too) and nothing else', async () => {
  const page = shared;
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
  const page = shared;
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

// last: it reloads the shared page
test('a reload mid-run loses no finished call', async () => {
  const page = shared;
  const slow = { ...AGENT, name: 'slow-agent', model: 'mock-slow' };
  await page.evaluate(({ agent, tasks }) => { void window.workbench.runAgent({ agent, tasks, rollouts: 4 }).catch(() => {}); }, { agent: slow, tasks: TASKS });
  const t0 = Date.now();
  const slowEntries = async () => (await journal(page)).filter((e) => e.step.agent === 'slow-agent');
  let finished = [];
  while ((finished = (await slowEntries()).filter((e) => e.step.status === 'ok').map((e) => e.step_id)).length < 4) {
    assert.ok(Date.now() - t0 < 30000, 'the slow agent made no progress');
    await new Promise((r) => setTimeout(r, 100));
  }
  await page.reload();
  await page.waitForFunction(() => window.workbench?.ready !== undefined);
  await page.evaluate(() => window.workbench.ready);
  // the calls cut off by the reload are journaled (as aborted) after it: wait until the pool holds exactly what the
  // journal holds, read together each time (no fixed wait for the journal to settle)
  let journaled = [];
  let pooled = [];
  for (const t1 = Date.now(); ; await new Promise((r) => setTimeout(r, 150))) {
    journaled = (await slowEntries()).map((e) => e.step_id).sort();
    pooled = (await page.evaluate(() => window.workbench.query(`SELECT step_id FROM steps WHERE agent = 'slow-agent'`))).map((r) => r.step_id).sort();
    if (JSON.stringify(pooled) === JSON.stringify(journaled)) break;
    assert.ok(Date.now() - t1 < 30000, `the pool never held what the journal holds: ${JSON.stringify({ journaled, pooled })}`);
  }
  // every call finished before the reload is there
  assert.deepEqual(finished.filter((id) => !pooled.includes(id)), []);
  const aborted = (await slowEntries()).filter((e) => e.step.metadata?.aborted).length;
  console.log(`# reload mid-run: ${journaled.length} calls journaled, ${aborted} of them cut off by the reload (recorded as aborted)`);
});
