/**
 * One cancellation helper for work that runs in a worker (an import, an export): the page gives each
 * call a job id and an AbortSignal; aborting the signal tells the worker to cancel that job id, and
 * the worker checks its CancelledJobs between chunks.
 */

let seq = 1;

/** Run `body` as a new job: aborting `signal` calls `cancel(id)` (the worker's), until `body` settles. */
export async function asJob<T>(signal: AbortSignal | undefined, cancel: (id: number) => unknown, body: (id: number) => Promise<T>): Promise<T> {
  const id = seq++;
  const onAbort = () => void cancel(id);
  signal?.addEventListener('abort', onAbort);
  try {
    return await body(id);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/** Worker side: the ids of jobs the page cancelled, until each job ends. */
export class CancelledJobs {
  private ids = new Set<number>();
  cancel(id: number): void {
    this.ids.add(id);
  }
  has(id: number): boolean {
    return this.ids.has(id);
  }
  /** The job ended (finished, failed or cancelled): forget it. */
  end(id: number): void {
    this.ids.delete(id);
  }
}

/** Page side: a task the user can cancel; `start()` gives the signal for the next run. */
export class Cancellable {
  private controller: AbortController | null = null;
  start(): AbortSignal {
    this.controller = new AbortController();
    return this.controller.signal;
  }
  cancel(): void {
    this.controller?.abort();
  }
  /** Between `start()` and `end()`. */
  get running(): boolean {
    return this.controller !== null;
  }
  get cancelled(): boolean {
    return !!this.controller?.signal.aborted;
  }
  end(): void {
    this.controller = null;
  }
}
