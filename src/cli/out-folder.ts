/** The export's `--out` folder on disk, as the shared ownership check sees it (src/export/part-folder.ts FolderIo). */
import { lstatSync, readdirSync, readFileSync, rmdirSync, statSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type FolderIo, PartFolderError } from '../export/part-folder';

function walk(root: string, rel: string, out: string[]): void {
  for (const e of readdirSync(join(root, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    // a symbolic link is listed as itself (never followed): it is not ours, so the folder is refused
    if (e.isDirectory()) walk(root, p, out);
    else out.push(p);
  }
}

export function nodeFolderIo(root: string): FolderIo {
  return {
    async list() {
      let st: ReturnType<typeof lstatSync>;
      try {
        st = lstatSync(root);
      } catch {
        return null;
      }
      if (!st.isDirectory()) throw new PartFolderError(`${root} is not a folder: give --out a new or empty folder. Nothing was deleted.`, 'refused', root);
      const out: string[] = [];
      walk(root, '', out);
      return out.sort();
    },
    async read(path) {
      const abs = join(root, path);
      // a manifest is small; a huge file of that name is not ours
      if (statSync(abs).size > 64 << 20) return '';
      return readFileSync(abs, 'utf8');
    },
    async remove(path) {
      unlinkSync(join(root, path));
      for (let dir = dirname(join(root, path)); dir.length > root.length && dir.startsWith(root); dir = dirname(dir)) {
        if (readdirSync(dir).length) break;
        rmdirSync(dir);
      }
    },
  };
}
