/// <reference lib="webworker" />
/**
 * Export worker: pulls a query's rows from the pool in chunks and writes Parquet (zstd, one row
 * group per chunk, streamed through parquet-wasm) or JSONL / CSV into a Blob, so memory stays bounded.
 */
import * as Comlink from 'comlink';
import initParquet, { Compression, Table as WasmTable, transformParquetStream, WriterPropertiesBuilder, writeParquet } from 'parquet-wasm/esm';
import type { ExportFormat, ExportProgress } from '../src/app/services';
import { csvPart, jsonlPart } from '../src/export/encode';
import type { PoolApi } from '../src/pool/pool-core';

let pool: Comlink.Remote<PoolApi> | null = null;
let parquetUrl = '';
let ready: Promise<unknown> | null = null;
const cancelled = new Set<number>();
const ROW_GROUP = 50_000;
/** Chunks of about this many IPC bytes: wide step rows (raw, messages) make 50k-row chunks hundreds of MB. */
const CHUNK_BYTES = 24 << 20;

function props() {
  return new WriterPropertiesBuilder().setCompression(Compression.ZSTD).setMaxRowGroupSize(ROW_GROUP).setCreatedBy('AgentWorld Workbench').build();
}

const api = {
  init(port: MessagePort, parquetWasmUrl: string): void {
    pool = Comlink.wrap<PoolApi>(port);
    parquetUrl = parquetWasmUrl;
  },

  async exportQuery(job: number, sql: string, format: ExportFormat, onProgress?: (p: ExportProgress) => void): Promise<Blob> {
    if (!pool) throw new Error('export worker not initialised');
    const p = pool;
    const cursor = await p.openCursor(sql);
    const parts: BlobPart[] = [];
    let rows = 0;
    let bytes = 0;
    // small chunks let the pool worker produce the next one while this worker encodes (2 cores)
    let chunkRows = 4096;
    const next = async (): Promise<Uint8Array | null> => {
      if (cancelled.has(job)) {
        await p.closeCursor(cursor);
        throw new Error('The export was cancelled.');
      }
      const chunk = await p.nextChunk(cursor, chunkRows);
      if (chunk) {
        // nextChunk returns at least the rows asked for, in 2048-row vectors
        const n = Math.ceil(chunkRows / 2048) * 2048;
        chunkRows = Math.min(ROW_GROUP, Math.max(2048, Math.round((n * CHUNK_BYTES) / chunk.byteLength)));
      }
      return chunk;
    };
    try {
      if (format === 'parquet') {
        ready ??= initParquet({ module_or_path: parquetUrl });
        await ready;
        // transformParquetStream needs at least one batch (it takes the schema from it): skip chunks
        // that decode to no batch, and write an empty file from the query's schema when nothing comes.
        const nextBatches = async () => {
          for (;;) {
            const chunk = await next();
            if (!chunk) return null;
            const bs = WasmTable.fromIPCStream(chunk).recordBatches();
            if (bs.length) return bs;
          }
        };
        let pending = await nextBatches();
        if (!pending) {
          const empty = await p.query(`SELECT * FROM (${sql}) LIMIT 0`);
          return new Blob([writeParquet(WasmTable.fromIPCStream(empty), props()) as BlobPart], { type: 'application/vnd.apache.parquet' });
        }
        // transformParquetStream ends its output cleanly when its input errors, which turned a query
        // failing mid-stream (out of memory after a 1 GB import, error()) into a silently truncated file
        let failure: unknown = null;
        const batches = new ReadableStream({
          async pull(ctrl) {
            try {
              const bs = pending ?? (await nextBatches());
              pending = null;
              if (!bs) {
                ctrl.close();
                return;
              }
              for (const b of bs) {
                rows += b.numRows;
                ctrl.enqueue(b);
              }
            } catch (e) {
              failure = e;
              ctrl.error(e);
            }
          },
        });
        const out = (await transformParquetStream(batches, props())).getReader();
        for (;;) {
          const { done, value } = await out.read();
          if (done) break;
          parts.push(value as BlobPart);
          bytes += (value as Uint8Array).byteLength;
          onProgress?.({ rows, bytes });
        }
        if (failure) throw failure instanceof Error ? failure : new Error(String(failure));
        return new Blob(parts, { type: 'application/vnd.apache.parquet' });
      }
      let header = true;
      for (;;) {
        const chunk = await next();
        if (!chunk) break;
        const part = format === 'csv' ? csvPart(chunk, header) : jsonlPart(chunk);
        header = false;
        parts.push(part.text);
        rows += part.rows;
        bytes += part.text.length;
        onProgress?.({ rows, bytes });
      }
      if (format === 'csv' && header) {
        const empty = await p.query(`SELECT * FROM (${sql}) LIMIT 0`);
        parts.push(csvPart(empty, true).text);
      }
      return new Blob(parts, { type: format === 'csv' ? 'text/csv' : 'application/x-ndjson' });
    } finally {
      cancelled.delete(job);
      await p.closeCursor(cursor);
    }
  },

  cancel(job: number): void {
    cancelled.add(job);
  },
};

export type ExportWorkerApi = typeof api;
Comlink.expose(api);
