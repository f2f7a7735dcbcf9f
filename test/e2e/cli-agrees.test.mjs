// Browser and CLI agree (issue 22): every fixture format imported by the page (window.workbench) and by
// `agentworld import` on native DuckDB gives the same import reports, every layout the page exports (with its default
// options and with others: the page's ExportDatasetOptions as CLI flags) equals the CLI's export row for row
// (normalized JSON of the Parquet rows; import_id left out), and every demo notebook (notebooks/*.md) run on that
// pool by the page (runAll) and by `agentworld run` gives the same cells: status, rows, error.
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
const NOTEBOOKS = readdirSync('notebooks').filter((f) => f.endsWith('.md')).sort();
// the page's export options (ExportDatasetOptions) other than the defaults, and the same as `agentworld export` flags
const OPTIONED = [
  {
    name: 'sft-per-step-kept-redacted',
    page: { layout: 'sft', sftPer: 'step', validOnly: false, redact: true, where: "s.status = 'ok'" },
    cli: ['--layout', 'sft', '--sft-per', 'step', '--keep-invalid', '--redact', '--where', "s.status = 'ok'"],
  },
  {
    name: 'rl-steps-train-channel-all',
    page: { layout: 'rl_steps', trainableOnly: false, split: 'train', splitColumn: 'channel' },
    cli: ['--layout', 'rl_steps', '--include-untrainable', '--split', 'train', '--split-column', 'channel'],
  },
  { name: 'dpo-margin', page: { layout: 'dpo', dpoMinMargin: 0.5 }, cli: ['--layout', 'dpo', '--dpo-min-margin', '0.5'] },
];
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
    const notebooks = NOTEBOOKS.map((name) => ({ name, md: readFileSync(join('notebooks', name), 'utf8') }));
    const options = [...LAYOUTS.map((layout) => ({ name: layout, page: { layout, trainableOnly: layout !== 'steps' } })), ...OPTIONED.map(({ name, page }) => ({ name, page }))];
    const out = await page.evaluate(async ({ files, options, notebooks }) => {
      const asFile = (f) => new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.name);
      const reports = await window.workbench.importFiles(files.map(asFile));
      const exports = {};
      for (const o of options) {
        const blob = await window.workbench.exportDataset({ ...o.page, format: 'parquet' });
        const bytes = new Uint8Array(await blob.arrayBuffer());
        let s = '';
        for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
        exports[o.name] = btoa(s);
      }
      const cells = {};
      for (const nb of notebooks) {
        window.workbench.openNotebook(nb.md);
        cells[nb.name] = (await window.workbench.runAll()).cells;
      }
      return { reports, exports, cells };
    }, { files, options, notebooks });
    browser.reports = out.reports;
    browser.cells = out.cells;
    for (const [layout, b64] of Object.entries(out.exports)) writeFileSync(join(tmp, `page-${layout}.parquet`), Buffer.from(b64, 'base64'));
  })();
  const inCli = (async () => {
    const imp = await cli(['import', DIR, '--pool', pool, '--json']).catch((e) => e); // exit 1: some fixtures make no step
    headless.import = JSON.parse(imp.stdout);
    headless.importCode = imp.code ?? 0;
    // several layouts first, into a new folder (--out must be new, empty or an earlier export); then steps beside them
    await cli(['export', '--pool', pool, '--layout', LAYOUTS.slice(1).join(','), '--out', join(tmp, 'cli')]);
    await cli(['export', '--pool', pool, '--layout', 'steps', '--include-untrainable', '--out', join(tmp, 'cli', 'steps')]);
    for (const o of OPTIONED) await cli(['export', '--pool', pool, ...o.cli, '--out', join(tmp, 'cli', o.name)]);
    // the notebooks in one process, in the order the page runs them (each `agentworld run` start costs a DuckDB boot)
    const r = await cli(['run', ...NOTEBOOKS.map((name) => join('notebooks', name)), '--pool', pool, '--json']).catch((e) => e); // exit 1: a cell failed
    const runs = JSON.parse(r.stdout);
    headless.cells = Object.fromEntries(NOTEBOOKS.map((name, i) => [name, runs[i].cells]));
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

  for (const layout of [...LAYOUTS, ...OPTIONED.map((o) => o.name)]) {
    it(`${layout}: the page's export equals the CLI's, row for row`, async () => {
      const page = await rowsOf(join(tmp, `page-${layout}.parquet`));
      const mine = await rowsOf(join(tmp, 'cli', layout, '*.parquet'));
      assert.ok(page.rows.length > 0, `the page exported no ${layout} rows`);
      assert.deepEqual(mine.cols, page.cols);
      assert.equal(mine.rows.length, page.rows.length);
      for (let i = 0; i < page.rows.length; i++) assert.equal(mine.rows[i], page.rows[i], `${layout} row ${i} differs`);
    });
  }

  it('the demo notebooks: every cell has the same status, row count and error in the page and headless', () => {
    // the page names a cell by its id or `<kind><position>`, the CLI by its id or `cell <position> (<kind>)`
    const page = (c) => ({ id: c.id, status: c.status, rows: c.rows ?? null, error: c.error ?? null });
    const mine = (c) => ({ id: /^cell \d+ \(/.test(c.name) ? c.name.replace(/^cell (\d+) \((\w+)\)$/, '$2$1') : c.name, status: c.status, rows: c.rows, error: c.error });
    assert.deepEqual(Object.keys(headless.cells), NOTEBOOKS);
    let done = 0;
    for (const name of NOTEBOOKS) {
      assert.deepEqual(headless.cells[name].map(mine), browser.cells[name].map(page), name);
      done += browser.cells[name].filter((c) => c.status === 'done' && c.rows > 0).length;
    }
    assert.ok(done >= NOTEBOOKS.length, `only ${done} cells made rows`);
  });
});
