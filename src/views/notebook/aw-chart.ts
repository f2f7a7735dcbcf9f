/**
 * <aw-chart>: renders a declarative chart spec (YAML) over a result table with Observable Plot, and
 * offers a small form that edits the spec without writing YAML (emits aw-spec-change {source}): the data (one of
 * the notebook's query cells, `views`), the mark, the fields (the chosen view's columns), a transform and options.
 */
import type { Table } from 'apache-arrow';
import { css, html, LitElement, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { parseDocument } from 'yaml';
import { MARKS, type PlotSpec, parsePlotSpec } from '../../notebook/plot-spec';
import { renderPlot } from './plot-render';

const FORM_CHANNELS = ['x', 'y', 'fill', 'stroke', 'fx', 'fy'] as const;
const TRANSFORM_PRESETS: Record<string, Record<string, Record<string, string>> | null> = {
  none: null,
  'binX → count': { binX: { y: 'count' } },
  'binY → count': { binY: { x: 'count' } },
  'groupX → count': { groupX: { y: 'count' } },
  'groupX → sum of y': { groupX: { y: 'sum' } },
  'groupX → mean of y': { groupX: { y: 'mean' } },
};

@customElement('aw-chart')
export class AwChart extends LitElement {
  @property() source = '';
  @property({ attribute: false }) table: Table | null = null;
  @property({ type: Boolean }) readonly = false;
  /** The notebook's query cells with an id and their columns (empty until the cell ran). */
  @property({ attribute: false }) views: Record<string, string[]> = {};
  @state() private editing = false;
  @state() private width = 640;
  private resize?: ResizeObserver;

  static override styles = css`
    :host { display: block; font: 12px/1.4 system-ui, sans-serif; }
    .error { color: var(--aw-error); background: var(--aw-error-bg); border: 1px solid var(--aw-error-bg); padding: 6px 8px; white-space: pre-wrap; font-family: ui-monospace, monospace; }
    .figure { overflow-x: auto; }
    .bar { display: flex; gap: 6px; align-items: center; margin: 2px 0; }
    form { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 4px 10px; padding: 6px; background: var(--aw-subtle); border: 1px solid var(--aw-border); margin: 4px 0; }
    label { display: flex; flex-direction: column; gap: 1px; color: var(--aw-muted); }
    label.check { flex-direction: row; align-items: center; gap: 4px; }
    select, input { font: inherit; padding: 1px 3px; }
    button { font: inherit; cursor: pointer; }
    .note { color: var(--aw-muted); }
  `;

  override connectedCallback(): void {
    super.connectedCallback();
    // Redraw on the next frame: resizing inside the observer callback loops (ResizeObserver loop error).
    this.resize = new ResizeObserver((e) => {
      const w = Math.floor(e[0]?.contentRect.width ?? 640);
      if (w > 0 && Math.abs(w - this.width) > 8) requestAnimationFrame(() => (this.width = w));
    });
    this.resize.observe(this);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.resize?.disconnect();
  }

  private spec(): { spec: PlotSpec | null; error: string | null } {
    try {
      return { spec: parsePlotSpec(this.source), error: null };
    } catch (e) {
      return { spec: null, error: e instanceof Error ? e.message : String(e) };
    }
  }

  private figure(spec: PlotSpec): { node: Element | null; error: string | null } {
    if (!this.table) return { node: null, error: null };
    try {
      return { node: renderPlot(spec, this.table, Math.max(240, this.width - 4)), error: null };
    } catch (e) {
      return { node: null, error: e instanceof Error ? e.message : String(e) };
    }
  }

  private set(key: string, value: unknown): void {
    const doc = parseDocument(this.source || '');
    if (value === '' || value === null || value === undefined || value === false) doc.delete(key);
    else doc.set(key, value);
    const source = String(doc).replace(/\n+$/, '');
    this.dispatchEvent(new CustomEvent('aw-spec-change', { detail: { source }, bubbles: true, composed: true }));
  }

  private presetOf(spec: PlotSpec | null): string {
    if (!spec?.transform) return 'none';
    const t = JSON.stringify({ [spec.transform.name]: spec.transform.outputs });
    return Object.entries(TRANSFORM_PRESETS).find(([, v]) => v && JSON.stringify(v) === t)?.[0] ?? 'custom';
  }

  private form(spec: PlotSpec | null) {
    const raw = (() => {
      try {
        return (parseDocument(this.source || '').toJS() ?? {}) as Record<string, unknown>;
      } catch {
        return {};
      }
    })();
    const data = typeof raw.data === 'string' ? raw.data : '';
    // the chosen view's columns: from its result when drawn, else from what the notebook knows of that cell
    const cols = this.table?.schema.fields.map((f) => f.name) ?? this.views[data] ?? [];
    const views = Object.keys(this.views);
    const preset = this.presetOf(spec);
    return html`<form aria-label="Chart settings" @submit=${(e: Event) => e.preventDefault()}>
      <label>data
        <select aria-label="Data" @change=${(e: Event) => this.set('data', (e.target as HTMLSelectElement).value)}>
          ${data ? nothing : html`<option value="" selected disabled>pick a view</option>`}
          ${views.map((v) => html`<option ?selected=${data === v}>${v}</option>`)}
          ${data && !views.includes(data) ? html`<option selected>${data}</option>` : nothing}
        </select>
      </label>
      <label>mark
        <select aria-label="Mark" @change=${(e: Event) => this.set('mark', (e.target as HTMLSelectElement).value)}>
          ${MARKS.map((m) => html`<option ?selected=${raw.mark === m}>${m}</option>`)}
        </select>
      </label>
      ${FORM_CHANNELS.map(
        (ch) => html`<label>${ch}
          <select aria-label=${`Channel ${ch}`} @change=${(e: Event) => this.set(ch, (e.target as HTMLSelectElement).value)}>
            <option value="" ?selected=${raw[ch] === undefined}>—</option>
            ${cols.map((c) => html`<option ?selected=${raw[ch] === c}>${c}</option>`)}
            ${typeof raw[ch] === 'string' && !cols.includes(raw[ch] as string) ? html`<option selected>${raw[ch]}</option>` : nothing}
          </select>
        </label>`,
      )}
      <label>transform
        <select aria-label="Transform" @change=${(e: Event) => this.set('transform', TRANSFORM_PRESETS[(e.target as HTMLSelectElement).value] ?? null)}>
          ${Object.keys(TRANSFORM_PRESETS).map((k) => html`<option ?selected=${preset === k}>${k}</option>`)}
          ${preset === 'custom' ? html`<option selected disabled>custom</option>` : nothing}
        </select>
      </label>
      <label>height
        <input aria-label="Height" type="number" min="80" max="2000" step="20" .value=${String(raw.height ?? '')}
          @change=${(e: Event) => this.set('height', Number((e.target as HTMLInputElement).value) || null)} />
      </label>
      <label class="check"><input type="checkbox" aria-label="Tooltips" .checked=${raw.tip === true} @change=${(e: Event) => this.set('tip', (e.target as HTMLInputElement).checked)} /> tooltips</label>
      <label class="check"><input type="checkbox" aria-label="Color legend" .checked=${(raw.color as { legend?: boolean } | undefined)?.legend === true}
        @change=${(e: Event) => this.set('color', (e.target as HTMLInputElement).checked ? { legend: true } : null)} /> legend</label>
    </form>`;
  }

  override render() {
    const { spec, error } = this.spec();
    const fig = spec ? this.figure(spec) : { node: null, error: null };
    const err = error ?? fig.error;
    return html`
      ${this.readonly ? nothing : html`<div class="bar"><button aria-label="Edit chart settings" aria-expanded=${this.editing ? 'true' : 'false'} @click=${() => (this.editing = !this.editing)}>${this.editing ? 'Hide settings' : 'Chart settings'}</button></div>`}
      ${this.editing && !this.readonly ? this.form(spec) : nothing}
      ${err ? html`<div class="error" role="alert">${err}</div>` : nothing}
      ${fig.node ? html`<div class="figure">${fig.node}</div>` : !err && !this.table ? html`<div class="note">No data yet: run the cell named in data:.</div>` : nothing}
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-chart': AwChart;
  }
}
