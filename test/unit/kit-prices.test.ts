import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { costByModelSql, pricesCte, trajectoryCostSql } from '../../src/views/dashboard/queries';
import { DEFAULT_PRICES, formatUsd, getPrices, type ModelPrice, onPricesChange, priceFor, pricedModels, setPrices, stepCost } from '../../src/views/kit/prices';
import { openTestPool, type TestPool, user } from './helpers/duck';

describe('model prices', () => {
  it('picks the longest matching pattern, ignores router prefixes and case', () => {
    assert.equal(priceFor('gpt-4o-mini-2024-07-18')?.pattern, 'gpt-4o-mini*');
    assert.equal(priceFor('gpt-4o-2024-08-06')?.pattern, 'gpt-4o*');
    assert.equal(priceFor('openai/GPT-4.1-mini')?.pattern, 'gpt-4.1-mini*');
    assert.equal(priceFor('claude-sonnet-4-5-20250929')?.input, 3);
    assert.equal(priceFor('llama-3.1-8b-instruct'), null);
    assert.equal(priceFor(null), null);
    // an exact pattern beats any prefix
    const table: ModelPrice[] = [{ pattern: 'm*', input: 1, output: 1, source: 'x' }, { pattern: 'm-1', input: 2, output: 2, source: 'y' }, { pattern: 'm-1*', input: 3, output: 3, source: 'z' }];
    assert.equal(priceFor('m-1', table)?.source, 'y');
    assert.equal(priceFor('m-10', table)?.source, 'z');
  });

  it('costs a call per million tokens, unknown without a price or any token count', () => {
    assert.equal(stepCost('gpt-4o-mini', 1_000_000, 1_000_000), 0.75);
    assert.equal(stepCost('gpt-4o-mini', 1000, null), 0.00015);
    assert.equal(stepCost('gpt-4o-mini', null, null), null);
    assert.equal(stepCost('mock', 10, 10), null);
    assert.equal(formatUsd(null), '—');
    assert.equal(formatUsd(0.012345), '$0.012');
    assert.equal(formatUsd(2.5), '$2.50');
    assert.equal(formatUsd(1e-9), '<$0.000001');
  });

  it('every default names its source and date; edits persist, bad rows are dropped, null restores the defaults', () => {
    for (const p of DEFAULT_PRICES) assert.match(p.source, /\d{4}-\d{2}/, p.pattern);
    const store = new Map<string, string>();
    (globalThis as { localStorage?: unknown }).localStorage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => store.set(k, v), removeItem: (k: string) => store.delete(k) };
    const seen: number[] = [];
    const off = onPricesChange((p) => seen.push(p.length));
    try {
      setPrices([{ pattern: 'llama-3.1*', input: 0.05, output: 0.08, source: '' }, { pattern: '', input: 1, output: 1 }, { pattern: 'x', input: -1, output: 1 }, { pattern: 'y', input: Number.NaN, output: 1 }]);
      assert.deepEqual(getPrices(), [{ pattern: 'llama-3.1*', input: 0.05, output: 0.08, source: 'edited' }]);
      assert.equal(stepCost('llama-3.1-8b-instruct', 1e6, 0), 0.05);
      store.set('aw-model-prices', '{not json');
      assert.equal(getPrices(), DEFAULT_PRICES);
      setPrices(null);
      assert.equal(getPrices(), DEFAULT_PRICES);
      assert.deepEqual(seen, [1, DEFAULT_PRICES.length]);
    } finally {
      off();
      delete (globalThis as { localStorage?: unknown }).localStorage;
    }
  });
});

describe('cost SQL (DuckDB) agrees with stepCost', () => {
  let pool: TestPool;
  const steps = [
    { model: 'gpt-4o-mini-2024-07-18', prompt_tokens: 1200, completion_tokens: 300, traj: 't1' },
    { model: 'gpt-4o-mini-2024-07-18', prompt_tokens: 5000, completion_tokens: null, traj: 't1' },
    { model: 'claude-sonnet-4-5', prompt_tokens: 800, completion_tokens: 900, traj: 't2' },
    { model: "o'brien-model", prompt_tokens: 10, completion_tokens: 10, traj: 't2' },
    { model: 'claude-sonnet-4-5', prompt_tokens: null, completion_tokens: null, traj: 't3' },
  ];
  const models = [...new Set(steps.map((s) => s.model))];
  before(async () => {
    pool = await openTestPool();
    await pool.addSteps(
      steps.map((s, i) => ({
        step_id: `${s.traj}:${i}`, trajectory_uid: s.traj, prompt_uid: 'p', step_index: i, model: s.model, prompt_tokens: s.prompt_tokens,
        completion_tokens: s.completion_tokens, status: 'ok', messages: [user('q')],
      })),
    );
  });
  after(() => pool.close());

  it('per model: the same USD as summing stepCost; steps without a cost counted by reason (no price, no token counts)', async () => {
    const rows = await pool.rows(costByModelSql('', pricedModels(models)));
    for (const m of models) {
      const mine = steps.filter((s) => s.model === m);
      const costs = mine.map((s) => stepCost(s.model, s.prompt_tokens, s.completion_tokens));
      const known = costs.filter((c): c is number => c !== null);
      const row = rows.find((r) => r.model === m);
      assert.ok(row, m);
      if (known.length) assert.ok(Math.abs(Number(row.cost_usd) - known.reduce((a, b) => a + b, 0)) < 1e-12, m);
      else assert.equal(row.cost_usd, null);
      const tokened = mine.filter((s) => s.prompt_tokens !== null || s.completion_tokens !== null);
      // a price would cost exactly the unpriced ones: those with token counts
      assert.equal(Number(row.unpriced_steps), tokened.filter((s) => stepCost(s.model, s.prompt_tokens, s.completion_tokens) === null).length, m);
      assert.equal(Number(row.untokened_steps), mine.length - tokened.length, m);
      assert.equal(Number(row.unpriced_steps) + Number(row.untokened_steps), costs.length - known.length, m);
    }
  });

  it('per trajectory, and with no priced model at all', async () => {
    const rows = await pool.rows(trajectoryCostSql('SELECT trajectory_uid FROM trajectories', pricedModels(models)));
    const by = Object.fromEntries(rows.map((r) => [r.trajectory_uid, r]));
    assert.ok(Math.abs(Number(by.t1.cost_usd) - ((1200 * 0.15 + 300 * 0.6) / 1e6 + (5000 * 0.15) / 1e6)) < 1e-12);
    assert.equal(Number(by.t2.unpriced_steps), 1);
    assert.equal(by.t3.cost_usd, null);
    const none = await pool.rows(costByModelSql('', pricedModels(["o'brien-model"])));
    assert.equal(none[0].cost_usd, null);
    assert.match(pricesCte([]), /WHERE false/);
  });
});
