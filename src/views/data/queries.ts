/** The Data tab's SQL: the Pool card's figures and import history, and the export box's first query. */

/** One row: steps, trajectories, prompts, errors, curated. */
export const POOL_TOTALS = `SELECT
  (SELECT count(*) FROM steps) AS steps,
  (SELECT count(DISTINCT trajectory_uid) FROM steps) AS trajectories,
  (SELECT count(DISTINCT prompt_uid) FROM steps) AS prompts,
  (SELECT count(*) FROM steps WHERE status = 'error') AS errors,
  (SELECT count(*) FROM curation) AS curated`;

/** The import history, newest first. */
export function importHistory(limit = 200): string {
  return `SELECT import_id, file, format, records, rows_made, rows_added, rejected, status, message, bytes,
  strftime(started_at, '%Y-%m-%d %H:%M:%S') AS started FROM imports ORDER BY import_id DESC LIMIT ${Math.max(0, Math.floor(limit))}`;
}

/** What the export box's query starts as: an example the user edits. */
export const EXAMPLE_EXPORT_QUERY = 'SELECT * FROM trajectories ORDER BY reward_sum DESC NULLS LAST';
