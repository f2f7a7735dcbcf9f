/**
 * Main-thread handle on the CLI's DuckDB thread (duck-thread.ts): async calls, and synchronous ones for
 * the pool SQL written against duckdb-wasm's blocking API (the import commit), which waits on a shared
 * flag and reads the answer with receiveMessageOnPort.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessageChannel, receiveMessageOnPort, type Worker } from 'node:worker_threads';
import type { Envelope, Reply, Request } from './duck-thread';
import { tsWorker } from './loader';
import { endStage, stageGate } from './stage-gate';

export type Row = Record<string, unknown>;

export class NativeDb {
  private worker: Worker;
  private syncPort: MessageChannel['port1'];
  private seq = 1;
  private pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private flag = new Int32Array(new SharedArrayBuffer(4));
  /**
   * Where the DuckDB thread stages import batches (decision 044): beside the pool file, on the disk that holds the pool
   * and DuckDB's own spill (`<pool>.tmp`) rather than in a temp folder that may be memory (tmpfs); removed at close.
   */
  readonly stage: string;
  /** Keeps a batch from being staged after dropStageSync removed the folder (stage-gate.ts). */
  private gate = stageGate();

  constructor(path: string, memoryLimit?: string) {
    const ch = new MessageChannel();
    this.syncPort = ch.port1;
    const tag = `${process.pid}-${randomUUID().slice(0, 8)}`;
    this.stage = path && path !== ':memory:' ? `${path}.stage-${tag}` : join(tmpdir(), `agentworld-stage-${tag}`);
    this.worker = tsWorker(new URL('./duck-thread.ts', import.meta.url), {
      workerData: { path, syncPort: ch.port2, memoryLimit, stage: this.stage, gate: this.gate },
      transferList: [ch.port2],
    });
    this.worker.on('message', (r: Reply) => {
      const p = this.pending.get(r.id);
      if (!p) return;
      this.pending.delete(r.id);
      if (r.ok) p.resolve(r.value);
      else p.reject(new Error(r.error));
    });
    this.worker.on('error', (e) => {
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    });
  }

  call<T>(req: Request, transfer: ArrayBuffer[] = []): Promise<T> {
    const id = this.seq++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ id, req } satisfies Envelope, transfer);
    });
  }

  /** Blocks this thread until the DuckDB thread answers (it runs everything queued before first). */
  callSync<T>(req: Request): T {
    const id = this.seq++;
    Atomics.store(this.flag, 0, 0);
    this.worker.postMessage({ id, req, sync: this.flag } satisfies Envelope);
    Atomics.wait(this.flag, 0, 0);
    const m = receiveMessageOnPort(this.syncPort)?.message as Reply | undefined;
    if (!m || m.id !== id) throw new Error('the DuckDB thread answered out of turn');
    if (!m.ok) throw new Error(m.error);
    return m.value as T;
  }

  connect(): Promise<number> {
    return this.call({ op: 'connect' });
  }

  query(conn: number, sql: string): Promise<Row[]> {
    return this.call({ op: 'query', conn, sql });
  }

  exec(conn: number, sql: string): Promise<void> {
    return this.call({ op: 'exec', conn, sql });
  }

  querySync(conn: number, sql: string): Row[] {
    return this.callSync({ op: 'query', conn, sql });
  }

  /** The staged batches deleted now, from this thread (the process is ending on a signal). */
  dropStageSync(): void {
    endStage(this.gate, () => rmSync(this.stage, { recursive: true, force: true }));
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.worker.once('exit', () => resolve());
      this.worker.postMessage('quit');
    });
  }
}
