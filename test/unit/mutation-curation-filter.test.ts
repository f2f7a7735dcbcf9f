/**
 * The dashboard filter's SQL run against a real DuckDB pool: each condition selects exactly the steps it names
 * (what the dashboard counts and an export of that filter selects). Written to kill mutants StrykerJS found.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CurationFilter, filterSummary, filterWhere } from '../../src/curation/filter';
import { filteredSteps } from '../../src/pool/queries/steps';
import { sqlNumber, sqlString, sqlStringList, valuesChunks } from '../../src/pool/sql';
import { useSamplePool } from './helpers/sample-pool';

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
