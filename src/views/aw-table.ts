/**
 * <aw-table>: a virtualized result table over an Arrow table. Renders only the visible rows (fixed
 * row height), so a million rows scroll smoothly; nested values are one compact line and open in a
 * detail pane. All values render as text.
 *
 * API: `table`, `ms`; event `aw-row-select` with detail {index, row}.
 */
import type { Table } from 'apache-arrow';
import { css, html, LitElement, nothing, type PropertyValues, svg } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';
import type { ColumnSummary } from '../notebook/column-summary';
import { cellValue } from '../pool/rows';
import { cellText, fullText, isNested } from './value-text';

const ROW_H = 22;
/** Height of the per-column summary under each header name. */
const SUM_H = 62;
const OVERSCAN = 8;

export interface RowSelectDetail {
  index: number;
  row: Record<string, unknown>;
}

@customElement('aw-table')
export class AwTable extends LitElement {
  @property({ attribute: false }) table: Table | null = null;
  @property({ type: Number }) ms?: number;
  /** Max visible height in pixels. */
  @property({ type: Number }) height = 360;
  /** Per-column summaries shown under the header (notebook/column-summary.ts), by column name. */
  @property({ attribute: false }) summaries: ColumnSummary[] | null = null;

  @state() private first = 0;
  @state() private viewRows = 20;
  @state() private detail: { row: number; col: number } | null = null;
  @state() private selected = -1;
  @query('.scroll') private scroller!: HTMLElement;
  private frame = 0;
  private resize?: ResizeObserver;

  static override styles = css`
    :host { display: block; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; color: var(--aw-text); }
    .scroll { overflow: auto; position: relative; border: 1px solid var(--aw-border); background: var(--aw-panel); }
    .grid { display: grid; min-width: max-content; }
    .head { position: sticky; top: 0; z-index: 1; background: var(--aw-subtle); border-bottom: 1px solid var(--aw-border); }
    .head > div { padding: 2px 6px; font-weight: 600; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; border-right: 1px solid var(--aw-subtle); }
    .head small { color: var(--aw-muted); font-weight: 400; margin-left: 4px; }
    .row { position: absolute; left: 0; display: grid; min-width: 100%; height: ${ROW_H}px; cursor: default; }
    .row.odd { background: var(--aw-subtle); }
    .row:hover { background: var(--aw-accent-bg); }
    .row[aria-selected='true'] { background: var(--aw-accent-bg); }
    .row > div { padding: 0 6px; line-height: ${ROW_H}px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; border-right: 1px solid var(--aw-subtle); }
    .idx { color: var(--aw-muted); text-align: right; }
    .num { text-align: right; font-variant-numeric: tabular-nums; }
    .null { color: var(--aw-muted); }
    button.nested { all: unset; cursor: pointer; color: var(--aw-accent); overflow: hidden; text-overflow: ellipsis; display: block; }
    button.nested:focus-visible { outline: 2px solid var(--aw-accent); }
    .foot { display: flex; gap: 12px; color: var(--aw-muted); padding: 2px 0; }
    .detail { border: 1px solid var(--aw-border); border-top: none; background: var(--aw-subtle); max-height: 260px; overflow: auto; position: relative; }
    .detail pre { margin: 0; padding: 6px 8px; white-space: pre-wrap; word-break: break-word; }
    .detail header { display: flex; justify-content: space-between; padding: 2px 8px; border-bottom: 1px solid var(--aw-border); font-weight: 600; }
    .empty { padding: 6px; color: var(--aw-muted); }
    .sum { height: ${SUM_H}px; font: 10.5px/1.3 system-ui, sans-serif; color: var(--aw-muted); font-weight: 400; display: flex; flex-direction: column; gap: 2px; padding-top: 2px; overflow: hidden; }
    .sum svg { display: block; width: 100%; height: 30px; }
    .sum svg rect { fill: var(--aw-bar); }
    .sum .range { display: flex; justify-content: space-between; gap: 4px; white-space: nowrap; overflow: hidden; }
    .sum .top { position: relative; isolation: isolate; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; padding: 0 2px; }
    .sum .top i { position: absolute; inset: 0 auto 0 0; background: var(--aw-accent-bg); z-index: -1; }
    .sum .top span { position: relative; }
  `;

  override connectedCallback(): void {
    super.connectedCallback();
    this.resize = new ResizeObserver(() => requestAnimationFrame(() => this.measure()));
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.resize?.disconnect();
    cancelAnimationFrame(this.frame);
  }

  protected override firstUpdated(): void {
    if (this.scroller) this.resize?.observe(this.scroller);
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('table')) {
      this.first = 0;
      this.detail = null;
      this.selected = -1;
      if (this.scroller) this.scroller.scrollTop = 0;
    }
  }

  protected override updated(): void {
    if (this.scroller && this.resize) this.resize.observe(this.scroller);
  }

  private measure(): void {
    const h = this.scroller?.clientHeight ?? this.height;
    this.viewRows = Math.ceil(h / ROW_H) + 1;
  }

  private onScroll(): void {
    cancelAnimationFrame(this.frame);
    this.frame = requestAnimationFrame(() => {
      this.first = Math.max(0, Math.floor((this.scroller.scrollTop - this.headH()) / ROW_H) - OVERSCAN);
    });
  }

  private headH(): number {
    return ROW_H + (this.summaries?.length ? SUM_H + 4 : 0);
  }

  private summaryOf(name: string) {
    const c = this.summaries?.find((x) => x.name === name);
    if (!c) return nothing;
    const stats = `${c.nullPct ? `${fmtPct(c.nullPct)} null · ` : ''}${c.distinctExact ? '' : '≈'}${compact(c.distinct)} distinct`;
    let body: unknown = nothing;
    if (c.bins) {
      const max = Math.max(1, ...c.bins.counts);
      const fmt = (v: number) => (c.kind === 'time' ? new Date(v * 1000).toISOString().slice(0, 10) : compact(v));
      const step = (c.bins.hi - c.bins.lo) / c.bins.counts.length;
      body = html`<svg viewBox="0 0 ${c.bins.counts.length} 30" preserveAspectRatio="none" role="img" aria-label=${`Histogram of ${c.name}`}>
          ${c.bins.counts.map((n, i) => svg`<rect x=${i + 0.08} width="0.84" y=${30 - (n / max) * 30} height=${(n / max) * 30}><title>${fmt(c.bins!.lo + i * step)} – ${fmt(c.bins!.lo + (i + 1) * step)}: ${n}</title></rect>`)}
        </svg>
        <div class="range"><span>${fmt(c.bins.lo)}</span><span>${fmt(c.bins.hi)}</span></div>`;
    } else if (c.top) {
      const total = Math.max(1, c.count - Math.round((c.count * c.nullPct) / 100));
      body = c.top.map((t) => html`<div class="top" title=${`${t.value}: ${t.n} (${fmtPct((100 * t.n) / total)})`}><i style="width:${Math.round((100 * t.n) / total)}%"></i><span>${t.value}</span></div>`);
    }
    return html`<div class="sum" aria-label=${`Summary of ${c.name}: ${stats}`}><div class="stats">${stats}</div>${body}</div>`;
  }

  private columns(): string {
    const t = this.table!;
    const widths = t.schema.fields.map((f) => {
      const tid = String(f.type);
      if (/List|Struct|Map/.test(tid)) return 'minmax(180px, 320px)';
      if (/Utf8/.test(tid)) return 'minmax(80px, 260px)';
      return 'minmax(60px, 140px)';
    });
    const idx = `calc(${String(t.numRows).length + 1}ch + 14px)`;
    return `${idx} ${widths.join(' ')}`;
  }

  private rowObject(i: number): Record<string, unknown> {
    const t = this.table!;
    const out: Record<string, unknown> = {};
    t.schema.fields.forEach((f, j) => {
      out[f.name] = cellValue(t, j, i);
    });
    return out;
  }

  private select(i: number): void {
    this.selected = i;
    this.dispatchEvent(new CustomEvent<RowSelectDetail>('aw-row-select', { detail: { index: i, row: this.rowObject(i) }, bubbles: true, composed: true }));
  }

  private onKey(e: KeyboardEvent, i: number): void {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      this.select(i);
    }
  }

  override render() {
    const t = this.table;
    if (!t) return nothing;
    const n = t.numRows;
    const fields = t.schema.fields;
    const cols = this.columns();
    const headH = this.headH();
    const last = Math.min(n, this.first + this.viewRows + 2 * OVERSCAN);
    const rows = [];
    for (let i = this.first; i < last; i++) {
      rows.push(html`<div class=${i % 2 ? 'row odd' : 'row'} role="row" aria-rowindex=${i + 2} aria-selected=${this.selected === i ? 'true' : 'false'} tabindex="-1"
        style="top:${headH + i * ROW_H}px;grid-template-columns:${cols}" @click=${() => this.select(i)} @keydown=${(e: KeyboardEvent) => this.onKey(e, i)}>
        <div class="idx" role="rowheader">${i + 1}</div>
        ${fields.map((f, j) => {
          const v = cellValue(t, j, i);
          if (v === null || v === undefined) return html`<div class="null" role="gridcell">∅</div>`;
          if (isNested(v)) {
            return html`<div role="gridcell"><button class="nested" title=${`Expand ${f.name} of row ${i + 1}`}
              @click=${(e: Event) => {
                e.stopPropagation();
                this.detail = { row: i, col: j };
              }}>${cellText(v)}</button></div>`;
          }
          return html`<div role="gridcell" class=${typeof v === 'number' ? 'num' : ''} title=${typeof v === 'string' && v.length > 40 ? v.slice(0, 2000) : nothing}>${cellText(v)}</div>`;
        })}
      </div>`);
    }
    const fullH = headH + n * ROW_H;
    const d = this.detail;
    return html`
      <div class="scroll" role="grid" aria-rowcount=${n + 1} aria-label="Query result" style="max-height:${this.height}px;height:${Math.min(this.height, fullH + 2)}px" @scroll=${this.onScroll}>
        <div style="height:${fullH}px;position:relative;min-width:max-content">
          <div class="grid head" role="row" style="grid-template-columns:${cols}">
            <div role="columnheader">#</div>
            ${fields.map((f) => html`<div role="columnheader" title=${`${f.name}: ${String(f.type)}`}>${f.name}<small>${shortType(String(f.type))}</small>${this.summaryOf(f.name)}</div>`)}
          </div>
          ${rows}
        </div>
      </div>
      ${n === 0 ? html`<div class="empty">No rows.</div>` : nothing}
      ${d
        ? html`<div class="detail" role="region" aria-label="Value detail">
            <header><span>${fields[d.col].name} · row ${d.row + 1}</span><button aria-label="Close value detail" @click=${() => (this.detail = null)}>×</button></header>
            <pre>${fullText(cellValue(t, d.col, d.row))}</pre>
          </div>`
        : nothing}
      <div class="foot"><span class="count">${n.toLocaleString('en-US')} ${n === 1 ? 'row' : 'rows'}</span>${this.ms !== undefined ? html`<span class="ms">${formatMs(this.ms)}</span>` : nothing}<slot name="foot"></slot></div>
    `;
  }
}

function shortType(t: string): string {
  return t
    .replace(/Struct<.*>/, 'struct')
    .replace(/^List<.*>$/, 'list')
    .replace(/^Map<.*>$/, 'map')
    .replace(/^Dictionary<.*>$/, 'dict')
    .toLowerCase();
}

function compact(v: number): string {
  return Number.isFinite(v) ? new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 }).format(v) : String(v);
}

function fmtPct(p: number): string {
  return `${p < 1 && p > 0 ? p.toFixed(1) : Math.round(p)}%`;
}

export function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-table': AwTable;
  }
}
