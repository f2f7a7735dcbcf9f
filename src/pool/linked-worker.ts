import * as Comlink from 'comlink';
import type { PoolClient } from './client';

/** A worker that talks to the pool worker over its own port (`init(port, parquetWasmUrl)`). */
interface PoolLinked {
  init(port: MessagePort, parquetWasmUrl: string): void;
}

/**
 * Starts such a worker on first use and wires it to the pool; after a pool crash restart the old
 * port is dead, so the worker is dropped and the next use starts a new one.
 */
export class LinkedWorker<T extends PoolLinked> {
  private api: Promise<Comlink.Remote<T>> | null = null;
  private w: Worker | null = null;

  constructor(
    private pool: PoolClient,
    private make: () => Worker,
    private parquetWasmUrl: string,
  ) {
    pool.onRestart(() => {
      this.w?.terminate();
      this.w = null;
      this.api = null;
    });
  }

  get(): Promise<Comlink.Remote<T>> {
    this.api ??= (async () => {
      this.w = this.make();
      const api = Comlink.wrap<T>(this.w);
      const port = await this.pool.port();
      await (api as unknown as Comlink.Remote<PoolLinked>).init(Comlink.transfer(port, [port]), this.parquetWasmUrl);
      return api;
    })();
    return this.api;
  }
}
