/**
 * <aw-notebook>: one open notebook. Owns the edit operations on the doc and a NotebookRuntime on
 * the pool; tells its panel about every change (aw-doc-change {doc}) so it can autosave.
 *
 * One concept: the element wiring cells, the runtime and the run confirmation; its edits are notebook/edits.ts.
 */
import { consume } from '@lit/context';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { type Services, servicesContext } from '../kit/services';
import type { CellReport } from '../../notebook/api';
import { notebookTitle } from '../../notebook/format';
import { type Cell, type CellKind, makeCell, type NotebookDoc } from '../../notebook/model';
import { NotebookRuntime } from '../../notebook/runtime';
import { applyEdit, chartSpec, type DeletedCell, TEMPLATES } from '../../notebook/edits';
import './aw-cell';
import type { AwCell, CellAction } from './aw-cell';
import type { SqlSchema } from './aw-sql-editor';
import { TABLE_COLUMNS } from './queries';
import { changesWhileShown, PoolQueryController, schemaMayHaveChanged } from '../kit/pool-refresh';
import { download } from '../kit/download';


@customElement('aw-notebook')
export class AwNotebook extends LitElement {
  @consume({ context: servicesContext, subscribe: true })
  @property({ attribute: false })
  services?: Services;

  @property({ attribute: false }) doc: NotebookDoc = { frontMatter: '', cells: [] };
  @property() notebookId = '';
  /** Opened from a URL or a file: read-only, every source shown, and nothing runs until the user confirms. */
  @property({ type: Boolean }) readonly = false;
  @property({ type: Boolean }) awaitingConfirm = false;
  @property() origin: string | null = null;

  @state() private rev = 0;
  @state() private schema: SqlSchema = {};
  private runtime: NotebookRuntime | null = null;
  private runtimePool: unknown = null;
  private offUpdate: (() => void) | null = null;
  /** The SQL completion's tables and columns, re-read only when shown, and only when a change may have touched the schema. */
  readonly schemaQuery = new PoolQueryController(this, { pool: () => this.services?.pool, tables: schemaMayHaveChanged, run: () => this.loadSchema() });
  private opened: Promise<void> = Promise.resolve();
  /** The cell whose editor had the focus last (where the sidebar inserts names). */
  private lastCellKey: string | null = null;
  /** Cells deleted in this session, newest last (Alt+Shift+Z puts one back). */
  private deleted: DeletedCell[] = [];

  static override styles = css`
    :host { display: block; max-width: 1100px; margin: 0 auto; padding: 8px 16px 80px; font: 13px/1.45 system-ui, sans-serif; }
    .confirm { background: var(--aw-warn-bg); border: 1px solid var(--aw-warn-border); padding: 6px 10px; margin-bottom: 10px; }
    .confirm p { margin: 0 0 6px; }
    .confirm .effects { margin: 0 0 6px; padding: 0; list-style: none; display: grid; gap: 4px; }
    .confirm .effects pre { margin: 2px 0 0; padding: 4px 6px; background: var(--aw-panel); border: 1px solid var(--aw-warn-border); white-space: pre-wrap; overflow-wrap: anywhere; font: 12px/1.4 ui-monospace, monospace; max-height: 16em; overflow: auto; }
    .confirm .choices { display: flex; gap: 8px; flex-wrap: wrap; }
    button { font: inherit; cursor: pointer; }
    .end { display: flex; gap: 6px; margin-top: 8px; }
    .end button { border: 1px dashed var(--aw-border); background: var(--aw-panel); padding: 2px 10px; }
    .nopool { color: var(--aw-muted); padding: 8px; }
  `;

  protected override willUpdate(changed: PropertyValues<this>): void {
    const pool = this.services?.pool ?? null;
    if (changed.has('notebookId') || pool !== this.runtimePool) this.startRuntime();
    else if (changed.has('doc')) this.runtime?.setCells(this.doc.cells);
    if (changed.has('awaitingConfirm') && this.runtime) this.runtime.autorun = !this.awaitingConfirm;
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.stopRuntime();
  }

  private stopRuntime(): void {
    this.offUpdate?.();
    this.runtime?.dispose();
    this.runtime = null;
    this.runtimePool = null;
    this.feed?.dispose();
    this.feed = null;
  }

  /** The pool's change feed as the runtime hears it: held while this notebook is hidden (views/kit/pool-refresh.ts). */
  private feed: ReturnType<typeof changesWhileShown> | null = null;

  private startRuntime(): void {
    this.stopRuntime();
    const pool = this.services?.pool;
    if (!pool || !this.notebookId) return;
    // the runtime reruns cells that read what changed: not while the notebook is hidden, then once when it is shown
    this.feed = changesWhileShown(this, pool);
    const feed = this.feed;
    const rt = new NotebookRuntime(
      {
        query: (sql) => pool.query(sql),
        exec: (sql) => pool.exec(sql),
        queryReadOnly: (sql, run) => pool.queryReadOnly(sql, run),
        execOne: (sql) => pool.execOne(sql),
        interrupt: (reason) => pool.interrupt(reason),
        onChange: feed.onChange,
      },
      this.notebookId,
    );
    this.runtime = rt;
    this.runtimePool = pool;
    rt.autorun = !this.awaitingConfirm;
    rt.setCells(this.doc.cells);
    this.offUpdate = rt.onUpdate(() => this.bump());
    if (!this.awaitingConfirm) this.opened = this.afterRun(rt.runAll()).catch((e) => this.services?.notify(`The notebook could not start: ${e instanceof Error ? e.message : e}`, 'error'));
  }

  private bumpQueued = false;
  private bump(): void {
    if (this.bumpQueued) return;
    this.bumpQueued = true;
    queueMicrotask(() => {
      this.bumpQueued = false;
      this.rev++;
      this.mergeCellColumns();
    });
  }

  private baseSchema: SqlSchema = {};
  private async loadSchema(): Promise<void> {
    const pool = this.services?.pool;
    if (!pool) return;
    try {
      const rows = await pool.rows(TABLE_COLUMNS);
      this.baseSchema = Object.fromEntries(rows.map((r) => [String(r.t), (r.c as string[]) ?? []]));
      this.mergeCellColumns();
    } catch {
      /* completion is a convenience */
    }
  }

  private mergeCellColumns(): void {
    const s: SqlSchema = { ...this.baseSchema };
    for (const c of this.doc.cells) {
      const t = c.options.id && this.runtime?.state(c.key).table;
      if (c.kind === 'sql' && c.options.id) s[c.options.id] = t ? t.schema.fields.map((f) => f.name) : [];
    }
    if (JSON.stringify(s) !== JSON.stringify(this.schema)) this.schema = s;
  }

  /** Run every cell that runs on open and report, for window.workbench.runAll(). */
  async runAll(): Promise<{ cells: CellReport[] }> {
    await this.opened;
    if (this.awaitingConfirm) this.confirm(false);
    await this.runtime?.runAll();
    return { cells: this.report() };
  }

  report(): CellReport[] {
    const out: CellReport[] = [];
    this.doc.cells.forEach((c, i) => {
      if (c.kind === 'md' || !this.runtime) return;
      const s = this.runtime.state(c.key);
      const r: CellReport = { id: c.options.id ?? `${c.kind}${i + 1}`, status: s.status };
      if (s.table) r.rows = s.table.numRows;
      if (s.error) r.error = s.error;
      out.push(r);
    });
    return out;
  }

  /** Resolves when the runtime has nothing left to run. */
  idle(): Promise<void> {
    return this.runtime?.idle() ?? Promise.resolve();
  }

  /** The user trusts the notebook's queries (they run read-only), and its effect cells too when `effects`. */
  private confirm(effects: boolean): void {
    this.awaitingConfirm = false;
    if (this.runtime) {
      this.runtime.autorun = true;
      this.opened = this.afterRun(this.runtime.runAll({ effects }));
    }
    this.dispatchEvent(new CustomEvent('aw-confirmed', { bubbles: true, composed: true }));
  }

  private change(cells: Cell[], frontMatter = this.doc.frontMatter): void {
    this.doc = { frontMatter, cells };
    this.dispatchEvent(new CustomEvent('aw-doc-change', { detail: { doc: this.doc }, bubbles: true, composed: true }));
  }

  private onEdit(e: CustomEvent<{ key: string; source?: string; options?: Cell['options'] }>): void {
    if (this.readonly) return;
    const { key, source, options } = e.detail;
    const cells = this.doc.cells.map((c) => (c.key === key ? { ...c, source: source ?? c.source, options: options ?? c.options } : c));
    this.change(cells);
    const c = cells.find((x) => x.key === key);
    // A chart spec has no SQL: redraw at once. Option changes (id, effect) take effect on the next run.
    if (c?.kind === 'plot') void this.runtime?.runCell(key, { explicit: false });
  }

  private focusCell(index: number, at: 'start' | 'end' = 'start'): void {
    void this.updateComplete.then(() => {
      const els = this.renderRoot.querySelectorAll<AwCell>('aw-cell');
      const el = els[Math.max(0, Math.min(els.length - 1, index))];
      el?.updateComplete.then(() => el.focus({ at }));
    });
  }

  private onAction(e: CustomEvent<{ key: string } & CellAction>): void {
    const d = e.detail;
    const cells = [...this.doc.cells];
    const i = cells.findIndex((c) => c.key === d.key);
    if (i < 0) return;
    if (d.action === 'focus') {
      this.focusCell(i + d.dir, d.dir < 0 ? 'end' : 'start');
      return;
    }
    if (d.action === 'stop') {
      void this.runtime?.stop().catch((err) => this.services?.notify(`Could not stop the query: ${err instanceof Error ? err.message : String(err)}`, 'error'));
      return;
    }
    if (d.action === 'run') {
      if (this.awaitingConfirm) return;
      // A notebook from someone else runs its effect cells only through the confirmation that lists them.
      const runnable = cells[i].kind !== 'md' && !(this.readonly && cells[i].options.effect);
      if (runnable) this.runAndRecord(d.key);
      if (d.advance) {
        if (i === cells.length - 1 && !this.readonly) this.change([...cells, makeCell('sql')]);
        this.focusCell(i + 1);
      }
      return;
    }
    if (d.action === 'run-insert') {
      if (this.awaitingConfirm) return;
      const runnable = cells[i].kind !== 'md' && !(this.readonly && cells[i].options.effect);
      if (runnable) this.runAndRecord(d.key);
      if (this.readonly) return;
      cells.splice(i + 1, 0, makeCell('sql'));
      this.change(cells);
      this.focusCell(i + 1);
      return;
    }
    if (d.action === 'export') {
      void this.exportCell(cells[i], d.format);
      return;
    }
    if (this.readonly) return;
    if (d.action === 'chart') {
      this.openAsChart(i);
      return;
    }
    const r = applyEdit(cells, this.deleted, i, d);
    if (!r) return;
    this.deleted = r.deleted;
    if (d.action === 'add' && d.kind === 'plot') r.cells[r.focus] = this.chartFromAbove(r.cells, r.focus);
    this.change(r.cells);
    this.focusCell(r.focus);
    if (d.action === 'delete') this.services?.notify(`Cell deleted. Alt+Shift+Z in a cell brings it back.`, 'info');
    if (d.action === 'kind') void this.runtime?.runCell(d.key, { explicit: false });
    if (d.action === 'add' && d.kind === 'plot') this.drawSoon(r.cells[r.focus].key);
  }

  /** Tell the panel the cells ran (aw-notebook-ran): the sidebar lists the views they defined. */
  private async afterRun(p: Promise<void>): Promise<void> {
    await p;
    this.dispatchEvent(new CustomEvent('aw-notebook-ran', { bubbles: true, composed: true }));
  }

  /** Run a cell the user asked for and report the run for the query history (aw-query-run). */
  private runAndRecord(key: string): void {
    const rt = this.runtime;
    if (!rt) return;
    void rt.runCell(key).then(() => {
      const c = this.doc.cells.find((x) => x.key === key);
      if (c?.kind !== 'sql' || !c.source.trim() || rt !== this.runtime) return;
      const s = rt.state(key);
      const detail = { cellId: c.options.id ?? null, sql: c.source, status: s.status, rows: s.table?.numRows ?? null, ms: s.ms, error: s.error };
      this.dispatchEvent(new CustomEvent('aw-query-run', { detail, bubbles: true, composed: true }));
    });
  }

  /** Insert text into the SQL editor used last (else the first SQL cell's). */
  insertText(text: string): void {
    if (this.readonly) return;
    const els = [...this.renderRoot.querySelectorAll<AwCell>('aw-cell')];
    const el = els.find((e) => e.cell.key === this.lastCellKey && e.cell.kind === 'sql') ?? els.find((e) => e.cell.kind === 'sql');
    el?.insertText(text);
  }

  /** Add a SQL cell at the end with this query and run it. */
  runSql(sql: string): void {
    if (this.readonly) return;
    const cell = makeCell('sql', sql);
    this.change([...this.doc.cells, cell]);
    this.focusCell(this.doc.cells.length - 1);
    void this.updateComplete.then(() => this.runAndRecord(cell.key));
  }

  private openAsChart(i: number): void {
    const c = this.doc.cells[i];
    const t = this.runtime?.state(c.key).table;
    if (!c.options.id) return;
    const cell = makeCell('plot', chartSpec(c.options.id, t?.schema.fields ?? []));
    const cells = [...this.doc.cells];
    cells.splice(i + 1, 0, cell);
    this.change(cells);
    void this.updateComplete.then(() => this.runtime?.runCell(cell.key, { explicit: false }));
  }

  private async exportCell(c: Cell, format: 'parquet' | 'jsonl' | 'csv'): Promise<void> {
    const s = this.services;
    if (!s || !this.runtime) return;
    // A query cell exports the one statement the runtime checked (asSelect), not its raw text.
    const sql = this.runtime.exportSql(c.key);
    try {
      const blob = await s.exporter.exportQuery(sql, { format });
      download(blob, `${c.options.id ?? 'result'}.${format}`);
    } catch (e) {
      s.notify(`Export failed: ${e instanceof Error ? e.message : String(e)}`, 'error');
    }
  }

  override render() {
    const views = this.chartViews();
    if (!this.services?.pool) return html`<div class="nopool">Waiting for the data pool…</div>`;
    const rt = this.runtime;
    return html`
      ${this.awaitingConfirm ? this.confirmation() : nothing}
      ${this.doc.cells.map(
        (c, i) => html`<aw-cell .cell=${c} .state=${rt ? rt.state(c.key) : null} .rev=${this.rev} .index=${i} .schema=${this.schema} .views=${views} ?readonly=${this.readonly}
          .stale=${rt ? rt.staleness(c.key) : null} .summarize=${rt ? () => rt.summary(c.key) : null}
          @focusin=${() => (this.lastCellKey = c.key)}
          @aw-cell-edit=${this.onEdit} @aw-cell-action=${this.onAction}></aw-cell>`,
      )}
      ${this.readonly
        ? nothing
        : html`<div class="end">
            <button aria-label="Add SQL cell at the end" @click=${() => this.addAtEnd('sql')}>+ SQL</button>
            <button aria-label="Add Markdown cell at the end" @click=${() => this.addAtEnd('md')}>+ Markdown</button>
            <button aria-label="Add chart cell at the end" @click=${() => this.addAtEnd('plot')}>+ Chart</button>
          </div>`}
    `;
  }

  /** What running this notebook would do: its queries read-only, and exactly these effect cells only if the user picks that. */
  private confirmation() {
    const effects = this.runtime?.effectCells() ?? [];
    const n = effects.length;
    const plural = n === 1 ? 'effect cell' : 'effect cells';
    return html`<div class="confirm" role="alert">
      <p>“${notebookTitle(this.doc)}” was opened from ${this.origin ?? 'a link'}. It is read-only and nothing has run yet. Its query cells run read-only: they can read the pool but not change it.</p>
      ${n
        ? html`<p>It also has ${n} ${plural}, which change data. They run only if you choose so below; this is exactly what they run:</p>
            <ol class="effects" aria-label="Effect cells this notebook would run">
              ${effects.map((c) => html`<li>effect cell ${c.options.id ?? this.doc.cells.indexOf(c) + 1}<pre>${c.source}</pre></li>`)}
            </ol>`
        : nothing}
      <div class="choices">
        <button @click=${() => this.confirm(false)}>Run queries only</button>
        ${n ? html`<button @click=${() => this.confirm(true)}>Run queries and ${n} ${plural}</button>` : nothing}
      </div>
    </div>`;
  }

  private addAtEnd(kind: CellKind): void {
    const cells = [...this.doc.cells, makeCell(kind, TEMPLATES[kind])];
    if (kind === 'plot') cells[cells.length - 1] = this.chartFromAbove(cells, cells.length - 1);
    this.change(cells);
    this.focusCell(this.doc.cells.length - 1);
    if (kind === 'plot') this.drawSoon(cells[cells.length - 1].key);
  }

  /** A new chart cell at `at` starts from the nearest query cell with an id above it: its view, fields from its columns. */
  private chartFromAbove(cells: readonly Cell[], at: number): Cell {
    const cell = cells[at];
    for (let i = at - 1; i >= 0; i--) {
      const c = cells[i];
      if (c.kind !== 'sql' || !c.options.id || c.options.effect) continue;
      return { ...cell, source: chartSpec(c.options.id, this.runtime?.state(c.key).table?.schema.fields ?? []) };
    }
    return cell;
  }

  private drawSoon(key: string): void {
    void this.updateComplete.then(() => this.runtime?.runCell(key, { explicit: false }));
  }

  /** The query cells with an id and their columns (when they ran): the chart settings' data choices and fields. */
  private chartViews(): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const c of this.doc.cells) if (c.kind === 'sql' && c.options.id && !c.options.effect) out[c.options.id] = this.schema[c.options.id] ?? [];
    return out;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-notebook': AwNotebook;
  }
}
