// `agentworld export --out DIR` (issue 37 items 1, 3, 4, 5): it deletes nothing it did not write — a folder holding
// anything else is refused, an earlier export is replaced file by file only with --force — and a partitioned export
// holds every selected row whatever the values: NULL and a real "__HIVE_DEFAULT_PARTITION__" apart, a NUL character,
// a value over 255 bytes, values that differ only in letter case; each folder recorded in _manifest.json.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { exportLayout } from '../../src/cli/main';
import { NativePool } from '../../src/cli/native-pool';
import { MANIFEST_FILE, MAX_FOLDER_NAME } from '../../src/export/part-folder';
import { sqlString } from '../../src/pool/sql';
import { cliMain } from './helpers/cli';
import { scratchDir } from '../scratch.mjs';

const tmp = scratchDir('aw-cli-out-');
const LONG = `${'long value '.repeat(30)}end`; // 333 bytes
/** data_source → steps: the values the red team used, and the ones a file system could merge. */
const SOURCES: [string | null, number][] = [
  ['gsm8k', 5],
  [null, 7],
  ['__HIVE_DEFAULT_PARTITION__', 3],
  ['nul\0inside', 2],
  [LONG, 2],
  [`${LONG}, another`, 1],
  ['Math', 2],
  ['math', 1],
  ['../escape/..', 1],
  ['a/b\\c*d:e~f.', 1],
  ['', 1],
];
const STEPS = SOURCES.reduce((a, [, n]) => a + n, 0);

function walk(dir: string, rel = ''): string[] {
  return readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(dir, rel ? `${rel}/${e.name}` : e.name) : [rel ? `${rel}/${e.name}` : e.name]));
}

describe('CLI export folder', () => {
  let pool: NativePool;
  const poolDir = join(tmp, 'pooldir');
  const poolFile = join(poolDir, 'pool.duckdb');
  before(async () => {
    mkdirSync(poolDir);
    pool = await NativePool.open(poolFile);
    let k = 0;
    const values: string[] = [];
    for (const [ds, n] of SOURCES) {
      for (let i = 0; i < n; i++, k++) values.push(`('t${k}:0', 't${k}', 0, ${ds === null ? 'NULL' : sqlString(ds)}, [{'role': 'user', 'content': 'hi'}], {'role': 'assistant', 'content': 'ok'})`);
    }
    await pool.exec(`INSERT INTO steps (step_id, trajectory_uid, step_index, data_source, messages, response) SELECT * FROM (VALUES ${values.join(', ')})`);
    await pool.exec('CHECKPOINT');
  });
  after(async () => {
    await pool.close();
  });

  it('a partitioned export holds every row: NULL and a real __HIVE_DEFAULT_PARTITION__ apart, NUL, long values, case twins', async () => {
    const out = join(tmp, 'parts');
    const r = await exportLayout(pool, { layout: 'steps' }, out, ['data_source'], 512e6);
    assert.equal(r.rows, STEPS);
    // every file read without the folder names: the rows and their values, exactly the pool's
    const back = await pool.rows(`SELECT data_source AS ds, count(*)::INTEGER AS n FROM read_parquet(${sqlString(`${out}/**/*.parquet`)}, hive_partitioning = false) GROUP BY ALL`);
    const got = new Map(back.map((x) => [x.ds as string | null, x.n]));
    assert.deepEqual(new Map(SOURCES), got);
    // a folder per value, none over the cap, the manifest mapping each value to its folder
    const manifest = JSON.parse(readFileSync(join(out, MANIFEST_FILE), 'utf8'));
    assert.equal(manifest.status, 'complete');
    assert.equal(manifest.rows, STEPS);
    assert.equal(manifest.partitions.length, SOURCES.length);
    const folders = new Set(manifest.partitions.map((p: { folder: string }) => p.folder));
    assert.equal(folders.size, SOURCES.length);
    assert.equal(new Set([...folders].map((f) => String(f).toLowerCase())).size, SOURCES.length, 'no two folders differ only in case');
    for (const f of walk(out)) for (const seg of f.split('/')) assert.ok(Buffer.byteLength(seg) <= MAX_FOLDER_NAME, seg);
    for (const p of manifest.partitions) assert.ok(existsSync(join(out, p.folder)), p.folder);
    const files = manifest.files.map((f: { path: string }) => f.path).sort();
    assert.deepEqual(files, walk(out).filter((f) => f !== MANIFEST_FILE).sort());
    const nul = manifest.partitions.find((p: { values: { data_source: string } }) => p.values.data_source === 'nul\0inside');
    assert.equal(nul.folder, 'data_source=nul%00inside');
    const sentinel = manifest.partitions.filter((p: { folder: string }) => p.folder.endsWith('_HIVE_DEFAULT_PARTITION__'));
    assert.deepEqual(sentinel.map((p: { folder: string; values: unknown }) => [p.folder, p.values]).sort(), [
      ['data_source=%5F_HIVE_DEFAULT_PARTITION__', { data_source: '__HIVE_DEFAULT_PARTITION__' }],
      ['data_source=__HIVE_DEFAULT_PARTITION__', { data_source: null }],
    ]);
    // DuckDB's hive reading decodes the escaped names back to the values (capped and case-told-apart names aside)
    const hive = await pool.rows(`SELECT DISTINCT data_source AS ds FROM read_parquet(${sqlString(`${out}/**/*.parquet`)}, hive_partitioning = true)`);
    for (const v of [null, '__HIVE_DEFAULT_PARTITION__', 'nul\0inside', '../escape/..', 'a/b\\c*d:e~f.', 'gsm8k']) assert.ok(hive.some((x) => x.ds === v), JSON.stringify(v));
  });

  it('--out at the pool\'s own folder is refused (exit 2): the pool and an unrelated file are kept', async () => {
    writeFileSync(join(poolDir, 'notes.txt'), 'mine');
    const before = statSync(poolFile).size;
    // the CLI's main() in this process (its exit code and stderr), as for the command below
    const r = await cliMain('export', '--pool', join(tmp, 'other.duckdb'), '--layout', 'steps', '--out', poolDir);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /not empty and holds files no earlier export of the workbench wrote \(notes\.txt, pool\.duckdb/);
    assert.match(r.stderr, /Nothing was deleted/);
    assert.equal(readFileSync(join(poolDir, 'notes.txt'), 'utf8'), 'mine');
    assert.equal(statSync(poolFile).size, before);
    // --force changes nothing about files that are not ours
    const forced = await cliMain('export', '--pool', join(tmp, 'other.duckdb'), '--layout', 'steps', '--out', poolDir, '--force');
    assert.equal(forced.code, 2);
    assert.ok(existsSync(join(poolDir, 'notes.txt')) && existsSync(poolFile));
  });

  it('an earlier export is replaced only with --force, file by file; a file of someone else\'s among it stops even --force', async () => {
    const out = join(tmp, 'again');
    mkdirSync(out); // an empty folder is fine
    await exportLayout(pool, { layout: 'steps' }, out, ['data_source'], 512e6);
    const first = walk(out).sort();
    await assert.rejects(exportLayout(pool, { layout: 'steps' }, out, [], 512e6), /holds an earlier export .* --force replaces those files/);
    assert.deepEqual(walk(out).sort(), first, 'nothing changed');
    // --force: the old partition folders go (they were ours), the new export is all that is left
    const r = await exportLayout(pool, { layout: 'steps' }, out, [], 512e6, undefined, true);
    assert.deepEqual(walk(out).sort(), [MANIFEST_FILE, 'part-0.parquet']);
    assert.equal(r.rows, STEPS);
    // a file the user put beside it, at the top or in a partition folder: refused, even with --force, nothing deleted
    for (const stray of ['mine.csv', 'sub/mine.csv']) {
      mkdirSync(join(out, 'sub'), { recursive: true });
      writeFileSync(join(out, stray), 'x');
      const now = walk(out).sort();
      await assert.rejects(exportLayout(pool, { layout: 'steps' }, out, [], 512e6, undefined, true), new RegExp(`not empty .*${stray.replace('/', '\\/')}.*Nothing was deleted`));
      assert.deepEqual(walk(out).sort(), now);
      rmSync(join(out, stray));
    }
  });

  it('an export that stopped half way (manifest written first) is still ours; a manifest cannot claim files outside its folder', async () => {
    const out = join(tmp, 'half');
    mkdirSync(join(out, 'data_source=gsm8k'), { recursive: true });
    writeFileSync(join(out, 'data_source=gsm8k', 'part-0.parquet'), 'cut short');
    writeFileSync(join(tmp, 'outside.txt'), 'keep');
    const manifest = { generator: 'AgentWorld Workbench', status: 'writing', format: 'parquet', partitions: [{ folder: 'data_source=gsm8k', values: {} }], files: [{ path: '../outside.txt' }] };
    writeFileSync(join(out, MANIFEST_FILE), JSON.stringify(manifest));
    await exportLayout(pool, { layout: 'steps' }, out, [], 512e6, undefined, true);
    assert.deepEqual(walk(out).sort(), [MANIFEST_FILE, 'part-0.parquet']);
    assert.equal(readFileSync(join(tmp, 'outside.txt'), 'utf8'), 'keep');
    // a manifest that is not ours owns nothing
    writeFileSync(join(out, MANIFEST_FILE), JSON.stringify({ ...manifest, generator: 'someone' }));
    await assert.rejects(exportLayout(pool, { layout: 'steps' }, out, [], 512e6, undefined, true), /not empty/);
  });

  it('several layouts go into one folder each under --out; --out with an earlier such export needs --force', async () => {
    const out = join(tmp, 'multi');
    const cli = (...extra: string[]) => cliMain('export', '--pool', poolFile, '--layout', 'steps,sft', '--out', out, '--json', ...extra);
    await pool.close(); // the command opens the pool file itself (a DuckDB instance of its own)
    try {
      const a = await cli();
      assert.equal(a.code, 0, a.stderr);
      assert.deepEqual(readdirSync(out).sort(), ['sft', 'steps']);
      assert.equal(JSON.parse(readFileSync(join(out, 'sft', MANIFEST_FILE), 'utf8')).layout, 'sft');
      const b = await cli();
      assert.equal(b.code, 2);
      assert.match(b.stderr, /holds an earlier export/);
      const c = await cli('--force');
      assert.equal(c.code, 0, c.stderr);
    } finally {
      pool = await NativePool.open(poolFile);
    }
  });
});
