import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseNotebook } from '../../src/notebook/format';
import { headlessCommands, shellQuote } from '../../src/views/notebook/headless';

const nb = (cells: string) => parseNotebook(`---\ntitle: t\n---\n\n${cells}`);

describe('run headless commands', () => {
  it('runs effect cells only when the notebook has some', () => {
    const plain = headlessCommands(nb('```sql id=a\nSELECT 1\n```\n'), { notebookFile: 'my notebook.md' });
    assert.match(plain, /npx agentworld run 'my notebook.md' --pool pool.duckdb\n/);
    const effects = headlessCommands(nb("```sql effect\nUPDATE curation SET quality = 'bad'\n```\n"), { notebookFile: 'n.md' });
    assert.match(effects, /npx agentworld run n.md --pool pool.duckdb --allow-effects/);
  });

  it('carries the export settings, quoted for the shell', () => {
    const out = headlessCommands(nb(''), { notebookFile: 'n.md', export: { layout: 'rl_steps', where: "s.model = 'gpt'", trainableOnly: false }, partitionBy: ['data_source'] });
    assert.match(out, /export --pool pool.duckdb --layout rl_steps --where 's.model = '\\''gpt'\\''' --include-untrainable --partition-by data_source --out out\//);
    assert.equal(shellQuote("it's"), `'it'\\''s'`);
  });
});
