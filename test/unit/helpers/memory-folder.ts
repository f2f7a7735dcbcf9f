/** A folder handle in memory, as much of the File System Access API as the folder sink uses (errors as the browser names them). */
export class MemoryFolder {
  readonly entries = new Map<string, MemoryFolder | { text: string }>();
  async getDirectoryHandle(name: string, o?: { create?: boolean }): Promise<MemoryFolder> {
    let e = this.entries.get(name);
    if (!e && o?.create) this.entries.set(name, (e = new MemoryFolder()));
    if (!e) throw new DOMException(name, 'NotFoundError');
    if (!(e instanceof MemoryFolder)) throw new DOMException(name, 'TypeMismatchError');
    return e;
  }
  async getFileHandle(name: string, o?: { create?: boolean }) {
    let e = this.entries.get(name);
    if (!e && o?.create) this.entries.set(name, (e = { text: '' }));
    if (!e) throw new DOMException(name, 'NotFoundError');
    if (e instanceof MemoryFolder) throw new DOMException(name, 'TypeMismatchError');
    const file = e;
    return { createWritable: async () => ({ write: async (b: Blob) => void (file.text = await b.text()), close: async () => {} }) };
  }
}
