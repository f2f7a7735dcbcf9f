/// <reference lib="webworker" />
/** Ingest worker: streams a file, normalizes it and sends Arrow batches straight to the pool worker. */
import * as Comlink from 'comlink';
import initParquet, { readParquet } from 'parquet-wasm/esm';
import type { ImportProgress, ImportReport } from '../src/app/services';
import type { Normalizer } from '../src/ingest/normalizer';
import { parquetRecords } from '../src/ingest/parquet-records';
import { ingestFile } from '../src/ingest/pipeline';
import type { PoolApi } from '../src/pool/pool-core';

let pool: Comlink.Remote<PoolApi> | null = null;
let parquetUrl = '';
let parquetReady: Promise<unknown> | null = null;
const cancelled = new Set<number>();

export interface IngestJobOptions {
  format?: string;
  /** User mappings (JSON specs), compiled here. */
  mappings?: unknown[];
}

async function compileMappings(specs: unknown[] | undefined): Promise<Normalizer<unknown>[]> {
  if (!specs?.length) return [];
  const { compileMapping } = await import('../src/ingest/mapping/compile');
  return specs.map((s) => compileMapping(s) as Normalizer<unknown>);
}

const api = {
  init(port: MessagePort, parquetWasmUrl: string): void {
    pool = Comlink.wrap<PoolApi>(port);
    parquetUrl = parquetWasmUrl;
  },

  async importFile(job: number, file: File, onProgress: ((p: ImportProgress) => void) | undefined, opts: IngestJobOptions = {}): Promise<ImportReport> {
    if (!pool) throw new Error('ingest worker not initialised');
    const p = pool;
    const extra = await compileMappings(opts.mappings);
    try {
      return await ingestFile(file, {
        beginImport: (m) => p.beginImport(m),
        setImportSource: (id, sid) => p.setImportSource(id, sid),
        appendBatch: (id, bytes) => p.appendBatch(id, Comlink.transfer(bytes, [bytes.buffer])),
        commitImport: (id, info) => p.commitImport(id, info),
        abortImport: (id, reason, errors) => p.abortImport(id, reason, errors),
      }, {
        onProgress,
        isCancelled: () => cancelled.has(job),
        extra,
        format: opts.format,
        readParquet: async (bytes) => {
          parquetReady ??= initParquet({ module_or_path: parquetUrl });
          await parquetReady;
          return parquetRecords(bytes, readParquet);
        },
      });
    } finally {
      cancelled.delete(job);
    }
  },

  cancel(job: number): void {
    cancelled.add(job);
  },
};

export type IngestWorkerApi = typeof api;
Comlink.expose(api);
