/**
 * SQL over `token_counts` for a selection of steps (the dashboard's predicate over `steps s` / `curation c`):
 * the length histogram with the limit, and the template audit — rows whose rendering raises or loses content, by
 * cause. The flags are token_counts' own columns (template_error, lost_reasoning, lost_tool_calls,
 * lost_tool_results, lost_content), so a notebook filters on them the same way.
 */
import { sqlString } from '../pool/sql';

const q = sqlString;

/** token_counts rows of the selected steps. */
export function selectedCountsSql(where: string): string {
  return `SELECT t.* FROM token_counts t JOIN steps s USING (step_id) LEFT JOIN curation c USING (step_id)${where.trim() ? ` WHERE ${where}` : ''}`;
}

/** n_tokens in 24 bins from 0 to the larger of the longest step and the limit: x1, x2, steps. */
export function lengthHistogramSql(where: string, limit: number): string {
  const lim = Math.max(1, Math.floor(limit));
  return `WITH t AS (SELECT n_tokens FROM (${selectedCountsSql(where)}) WHERE n_tokens IS NOT NULL),
      b AS (SELECT greatest(max(n_tokens), ${lim}) AS hi FROM t),
      k AS (SELECT least(23, floor(n_tokens / (b.hi / 24.0)))::INTEGER AS bin, b.hi FROM t, b)
    SELECT bin, hi * bin / 24.0 AS x1, hi * (bin + 1) / 24.0 AS x2, count(*)::INTEGER AS steps FROM k GROUP BY ALL ORDER BY bin`;
}

export interface AuditCause {
  /** Stable key: 'raised:<message>', 'too_long', 'reasoning', 'tool_calls', 'tool_results', 'content'. */
  id: string;
  label: string;
  steps: number;
  trajectories: number;
}

const FLAGS: [id: string, label: string, cond: string][] = [
  ['reasoning', 'earlier reasoning dropped by the template', 'lost_reasoning > 0'],
  ['tool_calls', 'tool calls not rendered', 'lost_tool_calls > 0'],
  ['tool_results', 'tool results not rendered', 'lost_tool_results > 0'],
  ['content', 'message content not rendered', 'lost_content > 0'],
];

function causeCondition(id: string, limit: number): string {
  if (id.startsWith('raised:')) return `template_error = ${q(id.slice('raised:'.length))}`;
  if (id === 'too_long') return `n_tokens > ${Math.max(1, Math.floor(limit))}`;
  const f = FLAGS.find(([k]) => k === id);
  if (!f) throw new Error(`unknown audit cause ${JSON.stringify(id)}`);
  return f[2];
}

/** Steps (and trajectories) of the selection by cause; causes with no steps are left out. */
export function auditSql(where: string, limit: number): string {
  const lim = Math.max(1, Math.floor(limit));
  const sel = `sel AS (${selectedCountsSql(where)})`;
  const parts = [
    `SELECT 'raised:' || template_error AS id, 'template raised: ' || template_error AS label, count(*)::INTEGER AS steps, count(DISTINCT trajectory_uid)::INTEGER AS trajectories
      FROM sel WHERE template_error IS NOT NULL GROUP BY template_error`,
    `SELECT 'too_long', 'longer than ${lim} tokens', count(*)::INTEGER, count(DISTINCT trajectory_uid)::INTEGER FROM sel WHERE ${causeCondition('too_long', lim)}`,
    ...FLAGS.map(([id, label, cond]) => `SELECT ${q(id)}, ${q(label)}, count(*)::INTEGER, count(DISTINCT trajectory_uid)::INTEGER FROM sel WHERE ${cond}`),
  ];
  return `WITH ${sel} SELECT * FROM (${parts.join(' UNION ALL ')}) WHERE steps > 0 ORDER BY steps DESC, id`;
}

/** The first steps of a cause: step_id, trajectory_uid, n_tokens, template_error. */
export function auditRowsSql(where: string, id: string, limit: number, rows = 50): string {
  return `SELECT step_id, trajectory_uid, n_tokens, template_error FROM (${selectedCountsSql(where)})
    WHERE ${causeCondition(id, limit)} ORDER BY trajectory_uid, step_id LIMIT ${Math.max(1, Math.floor(rows))}`;
}
