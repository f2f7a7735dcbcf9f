// The dashboard's rollups, run unchanged by the workbench and by native DuckDB over the same table.

/** Columns the dashboard reads; `latency_ms` falls back to the source's metadata key (OpenAI chat files carry it there). */
export function buildRollupTable(rows, copies) {
  return `CREATE OR REPLACE TABLE bench_steps AS
    SELECT s.step_id || '~' || r.k AS step_id, s.trajectory_uid || '~' || r.k AS trajectory_uid,
           s.prompt_uid || '~' || r.k AS prompt_uid, s.step_index, s.is_last, s.channel, s.agent, s.data_source, s.model,
           s.reward, coalesce(s.latency_ms, TRY_CAST(map_extract(s.metadata, 'latency_ms')[1] AS DOUBLE)) AS latency_ms,
           s.status, s.prompt_tokens, s.completion_tokens, s.started_at
    FROM steps s, range(${copies}) r(k)
    LIMIT ${rows}`;
}

export const ROLLUPS = {
  counts: `SELECT data_source, model, count(*) AS steps, count(DISTINCT trajectory_uid) AS trajectories,
             count(*) FILTER (WHERE status = 'error') AS errors
           FROM bench_steps GROUP BY ALL ORDER BY steps DESC`,
  reward: `SELECT data_source, avg(reward) AS mean, quantile_cont(reward, 0.1) AS p10, quantile_cont(reward, 0.5) AS p50,
             quantile_cont(reward, 0.9) AS p90, count(reward) AS n
           FROM bench_steps GROUP BY ALL ORDER BY data_source`,
  latency: `SELECT model, quantile_cont(latency_ms, 0.5) AS p50, quantile_cont(latency_ms, 0.95) AS p95,
              quantile_cont(latency_ms, 0.99) AS p99, max(latency_ms) AS worst
            FROM bench_steps GROUP BY ALL ORDER BY model`,
  grpo: `WITH t AS (SELECT prompt_uid, trajectory_uid, sum(reward) AS r FROM bench_steps GROUP BY ALL),
              g AS (SELECT prompt_uid, count(*) AS n, avg(r) AS mean, stddev_pop(r) AS sd, max(r) - min(r) AS spread FROM t GROUP BY ALL)
         SELECT count(*) AS groups, avg(n) AS mean_size, count(*) FILTER (WHERE sd = 0) AS zero_variance,
                avg(sd) AS mean_sd, avg(spread) AS mean_spread
         FROM g`,
  top_trajectories: `SELECT trajectory_uid, count(*) AS steps, sum(reward) AS reward, any_value(model) AS model
                     FROM bench_steps GROUP BY ALL ORDER BY reward DESC NULLS LAST, trajectory_uid LIMIT 100`,
};
