import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyEdit, chartSpec, freeId } from '../../src/notebook/edits';
import { makeCell } from '../../src/notebook/model';

const doc = () => [makeCell('sql', 'SELECT 1', { id: 'a' }), makeCell('md', '# t'), makeCell('sql', 'SELECT 2', { id: 'b_2', effect: true })];
const srcs = (cells: { source: string }[]) => cells.map((c) => c.source);

describe('notebook edits (notebook/edits.ts)', () => {
  it('delete, then undo-delete puts the cell back where it stood; nothing to bring back is no edit', () => {
    const cells = doc();
    const del = applyEdit(cells, [], 1, { action: 'delete' });
    assert.ok(del);
    assert.deepEqual(srcs(del.cells), ['SELECT 1', 'SELECT 2']);
    assert.equal(del.focus, 1);
    assert.equal(cells.length, 3, 'the input list is not changed');
    const back = applyEdit(del.cells, del.deleted, 0, { action: 'undo-delete' });
    assert.ok(back);
    assert.deepEqual(back.cells.map((c) => c.key), cells.map((c) => c.key));
    assert.deepEqual(back.deleted, []);
    assert.equal(applyEdit(cells, [], 0, { action: 'undo-delete' }), null);
  });

  it('duplicate gives the copy a free id; move swaps and stops at the ends; add above / below with the kind template', () => {
    const cells = doc();
    const dup = applyEdit(cells, [], 2, { action: 'duplicate' });
    assert.equal(dup?.cells[3].options.id, 'b_3');
    assert.equal(dup?.cells[3].options.effect, true);
    assert.equal(freeId(cells, 'a'), 'a_2');
    assert.deepEqual(srcs(applyEdit(cells, [], 0, { action: 'move', dir: 1 })?.cells ?? []), ['# t', 'SELECT 1', 'SELECT 2']);
    assert.equal(applyEdit(cells, [], 0, { action: 'move', dir: -1 }), null);
    assert.equal(applyEdit(cells, [], 2, { action: 'move', dir: 1 }), null);
    const above = applyEdit(cells, [], 1, { action: 'add', kind: 'plot', above: true });
    assert.equal(above?.focus, 1);
    assert.equal(above?.cells[1].kind, 'plot');
    assert.match(above?.cells[1].source ?? '', /^mark: dot/);
    assert.equal(applyEdit(cells, [], 1, { action: 'add', kind: 'sql' })?.focus, 2);
  });

  it('kind: to Markdown drops id and effect, to plot keeps the id, to SQL keeps every option', () => {
    const cells = doc();
    const md = applyEdit(cells, [], 2, { action: 'kind', kind: 'md' })?.cells[2];
    assert.equal(md?.kind, 'md');
    assert.equal(md?.options.id, undefined);
    assert.equal(md?.options.effect, undefined);
    assert.equal(applyEdit(cells, [], 2, { action: 'kind', kind: 'plot' })?.cells[2].options.id, 'b_2');
    assert.deepEqual(applyEdit(cells, [], 2, { action: 'kind', kind: 'sql' })?.cells[2].options, { id: 'b_2', effect: true });
  });

  it('chartSpec: bars by a category, a scatter of two numbers, a histogram of one, else counts', () => {
    const f = (name: string, type: string) => ({ name, type });
    assert.match(chartSpec('v', [f('agent', 'Utf8'), f('n', 'Int32')]), /mark: barY\ndata: v\nx: agent\ny: n/);
    assert.match(chartSpec('v', [f('x', 'Float64'), f('y', 'Int64')]), /mark: dot\ndata: v\nx: x\ny: y/);
    assert.match(chartSpec('v', [f('x', 'Decimal')]), /mark: rectY[\s\S]*binX/);
    assert.match(chartSpec('v', [f('t', 'Timestamp<MICROSECOND>')]), /mark: barY\ndata: v\nx: t\ntransform: \{groupX/);
  });
});
