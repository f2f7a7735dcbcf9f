/** Types of the loopback Hub (hub-server.mjs) for TypeScript tests. */
export interface DatasetSpec {
  files: Record<string, Uint8Array | string>;
  revision?: string;
  /** A gated dataset: requests need `Authorization: Bearer <token>`. */
  token?: string;
  /** Files larger than this many bytes are LFS files (listed with `lfs.oid` = SHA-256; redirected to the CDN with `cdn`). Default 64. */
  lfsOver?: number;
}

export interface HubOptions {
  datasets: Record<string, DatasetSpec>;
  pageSize?: number;
  /** false: a host that ignores Range and answers 200 with the whole file. */
  ranges?: boolean;
  /** false: no CORS headers. */
  cors?: boolean;
  /** LFS files are redirected to a CDN on another origin, as the Hub does. */
  cdn?: boolean;
  /** Next-page links on this origin instead of the Hub's own. */
  foreignNext?: string;
  /** A 401 for a wrong token quotes the token back. */
  echoToken?: boolean;
}

export interface HubRequest {
  server: 'hub' | 'cdn';
  method: string;
  path: string;
  search: string;
  range: string | null;
  authorization: string | null;
}

export interface LoopbackHub {
  endpoint: string;
  cdnOrigin: string;
  log: HubRequest[];
  bytesSent(): number;
  reset(): void;
  file(id: string, path: string): { sha256: string; oid: string; size: number; lfs: boolean } | null;
  close(): Promise<void>;
}

export function startHub(opts: HubOptions): Promise<LoopbackHub>;
