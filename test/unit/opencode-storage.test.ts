/**
 * OpenCode's storage folder (one JSON file per session, message and part) is the same session as its
 * `opencode export`: a differential test over the two fixtures holding one session both ways, plus the files that are
 * not a session on their own (a message, a part, a project record) alone and beside their session file.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { formatFile, type IngestedRow, importWith } from './helpers/ingest-files';

const ROOT = new URL('../fixtures/folders/opencode-storage/', import.meta.url);

/** Every file under the fixture folder, named by its path in it (as a dropped folder names them). */
function storageFiles(flat = false): File[] {
  const out: File[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(new URL(rel, ROOT), { withFileTypes: true })) {
      if (e.isDirectory()) walk(`${rel}${e.name}/`);
      else out.push(new File([readFileSync(new URL(`${rel}${e.name}`, ROOT))], flat ? e.name : `${rel}${e.name}`));
    }
  };
  walk('');
  return out;
}

/** A step without what differs by file by construction: its source record (the export nests parts in messages), file ids. */
const comparable = (r: IngestedRow) => {
  const { raw: _raw, source: _s, source_id: _id, import_id: _i, source_line: _l, ...rest } = r;
  return JSON.parse(JSON.stringify(rest, (_k, v) => (typeof v === 'bigint' ? Number(v) : v)));
};

describe('OpenCode storage folder', () => {
  for (const flat of [false, true]) {
    it(`a session file read with its messages and parts gives the export's steps${flat ? ' (files picked one by one, no folders)' : ''}`, async () => {
      const files = storageFiles(flat);
      const session = files.find((f) => /ses_[^/]*\.json$/.test(f.name))!;
      const fromStorage = await importWith(session, files.filter((f) => f !== session));
      const fromExport = await importWith(formatFile('opencode-export.json'), []);
      assert.equal(fromStorage.report.status, 'done');
      assert.equal(fromStorage.rows.length, 3);
      assert.deepEqual(fromStorage.rows.map(comparable), fromExport.rows.map(comparable));
    });
  }

  it('a message, a part or a project file reports it was read with the session file; alone it keeps nothing and says what to import', async () => {
    const files = storageFiles();
    const session = files.find((f) => f.name.startsWith('storage/session/'))!.name;
    for (const name of ['storage/message/ses_01ARZ3NDEKTSV4RRFFQ69G5FAV/msg_fixtureA0002.json', 'storage/part/msg_fixtureA0002/prt_fixture0005.json', 'storage/project/4a1c0b9e2d7f.json']) {
      const f = files.find((x) => x.name === name)!;
      const withIt = await importWith(f, files.filter((x) => x !== f));
      assert.deepEqual([withIt.report.status, withIt.report.rows, withIt.report.readWith], ['done', 0, session], name);
      const alone = await importWith(f, []);
      assert.equal(alone.report.status, 'failed', name);
      assert.equal(alone.report.readWith, undefined);
    }
    const part = files.find((x) => x.name.endsWith('prt_fixture0005.json'))!;
    assert.match((await importWith(part, [])).report.message ?? '', /import the storage folder/);
  });
});
