/**
 * Costs in SQL: the price of each model present (resolved in TypeScript by views/kit/prices.ts, where
 * the pattern matching lives), handed to DuckDB as a VALUES table `prices(model, input_usd, output_usd)`
 * to join on `steps.model`.
 */
import { sqlNumber, sqlString } from '../sql';
import { filteredSteps } from './steps';

/** A model present in the pool and its price, USD per million prompt (input) and completion (output) tokens. */
export interface PricedModel {
  model: string;
  input: number;
  output: number;
}

/** `prices(model, input_usd, output_usd) AS (…)`, a CTE body with one row per priced model. */
export function pricesCte(priced: readonly PricedModel[]): string {
  return priced.length
    ? `prices(model, input_usd, output_usd) AS (VALUES ${priced.map((p) => `(${sqlString(p.model)}, ${sqlNumber(p.input)}::DOUBLE, ${sqlNumber(p.output)}::DOUBLE)`).join(', ')})`
    : 'prices AS (SELECT NULL::VARCHAR AS model, NULL::DOUBLE AS input_usd, NULL::DOUBLE AS output_usd WHERE false)';
}

/** USD of one step row `s` joined with `p` (prices); NULL when it has no price or no token counts. */
const STEP_COST = `CASE WHEN p.model IS NULL OR (s.prompt_tokens IS NULL AND s.completion_tokens IS NULL) THEN NULL
  ELSE (coalesce(s.prompt_tokens, 0) * p.input_usd + coalesce(s.completion_tokens, 0) * p.output_usd) / 1e6 END`;
const HAS_TOKENS = '(s.prompt_tokens IS NOT NULL OR s.completion_tokens IS NOT NULL)';
/**
 * The two reasons a step has no cost, counted apart (one count mixed them: adding a price changed nothing for steps
 * whose source recorded no token counts): `unpriced_steps` have token counts and a model without a price (a price
 * fixes them); `untokened_steps` have no token counts at all (no price can).
 */
const MISSING = `count(*) FILTER (WHERE p.model IS NULL AND ${HAS_TOKENS})::INTEGER AS unpriced_steps,
      count(*) FILTER (WHERE NOT ${HAS_TOKENS})::INTEGER AS untokened_steps`;

/** Cost per model over the filtered steps: steps, tokens, USD, and the steps without a cost, by reason. */
export function costByModelSql(where: string, priced: readonly PricedModel[]): string {
  return `WITH ${pricesCte(priced)}, f AS (${filteredSteps(where, 's.model, s.prompt_tokens, s.completion_tokens')})
    SELECT coalesce(s.model, '—') AS model, count(*)::INTEGER AS steps, sum(s.prompt_tokens)::BIGINT AS prompt_tokens,
      sum(s.completion_tokens)::BIGINT AS completion_tokens, sum(${STEP_COST}) AS cost_usd,
      ${MISSING}
    FROM f s LEFT JOIN prices p ON p.model = s.model
    GROUP BY 1 ORDER BY cost_usd DESC NULLS LAST, steps DESC, model`;
}

/** Cost of each listed trajectory (`uidsSql` selects their trajectory_uid), with its steps without a cost, by reason. */
export function trajectoryCostSql(uidsSql: string, priced: readonly PricedModel[]): string {
  return `WITH ${pricesCte(priced)}
    SELECT s.trajectory_uid, sum(${STEP_COST}) AS cost_usd, ${MISSING}
    FROM steps s LEFT JOIN prices p ON p.model = s.model
    WHERE s.trajectory_uid IN (${uidsSql})
    GROUP BY 1`;
}

/** `cost(trajectory_uid, cost_usd)`, a CTE body: every trajectory's cost (the list sorts by it). Needs the `prices` CTE. */
export function trajectoryCostsCte(): string {
  return `cost AS (SELECT s.trajectory_uid, sum(${STEP_COST}) AS cost_usd FROM steps s LEFT JOIN prices p ON p.model = s.model GROUP BY 1)`;
}
