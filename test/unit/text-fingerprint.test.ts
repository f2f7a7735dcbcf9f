/**
 * textFingerprint (src/util/hash.ts): finalize tells a record written twice by it, so two texts get the same value
 * exactly when they are the same — every byte counts, the bytes past the last whole four (the tail), non-ASCII
 * text, and texts longer than its scratch buffer.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { textFingerprint } from '../../src/util/hash';

describe('textFingerprint', () => {
  it('is the same for the same text, different when one character differs anywhere', () => {
    const base = `{"id":"t1","messages":[{"role":"user","content":"${'héllo wörld 𝄞 '.repeat(40)}"}]}`;
    assert.equal(textFingerprint(base), textFingerprint(`${base}`.slice(0)));
    const seen = new Set([textFingerprint(base)]);
    for (let i = 0; i < base.length; i += 7) {
      // same length, one code unit changed (within the whole words and in the tail)
      const other = base.slice(0, i) + (base[i] === 'x' ? 'y' : 'x') + base.slice(i + 1);
      if (other === base) continue;
      const f = textFingerprint(other);
      assert.ok(!seen.has(f), `position ${i}`);
      seen.add(f);
    }
    for (const n of [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]) assert.notEqual(textFingerprint('a'.repeat(n)), textFingerprint('a'.repeat(n + 1)), `length ${n}`);
    assert.notEqual(textFingerprint('abcdefg1'), textFingerprint('abcdefg2'));
    assert.notEqual(textFingerprint('abcdefg'), textFingerprint('abcdefh'));
  });

  it('holds for texts larger than its buffer, before and after', () => {
    const big = 'ü'.repeat(300_000);
    const a = textFingerprint(big);
    assert.equal(textFingerprint('small'), textFingerprint('small'));
    assert.equal(textFingerprint(big), a);
    assert.notEqual(textFingerprint(`${big.slice(0, -1)}u`), a);
    assert.match(a, /^[0-9a-f]{16}$/);
  });
});
