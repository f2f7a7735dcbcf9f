/**
 * Queries that read remote Parquet (`read_parquet('<https or hf:// URL>')`): before the query runs, each remote file's
 * footer is read, the columns and row groups the query needs are read by range and registered as a table, and the
 * query is rewritten to read that table (decision 071). The page registers into an in-memory database attached to
 * the pool; the CLI into native DuckDB. What each read cost (bytes fetched beside the file's size) is reported.
 *
 * Registered tables are a cache keyed by the file's identity (URL, size, ETag) and what was read; a later query
 * whose columns and row groups are inside one reuses it. Past `maxBytes` of registered Arrow data the oldest go.
 */
import { formatBytes } from '../util/format-bytes';
import { type HubRef, hubRefString, parseHubRef, resolveUrl } from './hub-ref';
import type { FetchStats, RemoteParquetMeta } from './parquet-range';
import { neededColumns, type RemoteCall, remoteCalls, RemoteSqlError, rewriteCalls, rowGroupsFor } from './remote-sql';
import { maxOf } from '../util/extent';

/** Where a remote read happens and its tables live: the page's worker and pool, or the CLI's process and DuckDB. */
export interface RemoteBackend {
  /** Open (or re-check) a file: its footer's shape and the requests that cost. */
  open(url: string, token: string | null): Promise<{ meta: RemoteParquetMeta; stats: FetchStats }>;
  /** Read columns and row groups of an opened file into a table named `name`; its Arrow bytes and what the reads cost. */
  register(url: string, token: string | null, columns: string[], rowGroups: number[], name: string): Promise<{ bytes: number; stats: FetchStats }>;
  drop(names: string[]): Promise<void>;
  /** How the query names a registered table. */
  relation(name: string): string;
}

/** One remote file as one query read it. */
export interface RemoteReadReport {
  /** As the query wrote it. */
  url: string;
  /** What was fetched (an hf:// reference's resolve URL on the endpoint). */
  fetched: string;
  fileBytes: number;
  /** Bytes received for this query (footer, column chunks; 0 when a registered table was reused). */
  fetchedBytes: number;
  requests: number;
  columns: string[];
  totalColumns: number;
  rowGroups: number;
  totalRowGroups: number;
  rows: number;
  /** The table the query read (reused from an earlier query when `reused`). */
  table: string;
  reused: boolean;
}

export interface RemoteQueryOptions {
  endpoint: () => string;
  /** The token for Hub URLs (hf:// and URLs on the endpoint's origin); never sent elsewhere. */
  token: () => string | null;
  onRead?: (r: RemoteReadReport) => void;
  /** Registered Arrow bytes kept (default 512 MiB); the least recently used tables beyond go. */
  maxBytes?: number;
  /** A query that would fetch more compressed bytes than this of one file is refused (default 1 GiB): the read is held in memory. */
  maxFetchBytes?: number;
  /** Why a URL may not be read, or null (the CLI reads only addresses the command names). */
  refuse?: (url: string, fetched: string) => string | null;
}

interface Registered {
  name: string;
  /** The file it was read from: URL, size, ETag. */
  identity: string;
  columns: Set<string>;
  rowGroups: Set<number>;
  bytes: number;
  used: number;
  rows: number;
}

/** FNV-1a, 52 bits, base 36: a short stable table name from a key. */
function shortHash(s: string): string {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < s.length; i++) h = BigInt.asUintN(64, (h ^ BigInt(s.charCodeAt(i))) * 0x100000001b3n);
  return (h >> 12n).toString(36);
}

export function isHubUrl(url: string, endpoint: string): boolean {
  return /^hf:\/\//i.test(url) || new URL(url).origin === new URL(endpoint).origin;
}

export class RemoteParquetSql {
  private tables = new Map<string, Registered>();
  private clock = 0;
  /** Queries that read remote files are prepared one at a time: two of them never fetch the same parts twice. */
  private chain: Promise<unknown> = Promise.resolve();
  /** The reads of the queries so far, newest last (at most 100). */
  readonly log: RemoteReadReport[] = [];

  constructor(
    private backend: RemoteBackend,
    private opts: RemoteQueryOptions,
  ) {}

  /** Forget the registered tables (their database was emptied: a pool restart). */
  forget(): void {
    this.tables.clear();
  }

  /** Whether `sql` may read remote Parquet (cheap: a query without read_parquet / parquet_scan is left alone). */
  static mayRead(sql: string): boolean {
    return /read_parquet|parquet_scan/i.test(sql);
  }

  /** The URL a call fetches: an hf:// reference becomes its resolve URL on the endpoint. */
  fetchUrl(url: string): string {
    if (!/^hf:\/\//i.test(url)) return url;
    const ref: HubRef | null = parseHubRef(url, this.opts.endpoint());
    if (!ref?.path) throw new RemoteSqlError(`${url} names no file: read_parquet('hf://datasets/<owner>/<name>/<path to a .parquet file>').`);
    return resolveUrl(this.opts.endpoint(), ref);
  }

  /** `sql` with its remote read_parquet calls replaced by registered tables (unchanged when it has none). */
  async rewrite(sql: string): Promise<string> {
    if (!RemoteParquetSql.mayRead(sql)) return sql;
    const calls = remoteCalls(sql);
    if (!calls.length) return sql;
    const run = this.chain.then(() => this.prepare(sql, calls));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async prepare(sql: string, calls: RemoteCall[]): Promise<string> {
    const byUrl = new Map<string, RemoteCall[]>();
    for (const c of calls) byUrl.set(c.url, [...(byUrl.get(c.url) ?? []), c]);
    const swaps: { call: RemoteCall; relation: string }[] = [];
    for (const [url, group] of byUrl) {
      const name = await this.ensure(url, sql, group);
      for (const call of group) swaps.push({ call, relation: this.backend.relation(name) });
    }
    return rewriteCalls(sql, swaps);
  }

  private async ensure(url: string, sql: string, calls: RemoteCall[]): Promise<string> {
    const fetched = this.fetchUrl(url);
    const refused = this.opts.refuse?.(url, fetched);
    if (refused) throw new RemoteSqlError(refused);
    const endpoint = this.opts.endpoint();
    const token = isHubUrl(fetched, endpoint) ? this.opts.token() : null;
    const { meta, stats: opened } = await this.backend.open(fetched, token);
    const all = meta.columns.map((c) => c.name);
    let columns = neededColumns(sql, calls, all) ?? all;
    // count(*) and the like name no column: the cheapest one gives the rows
    if (!columns.length && all.length) columns = [[...meta.columns].sort((a, b) => a.bytes - b.bytes)[0].name];
    const need = calls.some((c) => c.rowsNeeded === null) ? null : maxOf(calls.map((c) => c.rowsNeeded ?? 0));
    const rowGroups = rowGroupsFor(meta.rowGroups, need);
    const identity = JSON.stringify([fetched, meta.size, meta.etag]);
    const report = (table: Registered, reused: boolean, stats: FetchStats) => {
      const r: RemoteReadReport = {
        url: /^hf:\/\//i.test(url) ? hubRefString(parseHubRef(url, endpoint)!) : url,
        fetched,
        fileBytes: meta.size,
        fetchedBytes: stats.bytes,
        requests: stats.requests,
        columns: [...table.columns],
        totalColumns: all.length,
        rowGroups: table.rowGroups.size,
        totalRowGroups: meta.rowGroups.length,
        rows: table.rows,
        table: table.name,
        reused,
      };
      this.log.push(r);
      if (this.log.length > 100) this.log.shift();
      this.opts.onRead?.(r);
    };
    for (const t of this.tables.values()) {
      if (t.identity === identity && columns.every((c) => t.columns.has(c)) && rowGroups.every((g) => t.rowGroups.has(g))) {
        t.used = ++this.clock;
        report(t, true, opened);
        return t.name;
      }
    }
    // what the read would fetch: the chosen columns' compressed bytes, in the share of the rows chosen
    const rowsChosen = rowGroups.reduce((a, g) => a + meta.rowGroups[g].numRows, 0);
    const estimate = meta.columns.filter((c) => columns.includes(c.name)).reduce((a, c) => a + c.bytes, 0) * (meta.numRows ? rowsChosen / meta.numRows : 1);
    const max = this.opts.maxFetchBytes ?? 1 << 30;
    if (estimate > max) {
      throw new RemoteSqlError(
        `read_parquet('${url}') would fetch about ${formatBytes(Math.round(estimate))} (${columns.length} of ${all.length} columns, ${rowGroups.length} of ${meta.rowGroups.length} row groups), past the ${formatBytes(max)} a query may read of a remote file: name fewer columns, add a LIMIT, or import the file.`,
      );
    }
    const key = JSON.stringify([fetched, meta.size, meta.etag, columns, rowGroups]);
    const name = `rp_${shortHash(key)}`;
    const { bytes, stats } = await this.backend.register(fetched, token, columns, rowGroups, name);
    const t: Registered = { name, identity, columns: new Set(columns), rowGroups: new Set(rowGroups), bytes, used: ++this.clock, rows: rowGroups.reduce((a, g) => a + meta.rowGroups[g].numRows, 0) };
    this.tables.set(name, t);
    report(t, false, { requests: opened.requests + stats.requests, bytes: opened.bytes + stats.bytes });
    await this.evict(name);
    return name;
  }

  private async evict(keep: string): Promise<void> {
    const max = this.opts.maxBytes ?? 512 << 20;
    let total = [...this.tables.values()].reduce((a, t) => a + t.bytes, 0);
    const old = [...this.tables.values()].filter((t) => t.name !== keep).sort((a, b) => a.used - b.used);
    const drop: string[] = [];
    while (total > max && old.length) {
      const t = old.shift()!;
      total -= t.bytes;
      drop.push(t.name);
      this.tables.delete(t.name);
    }
    if (drop.length) await this.backend.drop(drop);
  }
}

/** A read said in one line: what was read and what it cost beside the file's size. */
export function describeRead(r: RemoteReadReport, formatBytes: (n: number) => string): string {
  const cols = r.columns.length === r.totalColumns ? `all ${r.totalColumns} columns` : `${r.columns.length} of ${r.totalColumns} columns (${r.columns.join(', ')})`;
  const groups = r.rowGroups === r.totalRowGroups ? `all ${r.totalRowGroups} row groups` : `${r.rowGroups} of ${r.totalRowGroups} row groups`;
  const cost = r.reused ? `reused the table read before (${r.requests} request, ${formatBytes(r.fetchedBytes)})` : `fetched ${formatBytes(r.fetchedBytes)} of ${formatBytes(r.fileBytes)} in ${r.requests} requests`;
  return `${r.url}: ${cost}; ${cols}, ${groups}, ${r.rows.toLocaleString('en')} rows.`;
}
