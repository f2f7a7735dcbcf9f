import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { notebookTitle, parseFenceOptions, parseNotebook, serializeFenceOptions, serializeNotebook, withTitle } from '../../src/notebook/format';
import { makeCell } from '../../src/notebook/model';

const dir = new URL('../fixtures/notebooks/', import.meta.url);
const update = process.env.UPDATE_GOLDEN === '1';

function golden(name: string, actual: string): void {
  const url = new URL(name, dir);
  if (update) writeFileSync(url, actual);
  // A missing golden is a failure, not a fresh baseline: writing it here would pass whatever the parser produced.
  assert.ok(existsSync(url), `${name} is missing (UPDATE_GOLDEN=1 writes it; review it before committing)`);
  assert.equal(actual, readFileSync(url, 'utf8'), `${name} differs (UPDATE_GOLDEN=1 rewrites it)`);
}

function parsedJson(text: string): string {
  const doc = parseNotebook(text);
  return `${JSON.stringify({ frontMatter: doc.frontMatter, cells: doc.cells.map(({ kind, source, options }) => ({ kind, options, source })) }, null, 2)}\n`;
}

describe('notebook format', () => {
  it('round-trips a file it wrote byte for byte', () => {
    const text = readFileSync(new URL('canonical.md', dir), 'utf8');
    assert.equal(serializeNotebook(parseNotebook(text)), text);
  });

  for (const name of ['canonical', 'handwritten', 'no-front-matter']) {
    it(`parses ${name}.md to its golden cells and a stable file`, () => {
      const text = readFileSync(new URL(`${name}.md`, dir), 'utf8');
      golden(`${name}.parsed.json`, parsedJson(text));
      const once = serializeNotebook(parseNotebook(text));
      golden(`${name}.serialized.md`, once);
      assert.equal(serializeNotebook(parseNotebook(once)), once, 'second round trip changed the file');
    });
  }

  it('keeps fenced code that is not a cell inside Markdown', () => {
    const doc = parseNotebook(readFileSync(new URL('canonical.md', dir), 'utf8'));
    const md = doc.cells.filter((c) => c.kind === 'md').map((c) => c.source).join('\n');
    assert.match(md, /```python\nprint\("```sql id=nope"\)\n```/);
    assert.equal(doc.cells.filter((c) => c.kind === 'sql').length, 7);
  });

  it('reads fence options: flags, run=false, quoted and unknown values', () => {
    assert.deepEqual(parseFenceOptions(' id=x hidden run=false effect owner="A b" wide'), {
      id: 'x', hidden: true, run: false, effect: true, extra: [['owner', 'A b'], ['wide', true]],
    });
    assert.equal(serializeFenceOptions({ id: 'x', run: false, hidden: true, effect: true }), 'id=x effect hidden run=false');
  });

  it('picks a longer fence when the source holds one', () => {
    const text = serializeNotebook({ frontMatter: '', cells: [makeCell('sql', "SELECT '\n```\n' AS t", { id: 't' })] });
    assert.ok(text.startsWith('````sql id=t\n'));
    assert.equal(parseNotebook(text).cells[0].source, "SELECT '\n```\n' AS t");
  });

  it('titles from front matter, else the first heading; retitling keeps comments', () => {
    const doc = parseNotebook(readFileSync(new URL('canonical.md', dir), 'utf8'));
    assert.equal(notebookTitle(doc), 'Curate GSM8K rollouts');
    const re = withTitle(doc, 'New: name');
    assert.equal(notebookTitle(re), 'New: name');
    assert.match(re.frontMatter, /# owner comment survives/);
    assert.equal(notebookTitle(parseNotebook('# Just a heading\n')), 'Just a heading');
  });

  it('handles CRLF and an unterminated fence without losing text', () => {
    const doc = parseNotebook('# T\r\n\r\n```sql id=a\r\nSELECT 1\r\n');
    assert.equal(doc.cells[1].source, 'SELECT 1\n');
    assert.equal(doc.cells[1].options.id, 'a');
  });
});
