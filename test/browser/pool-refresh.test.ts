import { expect } from '@esm-bundle/chai';
import { refreshOnPoolChange } from '../../src/views/kit/pool-refresh';
import type { Services } from '../../src/views/kit/services';
import '../../src/views/notebook/aw-notebook-sidebar';

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

describe('refreshOnPoolChange (views re-read the pool after writes)', () => {
  let host: HTMLElement;
  beforeEach(() => {
    host = document.createElement('div');
    host.textContent = 'view';
    document.body.append(host);
  });
  afterEach(() => host.remove());

  it('re-reads once for a burst of writes to its tables, never for other tables', async () => {
    const pool = fakePool();
    let n = 0;
    const off = refreshOnPoolChange(host, pool, ['steps', 'curation'], async () => void n++, 20);
    pool.write('token_counts');
    await wait(60);
    expect(n).to.equal(0);
    for (let i = 0; i < 5; i++) pool.write(i % 2 ? 'steps' : 'curation');
    await wait(60);
    expect(n).to.equal(1);
    off();
    expect(pool.listeners.size).to.equal(0);
    pool.write('steps');
    await wait(60);
    expect(n).to.equal(1);
  });

  it('runs one re-read at a time: writes during one give exactly one more after it', async () => {
    const pool = fakePool();
    let running = 0;
    let most = 0;
    let n = 0;
    const off = refreshOnPoolChange(host, pool, ['steps'], async () => {
      running++;
      most = Math.max(most, running);
      await wait(80);
      n++;
      running--;
    }, 0);
    pool.write('steps');
    await wait(20); // the first re-read is running
    pool.write('steps');
    await wait(5);
    pool.write('steps');
    await wait(300);
    expect(most).to.equal(1);
    expect(n).to.equal(2);
    off();
  });

  it('a hidden view is only marked stale, and re-read once when it is shown', async () => {
    const pool = fakePool();
    let n = 0;
    host.style.display = 'none';
    const off = refreshOnPoolChange(host, pool, ['steps'], async () => void n++, 0);
    pool.write('steps');
    pool.write('steps');
    await wait(100);
    expect(n).to.equal(0);
    host.style.display = '';
    await wait(200); // the IntersectionObserver reports it in view
    expect(n).to.equal(1);
    off();
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
