/**
 * The Hub client against a loopback Hub (test/e2e/hub-server.mjs): tree paging by the Link header, gated datasets with
 * and without a token, where the token may go (never to another origin, never into a message), downloads checked
 * against the listing, and the import plan (trace files only; a file whose SHA-256 the pool holds is not downloaded).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ImportReport } from '../../src/contract/reports';
import { downloadFile, type HubError, hubHeaders, listAll, nextLink, nextPageUrl, scrubToken } from '../../src/hub/hub-api';
import { type HubImportHost, importHubFiles, listHubFiles, notATraceFile, type PreviousImport, traceFiles } from '../../src/hub/hub-import';
import { parseHubRef } from '../../src/hub/hub-ref';
import { startHub } from '../e2e/hub-server.mjs';

const TOKEN = 'hf_loopbackTokenValue1234567890';
const line = (i: number) => `${JSON.stringify({ messages: [{ role: 'user', content: `q${i}` }, { role: 'assistant', content: `a${i}` }] })}\n`;

type Hub = Awaited<ReturnType<typeof startHub>>;

describe('Hub API against a loopback Hub', () => {
  let hub: Hub;
  let foreign: Hub;
  const files: Record<string, string> = { 'README.md': '---\nlicense: mit\n---\n', '.gitattributes': '*.jsonl filter=lfs\n' };
  for (let i = 0; i < 7; i++) files[`sessions/part-${i}.jsonl`] = line(i).repeat(3 + i);
  files['sessions/nested/deep.jsonl'] = line(99);
  files['sessions/notes.pdf'] = '%PDF-1.4';

  before(async () => {
    hub = await startHub({ pageSize: 3, cdn: true, datasets: { 'acme/open': { files }, 'acme/gated': { files: { 'data/train.jsonl': line(1).repeat(5) }, token: TOKEN } } });
    // a Hub whose next links point at another host (a mirror advertising huggingface.co links)
    foreign = await startHub({ pageSize: 2, echoToken: true, foreignNext: 'http://localhost:1', datasets: { 'acme/gated': { files: { 'a.jsonl': line(1), 'b.jsonl': line(2), 'c.jsonl': line(3) }, token: TOKEN } } });
  });
  after(async () => {
    await hub.close();
    await foreign.close();
  });

  it('lists a folder recursively across pages (Link rel="next" with a cursor), with sizes', async () => {
    hub.reset();
    const ref = parseHubRef('hf://datasets/acme/open/sessions')!;
    const pages: number[] = [];
    const { entries, pages: n } = await listAll(ref, { endpoint: hub.endpoint, recursive: true, onPage: (p) => pages.push(p.entries.length) });
    const want = Object.keys(files).filter((p) => p.startsWith('sessions/'));
    assert.deepEqual(entries.filter((e) => e.type === 'file').map((e) => e.path).sort(), want.sort());
    assert.ok(entries.some((e) => e.type === 'directory' && e.path === 'sessions/nested'));
    for (const e of entries.filter((x) => x.type === 'file')) assert.equal(e.size, new TextEncoder().encode(files[e.path]).length, e.path);
    // 10 entries (9 files + 1 folder) at 3 per page
    assert.equal(n, 4);
    assert.deepEqual(pages, [3, 3, 3, 1]);
    assert.equal(hub.log.filter((r) => r.path.startsWith('/api/')).length, 4);
    assert.ok(hub.log.slice(1).every((r) => /cursor=\d+/.test(r.search)));
  });

  it('a gated dataset: without a token a clear 401, with it the listing and the file; the token only in the header', async () => {
    const ref = parseHubRef('hf://datasets/acme/gated/data')!;
    await assert.rejects(listAll(ref, { endpoint: hub.endpoint }), (e: HubError) => e.code === 'unauthorized' && /private or gated/.test(e.message) && /Give a Hugging Face access token/.test(e.message));
    await assert.rejects(listAll(ref, { endpoint: hub.endpoint, token: 'hf_wrong_token_000000' }), (e: HubError) => e.code === 'unauthorized' && /refused the token/.test(e.message) && !e.message.includes('hf_wrong_token_000000'));
    hub.reset();
    const { entries } = await listAll(ref, { endpoint: hub.endpoint, token: TOKEN });
    assert.deepEqual(entries.map((e) => e.path), ['data/train.jsonl']);
    const blob = await downloadFile({ ...ref, path: 'data/train.jsonl', kind: 'file' }, { endpoint: hub.endpoint, token: TOKEN, expectBytes: entries[0].size });
    assert.equal(await blob.text(), line(1).repeat(5));
    for (const r of hub.log) {
      assert.equal(r.authorization, r.server === 'hub' ? `Bearer ${TOKEN}` : null, `${r.server} ${r.path}`);
      assert.ok(!r.search.includes(TOKEN) && !r.path.includes(TOKEN));
    }
  });

  it('a server that echoes the token in its error: the message carries no token', async () => {
    const ref = parseHubRef('hf://datasets/acme/gated')!;
    const bad = `${TOKEN}x`;
    await assert.rejects(listAll(ref, { endpoint: foreign.endpoint, token: bad }), (e: HubError) => {
      assert.ok(!e.message.includes(bad), e.message);
      assert.match(e.message, /hf_…/);
      return true;
    });
    // the token goes only to the endpoint's origin (a remote Parquet URL elsewhere gets none)
    assert.equal(hubHeaders(`${hub.endpoint}/datasets/a/b/resolve/main/x`, { endpoint: hub.endpoint, token: TOKEN }).get('authorization'), `Bearer ${TOKEN}`);
    assert.equal(hubHeaders(`${hub.cdnOrigin}/x.parquet`, { endpoint: hub.endpoint, token: TOKEN }).get('authorization'), null);
    assert.equal(scrubToken(`x ${TOKEN} y ${encodeURIComponent(TOKEN)}`, TOKEN), 'x hf_… y hf_…');
  });

  it('a next link to another host is followed on the configured endpoint, so the token never leaves it', async () => {
    foreign.reset();
    const { entries, pages } = await listAll(parseHubRef('hf://datasets/acme/gated')!, { endpoint: foreign.endpoint, token: TOKEN });
    assert.deepEqual(entries.map((e) => e.path).sort(), ['a.jsonl', 'b.jsonl', 'c.jsonl']);
    assert.equal(pages, 2);
    assert.equal(foreign.log.length, 2);
    assert.equal(nextPageUrl('https://huggingface.co/api/datasets/a/b/tree/main?cursor=xyz', 'https://mirror.example'), 'https://mirror.example/api/datasets/a/b/tree/main?cursor=xyz');
    assert.equal(nextLink('<https://h/a?cursor=1>; rel="next", <https://h/a?cursor=0>; rel="prev"'), 'https://h/a?cursor=1');
    assert.equal(nextLink('<https://h/a?cursor=0>; rel="prev"'), null);
  });

  it('an LFS file is redirected to the CDN (another origin): the Authorization header is not sent there', async () => {
    hub.reset();
    const ref = parseHubRef('hf://datasets/acme/open/sessions/part-6.jsonl')!;
    const blob = await downloadFile(ref, { endpoint: hub.endpoint, token: TOKEN });
    assert.equal(await blob.text(), files['sessions/part-6.jsonl']);
    const cdn = hub.log.filter((r) => r.server === 'cdn');
    assert.equal(cdn.length, 1);
    assert.equal(cdn[0].authorization, null);
  });

  it('a download shorter than the listing says is refused, not imported as whole', async () => {
    const ref = parseHubRef('hf://datasets/acme/open/sessions/part-0.jsonl')!;
    await assert.rejects(downloadFile(ref, { endpoint: hub.endpoint, expectBytes: 10_000 }), (e: HubError) => e.code === 'truncated' && /listing says 10000/.test(e.message));
  });

  it('a reference to one file is found in its folder; a folder lists every file below it', async () => {
    const one = await listHubFiles(parseHubRef('hf://datasets/acme/open/sessions/nested/deep.jsonl')!, { endpoint: hub.endpoint });
    assert.equal(one.ref.kind, 'file');
    assert.deepEqual(one.files.map((f) => f.path), ['sessions/nested/deep.jsonl']);
    const all = await listHubFiles(parseHubRef('https://huggingface.co/datasets/acme/open')!, { endpoint: hub.endpoint });
    assert.equal(all.files.length, Object.keys(files).length);
    const dir = await listHubFiles(parseHubRef('hf://datasets/acme/open/sessions/nested')!, { endpoint: hub.endpoint });
    assert.equal(dir.ref.kind, 'folder');
    await assert.rejects(listHubFiles(parseHubRef('hf://datasets/acme/open/sessions/missing.jsonl')!, { endpoint: hub.endpoint }), /no such file or folder/);
    const { files: trace, skipped } = traceFiles(all.files);
    assert.equal(trace.length, 8);
    assert.deepEqual(skipped.map((s) => s.path).sort(), ['.gitattributes', 'README.md', 'sessions/notes.pdf']);
    assert.match(notATraceFile('sessions/notes.pdf')!, /\.pdf/);
    for (const ok of ['a.jsonl', 'a.json.gz', 'x/b.parquet', 'c.har', 'd.yaml', 'e.eval', 'f.gz', 'g.ndjson']) assert.equal(notATraceFile(ok), null, ok);
  });

  it('importHubFiles: one report per file in order; a file whose SHA-256 the pool holds is not downloaded', async () => {
    const listing = await listHubFiles(parseHubRef('hf://datasets/acme/open/sessions')!, { endpoint: hub.endpoint });
    const { files: trace } = traceFiles(listing.files);
    const known = hub.file('acme/open', 'sessions/part-2.jsonl');
    assert.ok(known?.lfs);
    const downloaded: string[] = [];
    const host: HubImportHost = {
      async previous(shas) {
        assert.ok(shas.every((s) => /^[0-9a-f]{64}$/.test(s)));
        return new Map<string, PreviousImport>(shas.filter((s) => s === known.sha256).map((s) => [s, { importId: 7, format: 'openai-chat', records: 5, rows: 5 }]));
      },
      async importDownloaded(name, bytes, download) {
        const blob = await download(undefined, () => {});
        downloaded.push(name);
        assert.equal(blob.size, bytes);
        return { file: name, format: 'openai-chat', confidence: 1, records: 1, rows: 1, added: 1, rejected: [], warnings: [], status: 'done', message: null, importId: 1, bytes, ms: 0 } satisfies ImportReport;
      },
    };
    hub.reset();
    const reports = await importHubFiles(listing.ref, trace, host, { endpoint: hub.endpoint });
    assert.deepEqual(reports.map((r) => r.file), trace.map((f) => `hf://datasets/acme/open/${f.path}`));
    const skip = reports.find((r) => r.file.endsWith('part-2.jsonl'))!;
    assert.equal(skip.status, 'unchanged');
    assert.equal(skip.added, 0);
    assert.match(skip.message!, /import #7/);
    assert.ok(!downloaded.some((n) => n.endsWith('part-2.jsonl')));
    assert.equal(downloaded.length, trace.length - 1);
    assert.ok(!hub.log.some((r) => r.path.endsWith('part-2.jsonl')), 'part-2 was requested');
  });
});
