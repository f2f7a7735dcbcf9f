/**
 * The remote Parquet files a process has open (the page's remote-parquet worker, or the CLI): opened once, re-checked
 * by one HEAD request per query (same size and ETag: the footer already read stands; else the file is opened again),
 * and read by range. Every answer says what its requests cost.
 */
import { type FetchStats, type ParquetWasm, RemoteParquet, type RemoteParquetMeta } from './parquet-range';

function headersFor(token: string | null): Headers {
  const h = new Headers();
  if (token) h.set('Authorization', `Bearer ${token}`);
  return h;
}

const cost = (before: FetchStats, after: FetchStats): FetchStats => ({ requests: after.requests - before.requests, bytes: after.bytes - before.bytes });

export class RemoteFiles {
  private files = new Map<string, RemoteParquet>();

  constructor(
    private wasm: ParquetWasm,
    private fetchFn?: typeof fetch,
  ) {}

  /** `token`: only for Hub URLs (the caller decides: remote-query.ts isHubUrl). */
  async open(url: string, token: string | null): Promise<{ meta: RemoteParquetMeta; stats: FetchStats }> {
    const known = this.files.get(url);
    if (known) {
      const before = { ...known.file.stats };
      const now = await known.file.head().catch((e: unknown) => {
        this.files.delete(url);
        throw e;
      });
      if (now.size === known.meta.size && now.etag === known.meta.etag) return { meta: known.meta, stats: cost(before, known.file.stats) };
      this.files.delete(url);
    }
    const rp = await RemoteParquet.open(url, this.wasm, { headers: headersFor(token), token, fetch: this.fetchFn });
    this.files.set(url, rp);
    return { meta: rp.meta, stats: { ...rp.file.stats } };
  }

  /** Columns and row groups of an opened file as Arrow IPC, and what reading them cost. */
  async read(url: string, token: string | null, columns: string[], rowGroups: number[]): Promise<{ ipc: Uint8Array; stats: FetchStats }> {
    if (!this.files.has(url)) await this.open(url, token);
    const rp = this.files.get(url)!;
    const before = { ...rp.file.stats };
    // a failed read leaves the file's reader failed for good: the next query opens it again
    const { ipc } = await rp.read(columns, rowGroups).catch((e: unknown) => {
      this.files.delete(url);
      throw e;
    });
    return { ipc, stats: cost(before, rp.file.stats) };
  }
}
