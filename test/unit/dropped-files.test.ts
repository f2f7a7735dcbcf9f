/**
 * Folders as sources (issue 32 item 3): a dropped folder gives every file under it, named by its path in the folder
 * and sorted, without hidden folders or system litter; picked folder files (webkitdirectory) carry the same names.
 * DataTransfer entries are faked here (the FileSystemEntry API has no constructor); the panel's wiring is tested in
 * the browser (test/browser/import-folder.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { droppedFiles, pickedFiles } from '../../src/views/data/dropped-files';

type Tree = { [name: string]: Tree | string };

function entry(name: string, node: Tree | string, path: string): FileSystemEntry {
  const fullPath = `${path}/${name}`;
  if (typeof node === 'string') {
    return { isFile: true, isDirectory: false, name, fullPath, file: (ok: (f: File) => void) => ok(new File([node], name)) } as unknown as FileSystemEntry;
  }
  // readEntries hands entries over in batches of at most two here, then an empty batch
  const kids = Object.entries(node).map(([n, c]) => entry(n, c, fullPath));
  return {
    isFile: false,
    isDirectory: true,
    name,
    fullPath,
    createReader: () => {
      let at = 0;
      return { readEntries: (ok: (e: FileSystemEntry[]) => void) => ok(kids.slice(at, (at += 2))) };
    },
  } as unknown as FileSystemEntry;
}

const transfer = (roots: [string, Tree | string][]): DataTransfer =>
  ({ items: roots.map(([n, t]) => ({ kind: 'file', webkitGetAsEntry: () => entry(n, t, '') })), files: [] }) as unknown as DataTransfer;

describe('dropped and picked folders', () => {
  it('a dropped folder gives every file under it by its path, sorted, hidden folders and litter left out', async () => {
    const files = await droppedFiles(
      transfer([
        ['tasks', { '1769053680585': { 'ui_messages.json': '[]', 'api_conversation_history.json': '[]', '.DS_Store': 'x' }, '.git': { HEAD: 'ref' }, '1769053690000': { 'ui_messages.json': '[]' } }],
        ['loose.jsonl', '{}'],
      ]),
    );
    assert.deepEqual(
      files.map((f) => f.name),
      ['tasks/1769053680585/api_conversation_history.json', 'tasks/1769053680585/ui_messages.json', 'tasks/1769053690000/ui_messages.json', 'loose.jsonl'],
    );
    assert.equal(await files[3].text(), '{}');
  });

  it('picked folder files are named by their webkitRelativePath; plain picks keep their names', () => {
    const inFolder = new File(['[]'], 'ui_messages.json');
    Object.defineProperty(inFolder, 'webkitRelativePath', { value: 'tasks/1769053680585/ui_messages.json' });
    const litter = new File(['x'], '.DS_Store');
    Object.defineProperty(litter, 'webkitRelativePath', { value: 'tasks/.DS_Store' });
    const plain = new File(['{}'], 'a.jsonl');
    assert.deepEqual(
      pickedFiles([inFolder, litter, plain]).map((f) => f.name),
      ['tasks/1769053680585/ui_messages.json', 'a.jsonl'],
    );
  });
});
