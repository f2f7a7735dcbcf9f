// Hostile content runs nothing; SQL cannot leave the sandbox; API keys are in no stored byte.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tableFromIPC } from 'apache-arrow';
import { readParquet } from 'parquet-wasm';
import { chromium } from 'playwright-core';
import { CHROME_ARGS, CHROME_PATH, TEST_ARGS } from '../../scripts/browser.mjs';
import { serve } from '../../scripts/serve.mjs';
import { startLocalUpstream } from '../fixtures/gateway/local-upstream.mjs';
import { waitForQuery, waitForReports } from './harness.mjs';
import { scratchDir } from '../scratch.mjs';

const XSS = [
  '<script>window.__xss = "script"</script>',
  '<img src=x onerror="window.__xss = \'img\'">',
  '<svg onload="window.__xss = \'svg\'"><circle r="1"/></svg>',
  '<a href="javascript:window.__xss = \'href\'">click</a>',
  '"><iframe src="javascript:parent.__xss = \'iframe\'"></iframe>',
];
const KEY = 'sk-proj-TESTKEYdoNotStore0123456789abcdefXYZ';
const AGENT_KEY = 'sk-ant-AGENTKEY9876543210zyxwvutsrqpON';
// not key-shaped: only the gateway's exact-value scrubbing removes it when the upstream echoes it
const ECHO_KEY = 'plain-local-key-0123456789-abcdef';

let srv;
let dir;
let context;
let upstream;
const consoleText = [];

before(async () => {
  srv = await serve(process.env.AW_DIST ?? 'dist', { base: '/workbench/' });
  dir = scratchDir('aw-sec-');
  context = await chromium.launchPersistentContext(dir, { executablePath: CHROME_PATH, headless: true, args: [...CHROME_ARGS, ...TEST_ARGS], acceptDownloads: true });
  upstream = await startLocalUpstream();
});
after(async () => {
  await context?.close().catch(() => {});
  await upstream?.close?.();
  await srv?.close();
});

async function open(pool) {
  const page = await context.newPage();
  page.on('console', (m) => consoleText.push(m.text()));
  await page.goto(`${srv.url}?pool=${pool}`);
  await page.evaluate(() => window.workbench.ready);
  return page;
}

/**
 * The XSS test's page, kept open for the SQL and API-key tests (they need no fresh page: an app boot is the costliest
 * step here). The key test's scans read whatever the pool holds, the XSS rows too.
 */
let kept;

describe('hostile content and secrets', () => {
  it('XSS payloads in messages, tool arguments, file names, notebook Markdown and chart labels render as text', async () => {
    const page = await open('sec-xss');
    const lines = XSS.map((p, i) =>
      JSON.stringify({
        messages: [
          { role: 'system', content: p },
          { role: 'user', content: `${p} question ${i}` },
          { role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: `tool_${i}`, arguments: JSON.stringify({ html: p }) } }] },
          { role: 'tool', tool_call_id: `c${i}`, content: p },
          { role: 'assistant', content: `answer ${p}` },
        ],
        agent: p,
        reward: i % 2,
      }),
    );
    const name = `"><img src=x onerror="window.__xss='file'">.jsonl`;
    const file = join(dir, 'payload.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    await page.evaluate(
      async ({ text, name }) => window.workbench.importFiles([new File([text], name)]),
      { text: readFileSync(file, 'utf8'), name },
    );
    await waitForReports(page, 1);
    await page.getByText(name).first().waitFor();
    // dashboard + inspector
    await page.evaluate(() => document.querySelector('aw-app').selectTab('dashboard'));
    await page.locator('aw-trajectory-list [role=row]').nth(1).click();
    await page.getByText('question 0').first().waitFor();
    // notebook with hostile Markdown and chart labels
    const md = [
      '---', 'title: hostile', '---', '', `# Title ${XSS[1]}`, '', XSS.join('\n\n'), '', '[x](javascript:window.__xss=1)', '',
      '```sql id=labels', 'SELECT agent AS label, count(*) AS n FROM steps GROUP BY agent', '```', '',
      '```plot', 'mark: barY', 'data: labels', 'x: label', 'y: n', 'tip: true', '```', '',
    ].join('\n');
    await page.evaluate((m) => window.workbench.openNotebook(m), md);
    const run = await page.evaluate(() => window.workbench.runAll());
    assert.ok(run.cells.some((c) => c.id === 'labels' && c.status === 'done'), JSON.stringify(run));
    await page.locator('aw-chart svg').first().waitFor();
    await page.waitForTimeout(500);
    assert.equal(await page.evaluate(() => window.__xss), undefined, 'no payload ran');
    const injected = await page.evaluate(() => {
      const walk = (root, out) => {
        for (const el of root.querySelectorAll('*')) {
          if (el.shadowRoot) walk(el.shadowRoot, out);
          for (const a of el.getAttributeNames()) {
            const urlAttr = /^(href|src|action|formaction|xlink:href|data|srcdoc)$/i.test(a);
            if (/^on/i.test(a) || (urlAttr && /javascript:/i.test(el.getAttribute(a) ?? ''))) out.push(`${el.tagName} ${a}=${el.getAttribute(a)}`);
          }
          if (el.tagName === 'SCRIPT' || el.tagName === 'IFRAME') out.push(el.tagName);
        }
        return out;
      };
      return walk(document.querySelector('aw-app').shadowRoot, []);
    });
    assert.deepEqual(injected, [], 'no element carries an event handler, a javascript: URL, or is a script / iframe');
    kept = page;
  });

  it('SQL cannot reach the network or the file system', async () => {
    const page = kept ?? (await open('sec-sql'));
    kept = page;
    const err = (sql) => page.evaluate((s) => window.workbench.query(s).then(() => 'ran', (e) => String(e)), sql);
    assert.match(await err(`SELECT * FROM read_csv('${upstream.url}/models')`), /disabled|not allowed|permission|external/i);
    assert.match(await err(`COPY (SELECT 1) TO '/tmp/aw-exfil.csv'`), /disabled|not allowed|permission|external/i);
    assert.match(await err(`SET enable_external_access = true`), /locked|lock|cannot/i);
    assert.match(await err(`ATTACH 'other.db' AS o`), /disabled|not allowed|permission|external/i);
  });

  it('API keys appear in no stored value: journal and pool read through their APIs, exports decoded (Parquet read back), profile bytes, console', async () => {
    const page = kept ?? (await open('sec-keys'));
    kept = undefined;
    await page.evaluate(async ({ url, key, echoKey }) => {
      const s = await window.workbench.gatewaySettings();
      await window.workbench.setGatewaySettings({
        ...s,
        upstreams: [
          ...s.upstreams.filter((u) => u.id !== 'local' && u.id !== 'echo'),
          { id: 'echo', name: 'echo', kind: 'openai', baseUrl: url, key: echoKey, remember: false, models: ['local-echo'] },
          { id: 'local', name: 'local', kind: 'openai', baseUrl: url, key, remember: false, models: ['local*'] },
        ],
      });
    }, { url: upstream.url, key: KEY, echoKey: ECHO_KEY });
    const base = await page.evaluate(() => window.workbench.gatewayBaseUrl());
    const results = await page.evaluate(async ({ base, agentKey }) => {
      const call = async (stream) => {
        const res = await fetch(`${base}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${agentKey}`, 'x-api-key': agentKey },
          body: JSON.stringify({ model: 'local', stream, messages: [{ role: 'user', content: `my key is ${agentKey}, keep it safe` }] }),
        });
        return [res.status, (await res.text()).length > 0];
      };
      const echo = await fetch(`${base}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'local-echo', messages: [{ role: 'user', content: 'echo my credentials' }] }) });
      return [await call(false), await call(true), [echo.status, (await echo.text()).length > 0]];
    }, { base, agentKey: AGENT_KEY });
    assert.deepEqual(results, [[200, true], [200, true], [200, true]]);
    assert.ok(upstream.seen.some((r) => r.authorization === `Bearer ${ECHO_KEY}`), 'the echo upstream got (and echoed) its key');
    assert.ok(upstream.seen.some((r) => r.authorization === `Bearer ${KEY}`), 'the upstream got the key from settings');
    // an imported log that carries keys in headers and text
    const log = JSON.stringify({ request: { headers: { Authorization: `Bearer ${KEY}` }, model: 'gpt-4o-mini', messages: [{ role: 'user', content: `use ${KEY}` }] }, response: { id: 'c1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: `ok ${AGENT_KEY}` }, finish_reason: 'stop' }] } });
    await page.evaluate((text) => window.workbench.importFiles([new File([text], `log-${'x'}.jsonl`)]), `${log}\n`);
    await waitForQuery(page, `SELECT count(*) AS n FROM steps WHERE source = 'capture'`, (r) => r[0].n >= 3);
    const KEYS = [KEY, AGENT_KEY, ECHO_KEY];
    const leaks = (label, text) => KEYS.filter((k) => text.includes(k)).map((k) => `${label}: ${k.slice(0, 14)}…`);
    // the journal, through IndexedDB (decoded values)
    const journal = await page.evaluate(
      () =>
        new Promise((ok, fail) => {
          const r = indexedDB.open('aw-gateway');
          r.onerror = () => fail(r.error);
          r.onsuccess = () => {
            const q = r.result.transaction('journal').objectStore('journal').getAll();
            q.onsuccess = () => ok(JSON.stringify(q.result));
          };
        }),
    );
    // the pool, through SQL
    const pool = JSON.stringify(await page.evaluate(() => window.workbench.query('SELECT * FROM steps')));
    const exports = await page.evaluate(async () => {
      const b64 = async (blob) => {
        const bytes = new Uint8Array(await blob.arrayBuffer());
        let bin = '';
        for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
        return btoa(bin);
      };
      const out = [];
      for (const layout of ['steps', 'sft', 'rl_steps']) for (const format of ['jsonl', 'parquet']) out.push({ name: `${layout}.${format}`, b64: await b64(await window.workbench.exportDataset({ layout, format, trainableOnly: false })) });
      out.push({ name: 'raw.csv', b64: await b64(await window.workbench.exportQuery('SELECT raw FROM steps', { format: 'csv' })) });
      return out;
    });
    const found = [...leaks('journal', journal), ...leaks('pool', pool)];
    let parquetRows = 0;
    for (const e of exports) {
      const bytes = Buffer.from(e.b64, 'base64');
      if (e.name.endsWith('.parquet')) {
        // read the Parquet back: the file is zstd-compressed, so its bytes say nothing about its values
        const table = tableFromIPC(readParquet(new Uint8Array(bytes)).intoIPCStream());
        parquetRows += table.numRows;
        const text = [...table].map((row) => JSON.stringify(row.toJSON(), (_k, v) => (typeof v === 'bigint' ? String(v) : v))).join('\n');
        found.push(...leaks(e.name, text));
      } else found.push(...leaks(e.name, bytes.toString('utf8')));
    }
    assert.deepEqual(found, [], 'no key in the journal, the pool or any export');
    assert.match(journal, /debug echo: key=\[redacted\]/, 'the echo was captured, scrubbed');
    assert.ok(parquetRows >= 3, `the Parquet exports were read back (${parquetRows} rows)`);
    const rawCount = await page.evaluate(() => window.workbench.query(`SELECT count(*) AS n FROM steps WHERE raw LIKE '%[redacted]%'`));
    assert.ok(rawCount[0].n >= 1);
    await page.close();
    await context.close();
    context = null;
    const hits = [];
    const scan = (p) => {
      for (const name of readdirSync(p)) {
        const f = join(p, name);
        const st = statSync(f, { throwIfNoEntry: false });
        if (!st) continue;
        if (st.isDirectory()) scan(f);
        else if (st.size < 200 * 1024 * 1024) {
          const buf = readFileSync(f);
          // a weak extra check only (IndexedDB and OPFS may store compressed bytes); the decoded reads above are the test
          for (const k of KEYS) if (buf.includes(k) || buf.includes(Buffer.from(k, 'utf16le'))) hits.push(`${f}: ${k.slice(0, 12)}…`);
        }
      }
    };
    scan(dir);
    assert.deepEqual(hits, [], 'no key in any stored byte of the browser profile');
    for (const k of KEYS) assert.ok(!consoleText.some((t) => t.includes(k)), 'no key in the console');
  });
});
