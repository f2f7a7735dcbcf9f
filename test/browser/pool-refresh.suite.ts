import { expect } from '@esm-bundle/chai';
import { LitElement } from 'lit';
import { PoolQueryController, type PoolQueryOptions } from '../../src/views/kit/pool-refresh';
import type { Services } from '../../src/views/kit/services';
import '../../src/views/notebook/aw-notebook-sidebar';
import { until } from './helpers';

type Listener = (e: { tables: string[] }) => void;
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

function fakePool() {
  const listeners = new Set<Listener>();
  return {
    onChange(fn: Listener) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    write: (...tables: string[]) => {
      for (const fn of listeners) fn({ tables });
    },
    listeners,
  };
}

/** A view whose read is counted, and held open until the test lets it finish when `gated`. */
class TestView extends LitElement {
  pool: ReturnType<typeof fakePool> | null = null;
  reads = 0;
  running = 0;
  most = 0;
  gated = false;
  private gates: (() => void)[] = [];
  query!: PoolQueryController;
  use(options: Partial<PoolQueryOptions> = {}): this {
    this.query = new PoolQueryController(this, {
      pool: () => this.pool,
      tables: ['steps', 'curation'],
      run: async () => {
        this.running++;
        this.most = Math.max(this.most, this.running);
        if (this.gated) await new Promise<void>((r) => this.gates.push(r));
        this.reads++;
        this.running--;
      },
      delayMs: 20,
      ...options,
    });
    return this;
  }
  /** Let the held reads finish. */
  open(): void {
    for (const r of this.gates.splice(0)) r();
  }
  override render() {
    return 'view';
  }
}
customElements.define('test-pool-view', TestView);

describe('PoolQueryController (every view re-reads the pool through it)', () => {
  let view: TestView;
  let pool: ReturnType<typeof fakePool>;
  beforeEach(() => {
    pool = fakePool();
    view = (document.createElement('test-pool-view') as TestView).use();
    view.pool = pool;
  });
  afterEach(() => view.remove());

  async function mounted(): Promise<void> {
    document.body.append(view);
    await view.updateComplete;
    await view.query.settled;
  }

  it('reads once when connected, then once for a burst of writes to its tables, never for other tables', async () => {
    await mounted();
    expect(view.reads, 'the first read').to.equal(1);
    pool.write('token_counts');
    await view.query.settled;
    expect(view.reads).to.equal(1);
    for (let i = 0; i < 5; i++) pool.write(i % 2 ? 'steps' : 'curation');
    await view.query.settled;
    expect(view.reads).to.equal(2);
  });

  it('a long run of writes re-reads about once per maxWaitMs, not only when the writes pause', async () => {
    view.remove();
    view = (document.createElement('test-pool-view') as TestView).use({ delayMs: 1000, maxWaitMs: 100 });
    view.pool = pool;
    await mounted();
    // a write every 10 ms for at least 400 ms: the 1 s window never closes, the 100 ms cap ends each burst (a slower
    // machine only makes more bursts)
    for (let t = 0; t < 40; t++) {
      pool.write('steps');
      await wait(10);
    }
    const during = view.reads - 1;
    await view.query.settled;
    expect(during, 'reads while the writes went on').to.be.at.least(2);
    expect(view.reads - 1, 'one more at most after them').to.be.at.most(during + 1);
  });

  it('takes a test of the changed tables instead of a list', async () => {
    view.remove();
    view = (document.createElement('test-pool-view') as TestView).use({ tables: (t) => t.includes('my_table') });
    view.pool = pool;
    await mounted();
    pool.write('steps');
    await view.query.settled;
    expect(view.reads).to.equal(1);
    pool.write('steps', 'my_table');
    await view.query.settled;
    expect(view.reads).to.equal(2);
  });

  it('runs one read at a time: writes and refreshes during one give exactly one more after it, and settled waits for both', async () => {
    view.gated = true;
    document.body.append(view);
    await view.updateComplete;
    expect(view.running, 'the first read is running').to.equal(1);
    pool.write('steps');
    await wait(60); // the burst window has passed: the re-read waits for the running one
    void view.query.refresh();
    pool.write('curation');
    await wait(60);
    let settled = false;
    void view.query.settled.then(() => (settled = true));
    expect(view.running).to.equal(1);
    view.open();
    await until(() => view.running === 1 && view.reads === 1, 'the second read started');
    expect(settled, 'settled waits for the read queued behind').to.equal(false);
    view.open();
    await view.query.settled;
    expect(view.reads).to.equal(2);
    expect(view.most).to.equal(1);
  });

  it('a hidden view is only marked stale, and read once when it is shown', async () => {
    await mounted();
    view.style.display = 'none';
    pool.write('steps');
    pool.write('curation');
    await view.query.settled;
    await wait(60);
    expect(view.reads).to.equal(1);
    expect(view.query.stale).to.equal(true);
    await view.query.invalidate();
    expect(view.reads).to.equal(1);
    view.style.display = '';
    await until(() => view.reads === 2, 'read when shown'); // the IntersectionObserver reports it in view
    await wait(100);
    expect(view.reads, 'once').to.equal(2);
    expect(view.query.stale).to.equal(false);
    await view.query.invalidate();
    expect(view.reads, 'shown, a new input reads now').to.equal(3);
  });

  it('a view hidden and shown again before the next frame still reads what came while it was hidden', async () => {
    await mounted();
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))); // its observer has seen it shown
    // in one task: no rendering step sees it hidden, so its observer has no change to report
    view.style.display = 'none';
    pool.write('steps');
    view.style.display = '';
    expect(view.query.stale).to.equal(true);
    await until(() => view.reads === 2, 'read once shown again');
    expect(view.query.stale).to.equal(false);
  });

  it('disconnected it stops listening and reading; connected again it listens and reads', async () => {
    await mounted();
    view.remove();
    expect(pool.listeners.size).to.equal(0);
    pool.write('steps');
    await wait(60);
    expect(view.reads).to.equal(1);
    document.body.append(view);
    await view.updateComplete;
    await view.query.settled;
    expect(pool.listeners.size).to.equal(1);
    expect(view.reads, 'what it missed meanwhile is read').to.equal(2);
  });

  it('a write in the burst window before a disconnect reads nothing, and settled does not hang on it', async () => {
    await mounted();
    pool.write('steps');
    const settled = view.query.settled;
    view.remove();
    await settled;
    await wait(60);
    expect(view.reads).to.equal(1);
  });

  it('a pool that arrives late is subscribed to and read; a new pool replaces the old subscription', async () => {
    view.pool = null;
    await mounted();
    expect(view.reads).to.equal(0);
    view.pool = pool;
    view.requestUpdate(); // the services context arriving is an update
    await view.updateComplete;
    await view.query.settled;
    expect(view.reads).to.equal(1);
    expect(pool.listeners.size).to.equal(1);
    const next = fakePool();
    view.pool = next;
    view.requestUpdate();
    await view.updateComplete;
    await view.query.settled;
    expect(pool.listeners.size, 'the old pool is let go').to.equal(0);
    expect(next.listeners.size).to.equal(1);
    expect(view.reads).to.equal(2);
    pool.write('steps');
    await view.query.settled;
    expect(view.reads).to.equal(2);
  });

  it('a read that throws is reported, not swallowed, and the next read still runs', async () => {
    const errors: unknown[] = [];
    // reportError reaches window.onerror, where mocha would fail the test on it: this test takes the report
    const mochas = window.onerror;
    window.onerror = (_message, _source, _line, _column, error) => {
      errors.push(error);
      return true;
    };
    let fail = true;
    view.remove();
    view = (document.createElement('test-pool-view') as TestView).use({
      run: async () => {
        view.reads++;
        if (fail) throw new Error('the read failed');
      },
    });
    view.pool = pool;
    try {
      await mounted();
      expect(errors.map((e) => (e as Error).message)).to.deep.equal(['the read failed']);
      fail = false;
      await view.query.refresh();
      expect(view.reads).to.equal(2);
      expect(errors.length).to.equal(1);
    } finally {
      window.onerror = mochas;
    }
  });
});

describe("the notebook sidebar's schema (issue 36 item 8: the demo's import re-read it 18 times)", () => {
  it('re-reads the schema only when a change may have touched it, and only while shown', async () => {
    const pool = fakePool();
    const sqls: string[] = [];
    const rows = async (sql: string) => {
      sqls.push(sql);
      return [];
    };
    const services = { pool: { ...pool, rows } } as unknown as Services;
    const bar = document.createElement('aw-notebook-sidebar');
    bar.services = services;
    document.body.append(bar);
    await bar.updateComplete;
    await wait(50);
    const schemaReads = () => sqls.filter((q) => q.includes('information_schema')).length;
    const first = schemaReads();
    expect(first, 'read once on start').to.equal(1);
    // an import's writes: rows, not columns
    for (let i = 0; i < 6; i++) pool.write('steps', 'trajectory_stats', 'imports', 'import_errors', 'trajectories');
    await wait(250);
    expect(schemaReads()).to.equal(first);
    // an effect cell made a table: read again
    pool.write('my_table');
    await wait(250);
    expect(schemaReads()).to.equal(first + 1);
    // hidden (another tab shown): nothing until it is shown again
    bar.style.display = 'none';
    pool.write('other_table');
    await wait(250);
    expect(schemaReads()).to.equal(first + 1);
    bar.style.display = '';
    await wait(400);
    expect(schemaReads()).to.equal(first + 2);
    bar.remove();
  });
});
