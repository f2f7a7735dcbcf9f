// Browser and CLI agree (issue 22): every fixture format imported by the page (window.workbench) and by
// `agentworld import` on native DuckDB gives the same import reports, and every layout the page exports
// equals the CLI's export row for row (normalized JSON of the Parquet rows; import_id left out).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { startApp, uniquePool } from './harness.mjs';

const run = promisify(execFile);
const DIR = 'test/fixtures/formats';
const LAYOUTS = ['steps', 'sft', 'rl_steps', 'verl_prompts', 'dpo'];
const cli = (args) => run(process.execPath, ['bin/agentworld.mjs', ...args], { maxBuffer: 64 << 20 });

let app;
let page;
let conn;
const tmp = mkdtempSync(join(tmpdir(), 'aw-cli-agrees-'));
const browser = {};
const headless = {};

/** Rows of Parquet files as sorted JSON texts (import_id is the pool's own numbering) and the column list. */
async function rowsOf(glob) {
  const cols = (await conn.runAndReadAll(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('${glob}'))`)).getRows().map((r) => r.join(' '));
  const json = (await conn.runAndReadAll(`SELECT to_json(t)::VARCHAR AS j FROM read_parquet('${glob}') t`)).getRows().map(([j]) => {
    const o = JSON.parse(j);
    delete o.import_id;
    return JSON.stringify(o);
  });
  return { cols: cols.filter((c) => !c.startsWith('import_id ')), rows: json.sort() };
}

before(async () => {
  app = await startApp();
  conn = await (await DuckDBInstance.create(':memory:')).connect();
  const names = readdirSync(DIR).sort();
  const files = names.map((name) => ({ name, b64: readFileSync(join(DIR, name)).toString('base64') }));
  const pool = join(tmp, 'pool.duckdb');
  const inPage = (async () => {
    page = await app.open(uniquePool('cli-agrees'));
    const out = await page.evaluate(async ({ files, layouts }) => {
      const asFile = (f) => new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.name);
      const reports = await window.workbench.importFiles(files.map(asFile));
      const exports = {};
      for (const layout of layouts) {
        const blob = await window.workbench.exportDataset({ layout, format: 'parquet', trainableOnly: layout !== 'steps' });
        const bytes = new Uint8Array(await blob.arrayBuffer());
        let s = '';
        for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
        exports[layout] = btoa(s);
      }
      return { reports, exports };
    }, { files, layouts: LAYOUTS });
    browser.reports = out.reports;
    for (const [layout, b64] of Object.entries(out.exports)) writeFileSync(join(tmp, `page-${layout}.parquet`), Buffer.from(b64, 'base64'));
  })();
  const inCli = (async () => {
    const imp = await cli(['import', DIR, '--pool', pool, '--json']).catch((e) => e); // exit 1: some fixtures make no step
    headless.import = JSON.parse(imp.stdout);
    headless.importCode = imp.code ?? 0;
    await cli(['export', '--pool', pool, '--layout', 'steps', '--include-untrainable', '--out', join(tmp, 'cli', 'steps')]);
    await cli(['export', '--pool', pool, '--layout', LAYOUTS.slice(1).join(','), '--out', join(tmp, 'cli')]);
  })();
  await Promise.all([inPage, inCli]);
});

after(async () => {
  await app?.close();
});

describe('browser and CLI agree', () => {
  it('import reports: the same format, records, steps, additions, rejects and messages for every fixture file', () => {
    const pick = (r) => ({ file: r.file, status: r.status, format: r.format, records: r.records, rows: r.rows, added: r.added, rejected: r.rejected, warnings: r.warnings, message: r.message, alreadyInPool: r.alreadyInPool ?? 0, collisions: r.collisions ?? [] });
    assert.equal(headless.import.reports.length, readdirSync(DIR).length);
    assert.deepEqual(headless.import.reports.map(pick), browser.reports.map(pick));
    // a file that made no step fails the run, as a pipeline needs to know
    assert.equal(headless.importCode, browser.reports.some((r) => r.status === 'failed') ? 1 : 0);
  });

  for (const layout of LAYOUTS) {
    it(`${layout}: the page's export equals the CLI's, row for row`, async () => {
      const page = await rowsOf(join(tmp, `page-${layout}.parquet`));
      const mine = await rowsOf(join(tmp, 'cli', layout, '*.parquet'));
      assert.ok(page.rows.length > 0, `the page exported no ${layout} rows`);
      assert.deepEqual(mine.cols, page.cols);
      assert.equal(mine.rows.length, page.rows.length);
      for (let i = 0; i < page.rows.length; i++) assert.equal(mine.rows[i], page.rows[i], `${layout} row ${i} differs`);
    });
  }
});
