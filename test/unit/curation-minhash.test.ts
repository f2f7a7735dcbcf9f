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
