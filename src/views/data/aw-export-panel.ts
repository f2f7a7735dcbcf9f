import { consume } from '@lit/context';
import { css, html, LitElement, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { download, formatBytes, stamp } from '../kit/download';
import type { DatasetLayout, ExportFormat } from '../../contract/reports';
import type { Services } from '../kit/services';
import { servicesContext } from '../kit/services';
import { base } from '../kit/styles';
import { LAYOUTS } from '../../export/layouts';
import { datasetPreview } from '../../export/preview';
import { type Row, tableToRows } from '../../pool/rows';
import { Cancellable } from '../../util/jobs';

const EXT: Record<ExportFormat, string> = { parquet: 'parquet', jsonl: 'jsonl', csv: 'csv' };

/** Quick export: a training layout of the selected steps, or any SQL query's rows. */
@customElement('aw-export-panel')
export class AwExportPanel extends LitElement {
  static override styles = [
    base,
    css`
      .grid2 { display: grid; grid-template-columns: 1fr 1fr; gap: 14px; }
      @media (max-width: 900px) { .grid2 { grid-template-columns: 1fr; } }
      textarea { width: 100%; box-sizing: border-box; min-height: 70px; font-family: var(--aw-mono); font-size: 12.5px; }
      input.where { width: 100%; box-sizing: border-box; font-family: var(--aw-mono); font-size: 12.5px; }
      label { display: inline-flex; gap: 6px; align-items: center; }
      .grid2 > * { min-width: 0; }
      .preview { max-height: 220px; overflow: auto; max-width: 100%; margin-top: 8px; }
      .preview td { max-width: 320px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    `,
  ];

  @consume({ context: servicesContext, subscribe: true }) @property({ attribute: false }) services!: Services;
  @state() private layout: DatasetLayout = 'sft';
  @state() private format: ExportFormat = 'parquet';
  @state() private where = '';
  @state() private trainableOnly = true;
  @state() private sql = 'SELECT * FROM trajectories ORDER BY reward_sum DESC NULLS LAST';
  @state() private busy: string | null = null;
  @state() private error: string | null = null;
  @state() private preview: { rows: Row[]; count: number; problems: { problem: string; n: number }[]; rejected: { id: string; problem: string }[] } | null = null;
  private job = new Cancellable();

  private async run(what: 'dataset' | 'query') {
    this.error = null;
    const signal = this.job.start();
    const onProgress = (p: { rows: number; bytes: number }) => (this.busy = `${p.rows.toLocaleString()} rows · ${formatBytes(p.bytes)}`);
    this.busy = 'starting…';
    try {
      const blob =
        what === 'dataset'
          ? await this.services.exporter.exportDataset({ layout: this.layout, where: this.where, trainableOnly: this.trainableOnly, format: this.format, onProgress, signal })
          : await this.services.exporter.exportQuery(this.sql, { format: this.format, onProgress, signal });
      download(blob, `${what === 'dataset' ? this.layout : 'query'}-${stamp()}.${EXT[this.format]}`);
      this.services.notify(`Exported ${formatBytes(blob.size)}.`);
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    } finally {
      this.busy = null;
      this.job.end();
    }
  }

  private onLayout = (e: Event) => {
    this.layout = (e.target as HTMLSelectElement).value as DatasetLayout;
    this.preview = null;
  };

  private onWhere = (e: Event) => {
    this.where = (e.target as HTMLInputElement).value;
    this.preview = null;
  };

  private async previewDataset() {
    this.error = null;
    try {
      const p = await datasetPreview(this.services.pool, { layout: this.layout, where: this.where, trainableOnly: this.trainableOnly });
      this.preview = { rows: tableToRows(p.head), count: p.rows, problems: p.byReason, rejected: p.first };
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    }
  }

  override render() {
    return html`
      <div class="grid2">
        <section class="card" aria-label="Export a training layout">
          <h3>Training dataset</h3>
          <div class="row">
            <label>Layout
              <select aria-label="Layout" .value=${this.layout} @change=${this.onLayout}>
                ${Object.entries(LAYOUTS).map(([k, doc]) => html`<option value=${k} title=${doc} ?selected=${k === this.layout}>${k}</option>`)}
              </select>
            </label>
            <label>Format
              <select aria-label="Format" .value=${this.format} @change=${(e: Event) => (this.format = (e.target as HTMLSelectElement).value as ExportFormat)}>
                <option value="parquet">Parquet (zstd)</option><option value="jsonl">JSONL</option>
              </select>
            </label>
            <label><input type="checkbox" .checked=${this.trainableOnly} @change=${(e: Event) => (this.trainableOnly = (e.target as HTMLInputElement).checked)} /> trainable steps only</label>
          </div>
          <p class="muted" style="margin:6px 0">${LAYOUTS[this.layout]}</p>
          <input class="where" type="text" aria-label="Filter (SQL predicate over steps s and curation c)" placeholder="optional filter, e.g. s.reward > 0 AND s.data_source = 'gsm8k'"
            .value=${this.where} @input=${this.onWhere} />
          <div class="row" style="margin-top:8px">
            <button @click=${() => this.previewDataset()}>Preview</button>
            <button class="primary" ?disabled=${!!this.busy} @click=${() => this.run('dataset')}>Download ${this.layout}.${EXT[this.format]}</button>
          </div>
          ${this.preview
            ? html`<p><b class="count">${this.preview.count.toLocaleString()}</b> rows</p>
                ${this.preview.problems.length
                  ? html`<div class="problems" aria-label="Rows a trainer would reject"><p class="muted">Left out, a trainer would reject them:
                      ${this.preview.problems.map((p) => `${p.problem}: ${p.n}`).join(', ')}</p>
                      <ul>${this.preview.rejected.map((r) => html`<li><code>${cell(r.id)}</code> — ${cell(r.problem)}</li>`)}</ul></div>`
                  : nothing}
                <div class="preview"><table class="grid mono">
                  <thead><tr>${Object.keys(this.preview.rows[0] ?? {}).map((k) => html`<th>${k}</th>`)}</tr></thead>
                  <tbody>${this.preview.rows.map((r) => html`<tr>${Object.values(r).map((v) => html`<td title=${cell(v)}>${cell(v).slice(0, 200)}</td>`)}</tr>`)}</tbody>
                </table></div>`
            : nothing}
        </section>
        <section class="card" aria-label="Export a query">
          <h3>Any query</h3>
          <textarea aria-label="SQL query to export" .value=${this.sql} @input=${(e: Event) => (this.sql = (e.target as HTMLTextAreaElement).value)}></textarea>
          <div class="row" style="margin-top:8px">
            <button class="primary" ?disabled=${!!this.busy} @click=${() => this.run('query')}>Download query.${EXT[this.format]}</button>
            <span class="muted">rows as they are, in the format chosen on the left</span>
          </div>
        </section>
      </div>
      ${this.busy ? html`<p role="status">Exporting… ${this.busy} <button @click=${() => this.job.cancel()}>Cancel export</button></p>` : nothing}
      ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : nothing}
    `;
  }
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-export-panel': AwExportPanel;
  }
}
