/**
 * <aw-cell>: one notebook cell — toolbar, source editor, and its output (result table, chart,
 * rendered Markdown or the error in place). Changes go up as events; <aw-notebook> owns the doc:
 *   aw-cell-edit   {key, source?, options?}
 *   aw-cell-action {key, action, ...}   action: run | run-next | stop | delete | move | duplicate | add | kind | chart | export | focus
 */
import { errorWithoutEcho } from './error-text';
import { css, html, LitElement, nothing } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';
import { unsafeHTML } from 'lit/directives/unsafe-html.js';
import type { ColumnSummary } from '../../notebook/column-summary';
import type { CellEdit } from '../../notebook/edits';
import type { Cell, CellKind, CellOptions } from '../../notebook/model';
import { renderMarkdown } from './markdown';
import type { CellRuntimeState } from '../../notebook/runtime';
import type { ExportFormat } from '../../contract/reports';
import { cellValue } from '../../pool/rows';
import '../aw-table';
import { formatMs } from '../aw-table';
import { toTsv } from '../value-text';
import './aw-chart';
import './aw-sql-editor';
import type { AwSqlEditor, SqlSchema } from './aw-sql-editor';

export type CellAction =
  | CellEdit
  | { action: 'run'; advance: boolean }
  | { action: 'chart' }
  | { action: 'stop' }
  | { action: 'focus'; dir: -1 | 1 }
  | { action: 'run-insert' }
  | { action: 'export'; format: ExportFormat };

export { renderMarkdown } from './markdown';

@customElement('aw-cell')
export class AwCell extends LitElement {
  @property({ attribute: false }) cell!: Cell;
  @property({ attribute: false }) state: CellRuntimeState | null = null;
  /** Bumped by the notebook when `state` changed in place. */
  @property({ type: Number }) rev = 0;
  @property({ type: Number }) index = 0;
  @property({ type: Boolean }) readonly = false;
  @property({ attribute: false }) schema: SqlSchema = {};
  /** The notebook's query cells with an id and their columns (a chart's data choices). */
  @property({ attribute: false }) views: Record<string, string[]> = {};
  /** Why the output is out of date (runtime.staleness), or null. */
  @property({ attribute: false }) stale: string | null = null;
  /** Per-column summaries of the current result (runtime.summary), or null. */
  @property({ attribute: false }) summarize: (() => Promise<ColumnSummary[]> | null) | null = null;
  @state() private editingMd = false;
  @state() private summaries: ColumnSummary[] | null = null;
  private summaryRun = -1;
  @query('aw-sql-editor') private editor?: AwSqlEditor;

  static override styles = css`
    :host { display: block; position: relative; margin: 0 0 10px; font: 13px/1.45 system-ui, sans-serif; color: var(--aw-text); }
    .cell { border-left: 3px solid transparent; padding-left: 6px; }
    :host(:focus-within) .cell { border-left-color: var(--aw-accent); }
    .cell.error { border-left-color: var(--aw-error); }
    .tools { display: flex; flex-wrap: wrap; gap: 3px; align-items: center; font-size: 11.5px; color: var(--aw-muted); min-height: 22px; }
    .tools .spacer { flex: 1; }
    .tools button, .tools select, .actions button { font: inherit; padding: 0 5px; height: 20px; border: 1px solid var(--aw-border); background: var(--aw-subtle); border-radius: 3px; cursor: pointer; color: var(--aw-text); }
    .tools button:hover, .actions button:hover { background: var(--aw-subtle); }
    .tools input[type='checkbox'] { width: auto; height: auto; margin: 0 2px 0 6px; }
    .tools input:not([type='checkbox']) { font: inherit; width: 120px; height: 18px; padding: 0 4px; border: 1px solid var(--aw-border); font-family: ui-monospace, monospace; }
    .tools label { display: inline-flex; align-items: center; gap: 2px; }
    .status { font-family: ui-monospace, monospace; }
    .status.running, .status.queued { color: var(--aw-warn); }
    .status.error { color: var(--aw-error); }
    .run { color: var(--aw-ok) !important; font-weight: 600; }
    .error-box { color: var(--aw-error); background: var(--aw-error-bg); border: 1px solid var(--aw-error-bg); padding: 6px 8px; white-space: pre-wrap; font: 12px/1.4 ui-monospace, monospace; margin-top: 4px; }
    .note { color: var(--aw-muted); font-size: 12px; padding: 3px 0; }
    .out { margin-top: 4px; }
    .actions { display: flex; gap: 4px; margin-top: 2px; font-size: 11.5px; }
    .md { padding: 2px 4px; cursor: text; }
    .md :first-child { margin-top: 0; }
    .md :last-child { margin-bottom: 0; }
    .md pre, .md code { background: var(--aw-subtle); font-family: ui-monospace, monospace; font-size: 12px; }
    .md table { border-collapse: collapse; }
    .md td, .md th { border: 1px solid var(--aw-border); padding: 2px 6px; }
    .hidden-src { font: 12px ui-monospace, monospace; color: var(--aw-muted); cursor: pointer; background: var(--aw-subtle); border: 1px dashed var(--aw-border); padding: 2px 6px; }
    .effect-tag { color: var(--aw-json-key); font-weight: 600; }
    .stale-tag { color: var(--aw-warn); background: var(--aw-warn-bg); border: 1px solid var(--aw-warn-border); border-radius: 3px; padding: 0 4px; font-weight: 600; }
    .cell.stale .out, .cell.stale .note { opacity: .55; }
  `;

  override connectedCallback(): void {
    super.connectedCallback();
    // Capture: the cell's shortcuts win over the editor's own bindings of the same keys.
    this.addEventListener('keydown', this.onShortcut, { capture: true });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.removeEventListener('keydown', this.onShortcut, { capture: true });
  }

  protected override updated(): void {
    const s = this.state;
    if (s?.status !== 'done' || !s.table || s.runId === this.summaryRun || !this.summarize) return;
    this.summaryRun = s.runId;
    const runId = s.runId;
    this.summaries = null;
    if (s.table.numRows < 2) return;
    this.summarize()
      ?.then((sum) => {
        if (this.state?.runId === runId) this.summaries = sum;
      })
      .catch(() => {
        /* a summary is a convenience: the table shows without it */
      });
  }

  /** Cell shortcuts, anywhere in the cell (listed in the ? sheet, app/aw-shortcuts.ts). */
  private onShortcut = (e: KeyboardEvent): void => {
    const a = cellShortcut(e);
    if (!a) return;
    e.preventDefault();
    e.stopPropagation();
    if (this.cell.kind === 'md' && this.editingMd && a.action === 'run-insert') this.editingMd = false;
    this.act(a);
  };

  private edit(patch: { source?: string; options?: CellOptions }): void {
    this.dispatchEvent(new CustomEvent('aw-cell-edit', { detail: { key: this.cell.key, ...patch }, bubbles: true, composed: true }));
  }

  private act(a: CellAction): void {
    this.dispatchEvent(new CustomEvent('aw-cell-action', { detail: { key: this.cell.key, ...a }, bubbles: true, composed: true }));
  }

  override focus(opts?: FocusOptions & { at?: 'start' | 'end' }): void {
    // An empty Markdown cell (a new one) has nothing to show: focus it in edit mode.
    if (this.cell?.kind === 'md' && !this.cell.source.trim() && !this.editingMd && !this.readonly) this.startMd();
    else if (this.editor) this.editor.focus(opts);
    else (this.renderRoot.querySelector('.md, button') as HTMLElement | null)?.focus(opts);
  }

  /** Insert text into this cell's SQL editor (the schema sidebar, the query history). */
  insertText(text: string): void {
    if (this.cell.options.hidden) this.setOption('hidden', false);
    void this.updateComplete.then(() => this.editor?.insert(text));
  }

  private setOption<K extends keyof CellOptions>(k: K, v: CellOptions[K]): void {
    const options = { ...this.cell.options };
    if (v === undefined || v === false || v === '') delete options[k];
    else options[k] = v;
    if (k === 'run' && v === true) delete options.run;
    this.edit({ options });
  }

  private copyTsv(): void {
    const t = this.state?.table;
    if (!t) return;
    const cols = t.schema.fields.map((f) => f.name);
    const rows: unknown[][] = [];
    const n = Math.min(t.numRows, 100_000);
    for (let i = 0; i < n; i++) rows.push(cols.map((_, j) => cellValue(t, j, i)));
    void navigator.clipboard?.writeText(toTsv(cols, rows));
  }

  private toolbar() {
    const c = this.cell;
    const s = this.state;
    const ro = this.readonly;
    const label = c.options.id ?? `cell ${this.index + 1}`;
    return html`<div class="tools">
      ${c.kind !== 'md' && !ro ? html`<button class="run" aria-label=${`Run ${label}`} title="Run (Ctrl+Enter; Shift+Enter runs and moves on)" @click=${() => this.act({ action: 'run', advance: false })}>▶</button>` : nothing}
      <select aria-label="Cell kind" ?disabled=${ro} @change=${(e: Event) => this.act({ action: 'kind', kind: (e.target as HTMLSelectElement).value as CellKind })}>
        ${(['sql', 'plot', 'md'] as const).map((k) => html`<option value=${k} ?selected=${c.kind === k}>${k === 'md' ? 'markdown' : k}</option>`)}
      </select>
      ${c.kind === 'sql'
        ? html`<label>id <input aria-label="View id" placeholder="(no view)" .value=${c.options.id ?? ''} ?disabled=${ro}
              @change=${(e: Event) => this.setOption('id', (e.target as HTMLInputElement).value.trim() || undefined)} /></label>
            <label title="The cell changes data: it runs only when you run it"><input type="checkbox" aria-label="Effect cell" .checked=${!!c.options.effect} ?disabled=${ro}
              @change=${(e: Event) => this.setOption('effect', (e.target as HTMLInputElement).checked)} /><span class=${c.options.effect ? 'effect-tag' : ''}>effect</span></label>
            <label title="Do not compute the result on open"><input type="checkbox" aria-label="Do not run on open" .checked=${c.options.run === false} ?disabled=${ro}
              @change=${(e: Event) => this.setOption('run', (e.target as HTMLInputElement).checked ? false : undefined)} />run=false</label>`
        : nothing}
      ${s && c.kind !== 'md' ? html`<span class="status ${s.status}" role="status">${s.status}${s.ms !== null && s.status !== 'running' ? ` · ${formatMs(s.ms)}` : ''}</span>` : nothing}
      ${this.stale ? html`<span class="stale-tag" role="status" title=${`Stale: ${this.stale}`} aria-label=${`Stale: ${this.stale}`}>stale</span>` : nothing}
      ${s?.status === 'running' ? html`<button class="stop" aria-label=${`Stop ${label}`} title="Stop the running query (the pool's engine restarts; nothing saved is lost). A cell can set its own limit: timeout=30 in its fence." @click=${() => this.act({ action: 'stop' })}>■ Stop</button>` : nothing}
      <span class="spacer"></span>
      ${c.kind !== 'md' ? html`<button aria-label=${c.options.hidden ? 'Show source' : 'Hide source'} aria-pressed=${c.options.hidden ? 'true' : 'false'} ?disabled=${ro} @click=${() => this.setOption('hidden', !c.options.hidden)}>${c.options.hidden ? 'show' : 'hide'}</button>` : nothing}
      ${ro
        ? nothing
        : html`<button aria-label="Move cell up" @click=${() => this.act({ action: 'move', dir: -1 })}>↑</button>
          <button aria-label="Move cell down" @click=${() => this.act({ action: 'move', dir: 1 })}>↓</button>
          <button aria-label="dup — duplicate the cell" title="Duplicate cell" @click=${() => this.act({ action: 'duplicate' })}>dup</button>
          <button aria-label="Add SQL cell below" @click=${() => this.act({ action: 'add', kind: 'sql' })}>+sql</button>
          <button aria-label="+md — add a Markdown cell below" @click=${() => this.act({ action: 'add', kind: 'md' })}>+md</button>
          <button aria-label="+plot — add a chart cell below" @click=${() => this.act({ action: 'add', kind: 'plot' })}>+plot</button>
          <button aria-label="Delete cell" @click=${() => this.act({ action: 'delete' })}>✕</button>`}
    </div>`;
  }

  private editorFor(language: 'sql' | 'text', label: string) {
    return html`<aw-sql-editor .value=${this.cell.source} .schema=${this.schema} .language=${language} .label=${label} ?readonly=${this.readonly}
      .errorLine=${this.state?.errorLine ?? null}
      @aw-input=${(e: CustomEvent<{ value: string }>) => this.edit({ source: e.detail.value })}
      @aw-run=${(e: CustomEvent<{ advance: boolean }>) => {
        if (this.cell.kind === 'md') this.editingMd = false;
        this.act({ action: 'run', advance: e.detail.advance });
      }}
      @aw-leave=${(e: CustomEvent<{ dir: -1 | 1 }>) => this.act({ action: 'focus', dir: e.detail.dir })}></aw-sql-editor>`;
  }

  private source() {
    const c = this.cell;
    if (c.kind === 'md') {
      if (this.editingMd && !this.readonly) return this.editorFor('text', 'Markdown');
      return html`<div class="md" tabindex="0" role="article" aria-label="Markdown cell (double-click or Enter to edit)"
        @dblclick=${() => this.startMd()} @keydown=${(e: KeyboardEvent) => this.mdKey(e)}>${unsafeHTML(renderMarkdown(c.source || '*Empty Markdown cell — double-click to edit.*'))}</div>`;
    }
    // A read-only notebook came from someone else: its sources are never hidden (`hidden` could hide what a cell does).
    if (c.options.hidden && !this.readonly) {
      return html`<div class="hidden-src" role="button" tabindex="0" aria-label="Show source" @click=${() => this.setOption('hidden', false)}
        @keydown=${(e: KeyboardEvent) => e.key === 'Enter' && this.setOption('hidden', false)}>${c.kind} ${c.options.id ?? ''} · source hidden</div>`;
    }
    return this.editorFor(c.kind === 'sql' ? 'sql' : 'text', c.kind === 'sql' ? `SQL of ${c.options.id ?? `cell ${this.index + 1}`}` : 'Chart spec (YAML)');
  }

  private startMd(): void {
    if (this.readonly) return;
    this.editingMd = true;
    void this.updateComplete.then(() => this.editor?.focus({ at: 'end' }));
  }

  private mdKey(e: KeyboardEvent): void {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      this.startMd();
    } else if (e.key === 'Enter' && e.shiftKey) {
      e.preventDefault();
      this.act({ action: 'focus', dir: 1 });
    } else if (e.key === 'ArrowUp' || e.key === 'ArrowDown') {
      e.preventDefault();
      this.act({ action: 'focus', dir: e.key === 'ArrowUp' ? -1 : 1 });
    }
  }

  private output() {
    const c = this.cell;
    const s = this.state;
    if (c.kind === 'md' || !s) return nothing;
    if (s.error) return html`<div class="error-box" role="alert">${c.kind === 'sql' ? errorWithoutEcho(s.error, s.errorLine ?? null) : s.error}</div>`;
    if (c.kind === 'plot') {
      return html`<aw-chart class="out" .source=${c.source} .table=${s.table} .views=${this.views} ?readonly=${this.readonly}
        @aw-spec-change=${(e: CustomEvent<{ source: string }>) => this.edit({ source: e.detail.source })}></aw-chart>`;
    }
    return html`
      ${s.note ? html`<div class="note">${s.note}</div>` : nothing}
      ${s.table
        ? html`<aw-table class="out" .table=${s.table} .ms=${s.ms ?? undefined} .summaries=${this.summaries}></aw-table>
            <div class="actions">
              ${s.truncated ? html`<span class="note">showing the first 1,000,000 rows</span>` : nothing}
              <button aria-label="Copy result as TSV" @click=${() => this.copyTsv()}>copy</button>
              <button aria-label="Download result as Parquet" @click=${() => this.act({ action: 'export', format: 'parquet' })}>parquet</button>
              <button aria-label="Download result as JSONL" @click=${() => this.act({ action: 'export', format: 'jsonl' })}>jsonl</button>
              <button aria-label="Download result as CSV" @click=${() => this.act({ action: 'export', format: 'csv' })}>csv</button>
              ${c.options.id && !this.readonly ? html`<button aria-label="Open result as chart" @click=${() => this.act({ action: 'chart' })}>chart</button>` : nothing}
            </div>`
        : nothing}
    `;
  }

  override render() {
    if (!this.cell) return nothing;
    return html`<div class="cell ${this.state?.status === 'error' ? 'error' : ''} ${this.stale ? 'stale' : ''}" data-kind=${this.cell.kind}>
      ${this.toolbar()}${this.source()}${this.output()}
    </div>`;
  }
}

/** The cell action a key press asks for (Alt+Shift+… so the editor keeps its own keys), or null. */
export function cellShortcut(e: KeyboardEvent): CellAction | null {
  if (!e.altKey || e.ctrlKey || e.metaKey) return null;
  if (!e.shiftKey) return e.key === 'Enter' ? { action: 'run-insert' } : null;
  // e.code: Alt+Shift+letter types another character on some layouts (macOS).
  switch (e.code) {
    case 'ArrowUp':
      return { action: 'move', dir: -1 };
    case 'ArrowDown':
      return { action: 'move', dir: 1 };
    case 'KeyA':
      return { action: 'add', kind: 'sql', above: true };
    case 'KeyB':
      return { action: 'add', kind: 'sql' };
    case 'KeyM':
      return { action: 'add', kind: 'md' };
    case 'Backspace':
    case 'Delete':
      return { action: 'delete' };
    case 'KeyZ':
      return { action: 'undo-delete' };
    case 'KeyD':
      return { action: 'duplicate' };
    default:
      return null;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-cell': AwCell;
  }
}
