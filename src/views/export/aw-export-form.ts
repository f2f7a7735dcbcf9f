/**
 * <aw-export-form>: the one dataset export form, inline on the Data tab and, with `modal`, the
 * dashboard's export dialog. Layout (steps | sft per trajectory or step | rl_steps | verl_prompts |
 * dpo with a minimum margin), source (whole pool, the dashboard filter, a notebook cell's view or a SQL predicate),
 * trainable-only (default on), redaction, split, Parquet (zstd) or JSONL, one file or part files (a folder per
 * data_source / channel / model, parts of at most N MB; export/parts.ts) saved to a picked folder or a zip. Shows the row count, the
 * rows a trainer would reject and the first rows (export/preview.ts) before download; downloads a
 * manifest JSON beside the file; shows progress and can cancel.
 *
 * API: `modal` + `open` (a dialog; event `aw-close`), `source`, `where` (filter predicate; default:
 * the dashboard's), `filter`, `viewName`, `predicate`, `layout`, `format`, `options()`, `refreshPreview()`,
 * `exportNow()`, `cancel()`; `saveFile` replaces the browser download (tests). Inline, the preview
 * runs on the first "Preview" (not at boot) and follows the controls and the pool's writes from then on.
 *
 * One concept: the one export form (both places use it); the preview is export/preview.ts and the manifest manifest.ts.
 */
import { consume } from '@lit/context';
import type { Table } from 'apache-arrow';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { DatasetLayout, ExportDatasetOptions, ExportFormat, TokenExportReport } from '../../contract/reports';
import { download } from '../kit/download';
import { type Services, servicesContext } from '../kit/services';
import { base } from '../kit/styles';
import { PoolQueryController } from '../kit/pool-refresh';
import { type CurationFilter, filterSummary } from '../../curation/filter';
import { formExportOptions } from '../../export/export-flags';
import { datasetSql, LAYOUTS, resolveLayoutOptions } from '../../export/layouts';
import { type PartitionColumn, exportPartsTo } from '../../export/parts';
import { datasetPreview } from '../../export/preview';
import { inView } from '../../pool/queries/steps';
import '../aw-table';
import { dashboardFilter, dashboardWhere } from '../dashboard/filter-state';
import { setExportSettings } from './export-state';
import { schemaViewsSql } from './queries';
import { OPEN_NOTEBOOK_EVENT, type OpenNotebook, openNotebookState, qualifiedView } from '../notebook/open-notebook';
import { buildManifest, type ExportManifest, fileStem } from './manifest';
import { Cancellable } from '../../util/jobs';

export type ExportSource = 'pool' | 'filter' | 'view' | 'sql';

/**
 * The preview's inputs that only one source reads (sourceWhere): the open notebook (it changes at every run of one of
 * its cells) and the view's name for a notebook view, the predicate for SQL, the dashboard's filter for 'filter'. Any
 * other source's preview stays as it is when they change: a Data-tab preview of the pool re-ran its layout queries
 * (≈ 0.2 s each on the demo data) at every cell run.
 */
const ONE_SOURCE = { notebook: 'view', viewName: 'view', predicate: 'sql', where: 'filter' } as const satisfies Record<string, ExportSource>;

/** The "files" choices: one file, or a folder per value of these step columns (export/parts.ts PARTITION_COLUMNS). */
const PART_CHOICES: [string, string][] = [['', 'one file'], ['data_source', 'a folder per data_source'], ['channel', 'a folder per channel'], ['data_source,channel', 'per data_source, then channel'], ['model', 'a folder per model']];
const VIEW_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;
/** The longest a live preview waits during a long run of writes (an import) before it reads again, in ms. */
const PREVIEW_WAIT_MS = 3000;

@customElement('aw-export-form')
export class AwExportForm extends LitElement {
  @consume({ context: servicesContext, subscribe: true })
  @property({ attribute: false })
  services?: Services;

  /** A dialog over the page (shown while `open`), not a form in the page's flow. */
  @property({ type: Boolean, reflect: true }) modal = false;
  @property({ type: Boolean, reflect: true }) open = false;
  @property() source: ExportSource = 'filter';
  @property() where: string | null = null;
  @property({ attribute: false }) filter: CurationFilter | null = null;
  /** Source `view`: one of the open notebook's cell ids (resolved to its schema), or an already qualified `schema.view`. */
  @property({ attribute: 'view-name' }) viewName = '';
  /** The notebook open in the Notebook tab (its cell views are the `view` source's choices). */
  @state() notebook: OpenNotebook | null = openNotebookState();
  /** Its views as DuckDB has them: columns, and whether one is step_id (null: not listed yet). */
  @state() private viewInfo: Map<string, { columns: number; hasStepId: boolean }> | null = null;
  /** Source `sql`: a SQL predicate over `steps s` and `curation c`, typed by the user. */
  @property() predicate = '';
  @property({ attribute: false }) saveFile: (name: string, blob: Blob) => void = (name, blob) => download(blob, name);
  /** Asks for the folder part files go into (File System Access API); tests replace it. Null: no picker, a zip instead. */
  @property({ attribute: false }) pickFolder: (() => Promise<FileSystemDirectoryHandle>) | null =
    'showDirectoryPicker' in window ? () => (window as unknown as { showDirectoryPicker(o: object): Promise<FileSystemDirectoryHandle> }).showDirectoryPicker({ mode: 'readwrite' }) : null;

  @property() layout: DatasetLayout = 'sft';
  @property() format: ExportFormat = 'parquet';
  @state() sftPer: 'trajectory' | 'step' = 'trajectory';
  @state() dpoMinMargin = 0;
  @state() trainableOnly = true;
  /** Leave out conversations a trainer / chat template would reject (default on). */
  @state() validOnly = true;
  @state() redact = false;
  @state() split = '';
  @state() splitColumn: 'split' | 'channel' = 'split';
  /** sft: add input_ids / assistant_masks / n_tokens with the active tokenizer profile. */
  @state() tokens = false;
  @state() maxTokens = 32768;
  @state() truncate: 'drop' | 'turn' = 'drop';
  /** Part files: a folder per value of these columns ('' = one file), each part at most `maxFileMb` (0 = no limit). */
  @state() partitionBy = '';
  @state() maxFileMb = 0;

  @state() preview: Table | null = null;
  @state() rowCount: number | null = null;
  @state() private counts: { steps: number; trajectories: number } | null = null;
  /** Rows the checks reject, by reason, and the first of them by id. */
  @state() problems: { byReason: { problem: string; n: number }[]; first: { id: string; problem: string }[] } | null = null;
  @state() private progress: { rows: number; bytes: number } | null = null;
  @state() private error: string | null = null;
  @state() private busy = false;
  /** A preview count is running (shown as "Counting…" only then: never beside an error). */
  @state() private counting = false;
  /** The first rows and the trainer checks are still running (after the count). */
  @state() private checking = false;
  /** The last export's manifest (also downloaded as JSON). */
  lastManifest: ExportManifest | null = null;
  /** The last part-file export's report (files, rows, bytes). */
  lastParts: Awaited<ReturnType<typeof exportPartsTo>> | null = null;
  private job = new Cancellable();
  private previewSeq = 0;
  /** Inline: the user asked for a preview, so it follows the controls from now on. */
  @state() previewing = false;
  /**
   * The live preview follows its controls and the pool's writes to what the layouts read (steps, curation: an import,
   * labels, a notebook's effect cells), from the moment it is live (the dialog open, the inline form asked for): one
   * read at a time (changes meanwhile give one more), a burst of writes collected into one read (at most one every
   * PREVIEW_WAIT_MS during a long import: four layout queries on the pool's one worker), and none while the form is
   * hidden (the Data tab's form while the user works in the Notebook tab): it reads when shown. `settled`: tests.
   */
  readonly livePreview = new PoolQueryController(this, {
    pool: () => (this.live ? this.services?.pool : null),
    tables: ['steps', 'curation'],
    run: () => (this.live ? this.refreshPreview() : Promise.resolve()),
    maxWaitMs: PREVIEW_WAIT_MS,
  });

  static override styles = [
    base,
    css`
      :host { display: block; }
      :host([modal]) { display: none; }
      :host([modal][open]) { display: block; position: fixed; inset: 0; background: rgb(0 0 0 / 0.25); z-index: 50; }
      :host([modal]) .dialog {
        position: absolute; top: 4vh; left: 50%; transform: translateX(-50%); width: min(1100px, 94vw); max-height: 92vh; box-sizing: border-box;
        background: var(--aw-bg); color: var(--aw-text); border: 1px solid var(--aw-border); border-radius: var(--aw-radius);
        padding: 12px 16px; overflow: auto; font-size: 13px;
      }
      h2 { margin: 0 0 6px; font-size: 16px; }
      .form { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 0 16px; align-items: start; }
      .hint { color: var(--aw-muted); }
      fieldset { border: 1px solid var(--aw-border); border-radius: var(--aw-radius); margin: 6px 0; display: flex; flex-wrap: wrap; gap: 6px 14px; align-items: center; }
      .desc { color: var(--aw-muted); font-size: 12px; flex-basis: 100%; }
      .err { color: var(--aw-error); white-space: pre-wrap; }
      .problems { color: var(--aw-text); background: var(--aw-warn-bg); border: 1px solid var(--aw-warn-border); border-radius: var(--aw-radius); padding: 4px 10px; }
      .problems ul { margin: 2px 0; padding-left: 18px; max-height: 120px; overflow: auto; }
      input.predicate { flex: 1 1 100%; font-family: var(--aw-mono); font-size: 12.5px; }
      .caption { color: var(--aw-muted); font-size: 12px; margin: 6px 0 2px; }
      progress { width: 240px; }
      progress.counting { width: 80px; height: 8px; vertical-align: middle; }
      .count .stale { color: var(--aw-muted); }
      .actions { display: flex; gap: 8px; align-items: center; margin-top: 8px; }
    `,
  ];

  /** The dataset options the dialog's controls describe (the same mapping "Run headless" writes as CLI flags). */
  options(): Omit<ExportDatasetOptions, 'format'> {
    return formExportOptions({
      layout: this.layout, where: this.sourceWhere(), trainableOnly: this.trainableOnly, validOnly: this.validOnly, redact: this.redact, split: this.split,
      splitColumn: this.splitColumn, sftPer: this.sftPer, tokens: this.tokens, maxTokens: this.maxTokens, truncate: this.truncate, dpoMinMargin: this.dpoMinMargin,
    });
  }

  /**
   * Share the settings with "Run headless" (an invalid view name shares none). A closed dialog shares nothing: the
   * notebook panel keeps one mounted, and its defaults must not replace what the Data tab's form was set to.
   */
  private shareSettings(): void {
    if (this.modal && !this.open) return;
    try {
      setExportSettings({
        options: this.options(), view: this.source === 'view' ? this.qualifiedViewName() : null, partitionBy: this.partitionBy.split(',').filter(Boolean), maxFileMb: this.maxFileMb,
      });
    } catch {
      setExportSettings(null);
    }
  }

  private sourceWhere(): string {
    if (this.source === 'pool') return '';
    if (this.source === 'view') return inView(this.qualifiedViewName());
    if (this.source === 'sql') return this.predicate.trim();
    return this.where ?? dashboardWhere();
  }

  /** The `view` source as a schema-qualified name: a cell id of the open notebook resolves to the notebook's schema. */
  private qualifiedViewName(): string {
    const v = this.viewName.trim();
    if (!v) throw new Error(this.notebook ? `Pick one of the views of “${this.notebook.title}”.` : 'No notebook is open: open one in the Notebook tab, run a query cell with an id, then pick its view here.');
    if (!VIEW_NAME.test(v)) throw new Error(`invalid view name: ${v} — pick a notebook cell's view`);
    if (v.includes('.')) return v;
    if (!this.notebook) throw new Error(`No notebook is open, so “${v}” names no view: open its notebook in the Notebook tab.`);
    const info = this.viewInfo?.get(v.toLowerCase());
    if (info && !info.hasStepId) throw new Error(`The view “${v}” has no step_id column, so its rows name no steps: add step_id to the cell's SELECT.`);
    return qualifiedView(this.notebook, v);
  }

  /** List the open notebook's views (columns, step_id) and pick the first exportable one when none is chosen. */
  private async loadViews(): Promise<void> {
    const nb = this.notebook;
    const pool = this.services?.pool;
    if (!nb || !pool) {
      this.viewInfo = null;
      return;
    }
    try {
      const rows = await pool.rows(schemaViewsSql(nb.schema));
      if (nb !== this.notebook) return;
      this.viewInfo = new Map(rows.map((r) => [String(r.view), { columns: Number(r.columns), hasStepId: r.has_step_id === true }]));
    } catch {
      this.viewInfo = new Map();
    }
    const ok = (v: string) => this.viewInfo?.get(v)?.hasStepId === true;
    if (!this.viewName.includes('.') && !ok(this.viewName.trim().toLowerCase())) {
      const first = nb.views.find(ok);
      if (first) this.viewName = first;
    }
  }

  private readonly onNotebook = (e: Event) => {
    this.notebook = (e as CustomEvent<OpenNotebook | null>).detail;
  };

  /** Escape closes the dialog wherever the focus is (also on the page behind it, or nowhere). */
  private readonly onKey = (e: KeyboardEvent) => {
    if (this.modal && this.open && e.key === 'Escape' && !e.defaultPrevented) {
      e.preventDefault();
      this.close();
    }
  };

  override connectedCallback(): void {
    super.connectedCallback();
    window.addEventListener('keydown', this.onKey);
    window.addEventListener(OPEN_NOTEBOOK_EVENT, this.onNotebook);
    this.notebook = openNotebookState();
  }

  override disconnectedCallback(): void {
    window.removeEventListener('keydown', this.onKey);
    window.removeEventListener(OPEN_NOTEBOOK_EVENT, this.onNotebook);
    super.disconnectedCallback();
  }

  /** The preview follows the controls: a dialog while open, the inline form once asked for. */
  private get live(): boolean {
    return this.modal ? this.open : this.previewing;
  }

  protected override updated(changed: PropertyValues<this>): void {
    // focus moves into the dialog when it opens (its first control), so the keyboard starts there
    if (this.modal && changed.has('open') && this.open) (this.renderRoot.querySelector('.dialog input, .dialog button') as HTMLElement | null)?.focus();
    if (this.source === 'view' && (changed.has('source') || changed.has('notebook') || changed.has('services') || (changed.has('open') && this.open))) void this.loadViews();
    // what the preview reads; becoming live (open, previewing) or a new pool (services) is the controller's first read
    const inputs = ['source', 'notebook', 'where', 'viewName', 'predicate', 'layout', 'sftPer', 'tokens', 'maxTokens', 'truncate', 'dpoMinMargin', 'trainableOnly', 'validOnly', 'redact', 'split', 'splitColumn'] as const;
    // the part-file controls change what "Run headless" prints, not the preview
    if ([...inputs, 'open', 'previewing', 'services', 'partitionBy', 'maxFileMb'].some((k) => changed.has(k as keyof AwExportForm))) this.shareSettings();
    // in the update that made it live or gave it a pool, the controller has asked for its first read already
    const attached = changed.has('open') || changed.has('previewing') || changed.has('services');
    if (this.live && !attached && inputs.some((k) => changed.has(k) && (!(k in ONE_SOURCE) || ONE_SOURCE[k as keyof typeof ONE_SOURCE] === this.source))) void this.livePreview.invalidate();
  }

  /** Count the rows and fetch the first ones of what would be exported. */
  async refreshPreview(): Promise<void> {
    const pool = this.services?.pool;
    if (!pool) return;
    const seq = ++this.previewSeq;
    this.counting = true;
    this.checking = true;
    // an earlier selection's error is not this one's: it stayed beside this count until the rows came
    this.error = null;
    try {
      const p = await datasetPreview(pool, this.options(), 5, (c) => {
        // the count first; the first rows and the trainer checks follow
        if (seq !== this.previewSeq) return;
        this.counting = false;
        this.rowCount = c.rows;
        this.counts = { steps: c.steps, trajectories: c.trajectories };
      });
      if (seq !== this.previewSeq) return;
      this.counting = false;
      this.checking = false;
      this.problems = { byReason: p.byReason, first: p.first };
      this.rowCount = p.rows;
      this.counts = { steps: p.steps, trajectories: p.trajectories };
      this.preview = p.head;
      this.error = null;
    } catch (e) {
      if (seq !== this.previewSeq) return;
      this.counting = false;
      this.checking = false;
      this.rowCount = null;
      this.counts = null;
      this.problems = null;
      this.preview = null;
      this.error = `The preview failed: ${e instanceof Error ? e.message : String(e)}`;
    }
  }

  /** Export with the current options, then save the file and its manifest. Resolves with the manifest. */
  async exportNow(toFolder = false): Promise<ExportManifest | null> {
    const s = this.services;
    if (!s || this.busy) return null;
    this.error = null;
    // live: through the preview's controller, so no read it still owes (a dialog just opened) lands after this one
    // and leaves this count out of date; settles once the latest read has ended
    if (this.live) await this.livePreview.refresh();
    else await this.refreshPreview();
    if (this.error) return null;
    if (!this.rowCount) {
      this.error = 'Nothing to export: the selection has no rows. Loosen the filter, turn off "trainable only", or pick another split.';
      return null;
    }
    const opts = this.options();
    if (this.parted) return this.exportParts(opts, toFolder);
    const stem = fileStem(this.layout);
    const file = `${stem}.${this.format === 'parquet' ? 'parquet' : 'jsonl'}`;
    return this.running('The export was cancelled; nothing was saved.', async (signal) => {
      let tokens: TokenExportReport | undefined;
      const blob = await s.exporter.exportDataset({ ...opts, format: this.format, signal, onProgress: (p) => (this.progress = p), onTokens: (r) => (tokens = r) });
      const filter = this.source === 'filter' ? filterSummary(this.filter ?? dashboardFilter()) : undefined;
      const manifest = buildManifest({
        file, layout: this.layout, format: this.format, options: opts, rows: this.rowCount as number, counts: this.counts, problems: this.problems?.byReason ?? [], tokens,
        source: { kind: this.source, ...(this.source === 'view' ? { view: this.viewName.trim() } : {}), ...(filter ? { filter } : {}), where: opts.where ?? null },
        sql: datasetSql(await resolveLayoutOptions((q) => s.pool.rows(q), opts)),
      });
      this.lastManifest = manifest;
      this.saveFile(file, blob);
      this.saveFile(`${stem}.manifest.json`, new Blob([JSON.stringify(manifest, null, 2)], { type: 'application/json' }));
      s.notify(`Exported ${manifest.rows.toLocaleString('en-US')} ${this.layout} rows to ${file}`);
      return manifest;
    });
  }

  /**
   * One export with the form's busy state, progress, cancel and error line. A cancel (the Cancel button, or the folder
   * picker dismissed) shows `cancelled`; any other failure its message.
   */
  private async running<T>(cancelled: string, work: (signal: AbortSignal) => Promise<T>): Promise<T | null> {
    const signal = this.job.start();
    this.busy = true;
    this.progress = { rows: 0, bytes: 0 };
    try {
      return await work(signal);
    } catch (e) {
      this.error = signal.aborted || (e instanceof DOMException && e.name === 'AbortError') ? cancelled : `The export failed: ${e instanceof Error ? e.message : String(e)}`;
      return null;
    } finally {
      this.busy = false;
      this.job.end();
      // inline, the counts stay shown from now on (set after the export: an update now would supersede its preview)
      if (!this.modal) this.previewing = true;
    }
  }

  /** The export as part files (export/parts.ts): into a folder the user picks, or one zip download. */
  private async exportParts(opts: Omit<ExportDatasetOptions, 'format'>, toFolder: boolean): Promise<ExportManifest | null> {
    const s = this.services as Services;
    return this.running('The export was cancelled; nothing more was saved.', async (signal) => {
      const folder = toFolder && this.pickFolder ? await this.pickFolder() : null;
      const partitionBy = this.partitionBy.split(',').filter(Boolean) as PartitionColumn[];
      const maxFileBytes = this.maxFileMb > 0 ? this.maxFileMb * 1e6 : null; // MB as the CLI's --max-file-size reads it
      const source = { kind: this.source, ...(this.source === 'view' ? { view: this.viewName.trim() } : {}), where: opts.where ?? null };
      const r = await exportPartsTo({ exporter: s.exporter, rows: (q) => s.pool.rows(q) }, { ...opts, format: this.format, signal, onProgress: (p) => (this.progress = p) },
        { partitionBy, maxFileBytes }, folder, { source });
      if (r.zip) this.saveFile(`${r.folder}.zip`, r.zip);
      s.notify(`Exported ${r.rows.toLocaleString('en-US')} ${this.layout} rows in ${r.files.length} files to ${folder ? `${folder.name}/` : ''}${r.folder}${r.zip ? '.zip' : '/'}`);
      this.lastParts = r;
      return null;
    });
  }

  cancel(): void {
    this.job.cancel();
  }

  private close(): void {
    if (!this.modal) return;
    this.cancel();
    this.open = false;
    this.dispatchEvent(new CustomEvent('aw-close', { bubbles: true, composed: true }));
  }

  /** The export goes into part files (a split or a size limit is set). */
  private get parted(): boolean {
    return !!this.partitionBy || this.maxFileMb > 0;
  }

  private radio<T extends string>(name: string, value: T, current: T, label: string, set: (v: T) => void) {
    return html`<label><input type="radio" name=${name} .checked=${value === current} @change=${() => set(value)} /> ${label}</label>`;
  }

  /** What a plain check of roles and content rejects: counts by reason and the first rows by id (text, never markup). */
  private renderProblems() {
    const p = this.problems;
    if (!p?.byReason.length) return nothing;
    const total = p.byReason.reduce((a, r) => a + r.n, 0);
    const unit = this.layout === 'dpo' ? 'trajectories' : 'rows';
    return html`<div class="problems" aria-label="Rows a trainer would reject">
      <p><strong>${total.toLocaleString('en-US')}</strong> ${unit} would make a trainer or chat template fail
        (${p.byReason.map((r) => `${r.problem}: ${r.n}`).join(', ')}) — ${this.validOnly ? 'left out of the export and counted in the manifest' : 'exported with a problem column'}.</p>
      <ul tabindex="0" aria-label="First rejected rows">${p.first.map((r) => html`<li><code>${r.id}</code> — ${r.problem}</li>`)}</ul>
    </div>`;
  }

  /** The `view` source: a choice among the open notebook's cell views; one without step_id (or not run yet) is shown, disabled, with why. */
  private renderViewPicker() {
    const nb = this.notebook;
    if (!nb) return html`<span class="desc">No notebook is open. Open one in the Notebook tab and run a query cell with an id: its view is listed here (its rows need a <code>step_id</code> column).</span>`;
    if (!nb.views.length) return html`<span class="desc">“${nb.title}” has no query cell with an id: give a cell an id (its rows need a <code>step_id</code> column) to export its view.</span>`;
    const why = (v: string) => {
      const i = this.viewInfo?.get(v);
      if (!this.viewInfo) return '';
      if (!i) return ' (not run yet)';
      return i.hasStepId ? '' : ' (no step_id column)';
    };
    const qualified = this.viewName.includes('.');
    return html`<label>view of “${nb.title}” <select aria-label="Notebook view" .value=${qualified ? this.viewName : this.viewName.toLowerCase()}
        @change=${(e: Event) => (this.viewName = (e.target as HTMLSelectElement).value)}>
        ${this.viewName && !nb.views.includes(this.viewName.toLowerCase()) ? html`<option value=${this.viewName}>${this.viewName}</option>` : nothing}
        ${this.viewName ? nothing : html`<option value="" disabled>pick a view</option>`}
        ${nb.views.map((v) => html`<option value=${v} ?disabled=${why(v) !== ''} ?selected=${v === this.viewName.toLowerCase()}>${v}${why(v)}</option>`)}
      </select></label>`;
  }

  override render() {
    if (this.modal && !this.open) return nothing;
    const body = this.renderForm();
    return this.modal ? html`<div class="dialog" role="dialog" aria-modal="true" aria-label="Export dataset"><h2>Export dataset</h2>${body}</div>` : html`<div class="dialog">${body}</div>`;
  }

  private renderForm() {
    const total = this.rowCount ?? 0;
    return html`
      <div class="form">
      <fieldset><legend>Layout</legend>
        ${(Object.keys(LAYOUTS) as DatasetLayout[]).map((l) => this.radio('layout', l, this.layout, l, (v) => (this.layout = v)))}
        <div class="desc">${LAYOUTS[this.layout]}</div>
        ${this.layout === 'sft' ? html`<label>rows <select aria-label="SFT rows per" .value=${this.sftPer} @change=${(e: Event) => (this.sftPer = (e.target as HTMLSelectElement).value as 'trajectory' | 'step')}>
            <option value="trajectory">per trajectory (messages)</option><option value="step">per step (prompt + completion)</option></select></label>` : nothing}
        ${this.layout === 'sft' ? html`<label><input type="checkbox" .checked=${this.tokens} @change=${(e: Event) => (this.tokens = (e.target as HTMLInputElement).checked)} /> add input_ids / assistant_masks (active tokenizer)</label>
          ${this.tokens ? html`<label>max tokens <input type="number" min="1" step="1" aria-label="Maximum tokens per row" .value=${String(this.maxTokens)}
              @change=${(e: Event) => (this.maxTokens = Math.max(1, Math.floor(Number((e.target as HTMLInputElement).value)) || 1))} /></label>
            <label>longer rows <select aria-label="Rows over max tokens" .value=${this.truncate} @change=${(e: Event) => (this.truncate = (e.target as HTMLSelectElement).value as 'drop' | 'turn')}>
              <option value="drop">left out</option><option value="turn">cut at a turn boundary</option></select></label>` : nothing}` : nothing}
        ${this.layout === 'dpo' ? html`<label>minimum reward margin <input type="number" step="any" min="0" aria-label="Minimum DPO reward margin" .value=${String(this.dpoMinMargin)}
            @change=${(e: Event) => (this.dpoMinMargin = Math.max(0, Number((e.target as HTMLInputElement).value) || 0))} /></label>` : nothing}
      </fieldset>
      <fieldset><legend>Source</legend>
        ${this.radio('source', 'pool' as ExportSource, this.source, 'whole pool', (v) => (this.source = v))}
        ${this.radio('source', 'filter' as ExportSource, this.source, 'dashboard filter', (v) => (this.source = v))}
        ${this.radio('source', 'view' as ExportSource, this.source, 'notebook cell view', (v) => (this.source = v))}
        ${this.source === 'view' ? this.renderViewPicker() : nothing}
        ${this.radio('source', 'sql' as ExportSource, this.source, 'SQL filter', (v) => (this.source = v))}
        ${this.source === 'sql' ? html`<input class="predicate" aria-label="Filter (SQL predicate over steps s and curation c)" placeholder="e.g. s.reward > 0 AND s.data_source = 'gsm8k'"
            .value=${this.predicate} @change=${(e: Event) => (this.predicate = (e.target as HTMLInputElement).value)} />` : nothing}
      </fieldset>
      <fieldset><legend>Rows</legend>
        <label><input type="checkbox" .checked=${this.trainableOnly} @change=${(e: Event) => (this.trainableOnly = (e.target as HTMLInputElement).checked)} /> trainable only <span class="hint">(succeeded and not marked bad, or labelled trainable)</span></label>
        <label><input type="checkbox" .checked=${this.validOnly} @change=${(e: Event) => (this.validOnly = (e.target as HTMLInputElement).checked)} /> only conversations a trainer accepts</label>
        <label><input type="checkbox" .checked=${this.redact} @change=${(e: Event) => (this.redact = (e.target as HTMLInputElement).checked)} /> redact e-mails, phones, keys</label>
        <label>split <select aria-label="Split to export" .value=${this.split} @change=${(e: Event) => (this.split = (e.target as HTMLSelectElement).value)}>
          <option value="">all</option><option value="train">train</option><option value="val">val</option></select></label>
        <label>split from <select aria-label="Split column" .value=${this.splitColumn} @change=${(e: Event) => (this.splitColumn = (e.target as HTMLSelectElement).value as 'split' | 'channel')}>
          <option value="split">split helper (else channel)</option><option value="channel">source channel</option></select></label>
      </fieldset>
      <fieldset><legend>Format and files</legend>
        ${this.radio('format', 'parquet' as ExportFormat, this.format, 'Parquet (zstd)', (v) => (this.format = v))}
        ${this.radio('format', 'jsonl' as ExportFormat, this.format, 'JSONL', (v) => (this.format = v))}
        <label>files <select aria-label="Split into files by" .value=${this.partitionBy} @change=${(e: Event) => (this.partitionBy = (e.target as HTMLSelectElement).value)}>
          ${PART_CHOICES.map(([v, label]) => html`<option value=${v}>${label}</option>`)}</select></label>
        <label>at most <input type="number" min="0" step="1" aria-label="Largest file in MB (0: no limit)" .value=${String(this.maxFileMb)}
          @change=${(e: Event) => (this.maxFileMb = Math.max(0, Math.floor(Number((e.target as HTMLInputElement).value)) || 0))} /> MB per file</label>
        ${this.parted ? html`<div class="desc">Hive-style folders (<code>data_source=…/part-0.${this.format}</code>) and <code>_manifest.json</code>: DuckDB, Ray Data, polars and datasets read the folder as one dataset. No trajectory or prompt group is cut across files.</div>` : nothing}
      </fieldset>
      </div>
      ${this.modal ? nothing : html`<div class="actions"><button @click=${() => (this.previewing ? void this.livePreview.refresh() : (this.previewing = true))}>Preview</button></div>`}
      ${!this.live ? nothing : html`<p role="status" aria-live="polite" class="count">${this.counting ? html`<progress class="counting" aria-label="Counting rows"></progress> Counting…` : nothing}
        ${this.rowCount === null ? nothing : html`<span class=${this.counting ? 'stale' : ''}><strong class="total">${total.toLocaleString('en-US')}</strong> rows from
        ${this.counts?.steps.toLocaleString('en-US')} steps in ${this.counts?.trajectories.toLocaleString('en-US')} trajectories</span>`}
        ${this.checking && !this.counting ? html`<span class="muted checking"><progress class="counting" aria-label="Checking the rows"></progress> checking what a trainer would reject…</span>` : nothing}</p>`}
      ${this.renderProblems()}
      ${this.error ? html`<p class="err" role="alert">${this.error}</p>` : nothing}
      ${
        this.preview
          ? html`<p class="caption">Preview: the first ${this.preview.numRows.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} rows</p>
            <aw-table .table=${this.preview} .height=${180}></aw-table>`
          : nothing
      }
      <div class="actions">
        ${this.parted
          ? html`${this.pickFolder ? html`<button ?disabled=${this.busy} @click=${() => void this.exportNow(true)}>Save ${this.layout} files to a folder…</button>` : nothing}
            <button ?disabled=${this.busy} @click=${() => void this.exportNow()}>Download ${this.layout} files (.zip)</button>`
          : html`<button ?disabled=${this.busy} @click=${() => void this.exportNow()}>Download ${this.layout}.${this.format === 'parquet' ? 'parquet' : 'jsonl'}</button>`}
        ${this.busy ? html`<progress aria-label="Export progress" max=${total || 1} value=${Math.min(this.progress?.rows ?? 0, total)}></progress>
            <span>${(this.progress?.rows ?? 0).toLocaleString('en-US')} rows · ${Math.round((this.progress?.bytes ?? 0) / 1024)} KB</span>
            <button @click=${() => this.cancel()}>Cancel</button>` : nothing}
        ${this.modal ? html`<button @click=${() => this.close()} aria-label="Close export dialog">Close</button>` : nothing}
      </div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-export-form': AwExportForm;
  }
}
