
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { filterSummary, filterWhere, type CurationFilter } from '../../src/curation/filter';
import { sqlString, valuesChunks, sqlNumber, sqlStringList } from '../../src/pool/sql';
import { PII_MARKS, PII_PATTERNS } from '../../src/pool/curation-sql';
import { filteredSteps } from '../../src/pool/queries/steps';
import { useSamplePool } from './helpers/sample-pool';

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

const pool = useSamplePool();

async function selected(f: CurationFilter): Promise<string[]> {
  const rows = await pool.rows(`${filteredSteps(filterWhere(f), 's.step_id')} ORDER BY 1`);
  return rows.map((r) => String(r.step_id));
}

const ALL = ['t1:0', 't1:1', 't2:0', 't3:0', 't4:0'];

describe('curation filter over a real pool', () => {
  it('an empty filter and empty values select every step', async () => {
    assert.deepEqual(await selected({}), ALL);
    assert.deepEqual(await selected({ agents: [], quality: [''], tags: [''], rewardMin: null, rewardMax: undefined, status: 'any', trainable: 'any', text: ' ' }), ALL);
  });

  it('selects by agent, model, data source and channel, AND-ed', async () => {
    assert.deepEqual(await selected({ agents: ['helper'] }), ['t3:0', 't4:0']);
    assert.deepEqual(await selected({ models: ['gpt-y'] }), ['t2:0', 't4:0']);
    assert.deepEqual(await selected({ dataSources: ['chat'] }), ['t3:0', 't4:0']);
    assert.deepEqual(await selected({ channels: ['val'] }), ['t2:0']);
    assert.deepEqual(await selected({ agents: ['coder', 'helper'], models: ['gpt-x'], dataSources: ['gsm8k'] }), ['t1:0', 't1:1']);
  });

  it('reward bounds are inclusive, on the trajectory sum; non-finite bounds are ignored', async () => {
    assert.deepEqual(await selected({ rewardMin: 0 }), ['t1:0', 't1:1', 't2:0']);
    assert.deepEqual(await selected({ rewardMax: 0 }), ['t2:0', 't4:0']);
    assert.deepEqual(await selected({ rewardMin: 0, rewardMax: 0 }), ['t2:0']);
    assert.deepEqual(await selected({ rewardMin: 0.5 }), ['t1:0', 't1:1'], 'a step reward of 0.25 does not decide: the sum 1.0 does');
    assert.deepEqual(await selected({ rewardMin: Number.NEGATIVE_INFINITY, rewardMax: Number.NaN }), ALL);
    assert.deepEqual(await selected({ rewardMax: null }), ALL);
  });

  it('status: complete, open, error, ok', async () => {
    assert.deepEqual(await selected({ status: 'complete' }), ['t1:0', 't1:1', 't2:0', 't4:0']);
    assert.deepEqual(await selected({ status: 'open' }), ['t3:0']);
    assert.deepEqual(await selected({ status: 'error' }), ['t3:0']);
    assert.deepEqual(await selected({ status: 'ok' }), ['t1:0', 't1:1', 't2:0', 't4:0']);
  });

  it('quality labels default to unreviewed; tags match any', async () => {
    assert.deepEqual(await selected({ quality: ['good'] }), ['t1:0']);
    assert.deepEqual(await selected({ quality: ['unreviewed'] }), ['t1:1', 't3:0', 't4:0']);
    assert.deepEqual(await selected({ quality: ['bad', 'good', ''] }), ['t1:0', 't2:0']);
    assert.deepEqual(await selected({ tags: ['math'] }), ['t1:0']);
    assert.deepEqual(await selected({ tags: ['nope', 'retry', ''] }), ['t3:0']);
  });

  it('trainable: the label, else status = ok', async () => {
    assert.deepEqual(await selected({ trainable: 'yes' }), ['t1:0', 't1:1', 't3:0', 't4:0']);
    assert.deepEqual(await selected({ trainable: 'no' }), ['t2:0']);
  });

  it('text search is case-insensitive over messages and response text, and selects whole trajectories', async () => {
    assert.deepEqual(await selected({ text: "  o'BRIEN " }), ['t3:0', 't4:0']);
    assert.deepEqual(await selected({ text: 'ANSWER IS 4' }), ['t1:0', 't1:1']);
    assert.deepEqual(await selected({ text: 'final: five' }), ['t2:0'], 'response_text only');
    assert.deepEqual(await selected({ text: '"x":"2+2"' }), ['t1:0', 't1:1'], 'tool-call arguments');
  });

  it('summarizes only what is set', () => {
    const f: CurationFilter = { agents: [], models: ['m'], text: '', status: 'any', rewardMin: null, rewardMax: 0, quality: undefined, trainable: 'no' };
    assert.deepEqual(filterSummary(f), { models: ['m'], rewardMax: 0, trainable: 'no' });
    assert.deepEqual(filterSummary({ rewardMin: null }), {});
    assert.deepEqual(filterSummary({ text: '' }), {});
    assert.deepEqual(filterSummary({ tags: undefined }), {});
  });
});

describe('SQL literals', () => {
  it('string lists and numbers are valid SQL', async () => {
    const [r] = await pool.rows(`SELECT list_has_any(['a'], ${sqlStringList([])}) AS none, ${sqlStringList(["it's", 'b'])} AS xs, ${sqlNumber(-0.5)} AS n, ${sqlString("o'k")} AS s`);
    assert.deepEqual(r, { none: false, xs: ["it's", 'b'], n: '-0.5', s: "o'k" });
    assert.throws(() => sqlNumber(Number.POSITIVE_INFINITY), /invalid number/);
    assert.throws(() => sqlNumber(Number.NaN), /invalid number/);
  });

  it('values chunks: exact limits', () => {
    assert.deepEqual(valuesChunks([]), []);
    assert.deepEqual(valuesChunks(['a', 'b'], 12), ["('a'), ('b')"]);
    assert.deepEqual(valuesChunks(['a', 'b'], 11), ["('a')", "('b')"]);
    assert.deepEqual(valuesChunks(['a'], 7), ["('a')"]);
    assert.throws(() => valuesChunks(['a'], 6), /too long/);
    assert.deepEqual(valuesChunks(["o'k", 'b', 'c']), ["('o''k'), ('b'), ('c')"]);
  });

  it('values chunks run as VALUES lists', async () => {
    const ids = Array.from({ length: 300 }, (_, i) => `id-${i}'`);
    const chunks = valuesChunks(ids, 500);
    let n = 0;
    for (const c of chunks) n += Number((await pool.rows(`SELECT count(*) AS n FROM (VALUES ${c})`))[0].n);
    assert.equal(n, 300);
  });
});
