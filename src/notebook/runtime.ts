/**
 * Runtime state of a notebook's cells (kept apart from the saved cell data in model.ts). Runs SQL
 * cells as views in the notebook's own schema, reruns downstream cells when a cell changes or the
 * pool reports new data, and ignores results of runs that a newer run superseded.
 *
 * One concept: the run scheduler is one state machine (queued runs, superseded results, downstream reruns, pool changes); split, its invariants would span files.
 */
import type { Table } from 'apache-arrow';
import type { PoolChange, PoolPort } from '../pool/port';
import { sqlIdent, sqlQualified } from '../pool/sql';
import { buildGraph, downstream, type Graph, readersOf } from './graph';
import { type ColumnSummary, summarizeColumns } from './column-summary';
import type { Cell } from './model';
import { analyzeSql, rewriteRefs } from './sql-tokens';

export const CellStatus = {
  idle: 'idle',
  queued: 'queued',
  running: 'running',
  done: 'done',
  error: 'error',
} as const;
export type CellStatus = (typeof CellStatus)[keyof typeof CellStatus];

export interface CellRuntimeState {
  status: CellStatus;
  table: Table | null;
  /** The result was cut at MAX_ROWS. */
  truncated: boolean;
  ms: number | null;
  error: string | null;
  /** 1-based line of the error in the cell's source, when DuckDB gave one. */
  errorLine: number | null;
  /** A note shown instead of a result (effect cell not run yet, run=false …). */
  note: string | null;
  runId: number;
}

/** What the runtime needs of the pool: a part of the port (src/pool/port.ts), which the page's and the CLI's pools implement. */
export type RuntimePool = Pick<PoolPort, 'query' | 'exec' | 'queryReadOnly' | 'execOne' | 'onChange' | 'interrupt'>;

/** A cell's own time limit in seconds, from its fence (`sql id=x timeout=30`), if it sets one. */
export function cellTimeoutMs(options: { extra?: [string, string | true][] }): number | null {
  const v = options.extra?.find(([k]) => k === 'timeout')?.[1];
  const s = typeof v === 'string' ? Number(v) : Number.NaN;
  return Number.isFinite(s) && s > 0 ? s * 1000 : null;
}

export const MAX_ROWS = 1_000_000;
const PLOT_ROWS = 200_000;
/** Lines we put before the cell's SQL (CREATE VIEW … AS / SELECT * FROM ( ), for error positions. */
const PREFIX_LINES = 1;

export interface RunOptions {
  /** The user asked for this run (effect cells run only then). */
  explicit?: boolean;
}

/** A query cell's SQL as the one statement the engine checks: anything but a single SELECT-like statement fails to parse or prepare. */
export function asSelect(sql: string): string {
  return `SELECT * FROM (\n${sql}\n)`;
}

/** Engine errors of query cells, said in the notebook's terms. */
function explainRefusal(message: string): string {
  if (/Cannot prepare multiple statements/i.test(message)) {
    return 'This cell holds more than one statement; a query cell holds exactly one (DuckDB\'s parser found several). Split it into cells, or mark it as an effect cell (```sql effect) to run it as a script when you ask.';
  }
  if (/launched in read-only mode|read-only transaction/i.test(message)) {
    return `This cell tried to write to the pool, and query cells run read-only. Mark it as an effect cell (\`\`\`sql effect) so it runs only when you ask. (${message})`;
  }
  return message;
}

function fresh(): CellRuntimeState {
  return { status: 'idle', table: null, truncated: false, ms: null, error: null, errorLine: null, note: null, runId: 0 };
}

export function schemaName(notebookId: string): string {
  return `nb_${notebookId.toLowerCase().replace(/[^a-z0-9_]/g, '_').slice(0, 24)}`;
}

/** DuckDB's message with positions mapped back to the cell's own lines and our schema hidden. */
export function cellErrorMessage(raw: string, schema: string): { message: string; line: number | null } {
  let message = raw.replace(/^(QueryError|Error):\s*/, '').replaceAll(`"${schema}".`, '').replaceAll(`${schema}.`, '');
  let line: number | null = null;
  message = message.replace(/LINE (\d+):/g, (_m, n: string) => {
    const l = Math.max(1, Number(n) - PREFIX_LINES);
    line ??= l;
    return `LINE ${l}:`;
  });
  return { message: message.trim(), line };
}

export class NotebookRuntime {
  readonly schema: string;
  private cells: Cell[] = [];
  private graph: Graph = buildGraph([]);
  private states = new Map<string, CellRuntimeState>();
  private listeners = new Set<(key: string) => void>();
  private tables: Set<string> | null = null;
  private chain: Promise<void> = Promise.resolve();
  private wanted = new Map<string, number>();
  private gen = 0;
  private defined = new Set<string>();
  private unsubscribe: () => void;
  private schemaReady: Promise<void> | null = null;
  /** While false (a notebook from a URL before the user confirmed), nothing runs by itself. */
  autorun = true;
  private summaries = new Map<string, { runId: number; p: Promise<ColumnSummary[]> }>();
  /** Each cell's source as of its last run, for staleness(). */
  private ranSource = new Map<string, string>();
  /** Why the running cell was stopped (set by stop() or its timeout), for its error message. */
  private stopped: string | null = null;

  /** Stop the running cell: the pool restarts its engine (nothing committed is lost) and the cell reports it. */
  async stop(reason = 'Stopped by you.'): Promise<void> {
    if (!this.pool.interrupt) throw new Error('This pool cannot be interrupted.');
    this.stopped = reason;
    await this.pool.interrupt(reason);
  }

  constructor(
    private pool: RuntimePool,
    notebookId: string,
  ) {
    this.schema = schemaName(notebookId);
    this.unsubscribe = pool.onChange((e) => this.poolChanged(e));
  }

  dispose(): void {
    this.unsubscribe();
    this.listeners.clear();
    this.gen++;
  }

  onUpdate(fn: (key: string) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  state(key: string): CellRuntimeState {
    let s = this.states.get(key);
    if (!s) this.states.set(key, (s = fresh()));
    return s;
  }

  get dependencyGraph(): Graph {
    return this.graph;
  }

  /** Names of the pool's tables and views (for completion and unknown-name checks). */
  knownTables(): ReadonlySet<string> {
    return this.tables ?? new Set();
  }

  /**
   * Why a cell's output no longer matches its source, or null: it was edited and not re-run, a
   * cell it reads (directly or further up) was, or it is waiting on an upstream cell that failed.
   * A cell that has never run is not stale (it shows no output to distrust).
   */
  staleness(key: string): string | null {
    const st = this.states.get(key);
    if (!st || st.status === 'running' || st.status === 'queued' || !this.ranSource.has(key)) return null;
    const edited = (k: string) => {
      const c = this.cell(k);
      return !!c && this.ranSource.has(k) && this.ranSource.get(k) !== c.source;
    };
    if (edited(key)) return 'edited since its last run: run it (Ctrl+Enter) to update';
    const seen = new Set<string>([key]);
    const walk = (k: string): string | null => {
      for (const d of this.graph.nodes.get(k)?.deps ?? []) {
        if (seen.has(d)) continue;
        seen.add(d);
        const id = this.graph.nodes.get(d)?.defines ?? 'an upstream cell';
        if (edited(d)) return `${id} was edited and has not re-run`;
        if (this.states.get(d)?.status === 'error') return `${id} failed: this output is from before`;
        const up = walk(d);
        if (up) return up;
      }
      return null;
    };
    return walk(key);
  }

  /**
   * Per-column summaries of a query cell's current result (column-summary.ts), computed in the
   * pool's worker after the cells queued now have run; null for effect cells (never re-run) and
   * cells without a result. One computation per run of the cell.
   */
  summary(key: string): Promise<ColumnSummary[]> | null {
    const c = this.cell(key);
    const s = this.states.get(key);
    if (c?.kind !== 'sql' || c.options.effect || !s?.table || s.status !== 'done') return null;
    const hit = this.summaries.get(key);
    if (hit?.runId === s.runId) return hit.p;
    const relation = c.options.id ? sqlQualified(this.schema, c.options.id.toLowerCase()) : `(${asSelect(this.qualified(key))})`;
    const p = this.idle().then(() => summarizeColumns(this.pool, relation));
    this.summaries.set(key, { runId: s.runId, p });
    return p;
  }

  /** Replace the cell list (after an edit); drops views of ids that are gone. */
  setCells(cells: readonly Cell[]): void {
    this.cells = [...cells];
    this.graph = buildGraph(this.cells, this.tables ? { tables: this.tables } : {});
    const ids = new Set(this.graph.byId.keys());
    for (const id of [...this.defined]) {
      if (!ids.has(id)) {
        this.defined.delete(id);
        this.pool.exec(`DROP VIEW IF EXISTS ${sqlQualified(this.schema, id)}`).catch(() => {});
      }
    }
    for (const key of [...this.states.keys()]) {
      if (this.cells.some((c) => c.key === key)) continue;
      this.states.delete(key);
      this.ranSource.delete(key);
      this.summaries.delete(key);
    }
  }

  /**
   * Run every cell that runs on open (not effect cells; run=false cells only define their view).
   * `effects: true` (the user confirmed them) runs the effect cells too, in notebook order.
   */
  runAll(opts: { effects?: boolean } = {}): Promise<void> {
    const explicit = opts.effects ? new Set(this.effectCells().map((c) => c.key)) : new Set<string>();
    return this.schedule(this.graph.order, explicit);
  }

  /** The effect cells runAll({effects: true}) would run, in the order it runs them. */
  effectCells(): Cell[] {
    return this.graph.order.map((k) => this.cell(k)).filter((c): c is Cell => !!c && c.kind === 'sql' && !!c.options.effect && !!c.source.trim());
  }

  /** Run one cell (explicitly: effect cells too) and then everything downstream of it. */
  runCell(key: string, opts: RunOptions = { explicit: true }): Promise<void> {
    return this.schedule(downstream(this.graph, [key]), new Set(opts.explicit ? [key] : []));
  }

  /** Resolves when everything scheduled so far has finished. */
  idle(): Promise<void> {
    return this.chain;
  }

  private emit(key: string): void {
    for (const fn of this.listeners) fn(key);
  }

  private poolChanged(e: PoolChange): void {
    if (!this.autorun) return;
    const touched = e.tables.map((t) => t.toLowerCase());
    // steps and curation feed the trajectories view.
    if (touched.includes('steps') || touched.includes('curation')) touched.push('trajectories');
    this.tables = null;
    const readers = readersOf(this.graph, touched);
    if (readers.length) void this.schedule(downstream(this.graph, readers), new Set());
  }

  private schedule(keys: string[], explicit: ReadonlySet<string>): Promise<void> {
    const gen = ++this.gen;
    for (const k of keys) {
      this.wanted.set(k, gen);
      const s = this.state(k);
      if (s.status !== 'running') {
        s.status = 'queued';
        this.emit(k);
      }
    }
    const job = async () => {
      await this.prepare();
      for (const k of this.graph.order.filter((x) => keys.includes(x))) {
        if (this.wanted.get(k) !== gen) continue;
        this.wanted.delete(k);
        await this.runOne(k, explicit.has(k));
      }
    };
    this.chain = this.chain.then(job, job);
    return this.chain;
  }

  private async prepare(): Promise<void> {
    this.schemaReady ??= this.pool.exec(`CREATE SCHEMA IF NOT EXISTS ${sqlIdent(this.schema)}`).catch((e) => {
      this.schemaReady = null;
      throw e;
    });
    await this.schemaReady;
    if (!this.tables) {
      const t = await this.pool.query(
        `SELECT DISTINCT lower(table_name) AS n FROM information_schema.tables WHERE table_schema NOT LIKE 'nb\\_%' ESCAPE '\\'`,
      );
      this.tables = new Set(t.toArray().map((r) => String(r.n)));
      this.graph = buildGraph(this.cells, { tables: this.tables });
    }
  }

  private cell(key: string): Cell | undefined {
    return this.cells.find((c) => c.key === key);
  }

  private finish(key: string, runId: number, patch: Partial<CellRuntimeState>): void {
    const s = this.state(key);
    if (s.runId !== runId) return;
    Object.assign(s, patch);
    this.emit(key);
  }

  private blockedBy(key: string): string | null {
    const node = this.graph.nodes.get(key)!;
    for (const d of node.deps) {
      const s = this.state(d);
      const id = this.graph.nodes.get(d)?.defines ?? 'an upstream cell';
      if (s.status === 'error') return `Waiting for ${id}: that cell failed. Fix it and this cell reruns.`;
    }
    return null;
  }

  /** What exporting the cell exports: an effect cell's statement, a named cell's view, else the one statement the runtime checks (asSelect). */
  exportSql(key: string): string {
    const c = this.cell(key);
    if (c?.kind === 'sql' && !c.options.effect && c.options.id) return `SELECT * FROM ${sqlQualified(this.schema, c.options.id.toLowerCase())}`;
    return c?.kind === 'sql' && c.options.effect ? this.qualified(key) : asSelect(this.qualified(key));
  }

  /** The cell's SQL with references to other cells' ids qualified by this notebook's schema. */
  qualified(key: string): string {
    const c = this.cell(key)!;
    const node = this.graph.nodes.get(key)!;
    const own = c.options.id?.toLowerCase();
    const sql = rewriteRefs(c.source, node.refs, (n) => (n !== own && this.graph.byId.has(n) ? sqlQualified(this.schema, n) : null));
    return sql.replace(/[\s;]+$/, '');
  }

  private async runOne(key: string, explicit: boolean): Promise<void> {
    const c = this.cell(key);
    const node = this.graph.nodes.get(key);
    if (!c || !node) return;
    const s = this.state(key);
    const runId = ++s.runId;
    const prevRan = this.ranSource.get(key);
    this.ranSource.set(key, c.source);
    const base = { table: null, truncated: false, ms: null, error: null, errorLine: null, note: null };
    if (node.error) return this.finish(key, runId, { ...base, status: 'error', error: node.error });
    const blocked = this.blockedBy(key);
    if (blocked) return this.finish(key, runId, { ...base, status: 'error', error: blocked });
    if (c.kind === 'plot') return this.runPlot(key, runId);
    if (!c.source.trim()) return this.finish(key, runId, { ...base, status: 'idle', note: 'Empty cell.' });
    const effect = !!c.options.effect;
    if (effect && !explicit) {
      if (prevRan === undefined) this.ranSource.delete(key);
      else this.ranSource.set(key, prevRan);
      if (s.status === 'queued') this.finish(key, runId, { status: s.table ? 'done' : 'idle', note: s.table ? s.note : 'Effect cell: it changes data, so it runs only when you run it (▶ or Ctrl+Enter).' });
      return;
    }
    const a = analyzeSql(c.source);
    if (!effect && a.mutates) {
      return this.finish(key, runId, {
        ...base,
        status: 'error',
        error: `This cell changes data (${a.statements.find((x) => x !== 'SELECT') ?? 'a statement that writes'}). Mark it as an effect cell (\`\`\`sql effect) so it runs only when you ask, never on open.`,
      });
    }
    if (!effect && a.statements.length > 1) {
      return this.finish(key, runId, { ...base, status: 'error', error: `This cell holds more than one statement (${a.statements.length}); a query cell holds exactly one. Split it into several cells.` });
    }
    s.status = 'running';
    this.emit(key);
    const t0 = performance.now();
    const sql = this.qualified(key);
    const id = c.options.id?.toLowerCase();
    const compute = c.options.run !== false || explicit;
    this.stopped = null;
    const limit = cellTimeoutMs(c.options);
    const timer = limit !== null && this.pool.interrupt
      ? setTimeout(() => void this.stop(`Stopped after ${limit / 1000} s (the cell's timeout=${limit / 1000}).`).catch(() => {}), limit)
      : undefined;
    try {
      let table: Table | null = null;
      if (effect) {
        table = await this.pool.query(sql);
      } else {
        // The engine checks the cell: one SELECT-like statement (the parser refuses anything else
        // inside FROM ( … ), a prepared statement refuses several), run read-only. Only then does
        // our code define the view, with that same checked statement.
        const select = asSelect(sql);
        table = await this.pool.queryReadOnly(compute ? `${select} LIMIT ${MAX_ROWS + 1}` : select, compute);
        if (id) {
          await this.pool.execOne(`CREATE OR REPLACE VIEW ${sqlQualified(this.schema, id)} AS ${select}`);
          this.defined.add(id);
        }
      }
      const truncated = !!table && table.numRows > MAX_ROWS;
      if (table && truncated) table = table.slice(0, MAX_ROWS);
      this.finish(key, runId, {
        ...base,
        status: compute ? 'done' : 'idle',
        table,
        truncated,
        ms: performance.now() - t0,
        note: compute ? null : 'run=false: the view is defined; run the cell to see its rows.',
      });
      // the pool's change feed tells other views (and this runtime) what the effect wrote
      if (effect && s.runId === runId) this.tables = null;
    } catch (e) {
      if (this.stopped) {
        this.finish(key, runId, { ...base, status: 'error', error: `${this.stopped} The query was interrupted; the pool is intact and other cells keep working.`, ms: performance.now() - t0 });
        return;
      }
      const { message, line } = cellErrorMessage(e instanceof Error ? e.message : String(e), this.schema);
      this.finish(key, runId, { ...base, status: 'error', error: effect ? message : explainRefusal(message), errorLine: line, ms: performance.now() - t0 });
    } finally {
      clearTimeout(timer);
      this.stopped = null;
    }
  }

  private async runPlot(key: string, runId: number): Promise<void> {
    const dep = this.graph.nodes.get(key)!.deps[0];
    const base = { truncated: false, error: null, errorLine: null, note: null };
    if (!dep) return this.finish(key, runId, { ...base, status: 'error', table: null, ms: null, error: 'Set data: to the id of a SQL cell.' });
    let table = this.state(dep).table;
    const id = this.graph.nodes.get(dep)!.defines!;
    const t0 = performance.now();
    try {
      if (!table || table.numRows > PLOT_ROWS) table = await this.pool.queryReadOnly(`SELECT * FROM ${sqlQualified(this.schema, id)} LIMIT ${PLOT_ROWS}`);
      this.finish(key, runId, { ...base, status: 'done', table, ms: performance.now() - t0 });
    } catch (e) {
      const { message } = cellErrorMessage(e instanceof Error ? e.message : String(e), this.schema);
      this.finish(key, runId, { ...base, status: 'error', table: null, ms: null, error: `Could not read ${id}: ${message}` });
    }
  }
}
