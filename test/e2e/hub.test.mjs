// The Hugging Face Hub from the built app, against a loopback Hub on another origin (test/e2e/hub-server.mjs: the
// tree API paged by Link, resolve with Range → 206, CORS, a gated dataset, LFS files redirected to a CDN origin):
// import by picking files in the Import from URL panel, the scripting API with and without a token, a re-import
// that downloads nothing, remote Parquet queries that fetch a small part of the file (and clear errors for a host
// without ranges or CORS), a notebook cell over remote Parquet — and the token found nowhere but in request headers.
// One page (one pool boot) for all of it.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { unzipSync } from 'fflate';
import { parse } from 'yaml';
import { startApp, uniquePool } from './harness.mjs';
import { startHub } from './hub-server.mjs';
import { scratchDir } from '../scratch.mjs';

const TOKEN = 'hf_e2eSecretTokenValue0123456789';
const chat = (i) => `${JSON.stringify({ messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: `question ${i}` }, { role: 'assistant', content: `answer ${i}` }] })}\n`;

async function parquetFile() {
  const dir = scratchDir('aw-hub-e2e-');
  const c = await (await DuckDBInstance.create(':memory:')).connect();
  const path = join(dir, 'p.parquet');
  await c.run(
    `COPY (SELECT i AS id, i % 5 AS label, md5(i::VARCHAR) || md5((i * 3)::VARCHAR) || md5((i * 7)::VARCHAR) AS text, [{'role': 'user', 'content': 'q' || i}] AS messages FROM range(60000) t(i)) TO '${path}' (FORMAT parquet, ROW_GROUP_SIZE 8192)`,
  );
  return new Uint8Array(readFileSync(path));
}

function corrupt(bytes) {
  const bad = bytes.slice();
  for (let i = 64; i < bad.length / 2; i += 7) bad[i] ^= 0xff;
  return bad;
}

describe('the Hugging Face Hub, from the app', () => {
  let app;
  let hub;
  let noRanges;
  let noCors;
  let page;
  let parquet;
  const consoleText = [];
  const sessions = {};
  for (let i = 0; i < 5; i++) sessions[`sessions/run-${i}.jsonl`] = chat(i).repeat(2) + chat(100 + i);
  sessions['sessions/old/run-9.jsonl'] = chat(9).repeat(2);
  sessions['README.md'] = '---\nlicense: mit\n---\n# traces\n';

  before(async () => {
    parquet = await parquetFile();
    hub = await startHub({
      pageSize: 3,
      cdn: true,
      datasets: {
        // the runs are LFS files (listed with their SHA-256), the small old run is a plain git file
        'acme/sessions': { files: sessions, lfsOver: 300 },
        'acme/gated': { files: { 'data/train.jsonl': chat(50).repeat(3), 'tables/train.parquet': parquet }, token: TOKEN },
        // column data corrupted, footer intact: parquet-wasm aborts its instance on it
        'acme/tables': { files: { 'data/train.parquet': parquet, 'data/bad.parquet': corrupt(parquet) } },
      },
    });
    noRanges = await startHub({ ranges: false, datasets: { 'acme/tables': { files: { 'data/train.parquet': parquet } } } });
    noCors = await startHub({ cors: false, datasets: { 'acme/tables': { files: { 'data/train.parquet': parquet } } } });
    app = await startApp();
    page = await app.open(uniquePool('hub'));
    page.on('console', (m) => consoleText.push(m.text()));
    await page.evaluate((ep) => window.workbench.setHubEndpoint(ep), hub.endpoint);
  });
  after(async () => {
    await app?.close();
    await Promise.all([hub?.close(), noRanges?.close(), noCors?.close()]);
  });

  it('Import from URL lists a Hub folder across pages with sizes; the picked files are imported, one report each', async () => {
    hub.reset();
    await page.getByLabel('URL to import').fill('hf://datasets/acme/sessions');
    await page.getByRole('button', { name: 'Import from URL' }).click();
    const picker = page.locator('aw-hub-import');
    await picker.getByLabel('File sessions/run-4.jsonl').waitFor();
    // 7 files + 2 folders at 3 entries a page
    assert.equal(hub.log.filter((r) => r.path.startsWith('/api/')).length, 3);
    assert.equal(await picker.getByLabel('File README.md').isChecked(), false, 'the dataset card is not a trace file');
    await picker.getByText(/7 files, /).waitFor();
    await picker.getByLabel('Folder sessions/old').uncheck();
    await picker.getByLabel('File sessions/run-3.jsonl').uncheck();
    await picker.getByRole('button', { name: /^Import 4 files/ }).click();
    const panel = page.locator('aw-import-panel');
    for (const i of [0, 1, 2, 4]) await panel.getByLabel(`Report for hf://datasets/acme/sessions/sessions/run-${i}.jsonl`).waitFor({ state: 'attached', timeout: 60000 });
    const rows = await page.evaluate(() => window.workbench.query(`SELECT source, count(*)::INTEGER AS n FROM steps GROUP BY source ORDER BY source`));
    assert.deepEqual(rows.map((r) => [r.source, r.n]), [0, 1, 2, 4].map((i) => [`hf://datasets/acme/sessions/sessions/run-${i}.jsonl`, 3]));
    assert.ok(!hub.log.some((r) => r.path.endsWith('run-3.jsonl') || r.path.endsWith('run-9.jsonl')), 'unpicked files were not downloaded');
  });

  it('importHub: a gated dataset says a token is needed, imports with one; a re-import downloads nothing and adds nothing', async () => {
    const denied = await page.evaluate(() => window.workbench.importHub('hf://datasets/acme/gated/data').then(() => 'imported', (e) => e.message));
    assert.match(denied, /private or gated/);
    const wrong = await page.evaluate((t) => window.workbench.importHub('hf://datasets/acme/gated/data', { token: t }).then(() => 'imported', (e) => e.message), `${TOKEN}x`);
    assert.match(wrong, /refused the token/);
    assert.ok(!wrong.includes(TOKEN));
    hub.reset();
    const reports = await page.evaluate((t) => window.workbench.importHub('https://huggingface.co/datasets/acme/gated/tree/main/data', { token: t }).then((r) => ({ reports: r.map((x) => [x.file, x.status, x.added]), skipped: r.skipped })), TOKEN);
    assert.deepEqual(reports.reports, [['hf://datasets/acme/gated/data/train.jsonl', 'done', 3]]);
    assert.deepEqual(reports.skipped.map((s) => s.path), []);
    // the token went in the Authorization header of the Hub's requests, and to nobody else (the CDN got none; a CORS
    // preflight carries no headers' values)
    for (const r of hub.log) assert.equal(r.authorization, r.server === 'hub' && r.method !== 'OPTIONS' ? `Bearer ${TOKEN}` : null, `${r.server} ${r.method} ${r.path}`);
    assert.ok(hub.log.some((r) => r.server === 'cdn' && r.method === 'GET'), 'the LFS file came from the CDN');
    const one = await page.evaluate(() => window.workbench.importUrl('hf://datasets/acme/sessions/sessions/run-3.jsonl'));
    assert.deepEqual([one.file, one.status, one.added], ['hf://datasets/acme/sessions/sessions/run-3.jsonl', 'done', 3]);
    const old = await page.evaluate(() => window.workbench.importHub('hf://datasets/acme/sessions/sessions/old'));
    assert.deepEqual(old.map((r) => [r.status, r.added]), [['done', 2]]);
    hub.reset();
    const again = await page.evaluate(() => window.workbench.importHub('hf://datasets/acme/sessions/sessions'));
    assert.deepEqual(again.map((r) => [r.status, r.added]), again.map(() => ['unchanged', 0]));
    assert.equal(again.length, 6);
    // the LFS files are known by their SHA-256 and not downloaded again; the plain git file is, and adds nothing
    const downloads = hub.log.filter((r) => r.path.includes('/resolve/') && r.method === 'GET').map((r) => r.path);
    assert.deepEqual(downloads, ['/datasets/acme/sessions/resolve/main/sessions/old/run-9.jsonl']);
    assert.match(again.find((r) => r.file.endsWith('/run-0.jsonl')).message, /not downloaded again/);
  });

  it('read_parquet over hf:// and https fetches a small part of the file; bytes fetched are reported beside the size', async () => {
    hub.reset();
    const rows = await page.evaluate(() => window.workbench.query(`SELECT label, count(*)::INTEGER AS n, max(id)::INTEGER AS top FROM read_parquet('hf://datasets/acme/tables/data/train.parquet') GROUP BY label ORDER BY label`));
    assert.deepEqual(rows, [0, 1, 2, 3, 4].map((label) => ({ label, n: 12000, top: 59995 + label })));
    const [read] = await page.evaluate(() => window.workbench.remoteReads());
    assert.equal(read.fileBytes, parquet.length);
    assert.deepEqual(read.columns, ['id', 'label']);
    assert.ok(read.fetchedBytes < parquet.length / 10, `fetched ${read.fetchedBytes} of ${parquet.length}`);
    assert.equal(hub.bytesSent(), read.fetchedBytes);
    const first = await page.evaluate((u) => window.workbench.query(`SELECT id, messages[1].content AS q FROM read_parquet('${u}') LIMIT 2`), `${hub.endpoint}/datasets/acme/tables/resolve/main/data/train.parquet`);
    assert.deepEqual(first, [{ id: 0, q: 'q0' }, { id: 1, q: 'q1' }]);
    const reads = await page.evaluate(() => window.workbench.remoteReads());
    assert.equal(reads.at(-1).rowGroups, 1);
    // exports run their SQL in the export worker: the remote read is resolved for them too
    const csv = await page.evaluate(() => window.workbench.exportQuery(`SELECT id FROM read_parquet('hf://datasets/acme/tables/data/train.parquet') LIMIT 3`, { format: 'csv' }).then((b) => b.text()));
    assert.deepEqual(csv.trim().split('\n'), ['id', '0', '1', '2']);
    // the gated file with the tab's token
    await page.evaluate((t) => window.workbench.setHubToken(t), TOKEN);
    const gated = await page.evaluate(() => window.workbench.query(`SELECT count(*)::INTEGER AS n FROM read_parquet('hf://datasets/acme/gated/tables/train.parquet')`));
    assert.deepEqual(gated, [{ n: 60000 }]);
  });

  it('a host without range requests, one without CORS and a corrupt file are named as such', async () => {
    const err = (u) => page.evaluate((url) => window.workbench.query(`SELECT count(*) FROM read_parquet('${url}')`).then(() => 'ran', (e) => e.message), u);
    assert.match(await err(`${noRanges.endpoint}/datasets/acme/tables/resolve/main/data/train.parquet`), /does not answer range requests/);
    assert.ok(noRanges.bytesSent() <= parquet.length * 2);
    assert.match(await err(`${noCors.endpoint}/datasets/acme/tables/resolve/main/data/train.parquet`), /CORS/);
    // a corrupt file stops the reader's wasm instance: that query fails saying so, the next one gets a new reader
    assert.match(await err('hf://datasets/acme/tables/data/bad.parquet'), /The Parquet reader stopped on this file/);
    const again = await page.evaluate(() => window.workbench.query(`SELECT count(*)::INTEGER AS n FROM read_parquet('hf://datasets/acme/tables/data/train.parquet') WHERE id > 59990`));
    assert.deepEqual(again, [{ n: 9 }]);
  });

  it('a notebook cell reads remote Parquet and the result table shows its rows', async () => {
    await page.evaluate(() =>
      window.workbench.openNotebook(['---', 'title: remote', '---', '```sql id=remote_rows', "SELECT id, label FROM read_parquet('hf://datasets/acme/gated/tables/train.parquet') WHERE id < 3 ORDER BY id", '```', ''].join('\n')),
    );
    const run = await page.evaluate(() => window.workbench.runAll());
    assert.deepEqual(run.cells.map((c) => [c.id, c.status, c.rows]), [['remote_rows', 'done', 3]]);
  });

  let published = '';
  it('exportHubDataset: a zip of the layouts per split, a card whose configs name those files, STS sessions', async () => {
    const out = await page.evaluate(async () => {
      const r = await window.workbench.exportHubDataset({ layouts: ['sft', 'rl_steps'], sessions: 'sts', license: 'mit', recipe: 'SELECT 42 AS answer', trainableOnly: false });
      const bytes = new Uint8Array(await r.zip.arrayBuffer());
      let bin = '';
      for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      return { b64: btoa(bin), folder: r.folder, sessions: r.sessions, configs: r.configs };
    });
    const files = unzipSync(new Uint8Array(Buffer.from(out.b64, 'base64')));
    published = Object.values(files).map((b) => new TextDecoder().decode(b)).join('\n');
    const dir = scratchDir('aw-hub-pub-');
    {
      // a block of its own: `readme` is named again below
      for (const [name, bytes] of Object.entries(files)) {
        mkdirSync(dirname(join(dir, name)), { recursive: true });
        writeFileSync(join(dir, name), bytes);
      }
      const root = join(dir, out.folder);
      const readme = readFileSync(join(root, 'README.md'), 'utf8');
      const meta = parse(readme.split('---\n')[1]);
      assert.deepEqual(meta.configs.map((c) => c.config_name), ['sft', 'rl_steps']);
      assert.equal(meta.license, 'mit');
      assert.ok(meta.tags.includes('agent-traces'));
      assert.match(readme, /SELECT 42 AS answer/);
      const c = await (await DuckDBInstance.create(':memory:')).connect();
      const count = async (glob) => Number((await c.runAndReadAll(`SELECT count(*) AS n FROM read_parquet('${join(root, glob)}')`)).getRowObjects()[0].n);
      for (const cfg of meta.configs) {
        const said = out.configs.find((x) => x.name === cfg.config_name);
        for (const d of cfg.data_files) assert.equal(await count(d.path), said.splits.find((s) => s.split === d.split).rows, `${cfg.config_name}/${d.split}`);
      }
      const sft = await count('sft/**/*.parquet');
      assert.equal(out.sessions, sft);
      assert.equal(Object.keys(files).filter((f) => f.startsWith(`${out.folder}/sessions/`)).length, sft);
    }
    // the Data tab's publish card: a zip whose card's recipe is the open notebook's SQL
    await page.getByRole('tab', { name: 'Data' }).click();
    const card = page.locator('aw-hub-export');
    await card.getByRole('checkbox', { name: 'rl_steps' }).check();
    const [dl] = await Promise.all([page.waitForEvent('download'), card.getByRole('button', { name: 'Download as zip' }).click()]);
    const zipped = unzipSync(new Uint8Array(readFileSync(await dl.path())));
    const readme = new TextDecoder().decode(Object.entries(zipped).find(([k]) => k.endsWith('/README.md'))[1]);
    assert.deepEqual(parse(readme.split('---\n')[1]).configs.map((c) => c.config_name), ['sft', 'rl_steps']);
    assert.match(readme, /CREATE OR REPLACE VIEW remote_rows AS[\s\S]*read_parquet\('hf:\/\/datasets\/acme\/gated\/tables\/train\.parquet'\)/);
    published += readme;
  });

  it('the token is in no stored value, export, notebook, message or console line', async () => {
    const stored = await page.evaluate(async () => {
      const out = [];
      for (const { name } of await indexedDB.databases()) {
        const db = await new Promise((ok, fail) => {
          const r = indexedDB.open(name);
          r.onsuccess = () => ok(r.result);
          r.onerror = () => fail(r.error);
        });
        for (const store of db.objectStoreNames) {
          const all = await new Promise((ok) => {
            const q = db.transaction(store).objectStore(store).getAll();
            q.onsuccess = () => ok(q.result);
            q.onerror = () => ok([]);
          });
          out.push(`${name}/${store}: ${JSON.stringify(all)}`);
        }
        db.close();
      }
      out.push(`localStorage: ${JSON.stringify({ ...localStorage })}`, `sessionStorage: ${JSON.stringify({ ...sessionStorage })}`);
      for (const t of ['steps', 'imports', 'import_errors', 'curation']) out.push(`${t}: ${JSON.stringify(await window.workbench.query(`SELECT * FROM ${t}`))}`);
      out.push(`export: ${await (await window.workbench.exportDataset({ layout: 'steps', format: 'jsonl', trainableOnly: false })).text()}`);
      out.push(`reads: ${JSON.stringify(window.workbench.remoteReads())}`);
      return out;
    });
    const leaks = [...stored, published, ...consoleText, ...app.errors].filter((s) => s.includes(TOKEN));
    assert.deepEqual(leaks.map((s) => s.slice(0, 80)), []);
    assert.ok(stored.some((s) => s.includes('remote_rows')), 'the notebook was stored and scanned');
  });
});
