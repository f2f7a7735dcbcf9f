/**
 * A remote Parquet file read by HTTP range requests: the footer, then only the column chunks of the columns and row
 * groups a query needs, decoded to Arrow by parquet-wasm (decision 071).
 *
 * parquet-wasm decides what to read; this module carries every byte: `ParquetFile.fromFile` reads a Blob through its
 * `size` and `slice(a, b).arrayBuffer()`, so we hand it an object of that shape whose slices are range requests of our
 * own. That keeps the transport ours — the Authorization header only for the Hub endpoint, the bytes and requests
 * counted, a host that ignores `Range` (HTTP 200 with the whole file) refused before its body is read, CORS failures
 * said as such. `ParquetFile.fromUrl` could do none of that, and any failed request inside it (also a 404) aborts the
 * wasm instance (`RuntimeError: unreachable`, measured with parquet-wasm 0.8.0); so a failed slice here never rejects
 * into parquet-wasm: the read it belongs to is failed from outside and its slice stays unanswered.
 */
import { type Schema, tableFromIPC } from 'apache-arrow';
import { formatBytes } from '../util/format-bytes';
import { HubError, networkError, scrubToken } from './hub-api';

/**
 * What a failed read says when parquet-wasm aborted its instance on a file (corrupt column data also does this:
 * `RuntimeError: unreachable`, thrown where no caller awaits it). The page replaces its reader's worker on it.
 */
export const READER_STOPPED = 'The Parquet reader stopped on this file';

/** What a remote read cost: HTTP requests and the bytes of their bodies. */
export interface FetchStats {
  requests: number;
  bytes: number;
}

/** The parquet-wasm surface used here (its esm and node builds both have it). */
export interface ParquetWasm {
  ParquetFile: {
    fromFile(handle: Blob): Promise<{
      metadata(): { numRowGroups(): number; rowGroup(i: number): { numRows(): number; compressedSize(): number; columns(): { columnPath(): string[]; compressedSize(): number }[] }; fileMetadata(): { numRows(): number } };
      schema(): { intoIPCStream(): Uint8Array };
      read(options?: { columns?: string[]; rowGroups?: number[] }): Promise<{ intoIPCStream(): Uint8Array }>;
    }>;
  };
}

export interface RemoteFileOptions {
  /** Headers for every request (the Authorization header, when the URL is on the Hub endpoint). */
  headers?: Headers;
  /** A token to cut out of any message (hub-api scrubToken). */
  token?: string | null;
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/** The bytes read from the end of the file with the first request: the footer of most files fits. */
const TAIL = 64 << 10;
/**
 * The largest footer opened: a footer's length is the file's word, and parquet-wasm fetches all of it before it can
 * tell it is no footer (a host that says 2 GB got 2 GB fetched and held). Real footers are kilobytes to a few MB.
 */
export const MAX_FOOTER_BYTES = 64 << 20;

function host(url: string): string {
  return new URL(url).host;
}

/** One remote file's bytes by range: its size (HEAD), a kept tail, and counted range reads that refuse a 200. */
export class RangeFile {
  readonly stats: FetchStats = { requests: 0, bytes: 0 };
  size = 0;
  etag: string | null = null;
  private tail: { start: number; bytes: Uint8Array } | null = null;
  private failure: Error | null = null;
  private failed: ((e: Error) => void) | null = null;
  /** While the footer is read: no one range may be longer (MAX_FOOTER_BYTES). */
  footerLimit: number | null = null;

  constructor(
    readonly url: string,
    private opts: RemoteFileOptions = {},
  ) {}

  private fetch(init: RequestInit & { headers: Headers }): Promise<Response> {
    this.stats.requests++;
    return (this.opts.fetch ?? fetch)(this.url, { ...init, signal: this.opts.signal, credentials: 'omit' }).catch((e: unknown) => {
      throw e instanceof HubError ? e : networkError(this.url, e, this.opts.token);
    });
  }

  private async refused(res: Response): Promise<HubError> {
    const what = `Reading ${this.url}`;
    if (res.status === 401 || res.status === 403) {
      return new HubError(`${what}: access refused (HTTP ${res.status}). A gated or private Hub dataset needs a token that can read it (workbench.importHub's token, or the token field of the Hub import).`, res.status === 401 ? 'unauthorized' : 'forbidden', res.status);
    }
    if (res.status === 404) return new HubError(`${what}: not found (HTTP 404).`, 'not-found', 404);
    return new HubError(`${what}: HTTP ${res.status} ${scrubToken(res.statusText, this.opts.token)}.`, 'http', res.status);
  }

  /** The file's size and ETag now (one HEAD request). */
  async head(): Promise<{ size: number; etag: string | null }> {
    const head = await this.fetch({ method: 'HEAD', headers: new Headers(this.opts.headers) });
    if (!head.ok) throw await this.refused(head);
    const size = Number(head.headers.get('content-length') ?? Number.NaN);
    if (!Number.isFinite(size) || size < 12) {
      throw new HubError(`Reading ${this.url}: ${Number.isFinite(size) ? `${size} bytes is too small for a Parquet file` : `${host(this.url)} did not say the file's size (Content-Length)`}.`, 'bad-answer', head.status);
    }
    return { size, etag: head.headers.get('etag') };
  }

  /** Size and ETag (HEAD), then the file's last bytes in one range request, which also proves the host answers ranges. */
  async open(): Promise<void> {
    ({ size: this.size, etag: this.etag } = await this.head());
    const start = Math.max(0, this.size - TAIL);
    this.tail = { start, bytes: await this.range(start, this.size) };
    const magic = new TextDecoder().decode(this.tail.bytes.subarray(this.tail.bytes.length - 4));
    if (magic !== 'PAR1') throw new HubError(`Reading ${this.url}: this is not a Parquet file (it does not end with PAR1).`, 'bad-answer');
  }

  /** Bytes [start, end) by one range request; a host that answers 200 (the whole file) is refused before its body is read. */
  async range(start: number, end: number): Promise<Uint8Array> {
    if (this.footerLimit !== null && end - start > this.footerLimit) {
      throw new HubError(`Reading ${this.url}: it says its footer takes ${formatBytes(end - start)}, more than the ${formatBytes(this.footerLimit)} a remote Parquet file's footer may; it is broken or not a Parquet file, and nothing more of it was fetched.`, 'bad-answer');
    }
    const headers = new Headers(this.opts.headers);
    headers.set('Range', `bytes=${start}-${end - 1}`);
    const res = await this.fetch({ method: 'GET', headers });
    if (res.status === 200) {
      await res.body?.cancel().catch(() => {});
      throw new HubError(
        `${host(this.url)} does not answer range requests: asked for ${end - start} bytes of ${this.url}, it sent the whole file (HTTP 200 instead of 206). Remote Parquet is read only by ranges, never downloaded whole: import the file instead, or use a host that supports Range.`,
        'bad-answer',
        200,
      );
    }
    if (res.status !== 206) throw await this.refused(res);
    const bytes = await this.body(res, start, end - start);
    this.stats.bytes += bytes.byteLength;
    if (bytes.byteLength !== end - start) throw new HubError(`Reading ${this.url}: asked for ${end - start} bytes at ${start}, got ${bytes.byteLength}.`, 'truncated', 206);
    return bytes;
  }

  /** The answer's body, read only up to `want` bytes: a host that sends more (or never stops) is cut off and refused. */
  private async body(res: Response, start: number, want: number): Promise<Uint8Array> {
    const out = new Uint8Array(want);
    let n = 0;
    const reader = res.body?.getReader();
    if (!reader) return out.subarray(0, 0);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return out.subarray(0, n);
      if (n + value.byteLength > want) {
        this.stats.bytes += n + value.byteLength;
        await reader.cancel().catch(() => {});
        throw new HubError(`Reading ${this.url}: ${host(this.url)} sent more than the ${want} bytes asked for at ${start}; refused, the rest not read.`, 'bad-answer', res.status);
      }
      out.set(value, n);
      n += value.byteLength;
    }
  }

  /** A slice for parquet-wasm: from the kept tail, or a range request; a failed one is never answered (see the header). */
  private slice(start: number, end: number): Promise<ArrayBuffer> {
    const t = this.tail;
    if (t && start >= t.start && end <= t.start + t.bytes.length) {
      const b = t.bytes.slice(start - t.start, end - t.start);
      return Promise.resolve(b.buffer);
    }
    return new Promise((resolve) => {
      this.range(start, end).then(
        (b) => resolve(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer),
        (e: unknown) => this.fail(e instanceof Error ? e : new Error(String(e))),
      );
    });
  }

  private fail(e: Error): void {
    this.failure ??= e;
    this.failed?.(e);
  }

  /** What parquet-wasm's fromFile reads: a size and slices. */
  blob(): Blob {
    const size = this.size;
    return { size, slice: (a = 0, b = size) => ({ arrayBuffer: () => this.slice(a, b) }) } as unknown as Blob;
  }

  /** Run a parquet-wasm call over this file; rejects as soon as one of its slices failed. */
  guard<T>(work: Promise<T>): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    const failed = new Promise<never>((_, reject) => {
      this.failed = reject;
    });
    return Promise.race([work, failed]).finally(() => {
      this.failed = null;
    });
  }
}

export interface RemoteColumn {
  name: string;
  /** Compressed bytes of the column in the whole file. */
  bytes: number;
}

export interface RemoteParquetMeta {
  url: string;
  size: number;
  etag: string | null;
  numRows: number;
  rowGroups: { numRows: number; bytes: number }[];
  /** Top-level columns, in file order. */
  columns: RemoteColumn[];
  /** Arrow types as text (`Int64`, `List<Struct<…>>`), by column. */
  types: Record<string, string>;
}

export interface RemoteRead {
  /** Arrow IPC stream of the columns and row groups read. */
  ipc: Uint8Array;
  rows: number;
}

/** A remote Parquet file opened (footer read): its shape, and reads of chosen columns and row groups. */
export class RemoteParquet {
  private constructor(
    readonly file: RangeFile,
    readonly meta: RemoteParquetMeta,
    private pf: Awaited<ReturnType<ParquetWasm['ParquetFile']['fromFile']>>,
  ) {}

  static async open(url: string, wasm: ParquetWasm, opts: RemoteFileOptions = {}): Promise<RemoteParquet> {
    const file = new RangeFile(url, opts);
    await file.open();
    file.footerLimit = MAX_FOOTER_BYTES;
    const pf = await file
      .guard(wasm.ParquetFile.fromFile(file.blob()))
      .catch((e: unknown) => {
        throw e instanceof HubError ? e : new HubError(`Reading ${url}: the Parquet footer could not be read (${e instanceof Error ? e.message : String(e)}).`, 'bad-answer', null, { cause: e });
      })
      .finally(() => {
        file.footerLimit = null;
      });
    const md = pf.metadata();
    const schema: Schema = tableFromIPC(pf.schema().intoIPCStream()).schema;
    const bytes = new Map<string, number>(schema.fields.map((f) => [f.name, 0]));
    const rowGroups: RemoteParquetMeta['rowGroups'] = [];
    for (let i = 0; i < md.numRowGroups(); i++) {
      const rg = md.rowGroup(i);
      rowGroups.push({ numRows: rg.numRows(), bytes: rg.compressedSize() });
      for (const c of rg.columns()) {
        const top = c.columnPath()[0];
        if (bytes.has(top)) bytes.set(top, (bytes.get(top) ?? 0) + c.compressedSize());
      }
    }
    const meta: RemoteParquetMeta = {
      url,
      size: file.size,
      etag: file.etag,
      numRows: md.fileMetadata().numRows(),
      rowGroups,
      columns: schema.fields.map((f) => ({ name: f.name, bytes: bytes.get(f.name) ?? 0 })),
      types: Object.fromEntries(schema.fields.map((f) => [f.name, String(f.type)])),
    };
    return new RemoteParquet(file, meta, pf);
  }

  /** The chosen columns (top-level names) of the chosen row groups, as Arrow IPC. */
  async read(columns: string[], rowGroups: number[]): Promise<RemoteRead> {
    const t = await this.file.guard(this.pf.read({ columns, rowGroups })).catch((e: unknown) => {
      throw e instanceof HubError ? e : new HubError(`Reading ${this.meta.url}: ${e instanceof Error ? e.message : String(e)}`, 'bad-answer', null, { cause: e });
    });
    const ipc = t.intoIPCStream();
    return { ipc, rows: rowGroups.reduce((a, i) => a + (this.meta.rowGroups[i]?.numRows ?? 0), 0) };
  }
}
