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
import { HubError } from '../hub/hub-api';
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

/** `prefix` names `ref` (hf:// references, as hubRefString spells them): equal, a path prefix, or the same dataset at a revision. */
function under(ref: string, prefix: string): boolean {
  const p = prefix.replace(/\/+$/, '');
  return ref === p || ref.startsWith(`${p}/`) || ref.startsWith(`${p}@`);
}

/**
 * `prefix` names `url` as it will be fetched (both parsed: `..` and `%2e%2e` resolved as fetch resolves them): the same
 * origin, and the path equal or below (`…/data` names `…/data/x.parquet`, not `…/database`). A URL with a user name
 * (`https://named.example@other.example/`) names nothing.
 */
function urlUnder(url: string, prefix: string): boolean {
  let u: URL;
  let p: URL;
  try {
    u = new URL(url);
    p = new URL(prefix);
  } catch {
    return false;
  }
  if (u.username || u.password || !/^https?:$/.test(u.protocol) || u.origin !== p.origin) return false;
  const path = p.pathname.replace(/\/+$/, '');
  return u.pathname === path || u.pathname.startsWith(`${path}/`);
}

/**
 * Why the command may not read `url`, or null: `run` reads remote files only under an address its `--read` names (an
 * https URL compared with the URL fetched, parsed; an hf:// reference with the read's hf:// form), as it reads only
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
    const ref = hf(url);
    const ok = allowed.some((a) => urlUnder(fetched, a) || (!!ref && [a, hf(a)].some((p) => !!p && under(ref, p))));
    return ok ? null : `read_parquet('${url}'): the command does not name this address; add --read ${url} (or a folder or dataset above it) to let the notebook read it.`;
  };
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * `fetchFn` following redirects itself (node's fetch would follow any): each hop must be one `hop` allows, and the
 * Authorization header never goes on to another origin. Without it a named host could redirect a read to any
 * address — another host, a service on localhost — that the command never named.
 */
export function checkedRedirects(fetchFn: typeof fetch, hop: (from: URL, to: URL) => string | null, max = 10): typeof fetch {
  return async (input, init) => {
    let url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init?.headers);
    for (let n = 0; ; n++) {
      const res = await fetchFn(url.href, { ...init, headers, redirect: 'manual' });
      const location = REDIRECTS.has(res.status) ? res.headers.get('location') : null;
      if (location === null) return res;
      await res.body?.cancel().catch(() => {});
      const to = new URL(location, url);
      const why = n >= max ? `more than ${max} redirects` : hop(url, to);
      if (why) throw new HubError(`Reading ${url.href}: ${why}`, 'bad-answer', res.status);
      if (to.origin !== url.origin) headers.delete('authorization');
      url = to;
    }
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
  const settings = cliHubSettings(opts.env);
  const refuse = opts.allowed ? remoteRefusal(opts.allowed, settings.endpoint) : undefined;
  const hub = new URL(settings.endpoint).origin;
  // a redirect goes where --read names, or it is the Hub endpoint's own (to its CDN)
  const hop = (from: URL, to: URL) =>
    !/^https?:$/.test(to.protocol)
      ? `redirected to ${to.href}, which is not an http(s) address.`
      : from.origin === hub || !refuse?.(to.href, to.href)
        ? null
        : `redirected to ${to.href}, an address the command does not name; add --read ${to.href} to let the notebook read it.`;
  const files = new RemoteFiles(parquetWasm as unknown as ParquetWasm, checkedRedirects(opts.fetch ?? fetch, hop));
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
      refuse,
    }),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
