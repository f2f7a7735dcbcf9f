import { consume } from '@lit/context';
import { css, html, LitElement, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { DatasetLayout } from '../../contract/reports';
import { exportHubDatasetTo, HUB_LAYOUTS, type HubDatasetReport } from '../../hub/hub-dataset';
import { openNotebookSql } from '../../notebook/api';
import { activeTokenizer } from '../../tokenizer/service';
import { download, formatBytes } from '../kit/download';
import type { Services } from '../kit/services';
import { servicesContext } from '../kit/services';
import { base } from '../kit/styles';

const LICENSES = ['other', 'mit', 'apache-2.0', 'cc-by-4.0', 'cc-by-sa-4.0', 'cc-by-nc-4.0', 'cc0-1.0', 'odc-by'];

/**
 * "Publish for the Hub": a dataset folder the Hugging Face Hub understands (decision 073) — the chosen layouts as
 * Parquet parts per split, a README.md card whose configs name them (with the open notebook's SQL as its recipe),
 * optionally the curated trajectories as Session Trace Simple Format files — into a picked folder, or as a zip.
 */
@customElement('aw-hub-export')
export class AwHubExport extends LitElement {
  static override styles = [
    base,
    css`
      fieldset { border: 0; padding: 0; margin: 0 0 8px; display: flex; gap: 12px; flex-wrap: wrap; }
      label { display: inline-flex; gap: 6px; align-items: center; }
      input[type='text'] { width: 260px; max-width: 60vw; }
    `,
  ];

  @consume({ context: servicesContext, subscribe: true }) @property({ attribute: false }) services!: Services;
  @state() private layouts = new Set<DatasetLayout>(['sft']);
  @state() private sessions = true;
  @state() private redact = true;
  @state() private license = 'other';
  @state() private dsTitle = '';
  @state() private busy: string | null = null;
  @state() private error: string | null = null;
  @state() private done: HubDatasetReport | null = null;

  private toggle(l: DatasetLayout, on: boolean): void {
    const next = new Set(this.layouts);
    if (on) next.add(l);
    else next.delete(l);
    this.layouts = next;
  }

  private async publish(toFolder: boolean): Promise<void> {
    this.error = null;
    this.done = null;
    let target: FileSystemDirectoryHandle | null = null;
    if (toFolder) {
      try {
        target = await (window as unknown as { showDirectoryPicker(o: object): Promise<FileSystemDirectoryHandle> }).showDirectoryPicker({ mode: 'readwrite' });
      } catch {
        return; // the user closed the picker
      }
    }
    this.busy = 'writing…';
    try {
      const { exporter, pool } = this.services;
      const report = await exportHubDatasetTo(
        { exporter, rows: (sql) => pool.rows(sql), tokenizer: () => activeTokenizer()?.info()?.name ?? null },
        {
          layouts: HUB_LAYOUTS.filter((l) => this.layouts.has(l)),
          sessions: this.sessions ? 'sts' : false,
          redact: this.redact,
          license: this.license,
          title: this.dsTitle || undefined,
          recipe: openNotebookSql(),
          onProgress: (p) => (this.busy = `${p.rows.toLocaleString('en')} rows · ${formatBytes(p.bytes)}`),
        },
        target,
      );
      if (report.zip) download(report.zip, `${report.folder}.zip`);
      this.done = report;
      this.services.notify(`Dataset folder ${report.folder}: ${report.configs.map((c) => c.name).join(', ')}${report.sessions ? `, ${report.sessions} sessions` : ''}.`);
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    } finally {
      this.busy = null;
    }
  }

  override render() {
    const canPickFolder = 'showDirectoryPicker' in window;
    return html`<section class="card" aria-label="Publish for the Hugging Face Hub">
      <h3>Publish for the Hugging Face Hub</h3>
      <p class="muted">A dataset folder the Hub shows and <code>datasets.load_dataset</code> reads: one configuration per layout, a split per curation split, a README.md card with the open notebook's SQL as its recipe.</p>
      <fieldset aria-label="Layouts">
        ${HUB_LAYOUTS.map((l) => html`<label><input type="checkbox" .checked=${this.layouts.has(l)} @change=${(e: Event) => this.toggle(l, (e.target as HTMLInputElement).checked)} />${l}</label>`)}
      </fieldset>
      <fieldset>
        <label><input type="checkbox" .checked=${this.sessions} @change=${(e: Event) => (this.sessions = (e.target as HTMLInputElement).checked)} />sessions for the Hub's trace viewer (STS)</label>
        <label><input type="checkbox" .checked=${this.redact} @change=${(e: Event) => (this.redact = (e.target as HTMLInputElement).checked)} />redact e-mails, phones, secrets</label>
      </fieldset>
      <fieldset>
        <label>Title <input type="text" aria-label="Dataset title" .value=${this.dsTitle} @input=${(e: Event) => (this.dsTitle = (e.target as HTMLInputElement).value)} /></label>
        <label>License
          <select aria-label="Dataset license" .value=${this.license} @change=${(e: Event) => (this.license = (e.target as HTMLSelectElement).value)}>
            ${LICENSES.map((l) => html`<option value=${l}>${l}</option>`)}
          </select>
        </label>
      </fieldset>
      <div class="row">
        ${canPickFolder ? html`<button ?disabled=${!!this.busy || !this.layouts.size} @click=${() => void this.publish(true)}>Write into a folder…</button>` : nothing}
        <button class="primary" ?disabled=${!!this.busy || !this.layouts.size} @click=${() => void this.publish(false)}>Download as zip</button>
        ${this.busy ? html`<span class="muted" role="status">${this.busy}</span>` : nothing}
      </div>
      ${this.error ? html`<div class="error" role="alert">${this.error}</div>` : nothing}
      ${this.done
        ? html`<div class="muted" role="status">
            ${this.done.folder}: ${this.done.configs.map((c) => `${c.name} (${c.splits.map((s) => `${s.split} ${s.rows.toLocaleString('en')}`).join(', ')})`).join('; ')}${this.done.sessions ? `; ${this.done.sessions} sessions` : ''}. Upload the folder as a Hub dataset (e.g. <code>hf upload &lt;owner&gt;/&lt;name&gt; ${this.done.folder} --repo-type dataset</code>).
          </div>`
        : nothing}
    </section>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-hub-export': AwHubExport;
  }
}
