/**
 * Remote Parquet by range (src/hub/parquet-range.ts) against a loopback Hub: a read fetches only the footer and the
 * column chunks asked for; a host that ignores Range, a gated file without a token, a file that is not Parquet and a
 * request that fails half way each end in a clear error — never in parquet-wasm's abort (which kills the process).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { tableFromIPC } from 'apache-arrow';
import * as parquetWasm from 'parquet-wasm/node';
import { type HubError, hubHeaders } from '../../src/hub/hub-api';
import { type ParquetWasm, RemoteParquet } from '../../src/hub/parquet-range';
import { type LoopbackHub, startHub } from '../e2e/hub-server.mjs';
import { scratchDir } from '../scratch.mjs';

const wasm = parquetWasm as unknown as ParquetWasm;
const TOKEN = 'hf_rangeTestToken0123456789';

async function parquetBytes(): Promise<Uint8Array> {
  const dir = scratchDir('aw-range-');
  const c = await (await DuckDBInstance.create(':memory:')).connect();
  const path = join(dir, 'f.parquet');
  await c.run(`COPY (SELECT i AS id, md5(i::VARCHAR) || md5((i * 7)::VARCHAR) AS text, [{'role': 'user', 'content': 'q' || i}] AS messages FROM range(40000) t(i)) TO '${path}' (FORMAT parquet, ROW_GROUP_SIZE 4096)`);
  return new Uint8Array(readFileSync(path));
}

describe('remote Parquet by range', () => {
  let hub: LoopbackHub;
  let noRanges: LoopbackHub;
  let bytes: Uint8Array;
  const url = (h: LoopbackHub, id: string, path: string) => `${h.endpoint}/datasets/${id}/resolve/main/${path}`;

  before(async () => {
    bytes = await parquetBytes();
    const datasets = { 'acme/open': { files: { 'train.parquet': bytes, 'notes.jsonl': '{"a": 1}\n'.repeat(50) } }, 'acme/gated': { files: { 'train.parquet': bytes }, token: TOKEN } };
    hub = await startHub({ datasets, cdn: true });
    noRanges = await startHub({ datasets, ranges: false });
  });
  after(async () => {
    await hub.close();
    await noRanges.close();
  });

  it('reads the footer and only the chunks of the columns and row groups asked for', async () => {
    hub.reset();
    const rp = await RemoteParquet.open(url(hub, 'acme/open', 'train.parquet'), wasm);
    assert.equal(rp.meta.size, bytes.length);
    assert.equal(rp.meta.numRows, 40000);
    assert.deepEqual(rp.meta.columns.map((c) => c.name), ['id', 'text', 'messages']);
    assert.ok(rp.meta.rowGroups.length >= 5, `${rp.meta.rowGroups.length} row groups`);
    const opened = { ...rp.file.stats };
    // HEAD, then the file's tail (the footer fits)
    assert.equal(opened.requests, 2);
    const { ipc, rows } = await rp.read(['id'], [1]);
    const t = tableFromIPC(ipc);
    assert.deepEqual(t.schema.fields.map((f) => f.name), ['id']);
    assert.equal(t.numRows, rows);
    assert.equal(Number(t.getChild('id')!.get(0)), rp.meta.rowGroups[0].numRows);
    const fetched = rp.file.stats.bytes;
    assert.ok(fetched < bytes.length / 10, `fetched ${fetched} of ${bytes.length}`);
    const sent = hub.bytesSent();
    assert.equal(sent, fetched);
    // every GET was a range answered 206 (through the CDN redirect, as the Hub's LFS files are)
    assert.ok(hub.log.filter((r) => r.method === 'GET').every((r) => r.range !== null));
  });

  it('a host that ignores Range is refused before its body is read, saying so', async () => {
    await assert.rejects(RemoteParquet.open(url(noRanges, 'acme/open', 'train.parquet'), wasm), (e: HubError) => {
      assert.match(e.message, /does not answer range requests/);
      assert.match(e.message, /HTTP 200 instead of 206/);
      return true;
    });
  });

  it('a gated file: refused without a token (a clear message), read with one; the token in no message', async () => {
    const u = url(hub, 'acme/gated', 'train.parquet');
    await assert.rejects(RemoteParquet.open(u, wasm), (e: HubError) => e.code === 'unauthorized' && /access refused \(HTTP 401\)/.test(e.message));
    const headers = hubHeaders(u, { endpoint: hub.endpoint, token: TOKEN });
    const rp = await RemoteParquet.open(u, wasm, { headers, token: TOKEN });
    assert.equal(rp.meta.numRows, 40000);
    await assert.rejects(RemoteParquet.open(u, wasm, { headers: hubHeaders(u, { endpoint: hub.endpoint, token: `${TOKEN}x` }), token: `${TOKEN}x` }), (e: Error) => !e.message.includes(TOKEN));
  });

  it('a file that is not Parquet, and a request that fails half way, end in errors; parquet-wasm keeps working', async () => {
    await assert.rejects(RemoteParquet.open(url(hub, 'acme/open', 'notes.jsonl'), wasm), /not a Parquet file/);
    let calls = 0;
    const flaky: typeof fetch = (input, init) => (++calls === 4 ? Promise.reject(new TypeError('fetch failed: connection reset')) : fetch(input, init));
    const rp = await RemoteParquet.open(url(hub, 'acme/open', 'train.parquet'), wasm, { fetch: flaky });
    await assert.rejects(rp.read(['text'], [0, 1]), (e: HubError) => e.code === 'network' && /Could not reach/.test(e.message) && /CORS/.test(e.message));
    // the failed reader stays failed; a new one reads
    await assert.rejects(rp.read(['id'], [0]), /Could not reach/);
    const again = await RemoteParquet.open(url(hub, 'acme/open', 'train.parquet'), wasm);
    assert.equal(tableFromIPC((await again.read(['id'], [2])).ipc).numRows, again.meta.rowGroups[2].numRows);
  });
});
