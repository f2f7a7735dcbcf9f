/**
 * One golden loop over every importable fixture (test/fixtures/{formats,core,bad,mapping}): each file goes
 * through the real pipeline (reader, detection, normalizer, finalize, Arrow batches: ingestFile with a memory
 * sink) and its snapshot (helpers/step-snapshot.ts) must equal test/fixtures/snapshots/<folder>/<file>.json.
 * A missing snapshot fails; a different one writes `<file>.changed.json` beside it and fails with the lines
 * that differ. `UPDATE_GOLDEN=1` rewrites them (review the diff before committing). A new format is one
 * fixture plus its snapshot. A folder of test/fixtures/folders is imported as a dropped folder (each file named by its
 * path in it, the others its siblings: companions join) and has one snapshot, of every file's import. Every step of every fixture is also checked to hold nothing key-shaped (`raw` included).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { detectFormat } from '../../src/ingest/detect';
import { evalZipEvents, isZip } from '../../src/ingest/eval-zip';
import { NORMALIZERS } from '../../src/ingest/normalizers';
import { readRecords } from '../../src/ingest/reader';
import { redactSecrets } from '../../src/record/redact';
import { type IngestedRow, importWith } from './helpers/ingest-files';
import { type Snapshot, snapshotOf } from './helpers/step-snapshot';

const FIXTURES = new URL('../fixtures/', import.meta.url);
const SNAPSHOTS = new URL('../fixtures/snapshots/', import.meta.url);
const FOLDERS = ['formats', 'core', 'bad', 'mapping'];
const update = process.env.UPDATE_GOLDEN === '1';

/** Detection's scores over the first 20 records, as the pipeline samples them. */
async function detectScores(bytes: Uint8Array): Promise<Record<string, number>> {
  const values: unknown[] = [];
  try {
    const events = isZip(bytes) ? evalZipEvents(bytes) : readRecords(new Blob([bytes as BlobPart]).stream());
    for await (const ev of events) {
      if (ev.kind === 'record') values.push(ev.record.value);
      if (values.length >= 20) break;
    }
  } catch {
    // a file the reader refuses: the report says why, and nothing is detected
  }
  return values.length ? detectFormat(values).scores : {};
}

/** The files under a folder, as paths relative to it, sorted. */
function filesUnder(root: URL, prefix = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(new URL(prefix, root), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (e.isDirectory()) out.push(...filesUnder(root, `${prefix}${e.name}/`));
    else if (e.isFile()) out.push(`${prefix}${e.name}`);
  }
  return out;
}

/** Nothing key-shaped survives an import, `raw` included (the fixtures plant keys in headers, configs, URLs). */
function assertNoSecrets(name: string, rows: readonly IngestedRow[]): void {
  for (const row of rows) {
    const plain = JSON.parse(JSON.stringify(row, (_k, x) => (typeof x === 'bigint' ? Number(x) : x)));
    if (typeof plain.raw === 'string') plain.raw = JSON.parse(plain.raw);
    assert.deepEqual(redactSecrets(plain), plain, `${name}: step ${row.step_id} holds a secret-like value`);
  }
}

/** `text` against test/fixtures/snapshots/<folder>/<name>.json: missing fails, a difference is written beside it and fails. */
function compare(folder: string, name: string, text: string): void {
  const out = new URL(`${folder}/`, SNAPSHOTS);
  const file = new URL(`${name}.json`, out);
  const changed = new URL(`${name}.changed.json`, out);
  if (update) {
    mkdirSync(out, { recursive: true });
    writeFileSync(file, text);
    rmSync(changed, { force: true });
    return;
  }
  assert.ok(existsSync(file), `test/fixtures/snapshots/${folder}/${name}.json is missing: UPDATE_GOLDEN=1 writes it (review it before committing)`);
  const want = readFileSync(file, 'utf8');
  if (want === text) {
    rmSync(changed, { force: true });
    return;
  }
  writeFileSync(changed, text);
  try {
    assert.equal(text, want);
  } catch (e) {
    assert.fail(`${folder}/${name} no longer imports as its snapshot says (the new one is ${name}.changed.json beside it; UPDATE_GOLDEN=1 accepts it). ${(e as Error).message}`);
  }
}

describe('every fixture imports as its snapshot says', () => {
  const formats = new Set<string>();
  for (const folder of FOLDERS) {
    const dir = new URL(`${folder}/`, FIXTURES);
    for (const name of readdirSync(dir).sort()) {
      if (!statSync(new URL(name, dir)).isFile()) continue;
      it(`${folder}/${name}`, async () => {
        const bytes = readFileSync(new URL(name, dir));
        const { report, rows } = await importWith(new File([bytes], name), []);
        if (report.rows) formats.add(report.format);
        assertNoSecrets(name, rows);
        const snap = snapshotOf(report, rows, await detectScores(bytes), String(rows[0]?.source_id ?? ''));
        compare(folder, name, `${JSON.stringify(snap, null, 1)}\n`);
      });
    }
  }

  // a folder of test/fixtures/folders is imported as a dropped folder: each file named by its path in it, the others its siblings
  for (const folder of readdirSync(new URL('folders/', FIXTURES)).sort()) {
    it(`folders/${folder}`, async () => {
      const root = new URL(`folders/${folder}/`, FIXTURES);
      const files = filesUnder(root).map((rel) => new File([readFileSync(new URL(rel, root))], rel));
      const snap: Record<string, Snapshot> = {};
      for (const f of files) {
        const { report, rows } = await importWith(f, files.filter((x) => x !== f));
        if (report.rows) formats.add(report.format);
        assertNoSecrets(f.name, rows);
        snap[f.name] = snapshotOf(report, rows, await detectScores(new Uint8Array(await f.arrayBuffer())), String(rows[0]?.source_id ?? ''));
      }
      compare('folders', folder, `${JSON.stringify(snap, null, 1)}\n`);
    });
  }

  it('some fixture imports as each format of the registry', () => {
    assert.deepEqual(NORMALIZERS.map((n) => n.id).filter((id) => !formats.has(id)), []);
  });

  it('every snapshot has its fixture (a renamed or deleted fixture leaves none behind)', () => {
    for (const folder of readdirSync(SNAPSHOTS)) {
      for (const snap of readdirSync(new URL(`${folder}/`, SNAPSHOTS))) {
        if (snap.endsWith('.changed.json')) continue;
        assert.ok(existsSync(new URL(`${folder}/${snap.replace(/\.json$/, '')}`, FIXTURES)), `snapshot ${folder}/${snap} has no fixture`);
      }
    }
  });
});
