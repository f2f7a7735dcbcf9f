/**
 * Remote Parquet in the CLI's notebooks (`read_parquet('<https or hf:// URL>')`, decision 071). Native DuckDB reads
 * remote files only through its httpfs extension, which @duckdb/node-api does not bundle and which cannot be installed
 * offline (measured: `LOAD httpfs` → "Extension … not found. Install it first"); so the CLI reads them as the page
 * does — footer and needed column chunks by range (src/hub/parquet-range.ts, parquet-wasm's node build) — and writes
 * what it read as a local Parquet file in a folder of its own, which the query then reads with DuckDB's built-in
 * read_parquet. The folder is removed when the run ends.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as parquetWasm from 'parquet-wasm/node';
import { type ParquetWasm, READER_STOPPED } from '../hub/parquet-range';
import { RemoteFiles } from '../hub/remote-files';
import { type RemoteBackend, RemoteParquetSql, type RemoteReadReport } from '../hub/remote-query';
import { DEFAULT_HUB_ENDPOINT, hubRefString, normalizeEndpoint, parseHubRef } from '../hub/hub-ref';
import { sqlString } from '../pool/sql';
import { ipcToParquet } from './stage';

/** The Hub endpoint and token the CLI uses: HF_ENDPOINT and HF_TOKEN, as huggingface_hub reads them. */
export function cliHubSettings(env: NodeJS.ProcessEnv = process.env): { endpoint: string; token: string | null } {
  return { endpoint: normalizeEndpoint(env.HF_ENDPOINT || DEFAULT_HUB_ENDPOINT), token: env.HF_TOKEN?.trim() || null };
}

export interface CliRemoteParquet {
  sql: RemoteParquetSql;
  /** Remove the files the run wrote. */
  dispose(): void;
}

/** `prefix` names `url`: equal, or a path prefix of it (`…/data` names `…/data/x.parquet`, not `…/database`). */
function under(url: string, prefix: string): boolean {
  const p = prefix.replace(/\/+$/, '');
  return url === p || url.startsWith(`${p}/`) || url.startsWith(`${p}@`);
}

/**
 * Why the command may not read `url`, or null: `run` reads remote files only under an address its `--read` names (an
 * https URL or an hf:// reference, compared as written, as its hf:// form and as the URL fetched), as it reads only
 * the local files --read names (issue 37 item 2).
 */
export function remoteRefusal(allowed: readonly string[], endpoint: string): (url: string, fetched: string) => string | null {
  const hf = (s: string) => {
    try {
      const r = /^hf:\/\//i.test(s) ? parseHubRef(s, endpoint) : null;
      return r ? hubRefString(r) : null;
    } catch {
      return null;
    }
  };
  return (url, fetched) => {
    const forms = [url, fetched, hf(url)].filter((x): x is string => !!x);
    const ok = allowed.some((a) => [a, hf(a)].some((p) => !!p && forms.some((f) => under(f, p))));
    return ok ? null : `read_parquet('${url}'): the command does not name this address; add --read ${url} (or a folder or dataset above it) to let the notebook read it.`;
  };
}

let stopped: Error | null = null;

/**
 * Run a parquet-wasm read in this process: an abort of its wasm instance (corrupt column data does it) is thrown where
 * no caller awaits it and would end the process, so while a read runs such an uncaught RuntimeError fails that read
 * instead; the instance is gone then, and every later remote read fails with the same message.
 */
function guardWasm<T>(work: () => Promise<T>): Promise<T> {
  if (stopped) return Promise.reject(stopped);
  return new Promise<T>((resolve, reject) => {
    const onCrash = (e: unknown) => {
      if (!(e instanceof WebAssembly.RuntimeError)) {
        process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
        process.exit(1);
      }
      stopped = new Error(`${READER_STOPPED} (${e.message}: the file's data is corrupt, or not what its footer says); remote Parquet cannot be read again in this run.`);
      reject(stopped);
    };
    process.on('uncaughtException', onCrash);
    work()
      .then(resolve, reject)
      .finally(() => process.off('uncaughtException', onCrash));
  });
}

export function cliRemoteParquet(dir: string, opts: { env?: NodeJS.ProcessEnv; onRead?: (r: RemoteReadReport) => void; fetch?: typeof fetch; allowed?: readonly string[]; maxFetchBytes?: number } = {}): CliRemoteParquet {
  const files = new RemoteFiles(parquetWasm as unknown as ParquetWasm, opts.fetch);
  const settings = cliHubSettings(opts.env);
  const path = (name: string) => join(dir, `${name}.parquet`);
  const backend: RemoteBackend = {
    open: (url, token) => guardWasm(() => files.open(url, token)),
    async register(url, token, columns, rowGroups, name) {
      const { ipc, stats } = await guardWasm(() => files.read(url, token, columns, rowGroups));
      mkdirSync(dir, { recursive: true });
      writeFileSync(path(name), ipcToParquet(ipc));
      return { bytes: ipc.byteLength, stats };
    },
    async drop(names) {
      for (const n of names) rmSync(path(n), { force: true });
    },
    relation: (name) => `read_parquet(${sqlString(path(name))})`,
  };
  return {
    sql: new RemoteParquetSql(backend, {
      endpoint: () => settings.endpoint,
      token: () => settings.token,
      onRead: opts.onRead,
      maxFetchBytes: opts.maxFetchBytes,
      refuse: opts.allowed ? remoteRefusal(opts.allowed, settings.endpoint) : undefined,
    }),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
