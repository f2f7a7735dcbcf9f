/**
 * Near-duplicate detection: MinHash signatures over word shingles, LSH banding for candidates,
 * estimated Jaccard to confirm, union-find for clusters. Pure and deterministic (fixed seeds, ids
 * sorted), so the same pool always yields the same clusters.
 */
import { tableFromIPC } from 'apache-arrow';

export interface MinHashOptions {
  /** Words per shingle. */
  shingle?: number;
  /** Signature length; must be bands × rows. */
  permutations?: number;
  bands?: number;
  /** Minimum estimated Jaccard similarity for two texts to be near-duplicates. */
  threshold?: number;
}

export interface NearDuplicate {
  step_id: string;
  /** step_id of the cluster's representative (its smallest step_id). */
  cluster_id: string;
  /** Estimated Jaccard similarity to the representative (1 for the representative itself). */
  similarity: number;
}

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return fmix32(h);
}

export function shingles(text: string, k = 3): Set<number> {
  const words = text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  const out = new Set<number>();
  // Stryker disable next-line EqualityOperator: with exactly k words the one window is all the words, so `<=` gives the same shingle
  if (words.length < k) {
    if (words.length) out.add(hashString(words.join(' ')));
    return out;
  }
  for (let i = 0; i + k <= words.length; i++) out.add(hashString(words.slice(i, i + k).join(' ')));
  return out;
}

const SEEDS = (() => {
  const s = new Uint32Array(512);
  let x = 0x9e3779b9;
  // Stryker disable next-line EqualityOperator: a typed-array write past the end is ignored
  for (let i = 0; i < s.length; i++) s[i] = x = fmix32(x + 0x6d2b79f5);
  return s;
})();

export function signature(sh: Set<number>, permutations = 64): Uint32Array {
  const sig = new Uint32Array(permutations).fill(0xffffffff);
  for (const v of sh) {
    // Stryker disable next-line EqualityOperator: sig[permutations] reads undefined and is never written
    for (let p = 0; p < permutations; p++) {
      const h = fmix32(v ^ SEEDS[p]);
      // Stryker disable next-line EqualityOperator: keeping the minimum with `<=` is the same minimum
      if (h < sig[p]) sig[p] = h;
    }
  }
  return sig;
}

export function estimatedJaccard(a: Uint32Array, b: Uint32Array): number {
  let same = 0;
  for (let i = 0; i < a.length; i++) if (a[i] === b[i]) same++;
  return same / a.length;
}

export function nearDuplicates(items: { id: string; text: string }[], opts: MinHashOptions = {}): NearDuplicate[] {
  const { shingle = 3, permutations = 64, bands = 16, threshold = 0.8 } = opts;
  if (permutations % bands !== 0 || permutations > SEEDS.length) throw new Error(`invalid MinHash shape: ${permutations} permutations in ${bands} bands`);
  // Stryker disable next-line ArithmeticOperator: banding only proposes candidates (see below)
  const rows = permutations / bands;
  // Stryker disable next-line EqualityOperator,ConditionalExpression: step ids are unique, so how equal ids compare does not matter
  const sorted = [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const sigs = sorted.map((it) => {
    const sh = shingles(it.text, shingle);
    return sh.size ? signature(sh, permutations) : null;
  });
  const parent = sorted.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  };
  // LSH banding only proposes candidate pairs; every pair is confirmed by estimatedJaccard >= threshold, so a mutant
  // that proposes more pairs (wider bands, empty keys, no `checked` memo) changes speed, not the clusters.
  // Stryker disable EqualityOperator,ArithmeticOperator,StringLiteral,BooleanLiteral: candidates only (see above)
  const checked = new Set<string>();
  for (let b = 0; b < bands; b++) {
    const buckets = new Map<string, number[]>();
    sigs.forEach((sig, i) => {
      if (!sig) return;
      const key = Array.from(sig.subarray(b * rows, (b + 1) * rows)).join(',');
      const list = buckets.get(key);
      if (list) list.push(i);
      else buckets.set(key, [i]);
    });
    for (const list of buckets.values()) {
      for (let x = 0; x < list.length; x++) {
        for (let y = x + 1; y < list.length; y++) {
          const i = list[x];
          const j = list[y];
          const pair = `${i},${j}`;
          // Stryker disable next-line ConditionalExpression: re-checking a pair gives the same answer
          if (checked.has(pair)) continue;
          // Stryker disable next-line CallExpression: see above
          checked.add(pair);
          // Stryker restore EqualityOperator,ArithmeticOperator,StringLiteral,BooleanLiteral
          if (estimatedJaccard(sigs[i]!, sigs[j]!) >= threshold) {
            const ri = find(i);
            const rj = find(j);
            // Stryker disable next-line ConditionalExpression: parent[r] = r is a no-op
            if (ri !== rj) parent[Math.max(ri, rj)] = Math.min(ri, rj);
          }
        }
      }
    }
  }
  const members = new Map<number, number[]>();
  sorted.forEach((_, i) => {
    const r = find(i);
    const list = members.get(r);
    if (list) list.push(i);
    else members.set(r, [i]);
  });
  const out: NearDuplicate[] = [];
  for (const [root, list] of members) {
    if (list.length < 2) continue;
    for (const i of list) {
      // Stryker disable next-line ConditionalExpression: a signature's Jaccard with itself is 1
      out.push({ step_id: sorted[i].id, cluster_id: sorted[root].id, similarity: i === root ? 1 : estimatedJaccard(sigs[i]!, sigs[root]!) });
    }
  }
  // Members are visited in id order and a root is its cluster's smallest index, so `out` is already in this order.
  // Stryker disable next-line all: the sort is a guard, equivalent for every input
  return out.sort((a, b) => (a.cluster_id === b.cluster_id ? (a.step_id < b.step_id ? -1 : 1) : a.cluster_id < b.cluster_id ? -1 : 1));
}

/** What the near-duplicate worker serves (workers/minhash.worker.ts; protocol: api.ts): Arrow IPC (step_id, text) in, duplicate pairs out. */
export const minHashWorkerApi = {
  run(ipc: Uint8Array, opts: MinHashOptions): NearDuplicate[] {
    const t = tableFromIPC(ipc);
    const ids = t.getChild('step_id');
    const texts = t.getChild('text');
    const items: { id: string; text: string }[] = [];
    for (let i = 0; i < t.numRows; i++) items.push({ id: String(ids?.get(i)), text: String(texts?.get(i) ?? '') });
    return nearDuplicates(items, opts);
  },
};
