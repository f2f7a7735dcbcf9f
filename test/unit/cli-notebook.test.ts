// `agentworld run`: the page's notebook runtime on the native pool — dependency order, effect cells only when
// allowed, a failing cell named (issue 22).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runImport } from '../../src/cli/import';
import { NativePool } from '../../src/cli/native-pool';
import { runNotebook } from '../../src/cli/notebook';
import { scratchDir } from '../scratch.mjs';

const tmp = scratchDir('aw-cli-nb-');
const NB = join(tmp, 'recipe.md');
// the effect cell comes first in the file but reads `bad`, so it runs after it
writeFileSync(
  NB,
  `---\ntitle: recipe\n---\n\n\`\`\`sql effect\nINSERT INTO curation (step_id, quality) SELECT step_id, 'bad' FROM bad\n\`\`\`\n\n\`\`\`sql id=bad\nSELECT step_id FROM steps WHERE step_index = 0\n\`\`\`\n\n\`\`\`sql id=broken\nSELECT no_such_column FROM bad\n\`\`\`\n`,
);

describe('CLI run', () => {
  let pool: NativePool;
  before(async () => {
    pool = await NativePool.open(join(tmp, 'pool.duckdb'));
    await runImport(pool, ['test/fixtures/formats/sharegpt-llamafactory.jsonl'], { threads: 1 });
  });
  after(async () => {
    await pool.close();
  });

  it('runs query cells, names the failing one, and leaves effect cells alone unless allowed', async () => {
    const r = await runNotebook(pool, NB);
    const by = Object.fromEntries(r.cells.map((c) => [c.name, c]));
    const [{ n: firsts }] = await pool.rows('SELECT count(*)::INTEGER AS n FROM steps WHERE step_index = 0');
    assert.equal(by.bad.status, 'done');
    assert.equal(by.bad.rows, firsts);
    assert.equal(by.broken.status, 'error');
    assert.match(by.broken.error ?? '', /no_such_column/);
    assert.equal(by['cell 1 (sql)'].status !== 'done', true);
    const [{ n: before }] = await pool.rows('SELECT count(*)::INTEGER AS n FROM curation');
    assert.equal(before, 0);
    await runNotebook(pool, NB, { allowEffects: true });
    const [{ n: afterRun }] = await pool.rows(`SELECT count(*)::INTEGER AS n FROM curation WHERE quality = 'bad'`);
    assert.equal(afterRun, firsts);
  });
});
