// The members of `window.workbench` as README.md's "Scripting API" section documents them, for the tests that hold
// the interface (test/unit/workbench-api-doc.test.ts) and the page's real object (foundation.test.mjs) to it.
import { readFileSync } from 'node:fs';

/**
 * Each documented member: `name` (`debug.crashPool` for a member of `debug`), `sync` (the row says "(sync)"; the
 * section says every other call returns a Promise), `property` (`ready`: a Promise, not a function), `testBuild`
 * (only in test builds).
 */
export function documentedApi(readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')) {
  const section = readme.split(/^## /m).find((s) => s.startsWith('Scripting API: `window.workbench`'));
  if (!section) throw new Error('README.md has no "## Scripting API: `window.workbench`" section');
  const members = [];
  for (const line of section.split('\n')) {
    const row = /^\| (.+?) \| (.+) \|$/.exec(line);
    if (!row || row[1] === 'member' || /^-+$/.test(row[1])) continue;
    const testBuild = /only in test builds/.test(row[2]);
    // `name(…)` followed by its notes up to the next member: "(sync)" applies to the member it follows
    for (const code of row[1].matchAll(/`([^`]+)`([^`]*)/g)) {
      const name = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?/.exec(code[1])?.[0];
      if (!name) throw new Error(`README.md: cannot read a member name from \`${code[1]}\``);
      members.push({ name, sync: /\(sync\)/.test(code[2]), property: !code[1].includes('('), testBuild });
    }
  }
  return members;
}
