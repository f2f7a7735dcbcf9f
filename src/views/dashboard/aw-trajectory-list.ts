/**
 * <aw-trajectory-list>: a virtualized, sortable trajectory table (only visible rows are in the DOM), one keyboard
 * grid (WAI-ARIA grid pattern): a single Tab stop on the active row; ↑/↓, PageUp/PageDown, Home/End move it
 * (scrolling it into view), Enter or Space opens it; ↑ from the first row reaches the column headers, where ←/→ move
 * and Enter sorts. The trajectory id column stays in sight while the others scroll sideways. Sorting is done by the
 * query (every column, the cost too): clicking a header emits `aw-sort-change` {sort}.
 *
 * API: `table` (rows of trajectoriesSql), `costs` (USD by trajectory_uid, the price table applied), `sort`,
 * `selected` (trajectory_uid), `focusActive()`; events `aw-trajectory-select` {trajectoryUid, index}, `aw-sort-change` {sort}.
 */
import type { Table } from 'apache-arrow';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';
import { cellValue } from '../../pool/rows';
import { cellText } from '../value-text';
import type { Sort, TrajectorySortColumn } from './queries';
import { base } from '../kit/styles';
import { formatUsd } from '../kit/prices';

/** A trajectory's cost and its steps without one: whose model has no price, whose source recorded no token counts. */
export interface TrajectoryCost {
  usd: number | null;
  unpriced: number;
  untokened: number;
}

const ROW_H = 24;
const OVERSCAN = 6;
const SHOWN: { col: TrajectorySortColumn; label: string; width: string }[] = [
  { col: 'trajectory_uid', label: 'trajectory', width: 'minmax(140px, 2fr)' },
  { col: 'started_at', label: 'started', width: '128px' },
  { col: 'prompt_uid', label: 'prompt', width: 'minmax(90px, 1fr)' },
  { col: 'step_count', label: 'steps', width: '56px' },
  { col: 'complete', label: 'done', width: '50px' },
  { col: 'reward_sum', label: 'reward', width: '64px' },
  { col: 'cost_usd', label: 'cost', width: '84px' },
  { col: 'agents', label: 'agent', width: 'minmax(70px, 1fr)' },
  { col: 'models', label: 'model', width: 'minmax(70px, 1fr)' },
  { col: 'data_source', label: 'source', width: 'minmax(70px, 1fr)' },
  { col: 'error_steps', label: 'errors', width: '56px' },
  { col: 'bad_steps', label: 'bad', width: '44px' },
  { col: 'unreviewed_steps', label: 'unrev.', width: '56px' },
  { col: 'trainable_steps', label: 'train', width: '50px' },
  { col: 'completion_tokens', label: 'out tok', width: '64px' },
  { col: 'duration_ms', label: 'ms', width: '64px' },
];
const TEXT_COLUMNS: ReadonlySet<TrajectorySortColumn> = new Set(['trajectory_uid', 'prompt_uid', 'agents', 'models', 'data_source']);

/** "2026-11-20 09:00" (UTC, as the pool stores times). */
function shortTime(v: unknown): string {
  const d = v instanceof Date ? v : typeof v === 'number' || typeof v === 'string' ? new Date(v) : null;
  return d && !Number.isNaN(d.getTime()) ? d.toISOString().slice(0, 16).replace('T', ' ') : '—';
}

@customElement('aw-trajectory-list')
export class AwTrajectoryList extends LitElement {
  @property({ attribute: false }) table: Table | null = null;
  @property({ attribute: false }) sort: Sort = { column: 'started_at', descending: true };
  @property() selected: string | null = null;
  @property({ attribute: false }) costs: ReadonlyMap<string, TrajectoryCost> | null = null;
  @property({ type: Number }) height = 360;

  @state() private first = 0;
  /** The row that holds the grid's one Tab stop (-1: the header row, at `headerAt`). */
  @state() active = 0;
  @state() private headerAt = 0;
  @query('.scroll') private scroller!: HTMLElement;
  private frame = 0;

  static override styles = [
    base,
    css`
    :host { display: block; font-size: 12px; line-height: 1.4; }
    .scroll { overflow: auto; border: 1px solid var(--aw-border); position: relative; background: var(--aw-panel); }
    .scroll:focus-visible { outline: 2px solid var(--aw-accent); }
    .row { display: grid; gap: 0; flex-wrap: nowrap; position: absolute; left: 0; right: 0; height: ${ROW_H}px; align-items: center; cursor: pointer; background: var(--aw-panel); }
    .row > div { padding: 0 6px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; height: 100%; line-height: ${ROW_H}px; background: inherit; }
    .row:hover { background: var(--aw-accent-bg); }
    .row[aria-selected='true'] { background: var(--aw-selected); }
    .row:focus-visible { outline: 2px solid var(--aw-accent); outline-offset: -2px; }
    /* the id column stays in sight while the others scroll sideways */
    .row > div:first-child, .head > div:first-child { position: sticky; left: 0; z-index: 1; border-right: 1px solid var(--aw-border); }
    .head { position: sticky; top: 0; z-index: 2; display: grid; background: var(--aw-subtle); border-bottom: 1px solid var(--aw-border); height: ${ROW_H}px; }
    .head > div { background: var(--aw-subtle); overflow: hidden; }
    .head button { all: unset; box-sizing: border-box; width: 100%; cursor: pointer; padding: 0 6px; font-weight: 600; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; line-height: ${ROW_H}px; }
    .head .num button { text-align: right; }
    .head button:focus-visible { outline: 2px solid var(--aw-accent); outline-offset: -2px; }
    .num { text-align: right; font-variant-numeric: tabular-nums; }
    .bad { color: var(--aw-error); }
    .empty { padding: 8px; color: var(--aw-muted); }
  `,
  ];

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('table')) {
      this.first = 0;
      if (this.scroller) this.scroller.scrollTop = 0;
      const at = this.selected ? this.uids.indexOf(this.selected) : -1;
      this.active = Math.max(0, at);
    }
  }

  /** trajectory_uids in list order. */
  get uids(): string[] {
    const col = this.table?.getChild('trajectory_uid');
    return col ? Array.from(col.toArray() as Iterable<unknown>, String) : [];
  }

  private onScroll(): void {
    cancelAnimationFrame(this.frame);
    this.frame = requestAnimationFrame(() => {
      this.first = Math.max(0, Math.floor(this.scroller.scrollTop / ROW_H) - OVERSCAN);
    });
  }

  private toggleSort(col: TrajectorySortColumn): void {
    const sort: Sort = { column: col, descending: this.sort.column === col ? !this.sort.descending : !TEXT_COLUMNS.has(col) };
    this.sort = sort;
    this.dispatchEvent(new CustomEvent('aw-sort-change', { detail: { sort }, bubbles: true, composed: true }));
  }

  /** Move the grid's focus to the active row (rendering it first: rows outside the window are not in the DOM). */
  async focusActive(): Promise<void> {
    const n = this.table?.numRows ?? 0;
    if (this.active >= 0 && n) {
      const top = (this.active + 1) * ROW_H;
      const s = this.scroller;
      if (s && (top < s.scrollTop + ROW_H || top + ROW_H > s.scrollTop + s.clientHeight)) {
        s.scrollTop = Math.max(0, top - (top < s.scrollTop + ROW_H ? ROW_H : s.clientHeight - ROW_H));
        this.first = Math.max(0, Math.floor(s.scrollTop / ROW_H) - OVERSCAN);
      }
    }
    await this.updateComplete;
    const el = this.active < 0 ? this.renderRoot.querySelector(`.head button[data-col="${SHOWN[this.headerAt].col}"]`) : this.renderRoot.querySelector(`.row[data-index="${this.active}"]`);
    (el as HTMLElement | null)?.focus({ preventScroll: true });
  }

  private onGridKey(e: KeyboardEvent): void {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const n = this.table?.numRows ?? 0;
    const page = Math.max(1, Math.floor(this.height / ROW_H) - 2);
    let to: number | null = null;
    if (this.active < 0) {
      if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
        this.headerAt = (this.headerAt + (e.key === 'ArrowRight' ? 1 : SHOWN.length - 1)) % SHOWN.length;
        e.preventDefault();
        void this.focusActive();
        return;
      }
      if (e.key === 'ArrowDown' && n) to = 0;
    } else if (e.key === 'ArrowDown') to = Math.min(n - 1, this.active + 1);
    else if (e.key === 'ArrowUp') to = this.active === 0 ? -1 : this.active - 1;
    else if (e.key === 'PageDown') to = Math.min(n - 1, this.active + page);
    else if (e.key === 'PageUp') to = Math.max(0, this.active - page);
    else if (e.key === 'Home') to = 0;
    else if (e.key === 'End') to = n - 1;
    else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      this.pick(this.active);
      return;
    }
    if (to === null) return;
    e.preventDefault();
    if (to === -1) this.headerAt = Math.max(0, SHOWN.findIndex((c) => c.col === this.sort.column));
    this.active = to;
    void this.focusActive();
  }

  private pick(i: number): void {
    const uid = String(this.table?.getChild('trajectory_uid')?.get(i));
    this.active = i;
    this.selected = uid;
    this.dispatchEvent(new CustomEvent('aw-trajectory-select', { detail: { trajectoryUid: uid, index: i }, bubbles: true, composed: true }));
  }

  private costCell(uid: string) {
    const c = this.costs?.get(uid);
    const missing = c ? [c.unpriced ? `${c.unpriced} ${c.unpriced === 1 ? 'step needs' : 'steps need'} a price` : '', c.untokened ? `${c.untokened} without token counts` : ''].filter(Boolean) : [];
    const partial = missing.length > 0 && c?.usd !== null;
    return html`<div role="gridcell" data-col="cost_usd" class="num" title=${missing.length ? `Not in this cost: ${missing.join('; ')}` : nothing}>${formatUsd(c?.usd ?? null)}${partial ? '+' : ''}</div>`;
  }

  override render() {
    const t = this.table;
    if (!t) return html`<div class="empty" role="status">Loading trajectories…</div>`;
    const n = t.numRows;
    const cols = SHOWN.map((c) => c.width).join(' ');
    const idx = SHOWN.map((c) => t.schema.fields.findIndex((f) => f.name === c.col));
    const visible = Math.ceil(this.height / ROW_H) + 2 * OVERSCAN;
    const active = Math.min(this.active, n - 1);
    const rows = [];
    // the window of rows in sight, and the active row wherever it is: the grid's one Tab stop is always in the DOM
    const shown = [...(active >= 0 && active < this.first ? [active] : []), ...Array.from({ length: Math.max(0, Math.min(n, this.first + visible) - this.first) }, (_, k) => this.first + k)];
    if (active >= this.first + visible && active < n) shown.push(active);
    for (const i of shown) {
      const uid = String(t.getChild('trajectory_uid')?.get(i));
      rows.push(html`<div class="row" role="row" data-index=${i} aria-rowindex=${i + 2} aria-selected=${uid === this.selected ? 'true' : 'false'} tabindex=${i === active ? 0 : -1}
        style="top:${(i + 1) * ROW_H}px;grid-template-columns:${cols}" @click=${() => this.pick(i)} @focus=${() => (this.active = i)}>
        ${SHOWN.map((c, j) => {
          if (c.col === 'cost_usd') return this.costCell(uid);
          const v = idx[j] >= 0 ? cellValue(t, idx[j], i) : null;
          if (c.col === 'started_at') return html`<div role="gridcell" data-col=${c.col} class="num">${shortTime(v)}</div>`;
          const cls = typeof v === 'number' ? (c.col === 'error_steps' && v > 0 ? 'num bad' : 'num') : '';
          return html`<div role="gridcell" data-col=${c.col} class=${cls} title=${typeof v === 'string' ? v : nothing}>${v === null ? '—' : typeof v === 'boolean' ? (v ? '✓' : '…') : cellText(v)}</div>`;
        })}
      </div>`);
    }
    return html`<div class="scroll" role="grid" aria-label="Trajectories" aria-rowcount=${n + 1} aria-colcount=${SHOWN.length} style="height:${this.height}px"
        @scroll=${this.onScroll} @keydown=${this.onGridKey}>
        <div style="position:relative;height:${(n + 1) * ROW_H}px;min-width:960px">
          <div class="head" role="row" aria-rowindex="1" style="grid-template-columns:${cols}">
            ${SHOWN.map((c, j) => {
              const on = this.sort.column === c.col;
              const num = !TEXT_COLUMNS.has(c.col) && c.col !== 'started_at' && c.col !== 'complete';
              return html`<div role="columnheader" class=${num ? 'num' : ''} aria-sort=${on ? (this.sort.descending ? 'descending' : 'ascending') : 'none'}>
                <button data-col=${c.col} tabindex=${(this.active < 0 || n === 0) && j === this.headerAt ? 0 : -1} title=${`Sort by ${c.label}${c.col === 'cost_usd' ? ' (USD from the model price table, Prices…)' : ''}`}
                  @click=${() => this.toggleSort(c.col)} @focus=${() => {
                    this.active = -1;
                    this.headerAt = j;
                  }}>${c.label}${on ? (this.sort.descending ? ' ↓' : ' ↑') : ''}</button></div>`;
            })}
          </div>
          ${rows}
        </div>
      </div>
      ${n === 0 ? html`<div class="empty">No trajectories match the filter.</div>` : nothing}`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-trajectory-list': AwTrajectoryList;
  }
}
