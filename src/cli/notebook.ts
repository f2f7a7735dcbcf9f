/**
 * `agentworld run notebook.md`: the page's notebook runtime (src/notebook/runtime.ts — the same dependency
 * order, query/effect classification and read-only check of query cells) on the native pool, whose engine is
 * locked to the files the command names (src/cli/engine-lock.ts, as the page's pool is locked). Effect cells run
 * only with --allow-effects, as they run in the page only when the user asks.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseNotebook } from '../notebook/format';
import { buildGraph } from '../notebook/graph';
import { NotebookRuntime, type RuntimePool } from '../notebook/runtime';
import { type NativePool, rowsToTable } from './native-pool';

export interface CellRun {
  /** The cell's id, or `cell N` (1-based among the notebook's cells) with its kind. */
  name: string;
  kind: string;
  effect: boolean;
  status: string;
  rows: number | null;
  ms: number | null;
  error: string | null;
  note: string | null;
}

export interface NotebookRun {
  notebook: string;
  cells: CellRun[];
}

/** A statement as the engine runs it (remote Parquet calls rewritten, src/cli/remote-parquet.ts); counts stay keyed by the cell's SQL. */
type Rewrite = (sql: string) => Promise<string>;

/**
 * The runtime's pool: the native pool's port, with the row counts the report gives kept aside, and only a sample of a
 * result crossing from the DuckDB thread (the runtime shows rows; the CLI reports how many).
 */
function runtimePool(pool: NativePool, counts: Map<string, number>, rewrite: Rewrite = async (sql) => sql): RuntimePool {
  return {
    async query(sql) {
      const rows = await pool.rows(await rewrite(sql));
      counts.set(sql, rows.length);
      return rowsToTable(rows.slice(0, 1000));
    },
    exec: async (sql) => pool.exec(await rewrite(sql)),
    async queryReadOnly(sql, run = true) {
      const r = await pool.readOnly(await rewrite(sql), run, 50);
      if (!r) return null;
      counts.set(sql, r.count);
      return rowsToTable(r.rows);
    },
    execOne: async (sql) => pool.execOne(await rewrite(sql)),
    // each cell runs once, in order, and the report is of that run: a write re-runs no reader here
    onChange: () => () => {},
  };
}

export async function runNotebook(pool: NativePool, path: string, opts: { allowEffects?: boolean; rewrite?: Rewrite } = {}): Promise<NotebookRun> {
  const doc = parseNotebook(readFileSync(path, 'utf8'));
  const counts = new Map<string, number>();
  const rt = new NotebookRuntime(runtimePool(pool, counts, opts.rewrite), basename(path).replace(/\.md$/i, ''));
  rt.setCells(doc.cells);
  await rt.runAll({ effects: !!opts.allowEffects });
  await rt.idle();
  const cells: CellRun[] = [];
  const graph = buildGraph(doc.cells);
  const rowsOf = new Map<string, number | null>();
  doc.cells.forEach((c, i) => {
    if (c.kind === 'md') return;
    const s = rt.state(c.key);
    const effect = !!c.options.effect;
    const sql = c.kind === 'sql' ? rt.qualified(c.key) : '';
    const done = s.status === 'done';
    // a query cell: its full row count. A plot: the rows it draws, as the page's runAll reports them — its data cell's,
    // up to the runtime's 200 000 (PLOT_ROWS, src/notebook/runtime.ts); the rows it holds here are a sample of 50
    // (only counts cross from the DuckDB thread).
    const dep = graph.nodes.get(c.key)?.deps[0];
    const depRows = dep === undefined ? null : (rowsOf.get(dep) ?? null);
    const rows = !done
      ? null
      : c.kind === 'sql'
        ? (counts.get(effect ? sql : `SELECT * FROM (\n${sql}\n) LIMIT 1000001`) ?? s.table?.numRows ?? null)
        : depRows !== null
          ? Math.min(depRows, 200_000)
          : (s.table?.numRows ?? null);
    rowsOf.set(c.key, rows);
    let note = s.note;
    if (effect && !opts.allowEffects) note = 'effect cell: not run (pass --allow-effects to run it)';
    cells.push({ name: c.options.id ?? `cell ${i + 1} (${c.kind})`, kind: c.kind, effect, status: s.status, rows, ms: s.ms === null ? null : Math.round(s.ms), error: s.error, note });
  });
  rt.dispose();
  return { notebook: path, cells };
}
