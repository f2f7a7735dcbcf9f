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

/** Cost per model over the filtered steps: steps, tokens, USD, and steps that could not be priced. */
export function costByModelSql(where: string, priced: readonly PricedModel[]): string {
  return `WITH ${pricesCte(priced)}, f AS (${filteredSteps(where, 's.model, s.prompt_tokens, s.completion_tokens')})
    SELECT coalesce(s.model, '—') AS model, count(*)::INTEGER AS steps, sum(s.prompt_tokens)::BIGINT AS prompt_tokens,
      sum(s.completion_tokens)::BIGINT AS completion_tokens, sum(${STEP_COST}) AS cost_usd,
      count(*) FILTER (WHERE (${STEP_COST}) IS NULL)::INTEGER AS unpriced_steps
    FROM f s LEFT JOIN prices p ON p.model = s.model
    GROUP BY 1 ORDER BY cost_usd DESC NULLS LAST, steps DESC, model`;
}

/** Cost of each listed trajectory (`uidsSql` selects their trajectory_uid), with the count of unpriced steps. */
export function trajectoryCostSql(uidsSql: string, priced: readonly PricedModel[]): string {
  return `WITH ${pricesCte(priced)}
    SELECT s.trajectory_uid, sum(${STEP_COST}) AS cost_usd, count(*) FILTER (WHERE (${STEP_COST}) IS NULL)::INTEGER AS unpriced_steps
    FROM steps s LEFT JOIN prices p ON p.model = s.model
    WHERE s.trajectory_uid IN (${uidsSql})
    GROUP BY 1`;
}
