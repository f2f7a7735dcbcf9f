import { expect } from '@esm-bundle/chai';
import type { PoolClient } from '../../src/pool/client';
import '../../src/views/aw-table';
import type { AwTable, RowSelectDetail } from '../../src/views/aw-table';
import { demoPool } from './notebook-demo';

const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));

describe('<aw-table>', () => {
  let pool: PoolClient;
  before(async () => {
    pool = await demoPool();
  });

  it('renders only the visible rows of a million and scrolls to the end', async () => {
    const table = await pool.query("SELECT range AS i, range / 3.0 AS x FROM range(1000000)");
    const el = document.createElement('aw-table') as AwTable;
    el.table = table;
    el.ms = 12.3;
    document.body.append(el);
    await el.updateComplete;
    await frame();
    const root = el.shadowRoot!;
    expect(root.querySelector('.count')!.textContent).to.equal('1,000,000 rows');
    expect(root.querySelector('.ms')!.textContent).to.equal('12 ms');
    expect(root.querySelectorAll('.row').length).to.be.lessThan(80);
    const scroller = root.querySelector('.scroll') as HTMLElement;
    for (let k = 1; k <= 20; k++) {
      scroller.scrollTop = (scroller.scrollHeight * k) / 20;
      await frame();
      await el.updateComplete;
    }
    const idx = [...root.querySelectorAll('.row .idx')].map((d) => Number(d.textContent));
    expect(idx).to.include(1_000_000);
    expect(root.querySelectorAll('.row').length).to.be.lessThan(80);
    el.remove();
  });

  it('shows nested values compactly, expands them as text, and reports row clicks', async () => {
    const table = await pool.query("SELECT step_id, messages, metadata, response FROM steps WHERE step_id = 's1:1'");
    const el = document.createElement('aw-table') as AwTable;
    el.table = table;
    document.body.append(el);
    await el.updateComplete;
    await frame();
    const root = el.shadowRoot!;
    const nested = root.querySelector('button.nested') as HTMLButtonElement;
    // its name is the value it shows (axe: label-content-name-mismatch); the title says what a click does
    expect(nested.getAttribute('title')).to.equal('Expand messages of row 1');
    expect(nested.textContent).to.match(/^\[4\] \{role: system, content: Solve it\.\}/);
    nested.click();
    await el.updateComplete;
    const pre = root.querySelector('.detail pre')!;
    expect(pre.textContent).to.include('tool_call_id: c0');
    expect(pre.innerHTML).to.not.include('<b');
    let got: RowSelectDetail | null = null;
    el.addEventListener('aw-row-select', (e) => (got = (e as CustomEvent<RowSelectDetail>).detail));
    (root.querySelector('.row') as HTMLElement).click();
    expect(got!.index).to.equal(0);
    expect(got!.row.step_id).to.equal('s1:1');
    el.remove();
  });

  it('renders markup in values as text', async () => {
    const table = await pool.query(`SELECT '<img src=x onerror="window.__pwned=1">' AS html`);
    const el = document.createElement('aw-table') as AwTable;
    el.table = table;
    document.body.append(el);
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('img')).to.equal(null);
    expect(el.shadowRoot!.querySelector('.row [role=gridcell]')!.textContent).to.include('<img');
    el.remove();
  });
});
