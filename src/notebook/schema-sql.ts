/** SQL behind the notebook's schema sidebar (kept in small named functions; see the query builders in pool/queries). */

/** Tables and views users query (the pool's `main` schema, not `_internal` ones) and this notebook's cell views, with their columns. */
export function schemaColumnsSql(notebookSchema: string): string {
  const nb = notebookSchema.replaceAll("'", "''");
  return `SELECT c.table_schema AS s, c.table_name AS t, t.table_type AS kind, c.column_name AS col, c.data_type AS type
FROM information_schema.columns c
JOIN information_schema.tables t ON t.table_catalog = c.table_catalog AND t.table_schema = c.table_schema AND t.table_name = c.table_name
WHERE (c.table_schema = 'main' AND c.table_name NOT LIKE '\\_%' ESCAPE '\\') OR c.table_schema = '${nb}'
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
