import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { filterSummary, filterWhere } from '../../src/curation/filter';
import { sqlString, valuesChunks } from '../../src/pool/sql';
import { PII_MARKS, PII_PATTERNS } from '../../src/pool/curation-sql';

describe('curation filter and SQL literals', () => {
  it('an empty filter selects everything; conditions compose with AND', () => {
    assert.equal(filterWhere({}), '');
    assert.equal(filterWhere({ agents: [''], status: 'any', trainable: 'any', text: '  ' }), '');
    const w = filterWhere({ agents: ['a'], models: ['m1', 'm2'], rewardMin: 0.5, status: 'complete', quality: ['bad'] });
    assert.match(w, /^s\.agent IN \('a'\) AND s\.model IN \('m1', 'm2'\) AND s\.trajectory_uid IN \(SELECT trajectory_uid FROM trajectories WHERE reward_sum >= 0\.5 AND complete\) AND coalesce\(c\.quality, 'unreviewed'\) IN \('bad'\)$/);
  });

  it('escapes quotes in every user value and rejects non-finite numbers', () => {
    const w = filterWhere({ text: "o'brien", tags: ["it's"], agents: ["x'); DROP TABLE steps; --"] });
    assert.ok(w.includes("'o''brien'"));
    assert.ok(w.includes("['it''s']"));
    assert.ok(w.includes("'x''); DROP TABLE steps; --'"));
    assert.equal(filterWhere({ rewardMin: Number.NaN }), '');
    assert.equal(sqlString("a'b"), "'a''b'");
  });

  it('summarizes only active conditions', () => {
    assert.deepEqual(filterSummary({ agents: [], status: 'any', text: '', models: ['m'], rewardMax: 0 }), { models: ['m'], rewardMax: 0 });
  });

  it('stages ids in chunks under the size limit', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => `traj-${i}:${i}`);
    const chunks = valuesChunks(ids, 10_000);
    assert.ok(chunks.length > 5);
    assert.ok(chunks.every((c) => c.length <= 10_000));
    assert.equal(chunks.join(', ').split('), (').length, 5000);
    assert.throws(() => valuesChunks(['x'.repeat(200)], 100), /too long/);
  });

  it('PII patterns (RE2 syntax, also valid JS) find what they should and leave dates and ids alone', () => {
    const re = (p: string) => new RegExp(p, 'gu');
    const text = 'mail a.b+c@mail.example.org, call +1 555-123-4567 or (555) 123 4567; key sk-proj-abcdefghijklmnop1234 Bearer abc.def.ghi; on 2024-01-01 id 12345678901';
    const out = text
      .replace(re(PII_PATTERNS.secret), PII_MARKS.secret)
      .replace(re(PII_PATTERNS.email), PII_MARKS.email)
      .replace(re(PII_PATTERNS.phone), PII_MARKS.phone);
    assert.equal(out, 'mail [email], call [phone] or [phone]; key [secret] [secret]; on 2024-01-01 id 12345678901');
  });
});
