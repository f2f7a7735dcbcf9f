/** The remote Parquet worker's protocol (workers/remote-parquet.worker.ts hosts remote-reader.ts): what remote-page.ts calls. */
import type { FetchStats, RemoteParquetMeta } from './parquet-range';

export interface RemoteParquetWorkerApi {
  /** The pool worker's API on `port` (PoolClient.port()), and where parquet-wasm's module is. */
  init(port: MessagePort, parquetWasmUrl: string): void;
  /** A remote Parquet file's footer (read by range), and what fetching it cost. */
  open(url: string, token: string | null): Promise<{ meta: RemoteParquetMeta; stats: FetchStats }>;
  /** The row groups' chunks of `columns` read by range and decoded, registered in the pool as table `name`. */
  register(url: string, token: string | null, columns: string[], rowGroups: number[], name: string): Promise<{ bytes: number; stats: FetchStats }>;
  drop(names: string[]): Promise<void>;
}
