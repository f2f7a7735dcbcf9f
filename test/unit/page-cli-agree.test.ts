/**
 * The page and the CLI agree (issue 22): every fixture file imported by the page's Workbench service (what
 * window.workbench.importFiles calls: the import queue, the page's importer and its workers, DuckDB-WASM) and by
 * `agentworld import` (native DuckDB) gives the same import reports; every layout the page exports (with its defaults,
 * and with other options: the page's ExportDatasetOptions as CLI flags) equals the CLI's export row for row (Parquet
 * rows as normalized JSON, import_id left out); every demo notebook (notebooks/*.md) run on that pool by the page's
 * notebook runtime and by `agentworld run` gives the same cells: status, rows, error.
 * The page's side runs its own workers in Node worker threads (helpers/page-workers.ts, decision 065); the CLI's is its
 * main() in this process, as bin/agentworld.mjs calls it (helpers/cli.ts: a process per command cost ≈ 1.3 CPU-s more;
 * the command as a process: cli-hub.test.ts, cli-hostile-pool.test.ts). The page's file picker, downloads and notebook
 * panel: test/e2e.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { Workbench } from '../../src/app/workbench';
import type { ExportDatasetOptions, ImportReport } from '../../src/contract/reports';
import { parseNotebook } from '../../src/notebook/format';
import { NotebookRuntime } from '../../src/notebook/runtime';
import type { PoolClient } from '../../src/pool/client';
import { cliMain } from './helpers/cli';
import { exporterFor, importerFor, startPool } from './helpers/page-workers';
import { scratchDir } from '../scratch.mjs';

const DIR = 'test/fixtures/formats';
const LAYOUTS = ['steps', 'sft', 'rl_steps', 'verl_prompts', 'dpo'] as const;
const NOTEBOOKS = readdirSync('notebooks').filter((f) => f.endsWith('.md')).sort();
// the page's export options (ExportDatasetOptions) other than the defaults, and the same as `agentworld export` flags
const OPTIONED: { name: string; page: Omit<ExportDatasetOptions, 'format'>; cli: string[] }[] = [
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
/** A command run by the CLI's main() in this process, as bin/agentworld.mjs runs it (its process: cli-hub.test.ts); rejects on a non-zero exit, as execFile does. */
const cli = async (args: string[]) => {
  const r = await cliMain(...args);
  if (r.code !== 0) throw Object.assign(new Error(`agentworld ${args[0]} exited ${r.code}: ${r.stderr}`), r);
  return r;
};

interface PageCell {
  id: string;
  status: string;
  rows?: number;
  error?: string;
}
interface CliCell {
  name: string;
  status: string;
  rows: number | null;
  error: string | null;
}

let pool: PoolClient;
let conn: DuckDBConnection;
const tmp = scratchDir('aw-page-cli-');
const page: { reports: ImportReport[]; cells: Record<string, PageCell[]> } = { reports: [], cells: {} };
const headless: { import: { reports: ImportReport[] }; importCode: number; cells: Record<string, CliCell[]> } = { import: { reports: [] }, importCode: 0, cells: {} };

/** Rows of Parquet files as sorted JSON texts (import_id is the pool's own numbering) and the column list. */
async function rowsOf(glob: string): Promise<{ cols: string[]; rows: string[] }> {
  const cols = (await conn.runAndReadAll(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('${glob}'))`)).getRows().map((r) => r.join(' '));
  const json = (await conn.runAndReadAll(`SELECT to_json(t)::VARCHAR AS j FROM read_parquet('${glob}') t`)).getRows().map(([j]) => {
    const o = JSON.parse(String(j));
    delete o.import_id;
    return JSON.stringify(o);
  });
  return { cols: cols.filter((c) => !c.startsWith('import_id ')), rows: json.sort() };
}

/** A notebook run as the page's notebook panel runs and reports it (views/notebook/aw-notebook.ts runAll / report). */
async function runNotebookAsPage(md: string, id: string): Promise<PageCell[]> {
  const doc = parseNotebook(md);
  const rt = new NotebookRuntime(pool, id);
  rt.setCells(doc.cells);
  await rt.runAll();
  const out: PageCell[] = [];
  doc.cells.forEach((c, i) => {
    if (c.kind === 'md') return;
    const s = rt.state(c.key);
    const r: PageCell = { id: c.options.id ?? `${c.kind}${i + 1}`, status: s.status };
    if (s.table) r.rows = s.table.numRows;
    if (s.error) r.error = s.error;
    out.push(r);
  });
  rt.dispose();
  return out;
}

before(async () => {
  conn = await (await DuckDBInstance.create(':memory:')).connect();
  const names = readdirSync(DIR).sort();
  const cliPool = join(tmp, 'pool.duckdb');
  const inPage = (async () => {
    pool = await startPool('page-cli-agree');
    const wb = new Workbench(pool, importerFor(pool), exporterFor(pool), () => {});
    page.reports = await wb.importFiles(names.map((name) => new File([readFileSync(join(DIR, name))], name)));
    const options = [...LAYOUTS.map((layout) => ({ name: layout as string, page: { layout, trainableOnly: layout !== 'steps' } })), ...OPTIONED];
    for (const o of options) {
      const blob = await wb.exportDataset({ ...o.page, format: 'parquet' });
      writeFileSync(join(tmp, `page-${o.name}.parquet`), new Uint8Array(await blob.arrayBuffer()));
    }
    for (const nb of NOTEBOOKS) page.cells[nb] = await runNotebookAsPage(readFileSync(join('notebooks', nb), 'utf8'), `nb_${nb.replace(/\W/g, '_')}`);
  })();
  const inCli = (async () => {
    const imp = await cli(['import', DIR, '--pool', cliPool, '--json']).catch((e) => e); // exit 1: some fixtures make no step
    headless.import = JSON.parse(imp.stdout);
    headless.importCode = imp.code ?? 0;
    // several layouts first, into a new folder (--out must be new, empty or an earlier export); then steps beside them
    await cli(['export', '--pool', cliPool, '--layout', LAYOUTS.slice(1).join(','), '--out', join(tmp, 'cli')]);
    await cli(['export', '--pool', cliPool, '--layout', 'steps', '--include-untrainable', '--out', join(tmp, 'cli', 'steps')]);
    for (const o of OPTIONED) await cli(['export', '--pool', cliPool, ...o.cli, '--out', join(tmp, 'cli', o.name)]);
    // the notebooks in one process, in the order the page runs them
    const r = await cli(['run', ...NOTEBOOKS.map((name) => join('notebooks', name)), '--pool', cliPool, '--json']).catch((e) => e); // exit 1: a cell failed
    const runs = JSON.parse(r.stdout);
    headless.cells = Object.fromEntries(NOTEBOOKS.map((name, i) => [name, runs[i].cells]));
  })();
  await Promise.all([inPage, inCli]);
});

after(() => pool?.terminate());

describe('the page and the CLI agree', () => {
  it('import reports: the same format, records, steps, additions, rejects and messages for every fixture file', () => {
    const pick = (r: ImportReport) => ({ file: r.file, status: r.status, format: r.format, records: r.records, rows: r.rows, added: r.added, rejected: r.rejected, warnings: r.warnings, message: r.message, alreadyInPool: r.alreadyInPool ?? 0, collisions: r.collisions ?? [] });
    assert.equal(headless.import.reports.length, readdirSync(DIR).length);
    assert.deepEqual(headless.import.reports.map(pick), page.reports.map(pick));
    // a file that made no step fails the run, as a pipeline needs to know
    assert.equal(headless.importCode, page.reports.some((r) => r.status === 'failed') ? 1 : 0);
  });

  for (const layout of [...LAYOUTS, ...OPTIONED.map((o) => o.name)]) {
    it(`${layout}: the page's export equals the CLI's, row for row`, async () => {
      const mine = await rowsOf(join(tmp, 'cli', layout, '*.parquet'));
      const pageRows = await rowsOf(join(tmp, `page-${layout}.parquet`));
      assert.ok(pageRows.rows.length > 0, `the page exported no ${layout} rows`);
      assert.deepEqual(mine.cols, pageRows.cols);
      assert.equal(mine.rows.length, pageRows.rows.length);
      for (let i = 0; i < pageRows.rows.length; i++) assert.equal(mine.rows[i], pageRows.rows[i], `${layout} row ${i} differs`);
    });
  }

  it('the demo notebooks: every cell has the same status, row count and error in the page and headless', () => {
    // the page names a cell by its id or `<kind><position>`, the CLI by its id or `cell <position> (<kind>)`
    const asPage = (c: PageCell) => ({ id: c.id, status: c.status, rows: c.rows ?? null, error: c.error ?? null });
    const asCli = (c: CliCell) => ({ id: /^cell \d+ \(/.test(c.name) ? c.name.replace(/^cell (\d+) \((\w+)\)$/, '$2$1') : c.name, status: c.status, rows: c.rows, error: c.error });
    assert.deepEqual(Object.keys(headless.cells), NOTEBOOKS);
    let done = 0;
    for (const name of NOTEBOOKS) {
      assert.deepEqual(headless.cells[name].map(asCli), page.cells[name].map(asPage), name);
      done += page.cells[name].filter((c) => c.status === 'done' && (c.rows ?? 0) > 0).length;
    }
    assert.ok(done >= NOTEBOOKS.length, `only ${done} cells made rows`);
  });
});
