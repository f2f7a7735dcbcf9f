/**
 * The import panel says what each import kept (docs/decisions/011): nothing for a failed file, the collisions it
 * named, "already imported" on a re-import, one summary line for many files; files picked together see each other.
 * The imports behind it: test/unit/import.test.ts.
 */
import { expect } from '@esm-bundle/chai';
import type { PoolClient } from '../../src/pool/client';
import { emptyPagePool, fixture, until } from './helpers';
import { importPanelOnEmptyPool } from './import-panel-host';

let pool: PoolClient;

describe('import panel: what was kept', function () {
  this.timeout(120_000);
  before(async () => {
    pool = await emptyPagePool();
  });
  it('says nothing was imported for a failed file, names collisions, and "already imported" on a re-import', async () => {
    const { host, panel } = await importPanelOnEmptyPool(pool);
    const one = (sid: string, answer: string) => new File([JSON.stringify({ session_id: sid, messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: answer }] })], `${answer}.jsonl`);
    await panel.importFiles([new File(['{"messages": [}\nnope\n'], 'all-bad.jsonl'), one('s-1', 'first'), one('s-1', 'second'), one('s-1', 'second')]);
    await panel.updateComplete;
    const item = (name: string) => panel.shadowRoot!.querySelector(`[aria-label="Import of ${name}"]`)!;
    const bad = item('all-bad.jsonl');
    expect(bad.querySelector('.badge')!.textContent).to.equal('failed');
    expect(bad.querySelector('.nothing')!.textContent).to.equal('Nothing of this file was imported.');
    expect(bad.querySelector('.message')!.textContent).to.match(/none of the 2 record\(s\) in the file could be read \(first: line 1/);
    // the two "second.jsonl" jobs, newest first
    const [again, second] = [...panel.shadowRoot!.querySelectorAll('[aria-label="Import of second.jsonl"]')];
    expect(second.querySelector('.badge')!.textContent).to.equal('done');
    const note = second.querySelector('.collisions')!.textContent!.replace(/\s+/g, ' ');
    expect(note).to.match(/s-1: 1 step\(s\) kept apart as s-1@[0-9a-f]{12}/);
    expect(again.querySelector('.badge')!.textContent).to.equal('unchanged');
    expect(again.querySelector('.message')!.textContent).to.match(/^Already imported — 0 new steps/);
    expect(again.querySelector('.nothing')).to.equal(null);
    host.remove();
  });

  it('twenty files: one summary line, finished reports one line each (newest first, open only when they need a step), URLs by file name', async () => {
    const { host, panel } = await importPanelOnEmptyPool(pool);
    const file = (i: number) => new File([JSON.stringify({ messages: [{ role: 'user', content: `q${i}` }, { role: 'assistant', content: `a${i}` }] })], `f${String(i).padStart(2, '0')}.jsonl`);
    await panel.importFiles(Array.from({ length: 19 }, (_, i) => file(i)));
    const url = new URL('/test/fixtures/core/chat.jsonl', location.origin).href;
    const running = panel.importUrl(url);
    await panel.updateComplete;
    // while it runs, the URL shows as its file name (the whole address is the title)
    const name = panel.shadowRoot!.querySelector('[aria-label="Imports running"] .name')!;
    expect([name.textContent, name.getAttribute('title')]).to.deep.equal(['chat.jsonl', url]);
    await running;
    await panel.updateComplete;
    const items = [...panel.shadowRoot!.querySelectorAll('.done-list > li')];
    expect(items.length).to.equal(20);
    expect(items.slice(0, 3).map((li) => li.getAttribute('aria-label'))).to.deep.equal(['Import of chat.jsonl', 'Import of f18.jsonl', 'Import of f17.jsonl']);
    expect(panel.shadowRoot!.querySelectorAll('.done-list details[open]').length, 'all done: all closed').to.equal(0);
    const [total] = await pool.rows('SELECT count(*)::INTEGER AS n FROM steps');
    const line = panel.shadowRoot!.querySelector('.summary-line')!.textContent!.replace(/\s+/g, ' ');
    expect(line).to.include(`20 files imported · ${Number(total.n).toLocaleString('en-US')} steps added`);
    // the page it takes: a line per file, not a card (20 reports made 3,434 px)
    expect(panel.getBoundingClientRect().height).to.be.lessThan(900);
    host.remove();
  });

  it('files picked together in its file input are one drop: a Batch output picked with its input file gets its requests', async () => {
    // was test/e2e/formats-join.test.mjs (a page boot of its own); the join itself: formats-join.suite.ts
    const { host, panel } = await importPanelOnEmptyPool(pool);
    const input = panel.shadowRoot!.querySelector<HTMLInputElement>('input[aria-label="Import files"]')!;
    const picked = new DataTransfer();
    for (const f of await Promise.all([fixture('formats/openai-batch-output.jsonl'), fixture('formats/openai-batch-input.jsonl')])) picked.items.add(f);
    input.files = picked.files;
    input.dispatchEvent(new Event('change'));
    await until(() => panel.shadowRoot!.querySelectorAll('.done-list > li').length === 2, 'two finished reports', 600);
    const rows = await pool.rows(`SELECT metadata['custom_id'] AS id, len(messages)::INTEGER AS n, source FROM steps ORDER BY id`);
    expect(rows.map((r) => [r.id, Number(r.n), r.source])).to.deep.equal([
      ['ticket-0001', 2, 'openai-batch-output.jsonl'],
      ['ticket-0002', 2, 'openai-batch-output.jsonl'],
      ['ticket-0003', 2, 'openai-batch-output.jsonl'],
      ['ticket-0004', 2, 'openai-batch-output.jsonl'],
    ]);
    host.remove();
  });
});
