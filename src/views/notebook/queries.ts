/** The Notebook tab's SQL: the schema its sidebar and completion list, a notebook's views dropped, a new notebook's first cell. */
import { sqlIdent, sqlString } from '../../pool/sql';

/** `t`, `c`: every table and view with its columns in order, minus notebook schemas (nb_…) and scratch tables (_…), for completion. */
export const TABLE_COLUMNS = `SELECT table_name AS t, list(column_name ORDER BY ordinal_position) AS c FROM information_schema.columns WHERE table_schema NOT LIKE 'nb\\_%' ESCAPE '\\' AND table_name NOT LIKE '\\_%' ESCAPE '\\' GROUP BY table_name`;

/** Drop a notebook's schema (its cells' views). */
export function dropSchema(schema: string): string {
  return `DROP SCHEMA IF EXISTS ${sqlIdent(schema)} CASCADE`;
}

/** A new notebook's first cell, and the SQL editor's placeholder: examples the user edits. */
export const FIRST_CELL_SQL = 'SELECT step_id, agent, model, status, reward, response_text FROM steps ORDER BY started_at DESC LIMIT 100';
export const EDITOR_PLACEHOLDER = 'SELECT … FROM steps';

/** Tables and views users query (the pool's `main` schema, not `_internal` ones) and this notebook's cell views, with their columns. */
export function schemaColumnsSql(notebookSchema: string): string {
  return `SELECT c.table_schema AS s, c.table_name AS t, t.table_type AS kind, c.column_name AS col, c.data_type AS type
FROM information_schema.columns c
JOIN information_schema.tables t ON t.table_catalog = c.table_catalog AND t.table_schema = c.table_schema AND t.table_name = c.table_name
WHERE (c.table_schema = 'main' AND c.table_name NOT LIKE '\\_%' ESCAPE '\\') OR c.table_schema = ${sqlString(notebookSchema)}
ORDER BY c.table_schema <> 'main', c.table_name, c.ordinal_position`;
}

export interface SchemaTable {
  name: string;
  kind: 'table' | 'view' | 'cell';
  columns: { name: string; type: string }[];
}

/** Rows of schemaColumnsSql grouped per table, the notebook's own views marked as cells. */
export function groupSchema(rows: Record<string, unknown>[], notebookSchema: string): SchemaTable[] {
  const out = new Map<string, SchemaTable>();
  for (const r of rows) {
    const cell = r.s === notebookSchema;
    const key = `${cell ? 'cell' : 'main'}.${r.t}`;
    let t = out.get(key);
    if (!t) out.set(key, (t = { name: String(r.t), kind: cell ? 'cell' : /VIEW/i.test(String(r.kind)) ? 'view' : 'table', columns: [] }));
    t.columns.push({ name: String(r.col), type: String(r.type) });
  }
  return [...out.values()];
}
