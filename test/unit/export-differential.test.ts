/**
 * Differential test of the export layouts (issue 13): every fixture of every format is imported the way the
 * pool imports (the ingest pipeline, then the page's pool — its broker and pool worker, helpers/page-workers.ts — on
 * the engine the browser runs: duckdb-wasm, its node build, in memory), and every layout's rows are compared with what the
 * storage before "storage v2" produced for the same input (test/fixtures/export-golden.json: columns, row
 * count and a SHA-256 of the rows as JSON). A storage change that alters a layout's columns or values fails
 * here, naming the fixture and the layout. Regenerate only when an output is meant to change:
 *   UPDATE_EXPORT_GOLDEN=1 node --import tsx --test test/unit/export-differential.test.ts
 * To see what changed, write every case's rows as JSON (one file per fixture and case) before and after a change and
 * diff the two folders:  EXPORT_ROWS_DIR=/tmp/rows-after node --import tsx --test test/unit/export-differential.test.ts
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { ExportDatasetOptions } from '../../src/contract/reports';
import { datasetSql, LAYOUTS, type LayoutOptions, resolveLayoutOptions } from '../../src/export/layouts';
import { ingestFile } from '../../src/ingest/pipeline';
import type { PoolClient } from '../../src/pool/client';
import { tableToRows } from '../../src/pool/rows';
import { startPool } from './helpers/page-workers';

const GOLDEN = 'test/fixtures/export-golden.json';
const UPDATE = !!process.env.UPDATE_EXPORT_GOLDEN;
const ROWS_DIR = process.env.EXPORT_ROWS_DIR;
type Out = { columns: string[]; rows: number; sha256: string } | { error: string };

/** The layouts and option sets compared: each layout's default, plus every row with its problem and untrainable steps. */
const CASES: [string, Omit<ExportDatasetOptions, 'format'>][] = [
  ...(Object.keys(LAYOUTS) as (keyof typeof LAYOUTS)[]).map((layout): [string, Omit<ExportDatasetOptions, 'format'>] => [layout, { layout }]),
  ...(Object.keys(LAYOUTS) as (keyof typeof LAYOUTS)[]).map((layout): [string, Omit<ExportDatasetOptions, 'format'>] => [`${layout}+all`, { layout, validOnly: false, trainableOnly: false }]),
  ['sft per step', { layout: 'sft', sftPer: 'step' }],
  ['steps redacted', { layout: 'steps', redact: true }],
];

const FIXTURES = [
  'core/chat.jsonl',
  ...readdirSync('test/fixtures/formats')
    .filter((f) => !/\.(md|txt)$/.test(f))
    .map((f) => `formats/${f}`),
].sort();

const canonical = (v: unknown): unknown =>
  Array.isArray(v) ? v.map(canonical) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])])) : v;

/** Import one fixture into an empty pool through the pipeline and the page's pool (broker, engine, import transaction), then every case's output. */
async function outputs(pool: PoolClient, path: string): Promise<Record<string, Out>> {
  await pool.exec(['steps', 'trajectory_stats', 'curation', 'import_errors', 'imports', 'token_counts'].map((t) => `DELETE FROM ${t}`).join(';\n'));
  const file = new File([readFileSync(`test/fixtures/${path}`)], path.split('/').pop() ?? path);
  const report = await ingestFile(file, pool);
  const out: Record<string, Out> = { import: { columns: [report.status, report.format], rows: report.added, sha256: '' } };
  const rows = (sql: string) => pool.rows(sql);
  for (const [name, o] of CASES) {
    try {
      const opts = await resolveLayoutOptions(rows, o as LayoutOptions);
      const t = await pool.query(datasetSql(opts));
      const rs = tableToRows(t).map(canonical);
      if (ROWS_DIR) {
        mkdirSync(ROWS_DIR, { recursive: true });
        writeFileSync(`${ROWS_DIR}/${path.replaceAll('/', '_')}.${name.replaceAll(/[^a-z0-9+_-]/gi, '_')}.json`, `${rs.map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).join('\n')}\n`);
      }
      out[name] = { columns: t.schema.fields.map((f: { name: string; type: unknown }) => `${f.name}:${String(f.type)}`), rows: rs.length, sha256: createHash('sha256').update(JSON.stringify(rs)).digest('hex') };
    } catch (err) {
      out[name] = { error: (err as Error).message.split('\n')[0] };
    }
  }
  return out;
}

describe('export layouts: the same columns and values as before, for every fixture format', () => {
  it('every fixture, every layout', async () => {
    const pool = await startPool('export-differential');
    const got: Record<string, Record<string, Out>> = {};
    try {
      for (const f of FIXTURES) got[f] = await outputs(pool, f);
    } finally {
      pool.terminate();
    }
    if (UPDATE) {
      // one line per fixture and case: a change shows as a one-line diff
      const lines = Object.entries(got).map(([f, cases]) => `${JSON.stringify(f)}: {\n${Object.entries(cases).map(([k, o]) => `  ${JSON.stringify(k)}: ${JSON.stringify(o)}`).join(',\n')}\n}`);
      writeFileSync(GOLDEN, `{\n${lines.join(',\n')}\n}\n`);
      return;
    }
    const want = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, Record<string, Out>>;
    assert.deepEqual(Object.keys(got), Object.keys(want), 'the fixtures compared');
    // every difference named at once, not only the first
    const differ = FIXTURES.flatMap((f) => Object.keys(want[f]).filter((k) => JSON.stringify(got[f][k]) !== JSON.stringify(want[f][k])).map((k) => `${f} › ${k}`));
    assert.deepEqual(differ, [], `layouts that changed:\n${differ.join('\n')}`);
    // the comparison means something: most fixtures import rows, and their layouts have rows
    const imported = FIXTURES.filter((f) => (want[f].import as { rows: number }).rows > 0);
    assert.ok(imported.length >= FIXTURES.length / 2, `${imported.length} of ${FIXTURES.length} fixtures import rows`);
  });
});
