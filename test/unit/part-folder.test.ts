// Partition folder names (src/export/part-folder.ts), over arbitrary values: an escaped name decodes back to its value,
// holds only characters every file system takes, and never equals NULL's folder; for any set of values, every folder
// name fits the cap and no two names are equal, even ignoring case (issue 37 items 3 and 5).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { checkRows, escapeValue, HIVE_NULL, MAX_FOLDER_NAME, partitionFolders } from '../../src/export/part-folder';

const value = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.constantFrom(HIVE_NULL, '', '.', '..', '~', 'a.', 'A', 'a', 'é', 'E\u0301', '\0'),
  fc.string({ unit: fc.constantFrom('a', 'A', '.', '~', '%', '/', '\\', '\0', '_'), maxLength: 200 }),
);

describe('partition folder names', () => {
  it('an escaped value decodes back to itself, uses only A-Z a-z 0-9 . _ - %, and never ends with a dot', () => {
    fc.assert(
      fc.property(value, (v) => {
        const e = escapeValue(v);
        assert.equal(decodeURIComponent(e), v);
        assert.match(e, /^[A-Za-z0-9._%-]*$/);
        assert.ok(!e.endsWith('.'), e);
        assert.notEqual(e, HIVE_NULL);
      }),
      { numRuns: 500 },
    );
  });

  it('any set of values: one folder each, within the cap, distinct ignoring case, NULL as __HIVE_DEFAULT_PARTITION__', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.option(value, { nil: null }), { maxLength: 12 }), fc.uniqueArray(fc.option(value, { nil: null }), { minLength: 1, maxLength: 3 }), async (a, b) => {
        const rows = a.flatMap((x) => b.map((y) => ({ p0: x, p1: y, n: 1 })));
        const folders = await partitionFolders(['data_source', 'model'], rows);
        assert.equal(new Set(folders.map((f) => f.folder.toLowerCase())).size, rows.length);
        for (const f of folders) {
          for (const seg of f.folder.split('/')) assert.ok(seg.length <= MAX_FOLDER_NAME, seg);
          const [ds] = f.folder.split('/');
          if (f.values[0] === null) assert.equal(ds, `data_source=${HIVE_NULL}`);
          else assert.notEqual(ds, `data_source=${HIVE_NULL}`);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('a name that needs no cap is the escaped value; a capped one is a readable prefix and a hash', async () => {
    const [plain, long] = await partitionFolders(['data_source'], [{ p0: 'gsm8k' }, { p0: 'x'.repeat(300) }]);
    assert.equal(plain?.folder, 'data_source=gsm8k');
    assert.match(long?.folder ?? '', /^data_source=x{90,}~[0-9a-f]{16}$/);
  });

  it('the rows check names a file twice, a missing file, other rows, and a total unlike the selection', () => {
    assert.doesNotThrow(() => checkRows([{ path: 'a', rows: 2 }], [{ path: 'a', rows: 2 }], 2, 'out'));
    assert.throws(() => checkRows([{ path: 'a', rows: 2 }, { path: 'A', rows: 1 }], [{ path: 'a', rows: 2 }, { path: 'A', rows: 1 }], 3, 'out'), /A was written twice/);
    assert.throws(() => checkRows([{ path: 'a', rows: 2 }, { path: 'b', rows: 1 }], [{ path: 'a', rows: 2 }], null, 'out'), /b is missing/);
    assert.throws(() => checkRows([{ path: 'a', rows: 115 }], [{ path: 'a', rows: 108 }], null, 'out'), /a holds 108 row\(s\), reported 115/);
    assert.throws(() => checkRows([{ path: 'a', rows: 2 }], [{ path: 'a', rows: 2 }], 3, 'out'), /the files hold 2 row\(s\), the selection has 3/);
  });
});
