/**
 * What a headless notebook may read remotely (src/cli/remote-parquet.ts): only addresses `--read` names. A URL that
 * climbs out of the named folder (`..`, `%2e%2e`), one whose host hides behind a user name (`named@other`), and a named
 * host that redirects to one not named are refused before any byte of them is fetched; the Hub endpoint's own
 * redirects (its CDN) are followed, without the token.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { cliRemoteParquet, remoteRefusal } from '../../src/cli/remote-parquet';
import { type LoopbackHub, startHub } from '../e2e/hub-server.mjs';
import { scratchDir } from '../scratch.mjs';

const TOKEN = 'hf_scopeTestToken0123456789ab';

/** A loopback host serving one Parquet file by range at every path but `/data/moved*` (a 302 to `redirect(path)`). */
async function host(parquet: Uint8Array, redirect: (path: string) => string | null) {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const to = redirect(req.url ?? '');
    if (to) {
      res.writeHead(302, { Location: to });
      return res.end();
    }
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (!m) {
      res.writeHead(200, { 'Content-Length': parquet.length });
      return res.end(req.method === 'HEAD' ? undefined : Buffer.from(parquet));
    }
    const [a, b] = [Number(m[1]), Math.min(Number(m[2]), parquet.length - 1)];
    res.writeHead(206, { 'Content-Length': b - a + 1, 'Content-Range': `bytes ${a}-${b}/${parquet.length}` });
    res.end(Buffer.from(parquet.subarray(a, b + 1)));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise((ok) => server.close(ok)) };
}

describe('CLI remote reads stay where --read names', () => {
  let dir: string;
  let parquet: Uint8Array;
  let named: Awaited<ReturnType<typeof host>>;
  let other: Awaited<ReturnType<typeof host>>;
  let hub: LoopbackHub;
  before(async () => {
    dir = scratchDir('aw-remote-scope-');
    const c = await (await DuckDBInstance.create(':memory:')).connect();
    await c.run(`COPY (SELECT i AS id FROM range(100) t(i)) TO '${join(dir, 't.parquet')}' (FORMAT parquet)`);
    parquet = new Uint8Array(readFileSync(join(dir, 't.parquet')));
    other = await host(parquet, () => null);
    named = await host(parquet, (p) => (p.startsWith('/data/moved-out') ? `${other.url}/secret.parquet` : p.startsWith('/data/moved-in') ? '/data/t.parquet' : null));
    hub = await startHub({ cdn: true, datasets: { 'acme/tables': { files: { 'train.parquet': parquet }, token: TOKEN } } });
  });
  after(async () => {
    await named.close();
    await other.close();
    await hub.close();
  });

  it('a URL names an address under --read only as it is fetched: no .., no user name before the host', () => {
    const refuse = remoteRefusal(['https://good.example/data', 'https://whole.example'], 'https://huggingface.co');
    const check = (u: string) => refuse(u, u);
    assert.equal(check('https://good.example/data/x.parquet'), null);
    assert.equal(check('https://good.example/data'), null);
    assert.equal(check('https://whole.example/any/x.parquet'), null);
    for (const u of [
      'https://good.example/data/../private/x.parquet',
      'https://good.example/data/%2e%2e/private/x.parquet',
      'https://good.example/data/.%2E/private/x.parquet',
      'https://good.example/database/x.parquet',
      'https://whole.example@evil.example/x.parquet',
      'https://whole.example:443@evil.example/x.parquet',
      'https://whole.example.evil.example/x.parquet',
      'http://good.example/data/x.parquet',
    ]) {
      assert.match(check(u) ?? 'allowed', /does not name this address/, u);
    }
  });

  it('a read that climbs out of the named folder, or is redirected to a host not named, fetches nothing there', async () => {
    const remote = cliRemoteParquet(join(dir, 'r1'), { allowed: [`${named.url}/data`], env: {} });
    try {
      const read = (u: string) => remote.sql.rewrite(`SELECT count(*) FROM read_parquet('${u}')`);
      await read(`${named.url}/data/t.parquet`);
      await read(`${named.url}/data/moved-in.parquet`);
      named.seen.length = 0;
      await assert.rejects(read(`${named.url}/data/../private.parquet`), /does not name this address/);
      assert.deepEqual(named.seen, []);
      await assert.rejects(read(`${named.url}/data/moved-out.parquet`), new RegExp(`redirected to ${other.url}/secret\\.parquet, an address the command does not name`));
      assert.deepEqual(other.seen, [], 'the host not named got no request');
    } finally {
      remote.dispose();
    }
  });

  it('an hf:// read follows the Hub\'s redirect to its CDN; the token goes to the endpoint only', async () => {
    const remote = cliRemoteParquet(join(dir, 'r2'), { allowed: ['hf://datasets/acme/tables'], env: { HF_ENDPOINT: hub.endpoint, HF_TOKEN: TOKEN } });
    try {
      hub.reset();
      assert.match(await remote.sql.rewrite(`SELECT count(*) FROM read_parquet('hf://datasets/acme/tables/train.parquet')`), /rp_/);
      const cdn = hub.log.filter((l) => l.server === 'cdn');
      assert.ok(cdn.length > 0, 'read through the CDN');
      assert.ok(cdn.every((l) => l.authorization === null), 'no token to the CDN');
      assert.ok(hub.log.some((l) => l.server === 'hub' && l.authorization === `Bearer ${TOKEN}`));
    } finally {
      remote.dispose();
    }
  });
});
