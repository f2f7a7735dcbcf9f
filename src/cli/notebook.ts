/**
 * `agentworld run notebook.md`: the page's notebook runtime (src/notebook/runtime.ts — the same dependency
 * order, query/effect classification and read-only check of query cells) on the native pool, whose engine is
 * locked to the files the command names (src/cli/engine-lock.ts, as the page's pool is locked). Effect cells run
 * only with --allow-effects, as they run in the page only when the user asks.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { type Table, tableFromJSON } from 'apache-arrow';
import { parseNotebook } from '../notebook/format';
import { buildGraph } from '../notebook/graph';
import { NotebookRuntime, type RuntimePool } from '../notebook/runtime';
import { TIME_MACROS } from '../pool/read-only';
import type { NativePool } from './native-pool';

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

/** JSON-safe rows → an Arrow table (the runtime keeps a cell's result; the CLI reports its row count). */
function toTable(rows: Record<string, unknown>[]): Table {
  const safe = rows.map((r) =>
    Object.fromEntries(
      Object.entries(r).map(([k, x]) => [
        k,
        typeof x === 'bigint' ? Number(x) : x instanceof Date ? x.toISOString() : x !== null && typeof x === 'object' ? JSON.stringify(x, (_k, y) => (typeof y === 'bigint' ? Number(y) : y)) : x,
      ]),
    ),
  );
  return tableFromJSON(safe);
}

/** A statement as the engine runs it (remote Parquet calls rewritten, src/cli/remote-parquet.ts); counts stay keyed by the cell's SQL. */
type Rewrite = (sql: string) => Promise<string>;

async function runtimePool(pool: NativePool, counts: Map<string, number>, rewrite: Rewrite = async (sql) => sql): Promise<RuntimePool> {
  const db = pool.db;
  const main = await db.connect();
  const ro = await db.connect();
  const views = await db.connect();
  for (const c of [ro, views]) for (const m of TIME_MACROS) await db.exec(c, m);
  return {
    async query(sql) {
      const rows = await db.query(main, await rewrite(sql));
      counts.set(sql, rows.length);
      return toTable(rows.slice(0, 1000));
    },
    exec: async (sql) => db.exec(main, await rewrite(sql)),
    async queryReadOnly(sql, run = true) {
      const r = await db.call<{ rows: Record<string, unknown>[]; count: number } | null>({ op: 'one', conn: ro, sql: await rewrite(sql), readOnly: true, run });
      if (!r) return null;
      counts.set(sql, r.count);
      return toTable(r.rows);
    },
    async execOne(sql) {
      await db.call({ op: 'one', conn: views, sql: await rewrite(sql), readOnly: false, run: true });
    },
    onChange: () => () => {},
  };
}

export async function runNotebook(pool: NativePool, path: string, opts: { allowEffects?: boolean; rewrite?: Rewrite } = {}): Promise<NotebookRun> {
  const doc = parseNotebook(readFileSync(path, 'utf8'));
  const counts = new Map<string, number>();
  const rt = new NotebookRuntime(await runtimePool(pool, counts, opts.rewrite), basename(path).replace(/\.md$/i, ''));
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
