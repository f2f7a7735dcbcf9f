/**
 * The dashboard's SQL, all parameterized by one predicate over `steps s LEFT JOIN curation c`
 * (filterWhere), so every number on the page counts the same steps an export of that filter selects.
 */
import { filteredSteps } from '../../curation/filter';

export const DIMENSIONS = ['agent', 'model', 'data_source', 'channel'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** Sortable trajectory-list columns (a whitelist: sort keys never come from user text). */
export const TRAJECTORY_COLUMNS = [
  'trajectory_uid', 'prompt_uid', 'step_count', 'complete', 'reward_sum', 'final_reward', 'agents', 'models', 'data_source', 'channel',
  'error_steps', 'good_steps', 'bad_steps', 'unreviewed_steps', 'trainable_steps', 'prompt_tokens', 'completion_tokens', 'duration_ms', 'started_at',
] as const;
export type TrajectoryColumn = (typeof TRAJECTORY_COLUMNS)[number];

export interface Sort {
  column: TrajectoryColumn;
  descending: boolean;
}

function matchingTrajectories(where: string): string {
  return where ? `SELECT DISTINCT s.trajectory_uid FROM steps s LEFT JOIN curation c USING (step_id) WHERE ${where}` : 'SELECT trajectory_uid FROM steps';
}

export function summarySql(where: string): string {
  return `WITH f AS (${filteredSteps(where, "s.*, coalesce(c.quality, 'unreviewed') AS quality, coalesce(c.trainable, s.status = 'ok') AS is_trainable")}),
    t AS (SELECT trajectory_uid, bool_or(coalesce(is_last, false)) AS complete FROM f GROUP BY 1)
    SELECT (SELECT count(*) FROM f)::INTEGER AS steps,
      (SELECT count(*) FROM t)::INTEGER AS trajectories,
      (SELECT count(*) FILTER (WHERE complete) FROM t)::INTEGER AS complete,
      (SELECT count(*) FILTER (WHERE NOT complete) FROM t)::INTEGER AS open,
      (SELECT count(DISTINCT prompt_uid) FROM f)::INTEGER AS prompts,
      (SELECT count(*) FILTER (WHERE status = 'error') FROM f)::INTEGER AS error_steps,
      (SELECT count(*) FILTER (WHERE is_trainable) FROM f)::INTEGER AS trainable_steps,
      (SELECT count(DISTINCT trajectory_uid) FILTER (WHERE is_trainable) FROM f)::INTEGER AS trainable_trajectories,
      (SELECT count(*) FILTER (WHERE quality <> 'unreviewed') FROM f)::INTEGER AS reviewed_steps,
      (SELECT count(*) FILTER (WHERE quality = 'good') FROM f)::INTEGER AS good_steps,
      (SELECT count(*) FILTER (WHERE quality = 'bad') FROM f)::INTEGER AS bad_steps,
      (SELECT coalesce(sum(prompt_tokens), 0) FROM f)::BIGINT AS prompt_tokens,
      (SELECT coalesce(sum(completion_tokens), 0) FROM f)::BIGINT AS completion_tokens,
      (SELECT avg(reward) FROM f) AS mean_step_reward,
      (SELECT quantile_cont(latency_ms, 0.5) FROM f) AS latency_p50,
      (SELECT quantile_cont(latency_ms, 0.9) FROM f) AS latency_p90,
      (SELECT quantile_cont(latency_ms, 0.99) FROM f) AS latency_p99`;
}

export function breakdownSql(where: string, dim: Dimension): string {
  return `SELECT coalesce(s.${dim}, '∅') AS value, count(*)::INTEGER AS steps, count(DISTINCT s.trajectory_uid)::INTEGER AS trajectories,
      count(*) FILTER (WHERE s.status = 'error')::INTEGER AS errors, avg(s.reward) AS mean_reward
    FROM steps s LEFT JOIN curation c USING (step_id)${where ? ` WHERE ${where}` : ''}
    GROUP BY 1 ORDER BY steps DESC, value LIMIT 50`;
}

/** One row per matching trajectory: its reward (for the distribution chart). */
export function rewardsSql(where: string): string {
  return `SELECT reward_sum AS reward, complete FROM trajectories WHERE reward_sum IS NOT NULL AND trajectory_uid IN (${matchingTrajectories(where)})`;
}

export function trajectoriesSql(where: string, sort: Sort): string {
  const col = TRAJECTORY_COLUMNS.includes(sort.column) ? sort.column : 'trajectory_uid';
  return `SELECT trajectory_uid, prompt_uid, step_count, complete, reward_sum, final_reward,
      array_to_string(agents, ', ') AS agents, array_to_string(models, ', ') AS models, data_source, channel,
      error_steps, good_steps, bad_steps, unreviewed_steps, trainable_steps, prompt_tokens, completion_tokens, duration_ms, started_at
    FROM trajectories WHERE trajectory_uid IN (${matchingTrajectories(where)})
    ORDER BY ${col} ${sort.descending ? 'DESC' : 'ASC'} NULLS LAST, trajectory_uid`;
}

/** GRPO groups: trajectories sharing a prompt_uid. A group whose rewards are all equal has zero advantage: no signal. */
export function groupsSql(where: string): string {
  return `SELECT prompt_uid, count(*)::INTEGER AS group_size, count(reward_sum)::INTEGER AS rewarded,
      avg(reward_sum) AS reward_mean, stddev_pop(reward_sum) AS reward_std, min(reward_sum) AS reward_min, max(reward_sum) AS reward_max,
      (count(*) > 1 AND count(reward_sum) = count(*) AND min(reward_sum) = max(reward_sum)) AS no_signal
    FROM trajectories WHERE trajectory_uid IN (${matchingTrajectories(where)})
    GROUP BY prompt_uid ORDER BY no_signal DESC, group_size DESC, prompt_uid`;
}

/** Values offered in the filter bar. */
export const OPTIONS_SQL = `SELECT
    (SELECT list(DISTINCT agent ORDER BY agent) FILTER (WHERE agent IS NOT NULL) FROM steps) AS agents,
    (SELECT list(DISTINCT model ORDER BY model) FILTER (WHERE model IS NOT NULL) FROM steps) AS models,
    (SELECT list(DISTINCT data_source ORDER BY data_source) FILTER (WHERE data_source IS NOT NULL) FROM steps) AS data_sources,
    (SELECT list(DISTINCT channel ORDER BY channel) FILTER (WHERE channel IS NOT NULL) FROM steps) AS channels,
    (SELECT list(DISTINCT q ORDER BY q) FROM (SELECT quality AS q FROM curation UNION SELECT unnest(['unreviewed', 'good', 'bad']))) AS qualities,
    (SELECT list(DISTINCT t ORDER BY t) FROM (SELECT unnest(tags) AS t FROM curation)) AS tags`;
