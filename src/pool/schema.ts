/** DDL of the data pool (docs/schema.md). Table `steps` is derived from the step record's columns (contract/step-columns.ts). */
import { type ColumnType, MESSAGE, STEP_COLUMNS } from '../contract/step-columns';
import { sqlIdent, sqlString } from './sql';

/**
 * Whether a step goes into training, as SQL over `steps s LEFT JOIN curation c`: an explicit `trainable` label
 * wins; otherwise a step is trainable when it succeeded and nobody marked it bad. The one rule used by the
 * dashboard, the inspector, the filters, the `trajectories` view and every export (docs/decisions/016).
 */
export const TRAINABLE_SQL = "coalesce(c.trainable, s.status = 'ok' AND c.quality IS DISTINCT FROM 'bad')";

/**
 * Field names DuckDB prints quoted in a type (they are keywords): a struct type written the same way reads back from
 * `typeof()` unchanged (test/unit/step-columns.test.ts holds this list to `duckdb_keywords()`).
 */
export const QUOTED_FIELD_NAMES: ReadonlySet<string> = new Set(['content', 'error', 'function', 'name', 'role', 'source', 'type']);

/** A storage type as DuckDB DDL. */
export function sqlType(t: ColumnType<never>): string {
  switch (t.kind) {
    case 'MAP':
      return 'MAP(VARCHAR, VARCHAR)';
    case 'LIST':
      return `${sqlType(t.item)}[]`;
    case 'STRUCT':
      return `STRUCT(${Object.entries(t.fields).map(([n, f]) => `${QUOTED_FIELD_NAMES.has(n) ? sqlIdent(n) : n} ${sqlType(f)}`).join(', ')})`;
    default:
      return t.kind;
  }
}

export const MESSAGE_TYPE = sqlType(MESSAGE);

export const STEPS_COLUMNS_DDL = Object.entries(STEP_COLUMNS)
  .map(([name, c]) => `\n  ${name} ${sqlType(c.type)}${c.notNull ? ' NOT NULL' : ''}${c.default !== undefined ? ` DEFAULT ${sqlString(c.default)}` : ''}`)
  .join(',');

/** The schema this build writes; pools saved with an older one are migrated at open (src/pool/migrations.ts, docs/decisions/023). */
export const SCHEMA_VERSION = 4;

/** The tables that hold a pool's data, emptied by "Clear pool" (the schema, views and macros stay). */
export const DATA_TABLES = ['steps', 'trajectory_stats', 'curation', 'import_errors', 'imports', 'token_counts'] as const;

export const DDL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS steps (${STEPS_COLUMNS_DDL})`,
  // pools made before decision 011 get the source's own trajectory id as their last column
  `ALTER TABLE steps ADD COLUMN IF NOT EXISTS source_trajectory_id VARCHAR`,
  `CREATE TABLE IF NOT EXISTS curation (
    step_id VARCHAR PRIMARY KEY,
    quality VARCHAR DEFAULT 'unreviewed',
    trainable BOOLEAN,
    tags VARCHAR[],
    note VARCHAR,
    split VARCHAR,
    reviewed_at TIMESTAMPTZ
  )`,
  `CREATE SEQUENCE IF NOT EXISTS import_seq START 1`,
  `CREATE TABLE IF NOT EXISTS imports (
    import_id INTEGER PRIMARY KEY,
    file VARCHAR,
    source_id VARCHAR,
    format VARCHAR,
    confidence DOUBLE,
    bytes BIGINT,
    records INTEGER,
    rows_made INTEGER,
    rows_added INTEGER,
    rejected INTEGER,
    status VARCHAR,
    message VARCHAR,
    started_at TIMESTAMP,
    finished_at TIMESTAMPTZ
  )`,
  `CREATE TABLE IF NOT EXISTS import_errors (
    import_id INTEGER,
    file VARCHAR,
    line INTEGER,
    reason VARCHAR
  )`,
  `CREATE TABLE IF NOT EXISTS pool_meta (key VARCHAR PRIMARY KEY, value VARCHAR)`,
  // Derived by the tokenizer worker under the active tokenizer profile (src/tokenizer/counts.ts). A row is kept while
  // its profile_key is the active profile's and its content_hash the step's hash(messages, response, tools): a count
  // only counts the steps that have no such row (schema 3).
  `CREATE TABLE IF NOT EXISTS token_counts (
    step_id VARCHAR,
    trajectory_uid VARCHAR,
    n_prompt_tokens INTEGER,
    n_response_tokens INTEGER,
    n_tokens INTEGER,
    template_error VARCHAR,
    lost_reasoning INTEGER,
    lost_tool_calls INTEGER,
    lost_tool_results INTEGER,
    lost_content INTEGER,
    template_hash VARCHAR,
    profile_key VARCHAR,
    content_hash UBIGINT
  )`,
  `CREATE TABLE IF NOT EXISTS trajectory_stats (
    trajectory_uid VARCHAR,
    prompt_uid VARCHAR,
    step_count INTEGER,
    complete BOOLEAN,
    reward_sum DOUBLE,
    reward_min DOUBLE,
    reward_max DOUBLE,
    final_reward DOUBLE,
    agents VARCHAR[],
    models VARCHAR[],
    data_source VARCHAR,
    channel VARCHAR,
    source VARCHAR,
    started_at TIMESTAMP,
    duration_ms DOUBLE,
    prompt_tokens BIGINT,
    completion_tokens BIGINT,
    error_steps INTEGER,
    ok_steps INTEGER
  )`,
  // Steps' own per-trajectory aggregates live in trajectory_stats (kept by the pool at every write of
  // steps); what depends on curation is joined in here, from curation rows only (docs/decisions/005).
  `CREATE OR REPLACE VIEW trajectories AS
  SELECT
    t.trajectory_uid, t.prompt_uid, t.step_count, t.complete, t.reward_sum, t.reward_min, t.reward_max, t.final_reward,
    t.agents, t.models, t.data_source, t.channel, t.source, t.started_at, t.duration_ms, t.prompt_tokens, t.completion_tokens,
    t.error_steps,
    coalesce(q.good_steps, 0)::INTEGER AS good_steps,
    coalesce(q.bad_steps, 0)::INTEGER AS bad_steps,
    (t.step_count - coalesce(q.reviewed_steps, 0))::INTEGER AS unreviewed_steps,
    (t.ok_steps + coalesce(q.trainable_delta, 0))::INTEGER AS trainable_steps
  FROM trajectory_stats t LEFT JOIN (
    SELECT s.trajectory_uid,
      count(*) FILTER (WHERE c.quality = 'good') AS good_steps,
      count(*) FILTER (WHERE c.quality = 'bad') AS bad_steps,
      count(*) FILTER (WHERE coalesce(c.quality, 'unreviewed') <> 'unreviewed') AS reviewed_steps,
      sum(coalesce(${TRAINABLE_SQL}, false)::INTEGER - coalesce(s.status = 'ok', false)::INTEGER) AS trainable_delta
    FROM curation c JOIN steps s USING (step_id)
    GROUP BY s.trajectory_uid
  ) q USING (trajectory_uid)`,
];

/** trajectory_stats rows for the trajectories `uids` selects (a subquery), or for all when null; `where` filters the steps instead. */
export function trajectoryStatsSql(uids: string | null, where?: string): string {
  return `SELECT
    s.trajectory_uid,
    any_value(s.prompt_uid) AS prompt_uid,
    count(*)::INTEGER AS step_count,
    bool_or(coalesce(s.is_last, false)) AS complete,
    sum(s.reward) AS reward_sum,
    min(s.reward) AS reward_min,
    max(s.reward) AS reward_max,
    arg_max(s.reward, s.step_index) AS final_reward,
    list_sort(list_distinct(list(s.agent) FILTER (WHERE s.agent IS NOT NULL))) AS agents,
    list_sort(list_distinct(list(s.model) FILTER (WHERE s.model IS NOT NULL))) AS models,
    any_value(s.data_source) AS data_source,
    any_value(s.channel) AS channel,
    any_value(s.source) AS source,
    min(s.started_at) AS started_at,
    date_diff('millisecond', min(s.started_at), max(coalesce(s.ended_at, s.started_at)))::DOUBLE AS duration_ms,
    sum(s.prompt_tokens)::BIGINT AS prompt_tokens,
    sum(s.completion_tokens)::BIGINT AS completion_tokens,
    count(*) FILTER (WHERE s.status = 'error')::INTEGER AS error_steps,
    count(*) FILTER (WHERE s.status = 'ok')::INTEGER AS ok_steps
  FROM steps s${where ? ` WHERE ${where}` : uids ? ` WHERE s.trajectory_uid IN (${uids})` : ''}
  GROUP BY s.trajectory_uid`;
}

/** Recompute trajectory_stats for the trajectories `uids` (a subquery over steps) selects, or all of them (docs/decisions/005). */
export function refreshStatsSql(uids: string | null): string[] {
  return [
    uids ? `DELETE FROM trajectory_stats WHERE trajectory_uid IN (${uids})` : 'DELETE FROM trajectory_stats',
    `INSERT INTO trajectory_stats ${trajectoryStatsSql(uids)}`,
  ];
}
