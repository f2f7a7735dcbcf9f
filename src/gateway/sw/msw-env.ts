/**
 * Imported first by the gateway service worker, before anything that loads MSW. MSW's core builds a
 * cookie store when it loads and, outside Node, insists on `localStorage`, which service workers do
 * not have. The mock upstream's handlers set no cookies, so an in-memory stand-in (lost when the
 * worker stops) is all it needs. Nothing else in the worker reads it.
 */
/** The part of the page's `Storage` MSW calls (a service worker's lib has no such type: it has no such object). */
interface StorageShim {
  readonly length: number;
  clear(): void;
  getItem(k: string): string | null;
  key(i: number): string | null;
  removeItem(k: string): void;
  setItem(k: string, v: string): void;
}

const g = globalThis as { localStorage?: StorageShim };
if (typeof g.localStorage === 'undefined') {
  const items = new Map<string, string>();
  g.localStorage = {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (k: string) => items.get(k) ?? null,
    key: (i: number) => [...items.keys()][i] ?? null,
    removeItem: (k: string) => void items.delete(k),
    setItem: (k: string, v: string) => void items.set(k, String(v)),
  };
}
