/**
 * A BPE word memo in two generations of plain Maps. tokenizers.js memoizes BPE per word in an LRU built on one Map
 * (delete + set on every hit, evicting with keys().next(), which walks the deleted entries at the front): in a CPU
 * profile of counting the bench file (bench/tokens-node.ts) its get() had the most self time of any function. The memo
 * is pure (word → tokens), so which entries are evicted does not change any id; here a hit is a Map lookup and
 * eviction drops the older generation at once.
 */
export class GenerationCache<V> {
  private cur = new Map<string, V>();
  private old = new Map<string, V>();
  constructor(private readonly capacity: number) {}
  get(key: string): V | undefined {
    const v = this.cur.get(key);
    if (v !== undefined) return v;
    const o = this.old.get(key);
    if (o !== undefined) this.put(key, o);
    return o;
  }
  put(key: string, value: V): void {
    this.cur.set(key, value);
    if (this.cur.size >= this.capacity) {
      this.old = this.cur;
      this.cur = new Map();
    }
  }
  clear(): void {
    this.cur.clear();
    this.old.clear();
  }
}
