/**
 * `window.workbench` is public: README.md documents it and src/app/workbench-api.ts types it. Every documented member
 * is in the interface and every member of the interface is documented, and a call the README marks "(sync)" returns
 * no Promise while every other call does. The page's real object is held to the same list in test/e2e/foundation.test.mjs
 * (and src/main.ts builds it as the whole interface, so the typecheck fails when a member is left out).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { documentedApi } from '../e2e/readme-api.mjs';

const source = readFileSync(new URL('../../src/app/workbench-api.ts', import.meta.url), 'utf8');

/** Members of `interface name { … }` in the source: `name: type` and `name(args): type`, with the text of their type. */
function members(name: string): Map<string, string> {
  const start = source.indexOf(`export interface ${name} {`);
  if (start < 0) return new Map();
  const body = source.slice(start, source.indexOf('\n}', start));
  const out = new Map<string, string>();
  // one member per line at two spaces (a member's doc comment and wrapped parameters are indented or start with '*' / ')')
  for (const m of body.matchAll(/^ {2}(readonly )?([A-Za-z_$][\w$]*)(\??)(\(|: )(.*)$/gm)) out.set(m[2], m[4] === '(' ? `(${m[5]}` : m[5]);
  return out;
}

const returns = (sig: string) => (sig.startsWith('(') ? sig.slice(sig.lastIndexOf('): ') + 3) : sig);

describe('window.workbench: README.md and the interface', () => {
  const doc = documentedApi();
  const api = members('WorkbenchApi');
  const debug = members('WorkbenchDebug');

  it('every documented member is declared, and every declared member documented', () => {
    const declared = [...[...api.keys()].filter((k) => k !== 'debug'), ...[...debug.keys()].map((k) => `debug.${k}`)];
    assert.deepEqual([...doc.map((m) => m.name)].sort(), declared.sort());
    assert.ok(!/\[\w+: string\]: unknown/.test(source), 'no index signature: an undeclared member would pass the typecheck unseen');
  });

  it('calls the README marks (sync) return no Promise; every other call returns one; `ready` is a Promise', () => {
    for (const m of doc) {
      const sig = m.name.startsWith('debug.') ? debug.get(m.name.slice(6)) : api.get(m.name);
      assert.ok(sig, m.name);
      if (m.property) {
        assert.match(sig, /^Promise</, `${m.name} is a Promise`);
        continue;
      }
      assert.ok(sig.startsWith('('), `${m.name} is a method: ${sig}`);
      const r = returns(sig);
      if (m.sync) assert.doesNotMatch(r, /Promise</, `${m.name} is documented (sync) but returns ${r}`);
      else assert.match(r, /^Promise</, `${m.name} is documented as returning a Promise but returns ${r}`);
    }
  });
});
