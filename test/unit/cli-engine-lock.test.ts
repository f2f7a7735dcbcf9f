// The CLI's DuckDB is locked as the page's (issue 37 item 2): a notebook run headless (someone else's cells) reads
// no file it was not given, lists no folder, reaches no network address, attaches no database, installs or loads no
// extension, writes only inside --out, and cannot SET the lock away; `export --where` neither. Import, merge,
// layout-sql and export (with tokens) still work under the lock: their staging, spill and outputs are in its scope.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { cliMain } from './helpers/cli';
import { scratchDir } from '../scratch.mjs';

const tmp = scratchDir('aw-cli-lock-');
const SECRET = join(tmp, 'secret.txt');
const POOL = join(tmp, 'pool', 'pool.duckdb');
const OUT = join(tmp, 'out');
const DATA = join(tmp, 'given', 'labels.csv');

// each command by the CLI's main() in this process (the lock is the engine's, set by the command's NativePool.open):
// what a user's process would print, and its exit code
const cli = cliMain;

const sql = (id: string, body: string, effect = false) => `\`\`\`sql ${effect ? 'effect ' : ''}id=${id}\n${body}\n\`\`\`\n\n`;

describe('CLI engine lock', () => {
  before(async () => {
    writeFileSync(SECRET, 'TOP-SECRET-VALUE\n');
    mkdirSync(join(tmp, 'given'));
    writeFileSync(DATA, 'step_id,label\nx,1\n');
    mkdirSync(join(tmp, 'pool'));
    const r = await cli('import', 'test/fixtures/formats/sharegpt-llamafactory.jsonl', '--pool', POOL, '--steps-out', join(tmp, 'shards'), '--json');
    assert.equal(r.code, 0, r.stderr);
  });

  it('a hostile notebook: every escape fails, what was given works', async () => {
    const nb = join(tmp, 'hostile.md');
    writeFileSync(
      nb,
      `---\ntitle: hostile\n---\n\n${[
        sql('read_text_secret', `SELECT content FROM read_text('${SECRET}')`),
        sql('read_csv_secret', `SELECT * FROM read_csv('${SECRET}')`),
        sql('glob_folder', `SELECT file FROM glob('${tmp}/*')`),
        sql('glob_pool_folder', `SELECT file FROM glob('${join(tmp, 'pool')}/*')`),
        sql('dotdot', `SELECT content FROM read_text('${OUT}/../secret.txt')`),
        sql('http_url', `SELECT * FROM read_csv('https://example.com/data.csv')`),
        sql('given_file', `SELECT * FROM read_csv('${DATA}')`),
        sql('attach', `ATTACH '${join(tmp, 'other.duckdb')}' AS other`, true),
        sql('install', 'INSTALL httpfs', true),
        sql('load', 'LOAD httpfs', true),
        sql('copy_elsewhere', `COPY (SELECT 1 AS x) TO '${join(tmp, 'escaped.csv')}'`, true),
        sql('export_db', `EXPORT DATABASE '${join(tmp, 'dump')}'`, true),
        sql('set_undo', 'SET enable_external_access = true', true),
        sql('set_unlock', 'SET lock_configuration = false', true),
        sql('set_dirs', `SET allowed_directories = ['/']`, true),
        sql('copy_into_out', `COPY (SELECT count(*) AS n FROM steps) TO '${join(OUT, 'counts.csv')}'`, true),
      ].join('')}`,
    );
    const r = await cli('run', nb, '--pool', POOL, '--allow-effects', '--out', OUT, '--read', DATA, '--json');
    const cells = Object.fromEntries((JSON.parse(r.stdout).cells as { name: string; status: string; error: string | null }[]).map((c) => [c.name, c]));
    const refused = (name: string, why: RegExp) => {
      assert.equal(cells[name]?.status, 'error', `${name} ran: ${JSON.stringify(cells[name])}`);
      assert.match(cells[name]?.error ?? '', why, name);
    };
    const fs = /Permission Error: Cannot access (file|directory)/;
    for (const name of ['read_text_secret', 'read_csv_secret', 'glob_folder', 'glob_pool_folder', 'dotdot', 'http_url', 'attach', 'copy_elsewhere', 'export_db', 'install']) refused(name, fs);
    refused('load', /Loading external extensions is disabled/);
    for (const name of ['set_undo', 'set_unlock', 'set_dirs']) refused(name, /the configuration has been locked/);
    assert.ok(!r.stdout.includes('TOP-SECRET-VALUE') && !r.stderr.includes('TOP-SECRET-VALUE'), 'the secret never appears');
    assert.ok(!existsSync(join(tmp, 'escaped.csv')) && !existsSync(join(tmp, 'other.duckdb')) && !existsSync(join(tmp, 'dump')));
    // what the command was given: the --read file, and --out for the effect cells' files
    assert.equal(cells.given_file?.status, 'done', JSON.stringify(cells.given_file));
    assert.equal(cells.copy_into_out?.status, 'done', JSON.stringify(cells.copy_into_out));
    assert.match(readFileSync(join(OUT, 'counts.csv'), 'utf8'), /^n\n\d+\n$/);
    assert.equal(r.code, 1, 'the failing cells fail the run');
  });

  it('run --out is new, empty or an earlier run\'s: its manifest claims the cells\' files, --force replaces them, a user\'s file stops it', async () => {
    const nb = join(tmp, 'writes.md');
    const out = join(tmp, 'run-out');
    writeFileSync(nb, `---\ntitle: writes\n---\n\n${sql('w', `COPY (SELECT 1 AS x) TO '${join(out, 'x.csv')}'`, true)}`);
    const go = (...extra: string[]) => cli('run', nb, '--pool', POOL, '--allow-effects', '--out', out, ...extra);
    assert.equal((await go()).code, 0);
    assert.deepEqual(JSON.parse(readFileSync(join(out, '_manifest.json'), 'utf8')).files, [{ path: 'x.csv', bytes: 4 }]);
    const again = await go();
    assert.equal(again.code, 2);
    assert.match(again.stderr, /holds an earlier export .* --force replaces those files/);
    assert.equal((await go('--force')).code, 0);
    writeFileSync(join(out, 'mine.txt'), 'keep');
    const refused = await go('--force');
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /not empty .*mine\.txt.*Nothing was deleted/);
    assert.equal(readFileSync(join(out, 'mine.txt'), 'utf8'), 'keep');
  });

  it('export --where cannot read a file either', async () => {
    const r = await cli('export', '--pool', POOL, '--layout', 'steps', '--out', join(tmp, 'where'), '--where', `s.step_id NOT IN (SELECT content FROM read_text('${SECRET}'))`);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Permission Error: Cannot access file/);
  });

  it('under the lock, import stages, merge reads its shards, layout-sql reads --steps and an sft export with tokens writes', async () => {
    const merged = await cli('merge', join(tmp, 'shards', '*.parquet'), '--pool', join(tmp, 'merged.duckdb'), '--json');
    assert.equal(merged.code, 0, merged.stderr);
    assert.ok(JSON.parse(merged.stdout).added > 0);
    const layouts = await cli('layout-sql', '--steps', join(tmp, 'shards', '*.parquet'), '--out', join(tmp, 'layouts.json'));
    assert.equal(layouts.code, 0, layouts.stderr);
    const tokens = await cli('export', '--pool', POOL, '--layout', 'sft', '--tokens', '--out', join(tmp, 'tokens'), '--json');
    assert.equal(tokens.code, 0, tokens.stderr);
    assert.ok(JSON.parse(tokens.stdout).tokens.rows > 0);
  });
});
