/**
 * <aw-notebook-sidebar>: the schema (tables, views and this notebook's cell views, with column
 * types) and the query history (persisted, this notebook's or all). Clicking a name or a past
 * query inserts it into the SQL editor last used (aw-insert {text}); "run" adds it as a new cell
 * and runs it (aw-run-sql {sql}).
 */
import { consume } from '@lit/context';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { type Services, servicesContext } from '../kit/services';
import { groupSchema, type SchemaTable, schemaColumnsSql } from './queries';
import { PoolQueryController, schemaMayHaveChanged } from '../kit/pool-refresh';
import type { HistoryEntry, NotebookStore } from '../../notebook/storage';
import { formatMs } from '../aw-table';
import { sqlName } from '../../pool/sql';


@customElement('aw-notebook-sidebar')
export class AwNotebookSidebar extends LitElement {
  @consume({ context: servicesContext, subscribe: true })
  @property({ attribute: false })
  services?: Services;
  @property({ attribute: false }) store: NotebookStore | null = null;
  @property() notebookId = '';
  @property() notebookSchema = '';
  /** Bumped by the panel when a cell ran (views may have changed, the history grew). */
  @property({ type: Number }) refreshKey = 0;

  @state() private tables: SchemaTable[] = [];
  @state() private open = new Set<string>();
  @state() private history: HistoryEntry[] = [];
  /** Show the runs of every notebook, not only this one's. */
  @state() allHistory = false;
  /** The schema is re-read only when shown, and only when a change may have touched it (not every imported batch). */
  private query = new PoolQueryController(this, { pool: () => this.services?.pool, tables: schemaMayHaveChanged, run: () => this.loadTables() });

  static override styles = css`
    :host { display: block; font: 12px/1.4 system-ui, sans-serif; color: var(--aw-text); }
    h2 { font-size: 11px; text-transform: uppercase; letter-spacing: .04em; color: var(--aw-muted); margin: 10px 0 2px; display: flex; align-items: center; gap: 6px; }
    h2 .sp { flex: 1; }
    ul { list-style: none; margin: 0; padding: 0; }
    button { font: inherit; color: inherit; }
    .t { display: flex; align-items: center; gap: 2px; }
    .tog { all: unset; cursor: pointer; width: 14px; text-align: center; color: var(--aw-muted); }
    .name { all: unset; cursor: pointer; font-family: ui-monospace, monospace; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; padding: 0 3px; border-radius: 3px; }
    .name:hover, .tog:hover { background: var(--aw-subtle); }
    .name:focus-visible, .tog:focus-visible, .h button:focus-visible { outline: 2px solid var(--aw-accent); }
    .kind { color: var(--aw-muted); font-size: 10.5px; margin-left: auto; }
    .kind.cell { color: var(--aw-json-key); }
    .cols { padding-left: 16px; }
    .cols li { display: flex; gap: 6px; align-items: baseline; }
    .type { color: var(--aw-muted); font-size: 10.5px; margin-left: auto; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; max-width: 45%; }
    .h { border-bottom: 1px solid var(--aw-subtle); padding: 3px 0; }
    .h code { display: block; font: 11.5px/1.35 ui-monospace, monospace; white-space: pre-wrap; overflow: hidden; max-height: 4.1em; overflow-wrap: anywhere; }
    .h .meta { display: flex; gap: 4px; align-items: center; color: var(--aw-muted); font-size: 10.5px; }
    .h .meta .err { color: var(--aw-error); }
    .h .meta button { padding: 0 5px; border: 1px solid var(--aw-border); background: var(--aw-panel); border-radius: 3px; cursor: pointer; font-size: 10.5px; }
    .seg { display: inline-flex; border: 1px solid var(--aw-border); border-radius: 3px; overflow: hidden; text-transform: none; letter-spacing: 0; }
    .seg button { border: 0; background: var(--aw-panel); padding: 0 5px; cursor: pointer; font-size: 10.5px; }
    .seg button[aria-pressed='true'] { background: var(--aw-accent-bg); font-weight: 600; }
    .none { color: var(--aw-muted); }
  `;

  protected override willUpdate(changed: PropertyValues<this>): void {
    // a new pool is read by the controller; the schema is read now if the sidebar is shown, else when it is shown
    // (the Notebook tab is mounted, hidden, at every start: its information_schema read cost the pool worker ≈ 0.18 s)
    if (changed.has('notebookSchema') || changed.has('refreshKey')) void this.query.invalidate();
    if (changed.has('store') || changed.has('notebookId') || changed.has('refreshKey') || changed.has('allHistory')) void this.loadHistory();
  }

  private async loadTables(): Promise<void> {
    const pool = this.services?.pool;
    if (!pool) return;
    try {
      this.tables = groupSchema(await pool.rows(schemaColumnsSql(this.notebookSchema)), this.notebookSchema);
    } catch {
      /* the sidebar is a convenience; the editor still works */
    }
  }

  private async loadHistory(): Promise<void> {
    if (!this.store) return;
    this.history = await this.store.history(this.allHistory ? undefined : this.notebookId, 50);
  }

  private insert(text: string): void {
    this.dispatchEvent(new CustomEvent('aw-insert', { detail: { text }, bubbles: true, composed: true }));
  }

  private toggle(key: string): void {
    const s = new Set(this.open);
    if (s.has(key)) s.delete(key);
    else s.add(key);
    this.open = s;
  }

  private renderTable(t: SchemaTable) {
    const key = `${t.kind}.${t.name}`;
    const open = this.open.has(key);
    return html`<li>
      <div class="t">
        <button class="tog" aria-expanded=${open ? 'true' : 'false'} aria-label=${`${open ? 'Hide' : 'Show'} columns of ${t.name}`} @click=${() => this.toggle(key)}>${open ? '▾' : '▸'}</button>
        <button class="name" title=${`Insert ${t.name}`} aria-label=${`Insert table name ${t.name}`} @click=${() => this.insert(sqlName(t.name))}>${t.name}</button>
        <span class="kind ${t.kind}">${t.kind}</span>
      </div>
      ${open
        ? html`<ul class="cols" aria-label=${`Columns of ${t.name}`}>
            ${t.columns.map((c) => html`<li><button class="name" aria-label=${`Insert column name ${c.name}`} title=${`${c.name} ${c.type}`} @click=${() => this.insert(sqlName(c.name))}>${c.name}</button><span class="type" title=${c.type}>${c.type.toLowerCase()}</span></li>`)}
          </ul>`
        : nothing}
    </li>`;
  }

  private renderEntry(e: HistoryEntry) {
    const when = new Date(e.at);
    const time = when.toDateString() === new Date().toDateString() ? when.toTimeString().slice(0, 5) : when.toISOString().slice(0, 10);
    return html`<li class="h">
      <code title=${e.sql}>${e.sql}</code>
      <div class="meta">
        <span>${time}</span>
        ${e.status === 'error' ? html`<span class="err" title=${e.error ?? ''}>error</span>` : html`<span>${e.rows ?? 0} rows${e.ms !== null ? ` · ${formatMs(e.ms)}` : ''}</span>`}
        ${this.allHistory && e.notebookTitle ? html`<span title=${e.notebookTitle}>· ${e.notebookTitle.slice(0, 18)}</span>` : nothing}
        <span style="flex:1"></span>
        <button aria-label="Insert this query into the editor" @click=${() => this.insert(e.sql)}>insert</button>
        <button aria-label="Run this query in a new cell" @click=${() => this.dispatchEvent(new CustomEvent('aw-run-sql', { detail: { sql: e.sql }, bubbles: true, composed: true }))}>run</button>
      </div>
    </li>`;
  }

  override render() {
    return html`
      <h2 id="schema-h">Tables</h2>
      <ul aria-labelledby="schema-h">${this.tables.map((t) => this.renderTable(t))}</ul>
      ${this.tables.length ? nothing : html`<div class="none">No tables yet.</div>`}
      <h2 id="history-h">History <span class="sp"></span>
        <span class="seg" role="group" aria-label="Which history">
          <button aria-pressed=${this.allHistory ? 'false' : 'true'} @click=${() => (this.allHistory = false)}>this</button><button aria-pressed=${this.allHistory ? 'true' : 'false'} @click=${() => (this.allHistory = true)}>all</button>
        </span>
      </h2>
      <ul aria-labelledby="history-h" class="history">${this.history.map((e) => this.renderEntry(e))}</ul>
      ${this.history.length ? nothing : html`<div class="none">Queries you run appear here.</div>`}
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-notebook-sidebar': AwNotebookSidebar;
  }
}
