/**
 * A notebook's SQL as one script for the DuckDB CLI over exported Parquet: views as CREATE VIEW in
 * notebook order (the runtime's run order, so each view comes after what it reads).
 */
import { DDL } from '../pool/schema';
import { notebookTitle } from './format';
import { buildGraph } from './graph';
import type { NotebookDoc } from './model';

export function notebookToSql(doc: NotebookDoc): string {
  const g = buildGraph(doc.cells);
  const byKey = new Map(doc.cells.map((c) => [c.key, c]));
  const reads = new Set<string>();
  for (const n of g.nodes.values()) for (const e of n.external) reads.add(e);
  const out: string[] = [
    `-- ${notebookTitle(doc).replace(/\n/g, ' ')}`,
    '-- Exported from AgentWorld Workbench. Run it with the DuckDB CLI next to the exported Parquet files:',
    "--   CREATE VIEW steps AS SELECT * FROM 'steps.parquet';",
    "--   CREATE TABLE curation AS SELECT * FROM 'curation.parquet';  -- if you exported curation",
    '-- then: duckdb my.db < this-file.sql',
    '',
  ];
  if (reads.has('curation') || reads.has('trajectories')) {
    out.push('-- The pool\'s curation table (empty unless you loaded it above).', `${DDL.find((d) => d.includes('curation ('))!.trim()};`, '');
  }
  if (reads.has('trajectories')) {
    out.push("-- The pool's trajectories view.", `${DDL.find((d) => d.includes('VIEW trajectories'))!.trim()};`, '');
  }
  for (const key of g.order) {
    const c = byKey.get(key)!;
    if (c.kind !== 'sql' || !c.source.trim()) continue;
    const sql = c.source.trim().replace(/;\s*$/, '');
    if (c.options.effect) out.push('-- effect cell: changes data', `${sql};`, '');
    else if (c.options.id) out.push(`CREATE OR REPLACE VIEW ${c.options.id} AS`, `${sql};`, '');
    else out.push(`${sql};`, '');
  }
  return `${out.join('\n').trimEnd()}\n`;
}
