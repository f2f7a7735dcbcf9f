/**
 * How a view re-reads the pool after writes: one Lit ReactiveController, `PoolQueryController`, for every view (as
 * Mosaic's `MosaicClient` is for its clients), so no element subscribes to the pool's change feed by hand
 * (test/unit/architecture.test.ts fails on a `.onChange(` listener under views/ outside views/kit).
 *
 * It does not hold the single-threaded pool for views nobody sees: only writes to the tables the view shows count;
 * writes that come in a burst (an import's commit, labels, a notebook's effect cells) give one re-read; one re-read
 * runs at a time (one asked for meanwhile runs right after it); and a hidden view (another tab, a closed section) is
 * only marked stale and re-read when it comes into view.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { PoolPort } from '../../pool/port';

type ChangeSource = Pick<PoolPort, 'onChange'>;

/**
 * Tables whose rows every import, label and capture writes, and whose columns never change: a view listing the
 * schema (the notebook's sidebar, its SQL completion) has nothing to re-read after a write to these alone. During the
 * demo's import they re-read the schema 18 times (1.2 s of the pool's time on the test machine).
 */
const DATA_TABLES: ReadonlySet<string> = new Set(['steps', 'trajectory_stats', 'trajectories', 'curation', 'imports', 'import_errors', 'token_counts']);

/** The change may have created, altered or dropped a table or view (it wrote something besides DATA_TABLES). */
export function schemaMayHaveChanged(tables: readonly string[]): boolean {
  return tables.some((t) => !DATA_TABLES.has(t));
}

export interface PoolQueryOptions {
  /** The pool whose writes the view follows, or none yet (the services context can arrive after the element connects). */
  pool: () => ChangeSource | null | undefined;
  /** The tables the view shows (a write to one of them re-reads it), or a test of the changed tables. */
  tables: readonly string[] | ((changed: readonly string[]) => boolean);
  /** Read the view's figures. It handles its own errors (it shows them); one it throws is reported, never swallowed. */
  run: () => Promise<unknown>;
  /** How long a burst of writes is collected into one re-read, in ms (150: the demo's import batches). */
  delayMs?: number;
  /**
   * The longest a burst holds its re-read back, in ms from its first write (1000): during a long run of writes (an
   * import's commits) the view follows along about once a second instead of waiting for the writes to pause.
   */
  maxWaitMs?: number;
}

/**
 * Re-reads a view (`run`) after writes to its tables, when its pool appears, and when the view asks (`refresh`,
 * `invalidate`): one read at a time, none for a hidden view until it is shown. Subscribes while the host is connected
 * and has a pool; `settled` settles when the latest read has finished (tests wait on it).
 */
export class PoolQueryController implements ReactiveController {
  /** A write (or `invalidate`) came while the host was hidden: it re-reads when it comes into view. */
  stale = false;
  private readonly host: ReactiveControllerHost & Element;
  private readonly options: PoolQueryOptions;
  private source: ChangeSource | null = null;
  private off: (() => void) | null = null;
  private shown: IntersectionObserver | null = null;
  private connected = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When the burst the timer collects began (performance.now()). */
  private burstStart = 0;
  private running = false;
  /** A read was asked for while one ran: it runs when that one ends. */
  private again = false;
  private waiting: (() => void)[] = [];

  constructor(host: ReactiveControllerHost & Element, options: PoolQueryOptions) {
    this.host = host;
    this.options = options;
    host.addController(this);
  }

  hostConnected(): void {
    this.connected = true;
    this.shown = new IntersectionObserver((entries) => {
      if (this.stale && entries.some((e) => e.isIntersecting)) void this.refresh();
    });
    this.shown.observe(this.host);
    // subscribe (and read) in the update: the view's own inputs are set by then, and a read it asks for in
    // willUpdate counts as the first one
    this.host.requestUpdate();
  }

  hostUpdate(): void {
    if (this.connected) this.attach(true);
  }

  hostDisconnected(): void {
    this.connected = false;
    this.off?.();
    this.off = null;
    this.source = null;
    this.shown?.disconnect();
    this.shown = null;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.again = false;
    this.stale = false;
    this.settle();
  }

  /** Settles when no read is running or waiting to run (a hidden view's stale mark does not count: it waits to be shown). */
  get settled(): Promise<void> {
    if (this.idle()) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Re-read now, or right after the read that is running. Settles when a read that started after this call has ended. */
  refresh(): Promise<void> {
    if (this.connected) this.attach(false);
    clearTimeout(this.timer);
    this.timer = undefined;
    this.stale = false;
    if (this.running) this.again = true;
    else void this.run();
    return this.settled;
  }

  /** The view's own inputs changed (a filter, a sort): re-read now if it is shown, when it is shown if hidden. */
  invalidate(): Promise<void> {
    if (this.host.checkVisibility()) return this.refresh();
    this.markStale();
    return this.settled;
  }

  /**
   * Hidden now: re-read once shown. The host is observed anew, so the next rendering step reports whether it is shown
   * then: an IntersectionObserver reports changes between its rendering steps only, and a view hidden and shown again
   * between two of them (a quick tab switch; a loaded machine's late frame) got no callback and stayed stale.
   */
  private markStale(): void {
    this.stale = true;
    if (!this.shown) return;
    this.shown.unobserve(this.host);
    this.shown.observe(this.host);
  }

  /** Follow the pool the host has now: a new one is subscribed to and, with `read`, read from. */
  private attach(read: boolean): void {
    const source = this.options.pool() ?? null;
    if (source === this.source) return;
    this.off?.();
    this.source = source;
    this.off = source ? source.onChange((e) => this.changed(e.tables)) : null;
    if (source && read) void this.invalidate();
  }

  private changed(tables: readonly string[]): void {
    const t = this.options.tables;
    if (typeof t === 'function' ? !t(tables) : !tables.some((x) => t.includes(x))) return;
    if (!this.host.checkVisibility()) {
      this.markStale();
      return;
    }
    const now = performance.now();
    if (this.timer === undefined) this.burstStart = now;
    clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(this.options.delayMs ?? 150, this.burstStart + (this.options.maxWaitMs ?? 1000) - now));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.host.checkVisibility()) void this.refresh();
      else {
        this.markStale();
        this.settle();
      }
    }, wait);
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      await this.options.run();
    } catch (e) {
      reportError(e);
    } finally {
      this.running = false;
      if (this.again) {
        this.again = false;
        void this.run();
      } else this.settle();
    }
  }

  private idle(): boolean {
    return !this.running && this.timer === undefined;
  }

  private settle(): void {
    if (!this.idle()) return;
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}

/**
 * A change feed that holds the changes while `host` is hidden and hands them on, merged into one, when it is shown:
 * a notebook in another tab does not rerun its cells after every imported batch (the demo's import took 4.6 s instead
 * of 2.0 s with the tour notebook open behind the Data tab), and it is up to date when it comes back.
 */
export function changesWhileShown(host: Element, pool: ChangeSource): ChangeSource & { dispose(): void } {
  const listeners = new Set<(e: { tables: string[] }) => void>();
  const held = new Set<string>();
  const tell = (tables: string[]) => {
    for (const fn of listeners) fn({ tables });
  };
  const off = pool.onChange((e) => {
    if (host.checkVisibility()) tell(e.tables);
    else for (const t of e.tables) held.add(t);
  });
  const shown = new IntersectionObserver((entries) => {
    if (held.size && entries.some((x) => x.isIntersecting)) {
      const tables = [...held];
      held.clear();
      tell(tables);
    }
  });
  shown.observe(host);
  return {
    onChange(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    dispose() {
      off();
      shown.disconnect();
      listeners.clear();
    },
  };
}

