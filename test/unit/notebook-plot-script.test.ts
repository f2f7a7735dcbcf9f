import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseNotebook } from '../../src/notebook/format';
import { parsePlotSpec } from '../../src/notebook/plot-spec';
import { cellErrorMessage } from '../../src/notebook/runtime';
import { notebookToSql } from '../../src/notebook/sql-script';
import { compactText, fullText, toTsv } from '../../src/views/value-text';

describe('plot specs', () => {
  it('splits channels, mark options, transform and plot options', () => {
    const s = parsePlotSpec('mark: rectY\ndata: rewarded\nx: reward_sum\nfill: agent\ntransform: {binX: {y: count, thresholds: 20}}\ntip: true\nheight: 300\ncolor: {legend: true}\nscales: {x: {label: reward}}');
    assert.equal(s.mark, 'rectY');
    assert.deepEqual(s.channels, { x: 'reward_sum', fill: 'agent' });
    assert.deepEqual(s.transform, { name: 'binX', outputs: { y: 'count' }, options: { thresholds: 20 } });
    assert.deepEqual(s.markOptions, { tip: true });
    assert.deepEqual(s.plotOptions, { height: 300, color: { legend: true }, x: { label: 'reward' } });
  });

  it('rejects what is not on the lists, naming the bad value', () => {
    assert.throws(() => parsePlotSpec('mark: script\ndata: x'), /invalid mark: script/);
    assert.throws(() => parsePlotSpec('mark: dot\ndata: x\nonclick: alert(1)'), /unknown chart option: onclick/);
    assert.throws(() => parsePlotSpec('mark: dot\ndata: x\ntransform: {binX: {y: "d => d.x"}}'), /invalid reducer for binX.y/);
    assert.throws(() => parsePlotSpec('mark: dot\ndata: x\nx: {transform: 1}'), /invalid x/);
    assert.throws(() => parsePlotSpec('mark: dot'), /Set data:/);
    assert.throws(() => parsePlotSpec('mark: [dot'), /not valid YAML/);
  });
});

describe('SQL script export', () => {
  it('writes views in dependency order, effects marked, with the setup header', () => {
    const doc = parseNotebook('---\ntitle: T\n---\n\n```sql id=b\nSELECT * FROM a;\n```\n\n```sql id=a\nSELECT * FROM trajectories\n```\n\n```sql effect\nINSERT INTO curation (step_id) SELECT step_id FROM steps\n```\n\n```plot\nmark: dot\ndata: a\n```\n');
    const sql = notebookToSql(doc);
    assert.match(sql, /^-- T\n/);
    assert.match(sql, /CREATE VIEW steps AS SELECT \* FROM 'steps\.parquet'/);
    assert.ok(sql.indexOf('CREATE OR REPLACE VIEW a AS') < sql.indexOf('CREATE OR REPLACE VIEW b AS'));
    assert.match(sql, /CREATE OR REPLACE VIEW trajectories AS/);
    assert.match(sql, /CREATE TABLE IF NOT EXISTS curation/);
    assert.match(sql, /-- effect cell: changes data\nINSERT INTO curation/);
    assert.ok(!sql.includes(';;'));
  });
});

describe('error messages and value text', () => {
  it('maps LINE numbers back to the cell and hides the notebook schema', () => {
    const { message, line } = cellErrorMessage('Binder Error: Referenced column "nope" not found\n\nLINE 3: FROM "nb_ab12"."x" WHERE nope', 'nb_ab12');
    assert.equal(line, 2);
    assert.equal(message, 'Binder Error: Referenced column "nope" not found\n\nLINE 2: FROM "x" WHERE nope');
  });

  it('renders nested values compactly, in full, and as TSV', () => {
    const msgs = [{ role: 'user', content: 'hi\nthere', name: null }, { role: 'assistant', content: null, tool_calls: [{ id: 'c', function: { name: 'calc', arguments: '{}' } }] }];
    assert.equal(compactText(msgs), '[2] {role: user, content: hi there}, {role: assistant, tool_calls: [1] {id: c, function: {name: calc, arguments: {}}}}');
    assert.equal(compactText('x'.repeat(300), 10), 'xxxxxxxxxx…');
    assert.match(fullText(msgs), /^\[0\] role: user\n {4}content: hi/);
    assert.equal(toTsv(['a', 'b'], [[1, 'x\ty'], [null, { k: 1 }]]), 'a\tb\n1\tx y\n\t{"k":1}');
  });
});
