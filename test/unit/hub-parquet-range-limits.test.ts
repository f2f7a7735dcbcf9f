/**
 * A hostile host behind a remote Parquet URL (src/hub/parquet-range.ts; the page's reader worker and the CLI share
 * it): an answer to a range request that goes on past the bytes asked for, and a footer that says it is hundreds of
 * megabytes. Each is refused after at most what a real file needs — never read into memory to its end.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as parquetWasm from 'parquet-wasm/node';
import { type ParquetWasm, RangeFile, RemoteParquet } from '../../src/hub/parquet-range';

const wasm = parquetWasm as unknown as ParquetWasm;
const MiB = 1 << 20;

/** A body of `total` bytes made as it is read: `at(pos, chunk)` fills each 1 MiB piece; `pulled` counts what was read. */
function lazyBody(total: number, at: (pos: number, chunk: Uint8Array) => void, count: { pulled: number }): ReadableStream<Uint8Array> {
  let pos = 0;
  return new ReadableStream({
    pull(c) {
      if (pos >= total) return c.close();
      const chunk = new Uint8Array(Math.min(MiB, total - pos));
      at(pos, chunk);
      pos += chunk.length;
      count.pulled += chunk.length;
      c.enqueue(chunk);
    },
  });
}

describe('remote Parquet: a hostile host', () => {
  it('an answer to a range request that goes on past the bytes asked for is cut off, not read to its end', async () => {
    const count = { pulled: 0 };
    const fetch = (async () => new Response(lazyBody(256 * MiB, () => {}, count), { status: 206 })) as typeof globalThis.fetch;
    const file = new RangeFile('https://host.example/f.parquet', { fetch });
    await assert.rejects(file.range(0, 1000), /sent more than the 1000 bytes asked for/);
    assert.ok(count.pulled <= 2 * MiB, `read ${count.pulled} bytes of an answer to a 1000-byte request`);
  });

  it('a footer that says it is 300 MB is refused before it is fetched', async () => {
    const size = 2_000_000_000;
    const footer = 300 * MiB;
    const tail = new Uint8Array(8);
    new DataView(tail.buffer).setUint32(0, footer, true);
    tail.set(new TextEncoder().encode('PAR1'), 4);
    const count = { pulled: 0 };
    let asked = 0;
    const fetch = (async (_url: string, init?: RequestInit) => {
      if (init?.method === 'HEAD') return new Response(null, { status: 200, headers: { 'content-length': String(size) } });
      const m = /bytes=(\d+)-(\d+)/.exec(new Headers(init?.headers).get('range') ?? '');
      const [a, b] = [Number(m?.[1]), Number(m?.[2])];
      asked += b - a + 1;
      const body = lazyBody(b - a + 1, (pos, chunk) => {
        for (let i = 0; i < chunk.length; i++) if (a + pos + i >= size - 8) chunk[i] = tail[a + pos + i - (size - 8)] as number;
      }, count);
      return new Response(body, { status: 206 });
    }) as typeof globalThis.fetch;
    await assert.rejects(RemoteParquet.open('https://host.example/f.parquet', wasm, { fetch }), /says its footer takes 300\.0 MB, more than the 64\.0 MB/);
    assert.ok(asked <= 64 * 1024 + 8, `asked for ${asked} bytes`);
    assert.ok(count.pulled <= 2 * MiB, `read ${count.pulled} bytes`);
  });
});
