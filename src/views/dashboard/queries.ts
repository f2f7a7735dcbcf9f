/**
 * The dashboard's SQL, all parameterized by one predicate over `steps s LEFT JOIN curation c`
 * (filterWhere), so every number on the page counts the same steps an export of that filter selects.
 * Costs are SQL too: the price of each model present (resolved in TypeScript by views/kit/prices.ts, where
 * the pattern matching lives) is handed to DuckDB as a VALUES table `prices(model, input_usd, output_usd)`
 * to join on `steps.model`.
 */
import { TRAINABLE_SQL } from '../../pool/schema';
import { filteredSteps, matchingTrajectories } from '../../pool/queries/steps';
import { sqlNumber, sqlString } from '../../pool/sql';
import type { PricedModel } from '../kit/prices';

export const DIMENSIONS = ['agent', 'model', 'data_source', 'channel'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** Sortable trajectory-list columns (a whitelist: sort keys never come from user text). */
export const TRAJECTORY_COLUMNS = [
  'trajectory_uid', 'prompt_uid', 'step_count', 'complete', 'reward_sum', 'final_reward', 'agents', 'models', 'data_source', 'channel',
  'error_steps', 'good_steps', 'bad_steps', 'unreviewed_steps', 'trainable_steps', 'prompt_tokens', 'completion_tokens', 'duration_ms', 'started_at',
] as const;
export type TrajectoryColumn = (typeof TRAJECTORY_COLUMNS)[number];
/** The list sorts by any column it shows: the trajectories view's, and the cost (the price table applied). */
export type TrajectorySortColumn = TrajectoryColumn | 'cost_usd';

export interface Sort {
  column: TrajectorySortColumn;
  descending: boolean;
}

/** The list's first order: the newest trajectories first, as Langfuse's and Phoenix's trace lists open. */
export const DEFAULT_SORT: Sort = { column: 'started_at', descending: true };

/** Rows the trajectory list and the GRPO group table fetch at most (the counts above them cover all). */
export const LIST_LIMIT = 2000;

/** `WHERE` over the trajectories view for a step filter (none when the filter is empty). */
function trajectoryWhere(where: string, extra = ''): string {
  const parts = [extra, where ? `trajectory_uid IN (${matchingTrajectories(where)})` : ''].filter(Boolean);
  return parts.length ? ` WHERE ${parts.join(' AND ')}` : '';
}

/** One pass over the filtered steps and one over their trajectories (it used to be 17 subqueries over a CTE of every column). */
export function summarySql(where: string): string {
  const steps = filteredSteps(where, `s.trajectory_uid, s.prompt_uid, s.is_last, s.status, s.prompt_tokens, s.completion_tokens, s.reward, s.latency_ms, coalesce(c.quality, 'unreviewed') AS quality, ${TRAINABLE_SQL} AS is_trainable`);
  return `WITH f AS (${steps}),
    t AS (SELECT bool_or(coalesce(is_last, false)) AS complete, bool_or(is_trainable) AS trainable FROM f GROUP BY trajectory_uid)
    SELECT a.*, b.* FROM (
      SELECT count(*)::INTEGER AS steps,
        count(DISTINCT prompt_uid)::INTEGER AS prompts,
        count(*) FILTER (WHERE status = 'error')::INTEGER AS error_steps,
        count(*) FILTER (WHERE is_trainable)::INTEGER AS trainable_steps,
        count(*) FILTER (WHERE quality <> 'unreviewed')::INTEGER AS reviewed_steps,
        count(*) FILTER (WHERE quality = 'good')::INTEGER AS good_steps,
        count(*) FILTER (WHERE quality = 'bad')::INTEGER AS bad_steps,
        sum(prompt_tokens)::BIGINT AS prompt_tokens,
        sum(completion_tokens)::BIGINT AS completion_tokens,
        avg(reward) AS mean_step_reward,
        quantile_cont(latency_ms, 0.5) AS latency_p50,
        quantile_cont(latency_ms, 0.9) AS latency_p90,
        quantile_cont(latency_ms, 0.99) AS latency_p99
      FROM f) a, (${
        where
          ? `SELECT count(*)::INTEGER AS trajectories,
        count(*) FILTER (WHERE complete)::INTEGER AS complete,
        count(*) FILTER (WHERE NOT complete)::INTEGER AS open,
        count(*) FILTER (WHERE trainable)::INTEGER AS trainable_trajectories
      FROM t`
          : // unfiltered: the pool's per-trajectory stats already hold it
            `SELECT count(*)::INTEGER AS trajectories,
        count(*) FILTER (WHERE complete)::INTEGER AS complete,
        count(*) FILTER (WHERE NOT complete)::INTEGER AS open,
        count(*) FILTER (WHERE trainable_steps > 0)::INTEGER AS trainable_trajectories
      FROM trajectories`
      }) b`;
}

export function breakdownSql(where: string, dim: Dimension): string {
  // no count(DISTINCT trajectory_uid) per value: the chart does not show it and it was most of the cost on 1 M steps
  return `SELECT coalesce(s.${dim}, '—') AS value, count(*)::INTEGER AS steps,
      count(*) FILTER (WHERE s.status = 'error')::INTEGER AS errors, avg(s.reward) AS mean_reward
    FROM steps s LEFT JOIN curation c USING (step_id)${where ? ` WHERE ${where}` : ''}
    GROUP BY 1 ORDER BY steps DESC, value LIMIT 50`;
}

/** Histogram of the matching trajectories' rewards: 20 equal bins [x1, x2) between the smallest and largest reward, counted in SQL. */
export function rewardsSql(where: string): string {
  return `WITH r AS (SELECT reward_sum AS reward FROM trajectories${trajectoryWhere(where, 'reward_sum IS NOT NULL')}),
      b AS (SELECT min(reward) AS lo, max(reward) AS hi FROM r),
      k AS (SELECT CASE WHEN b.hi = b.lo THEN 0 ELSE least(19, floor((r.reward - b.lo) / (b.hi - b.lo) * 20))::INTEGER END AS bin, b.lo, b.hi FROM r, b)
    SELECT bin, CASE WHEN hi = lo THEN lo - 0.5 ELSE lo + (hi - lo) * bin / 20 END AS x1,
      CASE WHEN hi = lo THEN lo + 0.5 ELSE lo + (hi - lo) * (bin + 1) / 20 END AS x2, count(*)::INTEGER AS trajectories
    FROM k GROUP BY ALL ORDER BY bin`;
}

/** The list's rows; sorted by cost, every trajectory's cost under `priced` is computed to order them (the shown costs come from trajectoryCostSql). */
export function trajectoriesSql(where: string, sort: Sort, priced: readonly PricedModel[] = []): string {
  const byCost = sort.column === 'cost_usd';
  const col = byCost ? 'cost.cost_usd' : (TRAJECTORY_COLUMNS as readonly string[]).includes(sort.column) ? `t.${sort.column}` : 't.trajectory_uid';
  return `${byCost ? `WITH ${pricesCte(priced)}, ${trajectoryCostsCte()} ` : ''}SELECT t.trajectory_uid, t.prompt_uid, t.step_count, t.complete, t.reward_sum, t.final_reward,
      array_to_string(t.agents, ', ') AS agents, array_to_string(t.models, ', ') AS models, t.data_source, t.channel,
      t.error_steps, t.good_steps, t.bad_steps, t.unreviewed_steps, t.trainable_steps, t.prompt_tokens, t.completion_tokens, t.duration_ms, t.started_at
    FROM trajectories t${byCost ? ' LEFT JOIN cost USING (trajectory_uid)' : ''}${trajectoryWhere(where)}
    ORDER BY ${col} ${sort.descending ? 'DESC' : 'ASC'} NULLS LAST, t.trajectory_uid LIMIT ${LIST_LIMIT}`;
}

function groupsCte(where: string): string {
  return `g AS (SELECT prompt_uid, count(*)::INTEGER AS group_size, count(reward_sum)::INTEGER AS rewarded,
      avg(reward_sum) AS reward_mean, stddev_pop(reward_sum) AS reward_std, min(reward_sum) AS reward_min, max(reward_sum) AS reward_max,
      (count(*) > 1 AND (count(reward_sum) < 2 OR min(reward_sum) = max(reward_sum))) AS no_signal
    FROM trajectories${trajectoryWhere(where)}
    GROUP BY prompt_uid)`;
}

/**
 * GRPO groups: trajectories sharing a prompt_uid. A group of several rollouts has no signal when fewer than two of
 * them carry a reward (a NULL reward is not a reward) or when every reward is equal (all advantages are zero).
 */
export function groupsSql(where: string): string {
  return `WITH ${groupsCte(where)} SELECT * FROM g ORDER BY no_signal DESC, group_size DESC, prompt_uid LIMIT ${LIST_LIMIT}`;
}

/** Counts over all GRPO groups (the table shows the first LIST_LIMIT). */
export function groupCountsSql(where: string): string {
  return `WITH ${groupsCte(where)} SELECT count(*)::INTEGER AS groups, count(*) FILTER (WHERE group_size > 1)::INTEGER AS multi,
      count(*) FILTER (WHERE no_signal)::INTEGER AS no_signal FROM g`;
}

/** Values offered in the filter bar. */
export const OPTIONS_SQL = `SELECT
    (SELECT list(DISTINCT agent ORDER BY agent) FILTER (WHERE agent IS NOT NULL) FROM steps) AS agents,
    (SELECT list(DISTINCT model ORDER BY model) FILTER (WHERE model IS NOT NULL) FROM steps) AS models,
    (SELECT list(DISTINCT data_source ORDER BY data_source) FILTER (WHERE data_source IS NOT NULL) FROM steps) AS data_sources,
    (SELECT list(DISTINCT channel ORDER BY channel) FILTER (WHERE channel IS NOT NULL) FROM steps) AS channels,
    (SELECT list(DISTINCT q ORDER BY q) FROM (SELECT quality AS q FROM curation UNION SELECT unnest(['unreviewed', 'good', 'bad']))) AS qualities,
    (SELECT list(DISTINCT t ORDER BY t) FROM (SELECT unnest(tags) AS t FROM curation)) AS tags`;

/** The trajectory ids the list shows (for their costs). */
export function listedTrajectories(where: string, sort: Sort, priced: readonly PricedModel[] = []): string {
  return `SELECT trajectory_uid FROM (${trajectoriesSql(where, sort, priced)})`;
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
