/**
 * Re-reading a view's figures after pool writes, without holding the single-threaded pool for views nobody sees:
 * only writes to the tables the view shows count; writes that come in a burst (an import's commit, labels, a
 * notebook's effect cells) give one re-read; one re-read runs at a time (the next waits for it); and a hidden view
 * (another tab, scrolled away) is only marked stale and re-read when it comes into view.
 */
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

/** `tables`: the tables the view shows (a change to one of them re-reads it), or a test of the changed tables. */
export function refreshOnPoolChange(
  host: Element,
  pool: ChangeSource,
  tables: readonly string[] | ((changed: readonly string[]) => boolean),
  refresh: () => Promise<unknown>,
  delayMs = 150,
): () => void {
  let stale = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;
  let again = false;
  const run = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      await refresh();
    } finally {
      running = false;
      if (again) {
        again = false;
        schedule();
      }
    }
  };
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void run(), delayMs);
  };
  const off = pool.onChange((e) => {
    if (typeof tables === 'function' ? !tables(e.tables) : !e.tables.some((t) => tables.includes(t))) return;
    if (host.checkVisibility()) schedule();
    else stale = true;
  });
  const shown = new IntersectionObserver((entries) => {
    if (stale && entries.some((x) => x.isIntersecting)) {
      stale = false;
      schedule();
    }
  });
  shown.observe(host);
  return () => {
    off();
    shown.disconnect();
    clearTimeout(timer);
  };
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

