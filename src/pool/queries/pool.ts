/** Named queries over the pool's own tables for the views (their SQL lives here, not in view files). */
import { sqlIdent } from '../sql';

/** `n`: how many steps the pool holds. */
export const STEP_COUNT = 'SELECT count(*) AS n FROM steps';

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

/** `t`, `c`: every table and view with its columns in order, minus notebook schemas (nb_…) and scratch tables (_…), for completion. */
export const TABLE_COLUMNS = `SELECT table_name AS t, list(column_name ORDER BY ordinal_position) AS c FROM information_schema.columns WHERE table_schema NOT LIKE 'nb\\_%' ESCAPE '\\' AND table_name NOT LIKE '\\_%' ESCAPE '\\' GROUP BY table_name`;

/** Drop a notebook's schema (its cells' views). */
export function dropSchema(schema: string): string {
  return `DROP SCHEMA IF EXISTS ${sqlIdent(schema)} CASCADE`;
}

/** `n` (INTEGER): how many rows a query returns. */
export function countOf(sql: string): string {
  return `SELECT count(*)::INTEGER AS n FROM (${sql})`;
}

/** The first `n` rows of a query. */
export function headOf(sql: string, n: number): string {
  return `SELECT * FROM (${sql}) LIMIT ${Math.max(0, Math.floor(n))}`;
}
