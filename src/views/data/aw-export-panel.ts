import { consume } from '@lit/context';
import { css, html, LitElement, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { ExportFormat } from '../../contract/reports';
import { Cancellable } from '../../util/jobs';
import '../export/aw-export-form';
import './aw-hub-export';
import { download, formatBytes, stamp } from '../kit/download';
import type { Services } from '../kit/services';
import { servicesContext } from '../kit/services';
import { base } from '../kit/styles';
import { EXAMPLE_EXPORT_QUERY } from './queries';

/** The Data tab's export: the dataset export form (the same one the dashboard opens as a dialog), and any SQL query's rows. */
@customElement('aw-export-panel')
export class AwExportPanel extends LitElement {
  static override styles = [
    base,
    css`
      textarea { width: 100%; box-sizing: border-box; min-height: 70px; font-family: var(--aw-mono); font-size: 12.5px; }
      label { display: inline-flex; gap: 6px; align-items: center; }
    `,
  ];

  @consume({ context: servicesContext, subscribe: true }) @property({ attribute: false }) services!: Services;
  @state() private format: ExportFormat = 'parquet';
  @state() private sql = EXAMPLE_EXPORT_QUERY;
  @state() private busy: string | null = null;
  @state() private error: string | null = null;
  private job = new Cancellable();

  private async runQuery() {
    this.error = null;
    const signal = this.job.start();
    this.busy = 'starting…';
    try {
      const onProgress = (p: { rows: number; bytes: number }) => (this.busy = `${p.rows.toLocaleString()} rows · ${formatBytes(p.bytes)}`);
      const blob = await this.services.exporter.exportQuery(this.sql, { format: this.format, onProgress, signal });
      download(blob, `query-${stamp()}.${this.format}`);
      this.services.notify(`Exported ${formatBytes(blob.size)}.`);
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    } finally {
      this.busy = null;
      this.job.end();
    }
  }

  override render() {
    return html`
      <section class="card" aria-label="Export a training layout">
        <h3>Training dataset</h3>
        <aw-export-form .services=${this.services} source="pool"></aw-export-form>
      </section>
      <aw-hub-export></aw-hub-export>
      <section class="card" aria-label="Export a query">
        <h3>Any query</h3>
        <textarea aria-label="SQL query to export" .value=${this.sql} @input=${(e: Event) => (this.sql = (e.target as HTMLTextAreaElement).value)}></textarea>
        <div class="row" style="margin-top:8px">
          <label>Format
            <select aria-label="Query export format" .value=${this.format} @change=${(e: Event) => (this.format = (e.target as HTMLSelectElement).value as ExportFormat)}>
              <option value="parquet">Parquet (zstd)</option><option value="jsonl">JSONL</option><option value="csv">CSV</option>
            </select>
          </label>
          <button class="primary" ?disabled=${!!this.busy} @click=${() => this.runQuery()}>Download query.${this.format}</button>
          <span class="muted">rows as they are</span>
        </div>
        ${this.busy ? html`<p role="status">Exporting… ${this.busy} <button @click=${() => this.job.cancel()}>Cancel export</button></p>` : nothing}
        ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : nothing}
      </section>
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-export-panel': AwExportPanel;
  }
}
