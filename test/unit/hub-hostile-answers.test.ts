/**
 * What a Hub (or a mirror set as the endpoint) answers is data, not something to trust (src/hub): a listing entry whose
 * path climbs out of the repository (`..`, an empty or `.` part, a backslash) is a skipped file with its reason, and
 * every other file is still imported; a file whose name holds `%` is downloaded by its own name (the listing's paths
 * are not URL-encoded); a status line that echoes the token does not carry it into the message (which the pool keeps).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ImportReport } from '../../src/contract/reports';
import { hubHttpError, listAll, listTree } from '../../src/hub/hub-api';
import { importFromHub } from '../../src/hub/hub-import';
import { parseHubRef } from '../../src/hub/hub-ref';

const ENDPOINT = 'https://hub.example';

describe('a hostile Hub', () => {
  it('an entry that climbs out of the repository is skipped with its reason; every other file is imported by its own name', async () => {
    const paths = ['data/ok.jsonl', 'data/../../escape.jsonl', 'data/./dot.jsonl', 'data//empty.jsonl', 'data\\..\\back.jsonl', 'data/50%.jsonl', 'data/a%20b.jsonl', 'data/a b.jsonl'];
    const asked: string[] = [];
    const fetch = (async (input: string) => {
      const u = new URL(input);
      if (u.searchParams.get('recursive') === 'false') return Response.json([{ type: 'directory', path: 'data', size: 0, oid: 'd' }]);
      if (u.pathname.startsWith('/api/')) return Response.json(paths.map((path) => ({ type: 'file', path, size: path.length, oid: 'x' })));
      const path = decodeURIComponent(u.pathname.replace('/datasets/acme/d/resolve/main/', ''));
      asked.push(path);
      return new Response(path);
    }) as typeof globalThis.fetch;
    const got: { name: string; text: string }[] = [];
    const host = {
      previous: async () => new Map(),
      async importDownloaded(name: string, bytes: number, download: (s: AbortSignal | undefined, b: (n: number) => void) => Promise<Blob>) {
        got.push({ name, text: await (await download(undefined, () => {})).text() });
        return { file: name, status: 'done', bytes } as unknown as ImportReport;
      },
    };
    const reports = await importFromHub(parseHubRef('hf://datasets/acme/d/data', ENDPOINT)!, host, { endpoint: ENDPOINT, fetch });
    assert.deepEqual(got, [
      { name: 'hf://datasets/acme/d/data/ok.jsonl', text: 'data/ok.jsonl' },
      { name: 'hf://datasets/acme/d/data/50%.jsonl', text: 'data/50%.jsonl' },
      { name: 'hf://datasets/acme/d/data/a%20b.jsonl', text: 'data/a%20b.jsonl' },
      { name: 'hf://datasets/acme/d/data/a b.jsonl', text: 'data/a b.jsonl' },
    ]);
    assert.equal(reports.length, 4);
    assert.deepEqual(
      reports.skipped.map((s) => s.path),
      ['data/../../escape.jsonl', 'data/./dot.jsonl', 'data//empty.jsonl', 'data\\..\\back.jsonl'],
    );
    for (const s of reports.skipped) assert.match(s.reason, /not a plain path in the repository/);
    assert.ok(!asked.some((p) => p.includes('escape') || p.includes('back')), `downloaded ${asked}`);
  });

  it('a status line that echoes the token: the message has no token', async () => {
    const token = 'hf_statusLineToken0123456789';
    const fetch = (async () => new Response('', { status: 502, statusText: `Bad Gateway for Bearer ${token}` })) as unknown as typeof globalThis.fetch;
    const err = await listAll(parseHubRef('hf://datasets/acme/d', ENDPOINT)!, { endpoint: ENDPOINT, token, fetch }).catch((e: Error) => e);
    assert.match(String(err), /HTTP 502 Bad Gateway for Bearer hf_…/);
    const direct = await hubHttpError(new Response('', { status: 500, statusText: encodeURIComponent(token) }), 'x', { token });
    assert.ok(!direct.message.includes(token) && !direct.message.includes(encodeURIComponent(token)), direct.message);
  });

  it('a listing that never ends: stopped at 10,000 pages, or at a page link seen twice', async () => {
    let pages = 0;
    const endless = (async () => {
      pages++;
      // a fresh link every time (the stub itself gives up at 20,000)
      const link = pages < 20_000 ? `<${ENDPOINT}/api/datasets/acme/d/tree/main?cursor=${pages}>; rel="next"` : '';
      return Response.json([{ type: 'file', path: `f${pages}.jsonl`, size: 1, oid: 'x' }], { headers: link ? { link } : {} });
    }) as unknown as typeof globalThis.fetch;
    const ref = parseHubRef('hf://datasets/acme/d', ENDPOINT)!;
    await assert.rejects(listAll(ref, { endpoint: ENDPOINT, fetch: endless }), /more than 10000 pages; list a folder further down/);
    assert.equal(pages, 10_000);
    const loop = (async () => Response.json([], { headers: { link: `<${ENDPOINT}/api/datasets/acme/d/tree/main?cursor=same>; rel="next"` } })) as unknown as typeof globalThis.fetch;
    const seen: number[] = [];
    await assert.rejects(
      (async () => {
        for await (const p of listTree(ref, { endpoint: ENDPOINT, fetch: loop })) seen.push(p.page);
      })(),
      /the Hub sent the same page link twice/,
    );
    assert.deepEqual(seen, [1, 2]);
  });
});
