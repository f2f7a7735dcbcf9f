/** Which views a notebook's schema holds: the export form's picker of the open notebook's cell views. */
import { sqlString } from '../../pool/sql';

/** The views of one notebook schema: how many columns each has and whether one is `step_id` (what an export of a view needs). */
export function schemaViewsSql(schema: string): string {
  return `SELECT lower(table_name) AS view, count(*)::INTEGER AS columns, bool_or(lower(column_name) = 'step_id') AS has_step_id
    FROM information_schema.columns WHERE table_schema = ${sqlString(schema)} GROUP BY 1`;
}
