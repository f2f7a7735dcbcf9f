// The gateway under attack, on the built app served under /workbench/ on 127.0.0.1, with a hostile
// page on a second origin (http://localhost:<port>): cross-site navigations that would drive the
// gateway, a sandboxed agent that tries to leave the gateway prefix through the bridge, an upstream
// that echoes the key back, and client aborts that must reach the upstream.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { tableFromIPC } from 'apache-arrow';
import { readParquet } from 'parquet-wasm';
import { browserFor, freshOrigin } from './harness.mjs';

const DIST = process.env.AW_DIST ?? 'dist';
// Not key-shaped on purpose: only exact-value scrubbing can catch these.
const KEY = 'local-Secret-Value-0123456789abcdef';
const AGENT_TOKEN = 'agent-Token-Value-fedcba9876543210';

let srv;
let browser;
let upstream;
let hostile;

/** A test upstream (CORS for any origin) that records what reached it and when a client went away. */
function testUpstream() {
  const seen = [];
  const closed = [];
  const server = createServer((req, res) => {
    const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': '*', 'access-control-allow-methods': 'GET, POST, OPTIONS' };
    if (req.method === 'OPTIONS') return res.writeHead(204, cors).end();
    let text = '';
    req.on('data', (d) => (text += d));
    req.on('end', async () => {
      const auth = req.headers.authorization ?? '';
      const token = auth.replace(/^Bearer\s+/i, '');
      let body = {};
      try {
        body = JSON.parse(text || '{}');
      } catch {}
      const entry = { url: req.url, authorization: auth, body: text, model: body.model, at: Date.now(), closedAt: null };
      seen.push(entry);
      res.on('close', () => {
        if (!res.writableEnded) {
          entry.closedAt = Date.now();
          closed.push(entry);
        }
      });
      const base = { id: 'chatcmpl-t', created: 1, model: body.model };
      const answer = (content) => {
        res.writeHead(200, { ...cors, 'content-type': 'application/json' });
        res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] }));
      };
      switch (body.model) {
        case 'echo-401':
          res.writeHead(401, { ...cors, 'content-type': 'application/json' });
          return res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${token}. You can find your API key at https://example.invalid.`, type: 'invalid_request_error', raw_header: auth } }));
        case 'echo':
          return answer(`debug echo: authorization=${auth} token=${token} body=${text}`);
        case 'echo-stream': {
          res.writeHead(200, { ...cors, 'content-type': 'text/event-stream' });
          // the key spelled across several deltas: no single chunk holds it, the assembled text does
          const parts = ['your key: ', token.slice(0, 7), token.slice(7, 19), token.slice(19), ' (echoed)'];
          for (const [i, p] of parts.entries()) res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: i ? { content: p } : { role: 'assistant', content: p }, finish_reason: null }] })}\n\n`);
          res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`);
          return res.end();
        }
        case 'utf8-stream': {
          // non-ASCII text in 2-byte network chunks: every 3-byte character is split across two writes
          res.writeHead(200, { ...cors, 'content-type': 'text/event-stream' });
          const sse = ['数据', '工厂', ' ok']
            .map((w, i) => `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: i ? { content: w } : { role: 'assistant', content: w }, finish_reason: null }] })}\n\n`)
            .join('');
          const bytes = Buffer.from(`${sse}data: [DONE]\n\n`);
          const cuts = [...sse.matchAll(/[数据工厂]/g)].map((m) => Buffer.byteLength(sse.slice(0, m.index)) + 1);
          let at = 0;
          for (const cut of [...cuts, bytes.length]) {
            res.write(bytes.subarray(at, cut));
            at = cut;
            await new Promise((r) => setTimeout(r, 15));
          }
          return res.end();
        }
        case 'slow-json':
          // long enough that only a relayed abort closes the request before the test gives up waiting (15 s)
          await new Promise((r) => {
            const t = setTimeout(r, 30000);
            res.on('close', () => {
              clearTimeout(t);
              r();
            });
          });
          if (!res.destroyed) answer('late answer');
          return;
        case 'slow-stream': {
          res.writeHead(200, { ...cors, 'content-type': 'text/event-stream' });
          for (let i = 0; i < 300 && !res.destroyed; i++) {
            res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: `w${i} ` }, finish_reason: null }] })}\n\n`);
            await new Promise((r) => setTimeout(r, 100));
          }
          if (!res.destroyed) res.end('data: [DONE]\n\n');
          return;
        }
        default:
          return answer('Hello from the test upstream.');
      }
    });
  });
  return new Promise((ok) =>
    server.listen(0, '127.0.0.1', () =>
      ok({ url: `http://127.0.0.1:${server.address().port}/v1`, seen, closed, close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) }),
    ),
  );
}

/** A hostile site on a second origin (localhost vs the app's 127.0.0.1): it serves whatever page a test sets. */
function hostileSite() {
  const pages = new Map();
  const server = createServer((req, res) => {
    const html = pages.get(new URL(req.url, 'http://x').pathname);
    if (!html) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok({ origin: `http://localhost:${server.address().port}`, pages, close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) })));
}

before(async () => {
  srv = await freshOrigin('/workbench/', DIST);
  // its own Chromium alone, the e2e files' shared one under scripts/e2e-one-process.mjs (the app on a new origin)
  browser = await browserFor();
  upstream = await testUpstream();
  hostile = await hostileSite();
});
after(async () => {
  await shared?.close();
  await browser?.release();
  await srv?.close();
  await upstream?.close();
  await hostile?.close();
});

/**
 * One app page for the tests that need no fresh page of their own (each configures its upstreams and tags its
 * calls): a boot of the app is the costliest step of these tests. The cross-site test opens it, after its own page is
 * closed, to read the journal and the pool; the anti-framing test checks on it that the app runs top-level.
 */
let shared;
const sharedApp = async () => {
  shared ??= await openApp('gw-sec-shared');
  return shared;
};

async function openApp(pool) {
  const page = await browser.context.newPage();
  page.on('pageerror', (e) => console.error('page error:', e.message));
  await page.goto(`${srv.url}?pool=${pool}`);
  await page.waitForFunction(() => window.workbench?.ready !== undefined);
  await page.evaluate(() => window.workbench.ready);
  return page;
}

async function configure(page, upstreams) {
  await page.evaluate(async (ups) => {
    const s = await window.workbench.gatewaySettings();
    await window.workbench.setGatewaySettings({ ...s, upstreams: [...s.upstreams.filter((u) => u.kind === 'mock'), ...ups] });
  }, upstreams);
}

/** Every journal entry, read through IndexedDB (the decoded values, not the stored bytes). */
const journal = (page) =>
  page.evaluate(
    () =>
      new Promise((ok, fail) => {
        const r = indexedDB.open('aw-gateway');
        r.onerror = () => fail(r.error);
        r.onsuccess = () => {
          const get = r.result.transaction('journal').objectStore('journal').getAll();
          get.onsuccess = () => ok(get.result);
          get.onerror = () => fail(get.error);
        };
      }),
  );

async function waitFor(fn, test, timeout = 15000) {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (test(v)) return v;
    if (Date.now() - t0 > timeout) throw new Error(`timed out; last value ${JSON.stringify(v).slice(0, 400)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every string value of a Parquet file (read with parquet-wasm → Arrow, nested values flattened to JSON). */
function parquetStrings(bytes) {
  const table = tableFromIPC(readParquet(bytes).intoIPCStream());
  const out = [];
  for (const row of table) out.push(JSON.stringify(row.toJSON(), (_k, v) => (typeof v === 'bigint' ? String(v) : v)));
  return { rows: table.numRows, text: out.join('\n') };
}

describe('gateway: only its own page drives it', () => {
  const MARK = `hostile-${Date.now()}`;
  const formPage = (action, mark) => `<!doctype html><meta charset=utf-8><body>
<form id=f method=POST enctype="text/plain" action="${action}">
<input type=hidden name='{"model":"local-x","messages":[{"role":"user","content":"${mark}"}],"pad":"' value='"}'>
</form><script>document.getElementById('f').submit()</script></body>`;

  it('a cross-site top-level form POST (text/plain JSON) and cross-site fetches are refused, with and without an app tab open; nothing reaches the upstream, the journal or the pool', async () => {
    const app = await openApp('gw-sec-xsite');
    await configure(app, [{ id: 'local', name: 'local', kind: 'openai', baseUrl: upstream.url, key: KEY, remember: true, models: ['local*'] }]);
    const action = `${srv.url}gateway/v1/chat/completions`;
    hostile.pages.set('/form-open.html', formPage(action, `${MARK}-open`));
    hostile.pages.set('/form-closed.html', formPage(action, `${MARK}-closed`));
    hostile.pages.set(
      '/fetch.html',
      `<!doctype html><script>window.tried = Promise.all([
        fetch(${JSON.stringify(action)}, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ model: 'local-x', messages: [{ role: 'user', content: '${MARK}-fetch' }] }) }).then((r) => 'opaque ' + r.type, (e) => 'failed ' + e.message),
        fetch(${JSON.stringify(action)}, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'local-x', messages: [{ role: 'user', content: '${MARK}-cors' }] }) }).then((r) => 'status ' + r.status, (e) => 'failed ' + e.message),
      ]);</script>`,
    );
    const attack = async (path) => {
      const page = await browser.context.newPage();
      const navigated = page.waitForResponse((r) => r.url() === action, { timeout: 10000 });
      await page.goto(`${hostile.origin}${path}`);
      const res = await navigated;
      const body = await res.text();
      await page.close();
      return { status: res.status(), body };
    };

    // 1. with the app open (the worker holds the key in memory)
    const open = await attack('/form-open.html');
    // 2. cross-site fetches: not this origin's clients, so the worker never sees them; the static host answers
    const fetchPage = await browser.context.newPage();
    await fetchPage.goto(`${hostile.origin}/fetch.html`);
    const fetched = await fetchPage.evaluate(() => window.tried);
    await fetchPage.close();
    // 3. with no app tab open at all (the worker reads the remembered key from IndexedDB)
    await app.close();
    const closed = await attack('/form-closed.html');

    for (const r of [open, closed]) {
      assert.equal(r.status, 403, `refused, got ${r.status}: ${r.body.slice(0, 300)}`);
      const err = JSON.parse(r.body).error;
      assert.equal(err.type, 'gateway_forbidden');
      assert.match(err.message, /navigation|another site|cross-site/i, err.message);
    }
    assert.ok(fetched.every((f) => !/status 200/.test(f)), JSON.stringify(fetched));
    assert.deepEqual(upstream.seen.filter((s) => s.body.includes(MARK)), [], 'nothing reached the upstream');

    // the app opened again (the page the later tests share: an app page is the costliest step here)
    const again = await sharedApp();
    await again.waitForTimeout(1500); // the sink replays the journal into the pool on start
    const entries = await journal(again);
    assert.deepEqual(entries.filter((e) => JSON.stringify(e).includes(MARK)).map((e) => e.step_id), [], 'nothing journaled');
    const pooled = await again.evaluate((m) => window.workbench.query(`SELECT count(*) AS n FROM steps WHERE CAST(messages AS VARCHAR) LIKE '%${m}%'`), MARK);
    assert.equal(pooled[0].n, 0, 'nothing pooled');
    // the app's own calls still work
    const own = await again.evaluate(async () => {
      const r = await fetch(`${window.workbench.gatewayBaseUrl()}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'mock', messages: [{ role: 'user', content: 'own page' }] }) });
      return r.status;
    });
    assert.equal(own, 200);
  });

  it('the black-box bridge refuses URLs that resolve outside the gateway (dot segments, percent-encoded) and still carries gateway calls', async () => {
    const app = await sharedApp();
    const agent = `export default async function ({ baseUrl }) {
      const prefix = baseUrl.replace(/v1$/, '');
      const tries = [prefix + '../index.html', prefix + '%2e%2e/index.html', prefix + '.%2E/index.html', prefix + 'v1/%2e%2e/%2e%2e/index.html', prefix + 'v1/..%2f..%2findex.html', prefix + 'v1\\\\..\\\\..\\\\index.html', prefix.replace('/gateway/', '/') + 'index.html'];
      const results = [];
      let id = 100000;
      for (const url of tries) {
        const my = ++id;
        results.push(await new Promise((ok) => {
          let status = null;
          let text = '';
          const on = (e) => {
            const m = e.data;
            if (!m || m.id !== my) return;
            if (m.type === 'aw-sandbox:head') status = m.status;
            else if (m.type === 'aw-sandbox:chunk') text += new TextDecoder().decode(m.bytes);
            else if (m.type === 'aw-sandbox:end' || m.type === 'aw-sandbox:fail') {
              removeEventListener('message', on);
              ok({ url, status, fail: m.type === 'aw-sandbox:fail' ? m.message : null, text: text.slice(0, 120) });
            }
          };
          addEventListener('message', on);
          // a hostile agent talks to the bridge directly, bypassing the sandbox's own fetch (which normalizes)
          parent.postMessage({ type: 'aw-sandbox:fetch', id: my, url, method: 'GET', headers: [], body: null }, '*');
        }));
      }
      const legit = await fetch(baseUrl + '/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'mock', messages: [{ role: 'user', content: 'through the bridge' }] }) });
      const body = await legit.json();
      return { results, legit: legit.status, answer: typeof body.choices?.[0]?.message?.content };
    }`;
    const out = await app.evaluate((code) => window.workbench.runBlackBox({ code }), agent);
    for (const r of out.results) {
      assert.equal(r.status, null, `escaped: ${JSON.stringify(r)}`);
      assert.match(r.fail ?? '', /can reach only the gateway|refused/i, JSON.stringify(r));
    }
    assert.equal(out.results.length, 7);
    assert.equal(out.legit, 200);
    assert.equal(out.answer, 'string');
  });
});

describe('anti-framing', () => {
  it('a page of another site that frames the app gets a notice, no app: no UI, no workbench API, no buttons to clickjack', async () => {
    hostile.pages.set('/frame.html', `<!doctype html><iframe id=f src="${srv.url}?pool=gw-sec-frame" style="width:1000px;height:700px;opacity:0.01"></iframe>`);
    const page = await browser.context.newPage();
    await page.goto(`${hostile.origin}/frame.html`);
    const frame = await (await page.waitForSelector('#f')).contentFrame();
    await frame.waitForSelector('[role=alert]', { timeout: 15000 });
    const state = await frame.evaluate(async () => ({
      alert: document.querySelector('[role=alert]')?.textContent ?? '',
      app: document.querySelectorAll('aw-app').length,
      buttons: document.querySelectorAll('button').length,
      ready: await window.workbench.ready.then(() => 'ready', (e) => String(e)),
      api: typeof window.workbench.query,
    }));
    assert.match(state.alert, /does not run inside a frame of another site \(http:\/\/localhost:\d+\)/);
    assert.equal(state.app, 0);
    assert.equal(state.buttons, 0);
    assert.match(state.ready, /refused to run inside a frame/);
    assert.equal(state.api, 'undefined');
    await page.close();
    // the same app, top-level, runs (the page the other tests share, opened top-level before this test)
    const app = await sharedApp();
    assert.equal(await app.evaluate(() => document.querySelectorAll('aw-app').length), 1);
    assert.equal(await app.evaluate(() => typeof window.workbench.query), 'function');
  });
});

describe('gateway: upstream-echoed secrets are scrubbed before anything is stored', () => {
  it('a 401 that echoes the key, a debug echo and a stream that spells the key: no key in journal, pool or any export (read back decoded)', async () => {
    // the shared page: a second app page would drain part of the gateway's journal into its own pool
    const app = await sharedApp();
    await configure(app, [
      { id: 'echo-keyed', name: 'echo keyed', kind: 'openai', baseUrl: upstream.url, key: KEY, remember: false, models: ['echo*'] },
      { id: 'echo-open', name: 'echo open', kind: 'openai', baseUrl: upstream.url, key: '', remember: false, models: ['open-*'] },
    ]);
    const statuses = await app.evaluate(
      async ({ token }) => {
        const base = window.workbench.gatewayBaseUrl();
        const call = async (model, upstream, stream = false) => {
          const r = await fetch(`${base}/chat/completions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-aw-upstream': upstream },
            body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: `echo test ${model} ${upstream}` }] }),
          });
          const text = await r.text();
          return [r.status, text.length > 0, text];
        };
        return [
          await call('echo-401', 'echo-keyed'), await call('echo', 'echo-keyed'), await call('echo-stream', 'echo-keyed', true),
          await call('echo-401', 'echo-open'), await call('echo', 'echo-open'), await call('echo-stream', 'echo-open', true),
        ];
      },
      { token: AGENT_TOKEN },
    );
    assert.deepEqual(statuses.map((s) => s[0]), [401, 200, 200, 401, 200, 200]);
    // the agent never had the configured key: an error body that echoes it reaches the agent without it
    assert.match(statuses[0][2], /Incorrect API key provided: \[redacted\]/);
    assert.ok(!statuses[0][2].includes(KEY));
    // the upstream really echoed both secrets (so a leak was possible)
    assert.ok(upstream.seen.some((s) => s.authorization === `Bearer ${KEY}`));
    assert.ok(upstream.seen.some((s) => s.authorization === `Bearer ${AGENT_TOKEN}`));
    const secrets = [KEY, AGENT_TOKEN];
    const leaks = (label, text) => secrets.filter((k) => text.includes(k)).map((k) => `${label}: ${k.slice(0, 12)}…`);

    const entries = await waitFor(() => journal(app), (e) => e.filter((x) => JSON.stringify(x).includes('echo test')).length >= 6);
    const echoed = entries.filter((x) => JSON.stringify(x).includes('echo test'));
    assert.deepEqual(echoed.flatMap((e) => leaks(`journal ${e.step_id}`, JSON.stringify(e))), []);
    assert.ok(echoed.some((e) => /Incorrect API key provided: \[redacted\]/.test(e.step.error ?? '')), 'the 401 message is kept, minus the key');
    assert.ok(echoed.some((e) => /your key: \[redacted\] \(echoed\)/.test(e.step.response_text ?? '')), 'the assembled stream is scrubbed');

    const rows = await waitFor(
      () => app.evaluate(() => window.workbench.query(`SELECT * FROM steps WHERE CAST(messages AS VARCHAR) LIKE '%echo test%'`)),
      (r) => r.length >= 6,
    );
    assert.deepEqual(rows.flatMap((r) => leaks(`pool ${r.step_id}`, JSON.stringify(r))), []);

    const exports = await app.evaluate(async () => {
      const out = [];
      for (const layout of ['steps', 'sft', 'rl_steps']) {
        for (const format of ['jsonl', 'parquet']) {
          const blob = await window.workbench.exportDataset({ layout, format, trainableOnly: false });
          const bytes = new Uint8Array(await blob.arrayBuffer());
          let bin = '';
          for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
          out.push({ layout, format, b64: btoa(bin) });
        }
      }
      return out;
    });
    let parquetRows = 0;
    for (const e of exports) {
      const bytes = Buffer.from(e.b64, 'base64');
      if (e.format === 'parquet') {
        const { rows: n, text } = parquetStrings(new Uint8Array(bytes));
        parquetRows += n;
        if (e.layout === 'steps') assert.match(text, /\[redacted\]/, 'the decoded steps export holds the scrubbed values');
        assert.deepEqual(leaks(`${e.layout}.parquet`, text), []);
      } else assert.deepEqual(leaks(`${e.layout}.jsonl`, bytes.toString('utf8')), []);
    }
    assert.ok(parquetRows >= 6, `parquet exports were read back (${parquetRows} rows)`);
  });
});

describe('gateway: non-ASCII streams', () => {
  it('an upstream that splits multi-byte characters across network chunks is recorded exactly (数据工厂 ok)', async () => {
    const app = await sharedApp();
    await configure(app, [{ id: 'utf8', name: 'utf8', kind: 'openai', baseUrl: upstream.url, key: KEY, remember: false, models: ['utf8-*'] }]);
    const tag = `utf8-${Date.now()}`;
    const seen = await app.evaluate(async (tag) => {
      const r = await fetch(`${window.workbench.gatewayBaseUrl()}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'utf8-stream', stream: true, messages: [{ role: 'user', content: tag }] }) });
      return r.text();
    }, tag);
    assert.match(seen, /数据/, 'the agent gets the bytes unchanged');
    const steps = await waitFor(
      () => journal(app).then((e) => e.filter((x) => x.step.messages.at(-1)?.content === tag).map((x) => x.step)),
      (s) => s.length === 1,
    );
    assert.equal(steps[0].response_text, '数据工厂 ok');
  });
});

describe('gateway: client aborts reach the upstream', () => {
  it('aborting a JSON call and a stream closes the upstream request at once; the steps are recorded as cancelled', async () => {
    const app = await sharedApp();
    await configure(app, [{ id: 'slow', name: 'slow', kind: 'openai', baseUrl: upstream.url, key: KEY, remember: false, models: ['slow-*'], timeoutMs: 60000 }]);
    const tag = `abort-${Date.now()}`;
    const abortedAt = await app.evaluate(async (tag) => {
      const base = window.workbench.gatewayBaseUrl();
      // JSON: before the upstream answers, Chromium tells the service worker nothing of a client's abort,
      // so the call goes through workbench.gatewayFetch (it relays the abort); the stream uses plain fetch
      // (dropping the body cancels the worker's response stream, which aborts the upstream)
      const post = (model, stream, signal) =>
        (stream ? fetch : window.workbench.gatewayFetch)(`${base}/chat/completions`, { method: 'POST', signal, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: `${tag} ${model}` }] }) });
      const out = {};
      const a = new AbortController();
      const json = post('slow-json', false, a.signal).catch(() => 'aborted');
      await new Promise((r) => setTimeout(r, 500));
      out.json = Date.now();
      a.abort();
      await json;
      const b = new AbortController();
      const res = await post('slow-stream', true, b.signal);
      const reader = res.body.getReader();
      await reader.read();
      await reader.read();
      out.stream = Date.now();
      b.abort();
      await reader.read().catch(() => {});
      return out;
    }, tag);
    // The upstream would hold the JSON call 30 s and stream for 30 s: a close seen within 15 s of the abort can
    // only be the relayed abort (no wall-clock bound tighter than that: CI machines are loaded; see docs/testing.md).
    const closedOf = (model) => waitFor(() => upstream.seen.find((s) => s.body.includes(`${tag} ${model}`)) ?? null, (s) => s?.closedAt != null, 15000).catch(() => null);
    const json = await closedOf('slow-json');
    const stream = await closedOf('slow-stream');
    assert.ok(json, 'the upstream saw the JSON call closed within 15 s of the abort (it would have answered after 30 s)');
    assert.ok(stream, 'the upstream saw the stream closed within 15 s of the abort (it would have streamed for 30 s)');
    console.log(`# abort reached the upstream after: JSON ${json.closedAt - abortedAt.json} ms, stream ${stream.closedAt - abortedAt.stream} ms`);
    const steps = await waitFor(
      () => journal(app).then((e) => e.filter((x) => (x.step.messages.at(-1)?.content ?? '').startsWith(tag)).map((x) => x.step)),
      (s) => s.length === 2,
    );
    for (const s of steps) {
      assert.equal(s.status, 'error');
      assert.match(s.error, /^cancelled by client/);
      assert.equal(s.metadata.aborted, 'true');
    }
  });
});
