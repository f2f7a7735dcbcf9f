
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { estimatedJaccard, nearDuplicates, shingles, signature } from '../../src/curation/minhash';

const base = 'user: please compute the sum of the first ten prime numbers and explain each step of the calculation carefully assistant: the first ten primes are two three five seven eleven thirteen seventeen nineteen twenty three and twenty nine so the sum is one hundred twenty nine';

describe('minhash near-duplicates', () => {
  it('estimates Jaccard close to the true value', () => {
    const a = shingles(base);
    const b = shingles(base.replace('carefully', 'slowly'));
    const inter = [...a].filter((x) => b.has(x)).length;
    const truth = inter / (a.size + b.size - inter);
    const est = estimatedJaccard(signature(a, 256), signature(b, 256));
    assert.ok(Math.abs(est - truth) < 0.12, `estimate ${est} vs ${truth}`);
  });

  it('clusters near copies, leaves different texts alone, and is deterministic', () => {
    const items = [
      { id: 'c', text: base.replace('carefully', 'very carefully') },
      { id: 'a', text: base },
      { id: 'x', text: 'user: write a haiku about autumn leaves assistant: red leaves drift slowly over quiet water' },
      { id: 'b', text: base.toUpperCase() },
      { id: 'e', text: '' },
    ];
    const r = nearDuplicates(items, { threshold: 0.7 });
    assert.deepEqual(r.map((x) => [x.step_id, x.cluster_id]), [['a', 'a'], ['b', 'a'], ['c', 'a']]);
    assert.equal(r[0].similarity, 1);
    assert.equal(r[1].similarity, 1);
    assert.ok(r[2].similarity >= 0.7 && r[2].similarity < 1);
    assert.deepEqual(nearDuplicates([...items].reverse(), { threshold: 0.7 }), r);
  });

  it('rejects a signature that does not split into bands', () => {
    assert.throws(() => nearDuplicates([], { permutations: 10, bands: 3 }), /invalid MinHash shape/);
  });
});

describe('MinHash pinned: shingle hash, signatures, cluster rules', () => {
  // FNV-1a 32-bit over UTF-16 code units, then MurmurHash3's fmix32: the documented recipe, written from the specs.
  function fnv1a(s: string): number {
    let h = 0x811c9dc5;
    for (const c of s) for (let i = 0; i < c.length; i++) h = Math.imul(h ^ c.charCodeAt(i), 0x01000193) >>> 0;
    return h >>> 0;
  }
  function fmix32(h: number): number {
    h = (h ^ (h >>> 16)) >>> 0;
    h = Math.imul(h, 0x85ebca6b) >>> 0;
    h = (h ^ (h >>> 13)) >>> 0;
    h = Math.imul(h, 0xc2b2ae35) >>> 0;
    return (h ^ (h >>> 16)) >>> 0;
  }
  const ref = (words: string) => fmix32(fnv1a(words));

  const base =
    'user: please compute the sum of the first ten prime numbers and explain each step of the calculation carefully assistant: the first ten primes are two three five seven eleven thirteen seventeen nineteen twenty three and twenty nine so the sum is one hundred twenty nine';

  describe('minhash, exact', () => {
    it('FNV-1a reference matches the published test vector', () => {
      assert.equal(fnv1a('a'), 0xe40c292c);
      assert.equal(fnv1a('foobar'), 0xbf9cf968);
    });

    it('shingles are hashes of lower-cased k-word windows', () => {
      assert.deepEqual([...shingles('The QUICK brown fox')], [ref('the quick brown'), ref('quick brown fox')]);
      assert.deepEqual([...shingles('Straße, café_1 — naïve!', 2)], [ref('straße café_1'), ref('café_1 naïve')]);
      assert.deepEqual([...shingles('two words')], [ref('two words')], 'fewer words than k: one shingle of them all');
      assert.deepEqual([...shingles('a b c')], [ref('a b c')]);
      assert.equal(shingles('').size, 0);
      assert.equal(shingles('!!! ... ---').size, 0);
      assert.equal(shingles('one two three four five six', 3).size, 4);
    });

    it('signatures are pinned (fixed seeds)', () => {
      assert.deepEqual(Array.from(signature(shingles('the quick brown fox jumps'), 8)), [794972009, 963834038, 1298998724, 975156117, 1606043713, 122228926, 2219251498, 8786814]);
      assert.deepEqual(Array.from(signature(new Set([1, 2, 3]), 512)).slice(-4), [2938930483, 851209224, 708115571, 1120278405]);
      assert.deepEqual(Array.from(signature(new Set(), 3)), [0xffffffff, 0xffffffff, 0xffffffff]);
    });

    it('estimated Jaccard counts equal positions', () => {
      assert.equal(estimatedJaccard(Uint32Array.of(1, 2, 3, 4), Uint32Array.of(1, 0, 3, 0)), 0.5);
    });
  });

  describe('near-duplicate clusters', () => {
    it('checks the shape: bands divide permutations, at most 512 permutations', () => {
      const items = [{ id: 'a', text: base }, { id: 'b', text: base }];
      assert.equal(nearDuplicates(items, { permutations: 512, bands: 16 }).length, 2);
      assert.throws(() => nearDuplicates(items, { permutations: 576, bands: 16 }), /invalid MinHash shape/);
      assert.throws(() => nearDuplicates(items, { permutations: 60, bands: 16 }), /invalid MinHash shape/);
    });

    it('a pair is a cluster; the threshold is inclusive; below it nothing clusters', () => {
      const pair = [{ id: 'q', text: base }, { id: 'p', text: ` ${base.toUpperCase()} ` }];
      assert.deepEqual(nearDuplicates(pair, { threshold: 1 }), [
        { step_id: 'p', cluster_id: 'p', similarity: 1 },
        { step_id: 'q', cluster_id: 'p', similarity: 1 },
      ]);
      const near = [{ id: 'a', text: base }, { id: 'b', text: base.replace('carefully', 'very carefully') }];
      const sim = estimatedJaccard(signature(shingles(near[0].text)), signature(shingles(near[1].text)));
      assert.ok(sim > 0.5 && sim < 1, `similarity ${sim}`);
      assert.equal(nearDuplicates(near, { threshold: sim }).length, 2);
      assert.deepEqual(nearDuplicates(near, { threshold: Math.min(1, sim + 0.01) }), []);
    });

    it('the representative is the smallest id whatever the input order', () => {
      const ids = ['k', 'c', 'x', 'a', 'm', 'b', 'z', 'd', 'q', 'e', 'y', 'f'];
      const items = ids.map((id, i) => ({ id, text: `${base} ${i % 2 ? 'ok' : ''}` }));
      const r = nearDuplicates(items, { threshold: 0.9 });
      assert.deepEqual(r.map((x) => x.step_id), [...ids].sort());
      assert.ok(r.every((x) => x.cluster_id === 'a'));
      for (let s = 1; s < 5; s++) {
        const shuffled = items.map((it, i) => ({ it, k: (i * 7 + s * 5) % 13 })).sort((u, v) => u.k - v.k).map((x) => x.it);
        assert.deepEqual(nearDuplicates(shuffled, { threshold: 0.9 }), r);
      }
    });

    it('items without words never cluster', () => {
      assert.deepEqual(nearDuplicates([{ id: 'a', text: '' }, { id: 'b', text: '...' }, { id: 'c', text: base }]), []);
    });
  });
});
