/**
 * Files of a drop or a pick, folders included: a dropped or picked folder gives every file under it, each named by
 * its path in the folder (`tasks/1769053680585/ui_messages.json`), so reports tell files of the same name apart and
 * formats whose sessions span files (a Cline task's two files) find the others of the same folder.
 */

/** System litter a folder holds besides its sessions: not offered for import. */
const LITTER = new Set(['.DS_Store', 'Thumbs.db', 'desktop.ini']);

const keep = (name: string) => !LITTER.has(name.split('/').pop() ?? name);

/** `file` under the name `path` (the bytes are not copied). */
function renamed(file: File, path: string): File {
  return path === file.name ? file : new File([file], path, { type: file.type, lastModified: file.lastModified });
}

/** The files of an `<input type="file">` (with `webkitdirectory`, each carries its path in the folder). */
export function pickedFiles(list: FileList | readonly File[]): File[] {
  return [...list].filter((f) => keep(f.name)).map((f) => renamed(f, f.webkitRelativePath || f.name));
}

function entryFile(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

/** Every entry of a directory (readEntries hands them over in batches until an empty one). */
async function readAll(dir: FileSystemDirectoryEntry): Promise<FileSystemEntry[]> {
  const reader = dir.createReader();
  const out: FileSystemEntry[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (!batch.length) return out;
    out.push(...batch);
  }
}

async function walk(entry: FileSystemEntry, out: File[]): Promise<void> {
  if (entry.isFile) {
    const path = entry.fullPath.replace(/^\//, '');
    if (keep(path)) out.push(renamed(await entryFile(entry as FileSystemFileEntry), path));
    return;
  }
  if (!entry.isDirectory || entry.name.startsWith('.')) return; // .git and other hidden folders hold no sessions
  const children = await readAll(entry as FileSystemDirectoryEntry);
  children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const c of children) await walk(c, out);
}

/** The files of a drop: dropped folders walked (sorted by path), plain files as they are. */
export async function droppedFiles(dt: DataTransfer): Promise<File[]> {
  // entries must be taken while the drop event runs: DataTransfer items are emptied after it
  const entries = [...dt.items].filter((i) => i.kind === 'file').map((i) => i.webkitGetAsEntry?.() ?? null);
  if (!entries.length || entries.some((e) => e === null)) return pickedFiles(dt.files);
  const out: File[] = [];
  for (const e of entries) await walk(e as FileSystemEntry, out);
  return out;
}
