/**
 * <aw-trajectory-list>: a virtualized, sortable trajectory table (only visible rows are in the DOM).
 * Sorting is done by the query: clicking a header emits `aw-sort-change` {sort}.
 *
 * API: `table` (rows of trajectoriesSql), `costs` (USD by trajectory_uid: the price table applied, not a
 * query column, so it is not sortable), `sort`, `selected` (trajectory_uid);
 * events `aw-trajectory-select` {trajectoryUid, index}, `aw-sort-change` {sort}.
 */
import type { Table } from 'apache-arrow';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';
import { cellValue } from '../../pool/rows';
import { cellText } from '../value-text';
import type { Sort, TrajectoryColumn } from '../../pool/queries/dashboard';
import { base } from '../kit/styles';
import { formatUsd } from '../kit/prices';

/** A trajectory's cost and its steps without one: whose model has no price, whose source recorded no token counts. */
export interface TrajectoryCost {
  usd: number | null;
  unpriced: number;
  untokened: number;
}
const COST_WIDTH = '70px';

const ROW_H = 24;
const OVERSCAN = 6;
const SHOWN: { col: TrajectoryColumn; label: string; width: string }[] = [
  { col: 'trajectory_uid', label: 'trajectory', width: 'minmax(140px, 2fr)' },
  { col: 'prompt_uid', label: 'prompt', width: 'minmax(90px, 1fr)' },
  { col: 'step_count', label: 'steps', width: '56px' },
  { col: 'complete', label: 'done', width: '50px' },
  { col: 'reward_sum', label: 'reward', width: '64px' },
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

@customElement('aw-trajectory-list')
export class AwTrajectoryList extends LitElement {
  @property({ attribute: false }) table: Table | null = null;
  @property({ attribute: false }) sort: Sort = { column: 'trajectory_uid', descending: false };
  @property() selected: string | null = null;
  @property({ attribute: false }) costs: ReadonlyMap<string, TrajectoryCost> | null = null;
  @property({ type: Number }) height = 360;

  @state() private first = 0;
  @query('.scroll') private scroller!: HTMLElement;
  private frame = 0;

  static override styles = [
    base,
    css`
    :host { display: block; font-size: 12px; line-height: 1.4; }
    .scroll { overflow: auto; border: 1px solid var(--aw-border); position: relative; background: var(--aw-panel); }
    .row { display: grid; gap: 0; flex-wrap: nowrap; position: absolute; left: 0; right: 0; height: ${ROW_H}px; align-items: center; cursor: pointer; }
    .row > div { padding: 0 6px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    .row:hover { background: var(--aw-accent-bg); }
    .row[aria-selected='true'] { background: var(--aw-selected); }
    .head { position: sticky; top: 0; z-index: 1; display: grid; background: var(--aw-subtle); border-bottom: 1px solid var(--aw-border); height: ${ROW_H}px; }
    .head button { all: unset; cursor: pointer; padding: 0 6px; font-weight: 600; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; line-height: ${ROW_H}px; }
    .head button:focus-visible { outline: 2px solid var(--aw-accent); }
    .num { text-align: right; font-variant-numeric: tabular-nums; }
    .cost-head { padding: 0 6px; font-weight: 600; line-height: ${ROW_H}px; color: var(--aw-muted); }
    .bad { color: var(--aw-error); }
    .empty { padding: 8px; color: var(--aw-muted); }
  `,
  ];

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('table')) {
      this.first = 0;
      if (this.scroller) this.scroller.scrollTop = 0;
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

  private toggleSort(col: TrajectoryColumn): void {
    const sort: Sort = { column: col, descending: this.sort.column === col ? !this.sort.descending : col !== 'trajectory_uid' && col !== 'prompt_uid' };
    this.sort = sort;
    this.dispatchEvent(new CustomEvent('aw-sort-change', { detail: { sort }, bubbles: true, composed: true }));
  }

  private pick(i: number): void {
    const uid = String(this.table?.getChild('trajectory_uid')?.get(i));
    this.selected = uid;
    this.dispatchEvent(new CustomEvent('aw-trajectory-select', { detail: { trajectoryUid: uid, index: i }, bubbles: true, composed: true }));
  }

  private costCell(uid: string) {
    const c = this.costs?.get(uid);
    const missing = c ? [c.unpriced ? `${c.unpriced} ${c.unpriced === 1 ? 'step needs' : 'steps need'} a price` : '', c.untokened ? `${c.untokened} without token counts` : ''].filter(Boolean) : [];
    const partial = missing.length > 0 && c?.usd !== null;
    return html`<div role="gridcell" class="num" title=${missing.length ? `Not in this cost: ${missing.join('; ')}` : nothing}>${formatUsd(c?.usd ?? null)}${partial ? '+' : ''}</div>`;
  }

  override render() {
    const t = this.table;
    if (!t) return html`<div class="empty">Loading trajectories…</div>`;
    const n = t.numRows;
    const cols = [...SHOWN.map((c) => c.width), COST_WIDTH].join(' ');
    const idx = SHOWN.map((c) => t.schema.fields.findIndex((f) => f.name === c.col));
    const visible = Math.ceil(this.height / ROW_H) + 2 * OVERSCAN;
    const rows = [];
    for (let i = this.first; i < Math.min(n, this.first + visible); i++) {
      const uid = String(t.getChild('trajectory_uid')?.get(i));
      rows.push(html`<div class="row" role="row" aria-rowindex=${i + 2} aria-selected=${uid === this.selected ? 'true' : 'false'} tabindex="0"
        style="top:${(i + 1) * ROW_H}px;grid-template-columns:${cols}" @click=${() => this.pick(i)}
        @keydown=${(e: KeyboardEvent) => {
          if (e.key === 'Enter' || e.key === ' ') {
            e.preventDefault();
            this.pick(i);
          }
        }}>
        ${SHOWN.map((c, j) => {
          const v = idx[j] >= 0 ? cellValue(t, idx[j], i) : null;
          const cls = typeof v === 'number' ? (c.col === 'error_steps' && v > 0 ? 'num bad' : 'num') : '';
          return html`<div role="gridcell" class=${cls} title=${typeof v === 'string' ? v : nothing}>${v === null ? '—' : typeof v === 'boolean' ? (v ? '✓' : '…') : cellText(v)}</div>`;
        })}
        ${this.costCell(uid)}
      </div>`);
    }
    return html`<div class="scroll" role="grid" aria-label="Trajectories" aria-rowcount=${n + 1} style="height:${this.height}px" @scroll=${this.onScroll}>
        <div style="position:relative;height:${(n + 1) * ROW_H}px;min-width:900px">
          <div class="head" role="row" style="grid-template-columns:${cols}">
            ${SHOWN.map((c) => {
              const on = this.sort.column === c.col;
              return html`<button role="columnheader" aria-sort=${on ? (this.sort.descending ? 'descending' : 'ascending') : 'none'}
                aria-label=${`Sort by ${c.label}`} @click=${() => this.toggleSort(c.col)}>${c.label}${on ? (this.sort.descending ? ' ↓' : ' ↑') : ''}</button>`;
            })}
            <span role="columnheader" class="num cost-head" title="USD from the model price table (Prices…); not sortable">cost</span>
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
