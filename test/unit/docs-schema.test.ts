import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { DDL, STEPS_COLUMNS_DDL } from '../../src/pool/schema';

const doc = readFileSync(new URL('../../docs/schema.md', import.meta.url), 'utf8');

/** `| \`name\` | TYPE | … |` rows of the table under `## heading`. */
function documented(heading: string): Map<string, string> {
  const section = doc.split(/^#{2,3} /m).find((s) => s.startsWith(heading)) ?? '';
  const out = new Map<string, string>();
  for (const m of section.matchAll(/^\| `([a-z_]+)` \| ([^|]+) \|/gm)) out.set(m[1], m[2].trim());
  return out;
}

/** Column → type of a CREATE TABLE body, nested STRUCTs folded to their outer type. */
function columns(body: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of body.split('\n')) {
    const m = /^\s*([a-z_]+) (.+?),?$/.exec(line);
    if (!m) continue;
    const t = m[2].replace(/ DEFAULT .*/, '').replace(/ NOT NULL| PRIMARY KEY/g, '').trim();
    out.set(m[1], t.startsWith('STRUCT') && t.endsWith('[]') ? 'LIST(STRUCT)' : t.startsWith('$') ? (t.endsWith('[]') ? 'LIST(STRUCT)' : 'STRUCT') : t);
  }
  return out;
}

describe('docs/schema.md', () => {
  it('names every column of steps with its type, in order', () => {
    const ddl = columns(STEPS_COLUMNS_DDL.replace(/\$\{[^}]+\}/g, 'STRUCT'));
    const doc = documented('`steps`');
    assert.deepEqual([...doc.keys()], [...ddl.keys()]);
    for (const [c, t] of ddl) {
      const want = c === 'messages' ? 'LIST(STRUCT)' : c === 'response' ? 'STRUCT' : t;
      assert.equal(doc.get(c), want, c);
    }
  });

  it('names every column of curation', () => {
    const body = DDL.find((d) => d.includes('CREATE TABLE IF NOT EXISTS curation')) ?? '';
    assert.deepEqual([...documented('`curation`')].map(([c, t]) => `${c} ${t}`), [...columns(body.split('(').slice(1).join('('))].map(([c, t]) => `${c} ${t}`));
  });
});
