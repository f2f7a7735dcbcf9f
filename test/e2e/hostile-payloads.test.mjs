// Hostile or huge input the page must survive without losing the tab (issue 37): on one page (a page boot is the
// costliest step of an e2e test), in order.
//
// The browser's V8 heap is lowered to 96 MB per isolate (page and workers), so a tab that holds too much dies on a
// small file: the HAR below is 30 MB, not 300. Measured on the built app with a 30 MB HAR holding a 22 MB download:
// the old HAR reader (every entry's bodies decoded, 677bfad^) crashed the tab at 128 MB and imported at 192 MB (and
// the 300 MB HAR crashed it after ~20 min with the default heap); today's reader crashes at 40 MB and imports at 64 MB.
import assert from 'node:assert/strict';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startApp, uniquePool, waitForReports } from './harness.mjs';
import { scratchDir } from '../scratch.mjs';

const tmp = scratchDir('aw-hostile-');
let app;
let page;
const crashes = [];

before(async () => {
  app = await startApp({ jsFlags: ['--max-old-space-size=96'] });
  page = await app.open(uniquePool('hostile'));
  page.on('crash', () => crashes.push('the page crashed'));
});
after(async () => {
  await app?.close();
});

/** A DevTools HAR "with content": LLM calls around a `mb` MB binary download stored base64 (written in parts, never whole in memory). */
async function harWithDownload(file, mb) {
  const w = createWriteStream(file);
  const write = (s) => (w.write(s) ? undefined : new Promise((ok) => w.once('drain', ok)));
  const entry = (i, request, content) =>
    JSON.stringify({ startedDateTime: new Date(1767225600000 + i * 1000).toISOString(), time: 900, request: { httpVersion: 'http/2.0', headers: [], queryString: [], cookies: [], headersSize: -1, bodySize: 0, ...request }, response: { status: 200, statusText: 'OK', httpVersion: 'http/2.0', headers: [], cookies: [], content, redirectURL: '', headersSize: -1, bodySize: -1 }, cache: {}, timings: { send: 0, wait: 880, receive: 20 } });
  const call = (i) =>
    entry(i, { method: 'POST', url: 'https://api.openai.com/v1/chat/completions', postData: { mimeType: 'application/json', text: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `question ${i}` }] }) } }, { size: 100, mimeType: 'application/json', text: JSON.stringify({ id: `c${i}`, object: 'chat.completion', model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: `answer ${i}` }, finish_reason: 'stop' }] }) });
  await write(`{"log":{"version":"1.2","creator":{"name":"WebInspector","version":"537.36"},"pages":[],"entries":[${call(0)},${call(1)},`);
  const download = entry(2, { method: 'GET', url: 'https://example.com/model.bin' }, { size: 0, mimeType: 'application/octet-stream', text: '@BODY@', encoding: 'base64' });
  const [head, tail] = download.split('@BODY@');
  await write(head);
  const part = Buffer.alloc(3 * 1024 * 1024);
  for (let k = 0; k < part.length; k++) part[k] = (k * 2654435761) >>> 24;
  const b64 = part.toString('base64');
  const total = Math.round((mb * 1024 * 1024 * 0.75) / 3) * 4;
  for (let done = 0; done < total; done += b64.length) await write(b64.slice(0, total - done));
  await write(`${tail},${call(3)}]}}`);
  w.end();
  await new Promise((ok) => w.on('finish', ok));
}

describe('hostile payloads on one page', () => {
  it('a 30 MB HAR holding a 22 MB download imports its LLM calls in a 96 MB heap and the tab survives (the old reader crashed it)', async () => {
    const file = join(tmp, 'session.har');
    await harWithDownload(file, 30);
    await page.getByLabel('Import files').setInputFiles([file]);
    await waitForReports(page, 1, 600000);
    assert.deepEqual(crashes, []);
    const [r] = await page.evaluate(() => window.workbench.query("SELECT count(*)::INT AS n, string_agg(response_text, ',' ORDER BY response_text) AS answers FROM steps WHERE source = 'session.har'"));
    assert.deepEqual(r, { n: 3, answers: 'answer 0,answer 1,answer 3' });
  });

  /** A tokenizer whose pre-tokenizer regex backtracks without end on any text of 30+ characters (2^n paths). */
  const backtracking = {
    tokenizer: { version: '1.0', added_tokens: [], normalizer: null, pre_tokenizer: { type: 'Split', pattern: { Regex: '([\\s\\S]+)+!' }, behavior: 'Isolated', invert: false }, post_processor: null, decoder: null, model: { type: 'WordLevel', vocab: { '[UNK]': 0, a: 1 }, unk_token: '[UNK]' } },
    config: { tokenizer_class: 'PreTrainedTokenizerFast', chat_template: '{% for m in messages %}{{ m.role }}: {{ m.content }} {% endfor %}' },
    name: 'backtracking',
  };
  /** The dashboard's tokenizer panel ("As the trainer sees it"), its tab shown. */
  const panel = () => page.locator('aw-tokenizer-panel');
  const showPanel = async () => {
    await page.getByRole('tab', { name: 'Dashboard' }).click();
    await panel().getByText('Tokenizer').first().waitFor();
  };

  // a chat template of nested range(100000) loops refused when chosen: test/unit/tokenizer-template-limits.test.ts
  // › a template of nested range() loops is refused when loaded (loadProfile, what setTokenizer runs), and the previous
  // profile stays: test/browser/tokenizer-profiles.suite.ts › bad input is rejected with a message…

  it('Cancel stops a count whose worker never answers (it terminates the workers); the bundled profile then replaces it and counts', { timeout: 240000 }, async () => {
    await showPanel();
    const info = await page.evaluate((input) => window.workbench.setTokenizer(input), backtracking);
    assert.equal(info.name, 'backtracking');
    // the count starts by itself and never ends: its workers are stuck in the regex
    const cancel = panel().getByRole('button', { name: 'Cancel' });
    await cancel.waitFor({ timeout: 60000 });
    await cancel.click();
    // the count ends (on the old code the cancel was a message the stuck workers never read: it stayed)
    await cancel.waitFor({ state: 'hidden', timeout: 30000 });
    await panel().getByText('Counting cancelled: the tokenizer workers were stopped').waitFor();
    const qwen3 = await page.evaluate(() => window.workbench.setTokenizer({ bundled: 'qwen3' }));
    assert.equal(qwen3.name, 'Qwen3 (bundled)');
    const counted = await page.evaluate(() => window.workbench.tokenCounts());
    assert.equal(counted.rows, 3);
    assert.deepEqual(crashes, []);
  });

  /** Whether a use mark (TokenizerService.using: `busy:<owner>` in aw-tokenizer's profile store) is stored now. */
  const useMarked = () =>
    new Promise((ok) => {
      const r = indexedDB.open('aw-tokenizer');
      r.onerror = () => ok(false);
      r.onsuccess = () => {
        const d = r.result;
        const done = (v) => {
          d.close();
          ok(v);
        };
        if (!d.objectStoreNames.contains('profile')) return done(false);
        const q = d.transaction('profile').objectStore('profile').getAllKeys(IDBKeyRange.bound('busy', 'busy;', false, true));
        q.onsuccess = () => done(q.result.length > 0);
        q.onerror = () => done(false);
      };
    });

  it('a profile whose count did not finish before a reload is not restored, and the panel says why', { timeout: 240000 }, async () => {
    await page.evaluate((input) => window.workbench.setTokenizer(input), backtracking);
    await panel().getByRole('button', { name: 'Cancel' }).waitFor({ timeout: 60000 });
    // the reload cuts off a use that is marked: the mark is stored once the count holds its lock, a little after the
    // Cancel button shows (under load a reload came first once, and the profile was rightly restored)
    await page.waitForFunction(useMarked, null, { polling: 100, timeout: 30000 });
    await page.reload();
    await page.waitForFunction(() => window.workbench?.ready !== undefined);
    await page.evaluate(() => window.workbench.ready);
    await showPanel();
    await panel().getByText('backtracking was not restored: its last use (a token count) did not finish before the page was closed or reloaded').waitFor({ timeout: 60000 });
    assert.equal(await page.evaluate(() => window.workbench.tokenizer()), null);
    // and not at the reload after that either: the user chooses it again
    await page.reload();
    await page.evaluate(() => window.workbench.ready);
    await showPanel();
    assert.equal(await page.evaluate(() => window.workbench.tokenizer()), null);
  });
});
