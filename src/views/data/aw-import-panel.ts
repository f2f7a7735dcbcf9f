import { consume } from '@lit/context';
import { css, html, LitElement, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { download, formatBytes } from '../kit/download';
import { droppedFiles, pickedFiles } from './dropped-files';
import type { ImportOptions, ImportReport } from '../../contract/reports';
import type { ImportJob, ImportQueue } from '../../ingest/import-queue';
import type { Services } from '../kit/services';
import { servicesContext } from '../kit/services';
import { base } from '../kit/styles';
import { isHubReference } from '../../hub/settings';
import './aw-hub-import';

/**
 * Import UX: file picker, drop target, URL import; the imports running and queued (progress, Cancel) on top, a
 * summary line, then the finished reports newest first, each one line that opens to the whole report (a failed
 * one opens by itself): twenty files stay a short list, not a page of reports.
 */
@customElement('aw-import-panel')
export class AwImportPanel extends LitElement {
  static override styles = [
    base,
    css`
      .drop { border: 2px dashed var(--aw-border); border-radius: var(--aw-radius); padding: 18px; text-align: center; background: var(--aw-panel); }
      .drop.over { border-color: var(--aw-accent); background: var(--aw-accent-bg); }
      .picker { position: relative; display: inline-block; }
      .picker input { position: absolute; inset: 0; opacity: 0; cursor: pointer; width: 100%; }
      .jobs { display: grid; gap: 8px; margin-top: 10px; }
      .job { padding: 8px 10px; }
      .job header, .done-list summary { display: flex; gap: 10px; align-items: baseline; flex-wrap: wrap; }
      .summary-line { margin: 10px 0 4px; display: flex; gap: 10px; align-items: baseline; flex-wrap: wrap; }
      .done-list { list-style: none; margin: 0; padding: 0; border: 1px solid var(--aw-border); border-radius: var(--aw-radius); background: var(--aw-panel); }
      .done-list > li + li { border-top: 1px solid var(--aw-border); }
      .done-list details { margin: 0; padding: 4px 10px; }
      .done-list summary { cursor: pointer; list-style-position: outside; }
      .done-list summary::-webkit-details-marker { display: none; }
      .done-list summary::before { content: '▸'; color: var(--aw-muted); }
      .done-list details[open] > summary::before { content: '▾'; }
      .done-list .report-body { padding: 4px 0 6px 16px; }
      .job .name { font-weight: 600; word-break: break-all; }
      progress { width: 220px; }
      .badge { font-size: 12px; padding: 1px 7px; border-radius: 10px; background: var(--aw-accent-bg); }
      .badge.failed, .badge.cancelled { background: var(--aw-error-bg); color: var(--aw-error); }
      .badge.done { background: var(--aw-ok-bg); color: var(--aw-ok); }
      .badge.unchanged { background: var(--aw-panel); color: var(--aw-muted, inherit); border: 1px solid var(--aw-border); }
      .nothing { font-weight: 600; }
      .not-understood code { font-size: 12px; }
      .collisions ul { margin: 2px 0 0; padding-left: 20px; }
      details { margin-top: 4px; }
      .rejects { max-height: 180px; overflow: auto; }
      input[type='url'] { width: 360px; max-width: 60vw; }
    `,
  ];

  @consume({ context: servicesContext, subscribe: true }) @property({ attribute: false }) services!: Services;
  @state() private jobs: ImportJob[] = [];
  @state() private over = false;
  @state() private url = '';
  /** A pasted Hugging Face dataset reference: <aw-hub-import> lists it and imports what the user picks. */
  @state() private hubRef: string | null = null;
  /** The order the jobs finished in (job key → a rising number): the finished list is newest first. */
  private finished = new Map<number, number>();
  private finishSeq = 0;
  private offJobs: (() => void) | null = null;
  private queue: ImportQueue | null = null;

  /** The page's import list (Services.imports), shared with window.workbench and demo loading. */
  private get imports(): ImportQueue {
    const q = this.services.imports;
    if (q !== this.queue) {
      this.offJobs?.();
      this.queue = q;
      this.offJobs = q.subscribe(() => this.setJobs(q.jobs));
      this.setJobs(q.jobs);
    }
    return q;
  }

  private setJobs(jobs: ImportJob[]): void {
    for (const j of jobs) if (j.report && !this.finished.has(j.key)) this.finished.set(j.key, ++this.finishSeq);
    this.jobs = jobs;
  }

  protected override willUpdate(): void {
    if (this.services) void this.imports;
  }

  /** Import files through the same path as drag-and-drop; resolves with their reports. */
  importFiles(files: File[], opts: Pick<ImportOptions, 'shards'> = {}): Promise<ImportReport[]> {
    return this.imports.importFiles(files, opts);
  }

  importUrl(url: string): Promise<ImportReport> {
    return this.imports.importUrl(url);
  }

  override connectedCallback(): void {
    super.connectedCallback();
    window.addEventListener('dragover', this.onDragOver);
    window.addEventListener('dragleave', this.onDragLeave);
    window.addEventListener('drop', this.onDrop);
  }

  override disconnectedCallback(): void {
    window.removeEventListener('dragover', this.onDragOver);
    window.removeEventListener('dragleave', this.onDragLeave);
    window.removeEventListener('drop', this.onDrop);
    this.offJobs?.();
    this.offJobs = null;
    this.queue = null;
    super.disconnectedCallback();
  }

  private onDragOver = (e: DragEvent) => {
    if (!e.dataTransfer?.types.includes('Files')) return;
    e.preventDefault();
    this.over = true;
  };
  private onDragLeave = (e: DragEvent) => {
    if (e.relatedTarget === null) this.over = false;
  };
  private onDrop = (e: DragEvent) => {
    if (!e.dataTransfer?.files.length) return;
    e.preventDefault();
    this.over = false;
    // a dropped folder gives every file under it (dropped-files.ts); a folder import is one drop, so its files see each other
    void droppedFiles(e.dataTransfer).then((files) => (files.length ? this.importFiles(files) : []));
  };

  private onPick(e: Event) {
    const input = e.target as HTMLInputElement;
    const files = pickedFiles(input.files ?? []);
    input.value = '';
    if (files.length) void this.importFiles(files);
  }

  private onUrl(e: Event) {
    e.preventDefault();
    const u = this.url.trim();
    if (!u) return;
    this.url = '';
    if (isHubReference(u)) this.hubRef = u;
    else void this.importUrl(u);
  }

  private downloadRejects(r: ImportReport) {
    const lines = r.rejected.map((x) => JSON.stringify({ file: r.file, line: x.line, reason: x.reason })).join('\n');
    download(new Blob([`${lines}\n`], { type: 'application/x-ndjson' }), `${r.file}.rejected.jsonl`);
  }

  override render() {
    return html`
      <div class="drop ${this.over ? 'over' : ''}">
        <div class="row" style="justify-content:center">
          <span class="picker">
            <button class="primary" tabindex="-1" aria-hidden="true">Import files…</button>
            <input type="file" multiple aria-label="Import files" title="Import files" @change=${this.onPick} />
          </span>
          <span class="picker">
            <button tabindex="-1" aria-hidden="true">Import a folder…</button>
            <input type="file" webkitdirectory aria-label="Import a folder" title="Import every session in a folder (~/.claude/projects, ~/.codex/sessions, a Cline task…)" @change=${this.onPick} />
          </span>
          <span class="muted">or drop files or folders (JSONL / JSON / SSE / HAR / .gz / Parquet, agent session folders) anywhere on the page</span>
        </div>
        <form class="row" style="justify-content:center;margin-top:10px" @submit=${this.onUrl}>
          <input type="url" aria-label="URL to import" placeholder="https://…/traces.jsonl or hf://datasets/<owner>/<name>" .value=${this.url} @input=${(e: Event) => (this.url = (e.target as HTMLInputElement).value)} />
          <button type="submit">Import from URL</button>
        </form>
        ${this.hubRef ? html`<aw-hub-import .reference=${this.hubRef} @aw-hub-close=${() => (this.hubRef = null)}></aw-hub-import>` : nothing}
      </div>
      ${this.renderJobs()}
    `;
  }

  /** A URL's file name (the whole address is the title): a queue of URLs reads as a list of files. */
  private shortName(file: string): string {
    return /^[a-z][a-z0-9+.-]*:\/\//i.test(file) ? decodeURIComponent(file.replace(/[?#].*$/, '').replace(/\/+$/, '').split('/').pop() || file) : file;
  }

  private renderJobs() {
    const active = this.jobs.filter((j) => !j.report).sort((a, b) => (a.progress ? 0 : 1) - (b.progress ? 0 : 1) || a.key - b.key);
    const done = this.jobs.filter((j) => j.report).sort((a, b) => (this.finished.get(b.key) ?? 0) - (this.finished.get(a.key) ?? 0));
    const reports = done.map((j) => j.report as ImportReport);
    const count = (s: ImportReport['status']) => reports.filter((r) => r.status === s).length;
    const added = reports.reduce((a, r) => a + r.added, 0);
    const rejected = reports.reduce((a, r) => a + r.rejected.length, 0);
    const failed = count('failed') + count('cancelled');
    const parts = [
      `${done.length} ${done.length === 1 ? 'file' : 'files'} imported`,
      `${added.toLocaleString('en-US')} steps added`,
      count('unchanged') ? `${count('unchanged')} already in the pool` : '',
      rejected ? `${rejected.toLocaleString('en-US')} rejected ${rejected === 1 ? 'line' : 'lines'}` : '',
      active.length ? `${active.length} still running or queued` : '',
    ].filter(Boolean);
    return html`
      ${active.length ? html`<div class="jobs" role="list" aria-label="Imports running">${active.map((j) => this.renderJob(j))}</div>` : nothing}
      ${done.length
        ? html`<p class="summary-line" role="status" aria-label="Imports summary"><span>${parts.join(' · ')}</span>${failed ? html`<span class="error">${failed} failed</span>` : nothing}</p>
            <ul class="done-list" aria-label="Finished imports, newest first">${done.map((j) => this.renderDone(j))}</ul>`
        : nothing}`;
  }

  /** A finished import: one line (name, status, counts) that opens to its whole report. */
  private renderDone(j: ImportJob) {
    const r = j.report as ImportReport;
    // what asks for the user's next step opens by itself: nothing kept, or a file no format understood
    const attention = r.status === 'failed' || r.status === 'cancelled' || !!r.notUnderstood || r.format === 'generic';
    return html`<li class="report-item" aria-label=${`Import of ${this.shortName(j.file)}`}>
      <details ?open=${attention}>
        <summary title=${j.file}>
          <span class="name">${this.shortName(j.file)}</span>
          <span class="badge ${r.status}">${r.status}</span>
          <span class="muted">${r.format} · ${r.rows.toLocaleString('en-US')} steps · ${r.added.toLocaleString('en-US')} added</span>
          ${r.rejected.length ? html`<span class="error">${r.rejected.length} rejected</span>` : nothing}
          <span class="muted">${formatBytes(j.bytes)} · ${(r.ms / 1000).toFixed(1)} s</span>
        </summary>
        <div class="report-body">${this.renderReport(r, j.source)}</div>
      </details>
    </li>`;
  }

  private renderJob(j: ImportJob) {
    const r = j.report;
    const p = j.progress;
    return html`<div class="card job" role="listitem" aria-label=${`Import of ${this.shortName(j.file)}`}>
      <header>
        <span class="name" title=${j.file}>${this.shortName(j.file)}</span>
        <span class="muted">${formatBytes(j.bytes || p?.bytesTotal || 0)}</span>
        ${r ? html`<span class="badge ${r.status}">${r.status}</span>` : html`<span class="badge">${p?.phase ?? 'queued'}</span>`}
        ${!r
          ? html`<progress aria-label=${`Progress of ${j.file}`} max=${p?.bytesTotal || 1} value=${p ? p.bytesRead : 0}></progress>
              <span class="muted">${p ? `${formatBytes(p.bytesRead)} · ${p.records} records · ${p.rows} steps` : ''}</span>
              <button @click=${() => this.imports.cancel(j.key)} aria-label=${`Cancel import of ${this.shortName(j.file)}`}>Cancel</button>`
          : nothing}
      </header>
      ${r ? this.renderReport(r, j.source) : nothing}
    </div>`;
  }

  private startMapping(file: File) {
    this.dispatchEvent(new CustomEvent('aw-start-mapping', { bubbles: true, composed: true, detail: { file } }));
  }

  private renderReport(r: ImportReport, source?: File) {
    const keptNothing = r.status === 'failed' || r.status === 'cancelled';
    const collisions = r.collisions ?? [];
    return html`
      <div class="row report" aria-label=${`Report for ${r.file}`}>
        <span>format <b class="format">${r.format}</b>${r.confidence ? html` <span class="muted">(${Math.round(r.confidence * 100)}% sure)</span>` : nothing}</span>
        <span><b class="records">${r.records}</b> records</span>
        <span><b class="rows">${r.rows}</b> steps</span>
        <span><b class="added">${r.added}</b> added</span>
        ${r.alreadyInPool ? html`<span class="muted"><b class="already">${r.alreadyInPool}</b> already in the pool</span>` : nothing}
        <span class=${r.rejected.length ? 'error' : 'muted'}><b class="rejected">${r.rejected.length}</b> rejected</span>
        <span class="muted">${(r.ms / 1000).toFixed(1)} s</span>
        ${r.poolRoom ? html`<span class="muted room" title="The pool's database file and the size past which imports are refused">pool ${formatBytes(r.poolRoom.bytes)} of ${formatBytes(r.poolRoom.limit)}: <b>${formatBytes(Math.max(0, r.poolRoom.limit - r.poolRoom.bytes))}</b> left</span>` : nothing}
      </div>
      ${keptNothing ? html`<div class="error nothing" role="alert">Nothing of this file was imported.</div>` : nothing}
      ${r.message ? html`<div class=${keptNothing ? 'error message' : 'muted message'}>${r.message}</div>` : nothing}
      ${collisions.length
        ? html`<div class="collisions" role="note">
            Trajectory ids already in the pool with other content — kept, not dropped:
            <ul>
              ${collisions.slice(0, 20).map(
                (c) => html`<li><code>${c.trajectory}</code>: ${c.steps} step(s) ${c.how === 'apart' ? html`kept apart as <code>${c.keptAs}</code>` : 'joined to the stored trace (another part of it)'}</li>`,
              )}
              ${collisions.length > 20 ? html`<li>… ${collisions.length - 20} more</li>` : nothing}
            </ul>
          </div>`
        : nothing}
      ${r.notUnderstood
        ? html`<div class="not-understood" role="note">
            Not understood: its records have the shape of no format the workbench reads.
            ${r.notUnderstood.fields.length ? html`Fields seen: ${r.notUnderstood.fields.map((f, i) => html`${i ? ', ' : ''}<code>${f}</code>`)}.` : nothing}
          </div>`
        : nothing}
      ${(r.notUnderstood || r.format === 'generic') && source
        ? html`<div class="row">
            <button @click=${() => this.startMapping(source)}>Write a mapping for this file</button>
            ${r.notUnderstood ? html`<button @click=${() => void this.imports.importFiles([source], { format: 'generic' })} title="Keep every record as it is: raw JSON and its top-level keys, no messages or response">Import as generic rows</button>` : nothing}
          </div>`
        : nothing}
      ${r.warnings.length ? html`<div class="muted">⚠ ${r.warnings.join(' · ')}</div>` : nothing}
      ${r.rejected.length
        ? html`<details>
            <summary>Rejected lines</summary>
            <div class="rejects">
              <table class="grid mono">
                <thead><tr><th>line</th><th>reason</th></tr></thead>
                <tbody>${r.rejected.slice(0, 500).map((x) => html`<tr><td>${x.line}</td><td>${x.reason}</td></tr>`)}</tbody>
              </table>
            </div>
            <button @click=${() => this.downloadRejects(r)}>Download rejected lines</button>
          </details>`
        : nothing}
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-import-panel': AwImportPanel;
  }
}
