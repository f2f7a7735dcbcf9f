/**
 * The export worker's calls (workers/export.worker.ts hosts them; the protocol is api.ts): pulls a query's rows from
 * the pool in chunks and writes Parquet (zstd, one row group per chunk, streamed through parquet-wasm) or JSONL / CSV
 * into a Blob, so memory stays bounded. With tokens, each chunk's token columns come from the tokenizer worker.
 */
import { Bool, Field, Int32, List, makeData, makeVector, Table, tableFromIPC, tableToIPC, vectorFromArray } from 'apache-arrow';
import * as Comlink from 'comlink';
import initParquet, { Compression, Table as WasmTable, transformParquetStream, WriterPropertiesBuilder, writeParquet } from 'parquet-wasm/esm';
import type { ExportFormat, ExportProgress } from '../contract/reports';
import type { PoolApi } from '../pool/api';
import { tableToRows } from '../pool/rows';
import type { TokenizerWorkerApi } from '../tokenizer/api';
import type { ExportRowInput, RlRowInput } from '../tokenizer/export-rows';
import { CancelledJobs } from '../util/jobs';
import type { ExportTokens, ExportWorkerApi } from './api';
import { csvPart, jsonlPart } from './encode';
/** Chunks of about this many IPC bytes: small enough that encoding one overlaps making the next. */
const CHUNK_BYTES = 8 << 20;
/**
 * Row groups of about this many Arrow bytes. The writer holds a whole row group in parquet-wasm's
 * heap: 50k wide step rows (raw, messages) were ~240 MB, and growing the wasm heap that far made a
 * page's first export twice as slow as its second (docs/performance.md).
 */
const ROW_GROUP_BYTES = 24 << 20;
const ROW_GROUP_MAX = 122_880;

function props(rowGroup = ROW_GROUP_MAX) {
  return new WriterPropertiesBuilder().setCompression(Compression.ZSTD).setMaxRowGroupSize(rowGroup).setCreatedBy('AgentWorld Workbench').build();
}

/** Rows per row group for rows as wide as this chunk's. */
function rowGroupRows(chunkBytes: number, rows: number): number {
  return Math.max(1024, Math.min(ROW_GROUP_MAX, Math.round((ROW_GROUP_BYTES * rows) / Math.max(1, chunkBytes))));
}

/** An INTEGER[] column from flat values and offsets. */
function intLists(offsets: Int32Array, values: Int32Array) {
  const type = new List(new Field('element', new Int32(), true));
  const child = makeData({ type: new Int32(), length: values.length, nullCount: 0, data: values });
  return makeVector(makeData({ type, length: offsets.length - 1, nullCount: 0, valueOffsets: offsets, child }));
}

/** Fill a chunk's placeholder input_ids / assistant_masks / n_tokens with the tokenizer worker's columns. */
async function withTokens(chunk: Uint8Array, tok: Comlink.Remote<TokenizerWorkerApi>, maxTokens: number | null): Promise<Uint8Array> {
  const t = tableFromIPC(chunk);
  if (!t.numRows) return chunk;
  const rows = tableToRows(t.select(['messages', 'tools'])) as unknown as ExportRowInput[];
  const c = await tok.tokenColumns(rows, maxTokens);
  const n = new Int32Array(rows.length);
  for (let i = 0; i < n.length; i++) n[i] = (c.offsets[i + 1] as number) - (c.offsets[i] as number);
  const extra = new Table({ input_ids: intLists(c.offsets, c.ids), assistant_masks: intLists(c.offsets, c.masks), n_tokens: makeVector(n) });
  return tableToIPC(t.assign(extra), 'stream');
}

/** A nullable INTEGER[] column from flat values, offsets and per-row validity. */
function nullableIntLists(offsets: Int32Array, values: Int32Array, valid: Uint8Array) {
  const type = new List(new Field('element', new Int32(), true));
  const n = valid.length;
  const bitmap = new Uint8Array(Math.ceil(n / 8));
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    if (valid[i]) bitmap[i >> 3] = (bitmap[i >> 3] as number) | (1 << (i & 7));
    else nulls++;
  }
  const child = makeData({ type: new Int32(), length: values.length, nullCount: 0, data: values });
  return makeVector(makeData({ type, length: n, nullCount: nulls, nullBitmap: bitmap, valueOffsets: offsets, child }));
}

/** rl_steps (decision 032): fill a chunk's prompt_ids / response_ids / ids_retokenized from the tokenizer worker. */
async function withRlTokens(chunk: Uint8Array, tok: Comlink.Remote<TokenizerWorkerApi>): Promise<Uint8Array> {
  const t = tableFromIPC(chunk);
  if (!t.numRows) return chunk;
  const rows = tableToRows(t.select(['trajectory_uid', 'prompt', 'response', 'tools', 'prompt_ids', 'response_ids'])) as unknown as RlRowInput[];
  const c = await tok.rlTokenColumns(rows);
  const flags = vectorFromArray(
    Array.from(c.retokenized, (x) => (x === 2 ? null : x === 1)),
    new Bool(),
  );
  const extra = new Table({
    prompt_ids: nullableIntLists(c.promptOffsets, c.promptIds, c.promptValid),
    response_ids: nullableIntLists(c.responseOffsets, c.responseIds, c.responseValid),
    ids_retokenized: flags,
  });
  return tableToIPC(t.assign(extra), 'stream');
}

/** A new export worker's API (one per worker: it holds the port to the pool and the parquet-wasm module). */
export function createExportWorkerApi(): ExportWorkerApi {
  let pool: Comlink.Remote<PoolApi> | null = null;
  let parquetUrl = '';
  let ready: Promise<unknown> | null = null;
  const cancelled = new CancelledJobs();
  const api: ExportWorkerApi = {
    init(port: MessagePort, parquetWasmUrl: string): void {
      pool = Comlink.wrap<PoolApi>(port);
      parquetUrl = parquetWasmUrl;
    },

    /** `tokens`: fill the query's input_ids / assistant_masks / n_tokens columns from the tokenizer worker on this port. */
    async exportQuery(job: number, sql: string, format: ExportFormat, onProgress?: (p: ExportProgress) => void, tokens?: ExportTokens): Promise<Blob> {
      if (!pool) throw new Error('export worker not initialised');
      const p = pool;
      const tok = tokens ? Comlink.wrap<TokenizerWorkerApi>(tokens.port) : null;
      const cursor = await p.openCursor(sql);
      const parts: BlobPart[] = [];
      let rows = 0;
      let bytes = 0;
      // one chunk ahead: the pool worker produces the next chunk while this worker encodes the last
      let ahead: Promise<Uint8Array | null> | null = null;
      const fetchChunk = () => {
        const f = p.nextChunk(cursor, CHUNK_BYTES);
        f.catch(() => {}); // awaited by the next call, or dropped with the export
        return f;
      };
      let firstBytes = 0;
      const next = async (): Promise<Uint8Array | null> => {
        if (cancelled.has(job)) {
          await p.closeCursor(cursor);
          throw new Error('The export was cancelled.');
        }
        const raw = await (ahead ?? fetchChunk());
        ahead = raw ? fetchChunk() : null;
        const chunk = raw && tok ? await (tokens?.mode === 'rl_steps' ? withRlTokens(raw, tok) : withTokens(raw, tok, tokens?.maxTokens ?? null)) : raw;
        firstBytes ||= chunk?.byteLength ?? 0;
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
          const firstRows = pending.reduce((n, b) => n + b.numRows, 0);
          const out = (await transformParquetStream(batches, props(rowGroupRows(firstBytes, firstRows)))).getReader();
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
        cancelled.end(job);
        tokens?.port.close();
        await p.closeCursor(cursor);
      }
    },

    cancel(job: number): void {
      cancelled.cancel(job);
    },
  };
  return api;
}
