// The page's part-file export (src/export/parts.ts) on the page's engine (DuckDB-WASM's node build), against the
// values that lost rows (issue 37 items 3-5): a real "__HIVE_DEFAULT_PARTITION__" beside NULL (the zip held one
// entry twice and unzipped to 9 files of 10), a NUL character (a parser error), a value over 255 bytes, values that
// differ only in case. Then the same steps exported by the CLI (native DuckDB): the same folders, manifest mapping
// and rows per folder (issue 36: the same folder out of both).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { unzipSync } from 'fflate';
import { exportLayout } from '../../src/cli/main';
import { NativePool } from '../../src/cli/native-pool';
import type { ExportDatasetOptions, Exporter } from '../../src/contract/reports';
import { datasetSql, resolveLayoutOptions } from '../../src/export/layouts';
import { MANIFEST_FILE } from '../../src/export/part-folder';
import { directorySink, exportParts, exportPartsTo, fileStem, newFolderName, zipSink } from '../../src/export/parts';
import { CURATION_HELPERS } from '../../src/pool/curation-sql';
import { type Row, tableToRows } from '../../src/pool/rows';
import { DDL } from '../../src/pool/schema';
import { sqlString } from '../../src/pool/sql';
import { MemoryFolder } from './helpers/memory-folder';
import { wasmEngine } from './helpers/wasm-engine';
import { scratchDir } from '../scratch.mjs';


const LONG = `${'ünïcode value '.repeat(20)}end`; // 363 bytes as UTF-8, 3× that escaped
const SOURCES: [string | null, number][] = [
  ['gsm8k', 4],
  [null, 3],
  ['__HIVE_DEFAULT_PARTITION__', 2],
  ['nul\0inside', 2],
  [LONG, 1],
  ['Math', 1],
  ['math', 2],
  ['../..', 1],
];
const STEPS = SOURCES.reduce((a, [, n]) => a + n, 0);

/** The same steps in both engines: one step per trajectory, the data_source values above. */
function insertSql(): string {
  const values: string[] = [];
  let k = 0;
  for (const [ds, n] of SOURCES) {
    for (let i = 0; i < n; i++, k++) values.push(`('t${k}:0', 't${k}', 'p${k}', 0, ${ds === null ? 'NULL' : sqlString(ds)}, [{'role': 'user', 'content': 'hi ${k}'}], {'role': 'assistant', 'content': 'ok'})`);
  }
  return `INSERT INTO steps (step_id, trajectory_uid, prompt_uid, step_index, data_source, messages, response) SELECT * FROM (VALUES ${values.join(', ')})`;
}

describe('part-file export on the page\'s engine', () => {
  // biome-ignore lint/suspicious/noExplicitAny: duckdb-wasm's node build is untyped CommonJS here
  let conn: any;
  let rows: (sql: string) => Promise<Row[]>;
  /** The page's Exporter contract over the same engine: JSON Lines, rows counted by the writer as the export worker does. */
  let exporter: Exporter;
  before(async () => {
    conn = (await wasmEngine()).conn;
    for (const s of DDL) conn.query(s);
    for (const h of CURATION_HELPERS) conn.query(h.sql);
    conn.query(insertSql());
    rows = async (sql) => tableToRows(conn.query(sql));
    const jsonl = async (sql: string, o: { onProgress?: ExportDatasetOptions['onProgress'] }) => {
      const rs = await rows(sql);
      const text = rs.map((r) => `${JSON.stringify(r)}\n`).join('');
      o.onProgress?.({ rows: rs.length, bytes: text.length });
      return new Blob([text]);
    };
    exporter = {
      exportQuery: (sql, o) => jsonl(sql, o),
      exportDataset: async (o) => jsonl(datasetSql(await resolveLayoutOptions(rows, o)), o),
      datasetSql: (o) => datasetSql(o as Parameters<typeof datasetSql>[0]),
    };
  });
  after(() => conn?.close());

  it('every step in its own folder, each once in the zip: NULL and a real __HIVE_DEFAULT_PARTITION__, NUL, long and case-twin values', async () => {
    const r = await exportPartsTo({ exporter, rows }, { layout: 'steps', format: 'jsonl' }, { partitionBy: ['data_source'] });
    const files = unzipSync(new Uint8Array(await (r.zip as Blob).arrayBuffer()));
    const names = Object.keys(files).filter((f) => !f.endsWith(MANIFEST_FILE));
    assert.equal(names.length, SOURCES.length, 'a file per value, none replacing another');
    assert.equal(r.files.length, SOURCES.length);
    const back = names.flatMap((f) => new TextDecoder().decode(files[f]).trim().split('\n').map((l) => JSON.parse(l) as Row));
    assert.equal(back.length, STEPS);
    const by = new Map<string | null, number>();
    for (const x of back) by.set(x.data_source as string | null, (by.get(x.data_source as string | null) ?? 0) + 1);
    assert.deepEqual(by, new Map(SOURCES));
    const manifest = JSON.parse(new TextDecoder().decode(files[`${r.folder}/${MANIFEST_FILE}`]));
    assert.equal(manifest.rows, STEPS);
    assert.deepEqual(manifest.files.map((f: { path: string }) => `${r.folder}/${f.path}`).sort(), names.sort());
    assert.equal(manifest.partitions.length, SOURCES.length);
  });

  it('a file that does not hold the rows reported, or a path written twice, fails the export loudly', async () => {
    const sink = zipSink();
    // a writer that drops a row of every part: the count check sees it
    const lossy: Exporter = { ...exporter, exportDataset: (o) => exporter.exportDataset({ ...o, onProgress: (p) => o.onProgress?.({ ...p, rows: p.rows - 1 }) }) };
    await assert.rejects(exportParts({ exporter: lossy, rows }, { layout: 'steps', format: 'jsonl' }, { partitionBy: ['data_source'] }, sink.sink, 'lossy'), /lost or repeated rows: lossy\/data_source=\S+ holds \d+ row\(s\), reported \d+/);
    // one zip entry twice
    const z = zipSink();
    await z.sink('a/part-0.jsonl', new Blob(['x']));
    await assert.rejects(z.sink('a/part-0.jsonl', new Blob(['y'])), /already holds a\/part-0\.jsonl/);
  });

  it('into a picked folder: a new sub-folder of its own, never a file replaced', async () => {
    const root = new MemoryFolder();
    const handle = root as unknown as FileSystemDirectoryHandle;
    const stem = fileStem('steps');
    (await root.getDirectoryHandle(stem, { create: true })).entries.set('mine.txt', { text: 'keep' });
    root.entries.set(`${stem}-2`, { text: 'a file of that name' });
    assert.equal(await newFolderName(handle, stem), `${stem}-3`);
    const r = await exportPartsTo({ exporter, rows }, { layout: 'steps', format: 'jsonl' }, { partitionBy: ['channel'] }, handle);
    assert.match(r.folder, /^steps-[\d-]+$/);
    assert.notEqual(r.folder, stem, 'the taken name was not reused');
    assert.deepEqual([...(await root.getDirectoryHandle(stem)).entries.keys()], ['mine.txt']);
    const sink = directorySink(handle);
    await sink('x/part-0.jsonl', new Blob(['1']));
    await assert.rejects(sink('x/part-0.jsonl', new Blob(['2'])), /already in the folder: the export does not replace files/);
  });

  it('the CLI makes the same folder: names, manifest mapping, rows per folder', async () => {
    const page = await exportPartsTo({ exporter, rows }, { layout: 'rl_steps', format: 'parquet' }, { partitionBy: ['data_source'] });
    const pageFiles = unzipSync(new Uint8Array(await (page.zip as Blob).arrayBuffer()));
    const pageManifest = JSON.parse(new TextDecoder().decode(pageFiles[`${page.folder}/${MANIFEST_FILE}`]));
    const pool = await NativePool.open(':memory:');
    try {
      await pool.exec(insertSql());
      const out = join(scratchDir('aw-parts-same-'), 'out');
      const cli = await exportLayout(pool, { layout: 'rl_steps' }, out, ['data_source'], 512e6);
      const cliManifest = JSON.parse(readFileSync(join(out, MANIFEST_FILE), 'utf8'));
      assert.equal(cli.rows, STEPS);
      assert.deepEqual(cliManifest.partitions, pageManifest.partitions, 'value → folder, the same on both sides');
      const perFolder = (files: { path: string; rows: number }[]) => Object.fromEntries(files.map((f) => [f.path.slice(0, f.path.lastIndexOf('/')), f.rows]));
      assert.deepEqual(perFolder(cliManifest.files), perFolder(pageManifest.files));
      assert.deepEqual(cliManifest.files.map((f: { path: string }) => f.path), pageManifest.files.map((f: { path: string }) => f.path));
      for (const k of ['generator', 'status', 'layout', 'format', 'partition_by', 'rows']) assert.deepEqual(cliManifest[k], pageManifest[k], k);
    } finally {
      await pool.close();
    }
  });
});
