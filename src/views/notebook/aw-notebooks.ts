/**
 * <aw-notebooks>: the notebook panel — the list of saved notebooks (IndexedDB) and the open one.
 * Registers itself for window.workbench.openNotebook / runAll (notebook/api.ts).
 * `?notebook=<url>` and Open .md open that notebook read-only; it runs only after the user confirms
 * (a notebook someone else wrote is untrusted input, docs/security.md).
 *
 * One concept: the panel's list, open/save and URL-open flow share one state (the open notebook and whether it is trusted).
 */
import { consume } from '@lit/context';
import { css, html, LitElement, nothing } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';
import { type Services, servicesContext } from '../kit/services';
import { type CellReport, registerNotebookPanel } from '../../notebook/api';
import { EXAMPLE_NOTEBOOKS, fetchExample } from '../../notebook/examples';
import { notebookTitle, parseNotebook, serializeNotebook, withTitle } from '../../notebook/format';
import type { NotebookDoc } from '../../notebook/model';
import { schemaName } from '../../notebook/runtime';
import { headlessCommands } from './headless';
import { exportSettings } from '../export/export-state';
import { activeTokenizer } from '../../tokenizer/service';
import { BUNDLED_QWEN3 } from '../../tokenizer/bundled';
import { notebookToSql } from '../../notebook/sql-script';
import { type HistoryEntry, newNotebookId, NotebookStore, type StoredNotebook } from '../../notebook/storage';
import { download } from '../kit/download';
import type { AwNotebook } from './aw-notebook';
import './aw-notebook';
import './aw-notebook-sidebar';
import { dropSchema, FIRST_CELL_SQL } from './queries';
import { setOpenNotebook } from './open-notebook';
import { currentRoute, registerRouteState, ROUTE_EVENT, type Route, writeRoute } from '../kit/route';
import '../export/aw-export-form';

interface Open {
  id: string;
  doc: NotebookDoc;
  readonly: boolean;
  awaitingConfirm: boolean;
  origin: string | null;
}

const NEW_NOTEBOOK = `---
title: Untitled notebook
---

# Untitled notebook

\`\`\`sql id=recent
${FIRST_CELL_SQL}
\`\`\`
`;

function slug(title: string): string {
  return title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'notebook';
}

@customElement('aw-notebooks')
export class AwNotebooks extends LitElement {
  @consume({ context: servicesContext, subscribe: true })
  @property({ attribute: false })
  services?: Services;

  /** Storage; tests pass their own database name. */
  @property({ attribute: false }) store: NotebookStore | null = null;
  /** Read `?notebook=<url>` from the page address on start (off in tests). */
  @property({ type: Boolean, attribute: 'from-url' }) fromUrl = true;

  @state() private list: StoredNotebook[] = [];
  @state() private open: Open | null = null;
  @state() private confirmDelete = false;
  @state() private message: string | null = null;
  /** Bumped after a cell ran: the sidebar reloads the schema and the history. */
  @state() private sidebarKey = 0;
  /** The export dialog, its source this notebook's views. */
  @state() private exportOpen = false;
  @query('aw-notebook') private notebookEl?: AwNotebook;
  @query('input[type=file]') private fileInput?: HTMLInputElement;
  private unregister: (() => void) | null = null;
  private offRoute?: () => void;
  /** The notebook id the address last showed (edits make a new `open`, not a new address). */
  private routedId: string | null = null;
  private saveTimer = 0;
  private ready: Promise<void> = Promise.resolve();
  private opening: Promise<void> = Promise.resolve();

  static override styles = css`
    :host { display: grid; grid-template-columns: 220px 1fr; height: 100%; min-height: 0; font: 13px/1.45 system-ui, sans-serif; color: var(--aw-text); }
    nav { border-right: 1px solid var(--aw-border); background: var(--aw-subtle); overflow: auto; padding: 8px; display: flex; flex-direction: column; gap: 6px; }
    nav h2 { font-size: 11px; text-transform: uppercase; letter-spacing: .04em; color: var(--aw-muted); margin: 8px 0 2px; }
    nav ul { list-style: none; margin: 0; padding: 0; }
    nav li button { all: unset; display: block; width: 100%; box-sizing: border-box; padding: 3px 6px; border-radius: 3px; cursor: pointer; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    nav li button:hover { background: var(--aw-subtle); }
    nav li button[aria-current='true'] { background: var(--aw-accent-bg); font-weight: 600; }
    nav li button:focus-visible { outline: 2px solid var(--aw-accent); }
    .row { display: flex; gap: 4px; flex-wrap: wrap; }
    button.b { font: inherit; padding: 1px 8px; border: 1px solid var(--aw-border); background: var(--aw-panel); border-radius: 3px; cursor: pointer; }
    button.b:hover { background: var(--aw-subtle); }
    .main { overflow: auto; min-width: 0; }
    details.headless { padding: 4px 16px; border-bottom: 1px solid var(--aw-border); }
    details.headless pre { margin: 4px 0; padding: 6px 8px; background: var(--aw-subtle); border-radius: 3px; overflow: auto; font: 12px ui-monospace, monospace; }
    header { position: sticky; top: 0; z-index: 2; display: flex; gap: 6px; align-items: center; padding: 6px 16px; background: var(--aw-panel); border-bottom: 1px solid var(--aw-border); }
    header input { font: 600 15px system-ui, sans-serif; border: 1px solid transparent; padding: 1px 4px; flex: 1; min-width: 120px; }
    header input:hover, header input:focus { border-color: var(--aw-border); }
    .ro { color: var(--aw-warn); font-size: 12px; }
    .msg { padding: 4px 16px; color: var(--aw-error); }
    .empty { padding: 24px; color: var(--aw-muted); }
    input[type=file] { display: none; }
  `;

  override connectedCallback(): void {
    super.connectedCallback();
    this.store ??= new NotebookStore();
    this.unregister = registerNotebookPanel({ openMarkdown: (md, o) => this.openMarkdown(md, o), runAll: () => this.runAll(), sql: () => (this.open ? notebookToSql(this.open.doc) : null) });
    // `#notebook?nb=<id>`: a saved notebook (one opened read-only from a file or URL has no address of its own)
    this.offRoute = registerRouteState('notebook', () => ({ params: this.open && !this.open.readonly ? new URLSearchParams({ nb: this.open.id }) : undefined }));
    window.addEventListener(ROUTE_EVENT, this.onRoute);
    this.ready = this.start();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.unregister?.();
    this.offRoute?.();
    window.removeEventListener(ROUTE_EVENT, this.onRoute);
    this.flushSave();
    setOpenNotebook(null);
  }

  private onRoute = (e: Event): void => {
    const r = (e as CustomEvent<Route>).detail;
    const nb = r.tab === 'notebook' ? r.params.get('nb') : null;
    if (nb && nb !== this.open?.id) void this.ready.then(() => this.show(nb));
  };

  protected override updated(changed: Map<string, unknown>): void {
    // the export form's view picker follows the open notebook, its cells and its runs
    if (changed.has('open') || changed.has('sidebarKey')) setOpenNotebook(this.open);
    if (changed.has('open') && (this.open?.id ?? null) !== this.routedId) {
      // the first notebook shown on start is where the address already is: no history entry for it
      writeRoute('notebook', this.routedId === null ? 'replace' : 'push');
      this.routedId = this.open?.id ?? null;
    }
  }

  private async start(): Promise<void> {
    await this.refresh();
    const url = this.fromUrl ? new URLSearchParams(location.search).get('notebook') : null;
    if (url) {
      try {
        const res = await fetch(new URL(url, document.baseURI));
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        // Not through openMarkdown: that waits for this start-up to finish (it used to deadlock here).
        const p = this.doOpen(await res.text(), { origin: url, readonly: true }, false);
        this.opening = p.catch(() => {});
        await p;
        return;
      } catch (e) {
        this.message = `Could not open the notebook at ${url}: ${e instanceof Error ? e.message : e}. Check the address, or download it and open the file.`;
      }
    }
    const r = currentRoute();
    const linked = r.tab === 'notebook' ? r.params.get('nb') : null;
    if (linked && this.list.some((n) => n.id === linked)) await this.show(linked);
    else if (linked) this.message = `The linked notebook (${linked}) is not saved in this browser: notebooks live in the browser that made them. Ask for its .md file and open it.`;
    if (!this.open && this.list[0]) await this.show(this.list[0].id);
  }

  private async refresh(): Promise<void> {
    this.list = (await this.store?.list()) ?? [];
  }

  private async show(id: string): Promise<void> {
    // Already open: re-parsing would give its cells new keys that nothing runs (they showed "idle").
    if (this.open?.id === id && !this.open.readonly) return;
    this.flushSave();
    const nb = await this.store!.get(id);
    if (!nb) return;
    this.confirmDelete = false;
    this.open = { id, doc: parseNotebook(nb.markdown), readonly: false, awaitingConfirm: false, origin: nb.origin ?? null };
  }

  /** Open Markdown as a notebook: saved as a new one, or read-only awaiting confirmation (from a URL). */
  openMarkdown(markdown: string, opts: { origin?: string; readonly?: boolean } = {}): Promise<void> {
    const p = this.opening.then(() => this.doOpen(markdown, opts));
    this.opening = p.catch(() => {});
    return p;
  }

  private async doOpen(markdown: string, opts: { origin?: string; readonly?: boolean }, afterStart = true): Promise<void> {
    if (afterStart) await this.ready.catch(() => {});
    this.flushSave();
    const doc = parseNotebook(markdown);
    const id = newNotebookId();
    if (opts.readonly) {
      this.open = { id, doc, readonly: true, awaitingConfirm: true, origin: opts.origin ?? null };
      return;
    }
    await this.saveNew(id, doc, opts.origin ?? null);
    this.open = { id, doc, readonly: false, awaitingConfirm: false, origin: opts.origin ?? null };
  }

  async runAll(): Promise<{ cells: CellReport[] }> {
    await this.ready.catch(() => {});
    await this.opening;
    await this.updateComplete;
    const el = this.notebookEl;
    if (!el) throw new Error('No notebook is open: open one first (workbench.openNotebook(markdown)).');
    await el.updateComplete;
    return el.runAll();
  }

  private async saveNew(id: string, doc: NotebookDoc, origin: string | null): Promise<void> {
    const now = Date.now();
    await this.store!.put({ id, title: notebookTitle(doc), markdown: serializeNotebook(doc), createdAt: now, updatedAt: now, origin });
    await this.refresh();
  }

  private onDocChange(e: CustomEvent<{ doc: NotebookDoc }>): void {
    if (!this.open || this.open.readonly) return;
    this.open = { ...this.open, doc: e.detail.doc };
    clearTimeout(this.saveTimer);
    this.saveTimer = window.setTimeout(() => this.flushSave(), 400);
  }

  private onQueryRun(e: CustomEvent<Omit<HistoryEntry, 'at' | 'notebookId' | 'notebookTitle'>>): void {
    const o = this.open;
    if (!o || !this.store) return;
    const entry: HistoryEntry = { ...e.detail, at: Date.now(), notebookId: o.id, notebookTitle: notebookTitle(o.doc) };
    this.store
      .addHistory(entry)
      .then(() => this.sidebarKey++)
      .catch(() => {
        /* the history is a convenience */
      });
  }

  private flushSave(): void {
    clearTimeout(this.saveTimer);
    const o = this.open;
    if (!o || o.readonly || !this.store) return;
    const markdown = serializeNotebook(o.doc);
    const prev = this.list.find((x) => x.id === o.id);
    if (prev && prev.markdown === markdown) return;
    const rec: StoredNotebook = { id: o.id, title: notebookTitle(o.doc), markdown, createdAt: prev?.createdAt ?? Date.now(), updatedAt: Date.now(), origin: o.origin };
    this.list = [rec, ...this.list.filter((x) => x.id !== o.id)];
    this.store.put(rec).catch((err) => this.services?.notify(`Autosave failed: ${err instanceof Error ? err.message : err}`, 'error'));
  }

  private rename(title: string): void {
    if (!this.open || this.open.readonly || !title.trim()) return;
    this.open = { ...this.open, doc: withTitle(this.open.doc, title.trim()) };
    this.flushSave();
  }

  private async newNotebook(): Promise<void> {
    await this.openMarkdown(NEW_NOTEBOOK);
  }

  private async duplicate(): Promise<void> {
    const o = this.open;
    if (!o) return;
    const doc = withTitle(o.doc, o.readonly ? notebookTitle(o.doc) : `${notebookTitle(o.doc)} (copy)`);
    const id = newNotebookId();
    await this.saveNew(id, doc, o.origin);
    this.open = { id, doc, readonly: false, awaitingConfirm: false, origin: o.origin };
  }

  private async removeOpen(): Promise<void> {
    const o = this.open;
    if (!o) return;
    this.confirmDelete = false;
    if (!o.readonly) await this.store!.delete(o.id);
    this.services?.pool.exec(dropSchema(schemaName(o.id))).catch(() => {});
    this.open = null;
    await this.refresh();
    if (this.list[0]) await this.show(this.list[0].id);
  }

  private async openFile(): Promise<void> {
    const f = this.fileInput?.files?.[0];
    if (!f) return;
    // A file from someone else is as untrusted as a URL: read-only, nothing runs before the user confirms.
    await this.openMarkdown(await f.text(), { origin: f.name, readonly: true });
    this.fileInput!.value = '';
  }

  private async openExample(file: string): Promise<void> {
    try {
      // The saved copy of this example, when there is one, rather than another copy per click.
      await this.ready.catch(() => {});
      const saved = this.list.find((n) => n.origin === `notebooks/${file}`);
      if (saved) return await this.show(saved.id);
      await this.openMarkdown(await fetchExample(file), { origin: `notebooks/${file}` });
    } catch (e) {
      this.message = e instanceof Error ? e.message : String(e);
    }
  }

  private downloadMd(): void {
    if (!this.open) return;
    download(new Blob([serializeNotebook(this.open.doc)], { type: 'text/markdown' }), `${slug(notebookTitle(this.open.doc))}.md`);
  }

  private downloadSql(): void {
    if (!this.open) return;
    download(new Blob([notebookToSql(this.open.doc)], { type: 'application/sql' }), `${slug(notebookTitle(this.open.doc))}.sql`);
  }

  /** "Run headless": the CLI commands that run this notebook over a whole corpus with the export form's settings (README "CLI"). */
  private renderHeadless(o: Open) {
    const notebookFile = `${slug(notebookTitle(o.doc))}.md`;
    const settings = exportSettings();
    const tok = activeTokenizer()?.info();
    const commands = headlessCommands(o.doc, {
      notebookFile,
      export: settings?.options ?? null,
      view: settings?.view ? { name: settings.view, pageSchema: schemaName(o.id) } : null,
      tokenizer: tok?.name === BUNDLED_QWEN3 ? 'qwen3' : null,
      partitionBy: settings?.partitionBy,
      maxFileMb: settings?.maxFileMb,
    });
    // the export settings may have changed since the last render: opening the section renders the commands again
    return html`<details class="headless" @toggle=${(e: Event) => (e.target as HTMLDetailsElement).open && this.requestUpdate()}><summary>Run headless</summary>
      <div class="ro">Download the notebook (.md), then run it over all your data with the CLI (export settings: the export form's current ones):</div>
      <pre aria-label="Headless commands">${commands}</pre></details>`;
  }

  override render() {
    const o = this.open;
    return html`
      <nav aria-label="Notebooks">
        <div class="row">
          <button class="b" aria-label="New notebook" @click=${() => this.newNotebook()}>New</button>
          <button class="b" aria-label="Open .md — a notebook file from disk" @click=${() => this.fileInput?.click()}>Open .md</button>
          <input type="file" accept=".md,text/markdown" aria-label="Notebook file" @change=${() => this.openFile()} />
        </div>
        <h2 id="saved">Saved</h2>
        <ul aria-labelledby="saved">
          ${this.list.map((n) => html`<li><button aria-current=${o?.id === n.id ? 'true' : 'false'} title=${n.title} @click=${() => this.show(n.id)}>${n.title}</button></li>`)}
        </ul>
        ${this.list.length ? nothing : html`<div class="ro">No saved notebooks yet.</div>`}
        <h2 id="examples">Examples</h2>
        <ul aria-labelledby="examples">
          ${EXAMPLE_NOTEBOOKS.map((x) => html`<li><button aria-label=${`Open example: ${x.title}`} @click=${() => this.openExample(x.file)}>${x.title}</button></li>`)}
        </ul>
        <aw-notebook-sidebar .store=${this.store} .notebookId=${o?.id ?? ''} .notebookSchema=${o ? schemaName(o.id) : ''} .refreshKey=${this.sidebarKey}
          @aw-insert=${(e: CustomEvent<{ text: string }>) => this.notebookEl?.insertText(e.detail.text)}
          @aw-run-sql=${(e: CustomEvent<{ sql: string }>) => this.notebookEl?.runSql(e.detail.sql)}></aw-notebook-sidebar>
      </nav>
      <section class="main" aria-label="Open notebook">
        ${this.message ? html`<div class="msg" role="alert">${this.message}</div>` : nothing}
        ${o ? this.renderOpen(o) : html`<div class="empty">Open a notebook from the list, start a new one, or open an example.</div>`}
      </section>
    `;
  }

  private renderOpen(o: Open) {
    return html`
      <header>
        <input aria-label="Notebook title" .value=${notebookTitle(o.doc)} ?readonly=${o.readonly} @change=${(e: Event) => this.rename((e.target as HTMLInputElement).value)} />
        ${o.readonly ? html`<span class="ro">read-only</span>` : nothing}
        <button class="b" title="Export a training dataset from one of this notebook's views" @click=${() => (this.exportOpen = true)}>Export…</button>
        <button class="b" aria-label="Download .md — the notebook as Markdown" @click=${() => this.downloadMd()}>.md</button>
        <button class="b" aria-label="Download the notebook's SQL as a script" @click=${() => this.downloadSql()}>.sql</button>
        <button class="b" aria-label=${o.readonly ? 'Save an editable copy' : 'Duplicate notebook'} @click=${() => this.duplicate()}>${o.readonly ? 'Save a copy' : 'Duplicate'}</button>
        ${this.confirmDelete
          ? html`<button class="b" aria-label="Confirm delete" @click=${() => this.removeOpen()}>Delete it</button><button class="b" aria-label="Cancel delete" @click=${() => (this.confirmDelete = false)}>Cancel</button>`
          : html`<button class="b" aria-label=${o.readonly ? 'Close notebook' : 'Delete notebook'} @click=${() => (o.readonly ? this.removeOpen() : (this.confirmDelete = true))}>${o.readonly ? 'Close' : 'Delete'}</button>`}
      </header>
      ${this.renderHeadless(o)}
      <aw-notebook .doc=${o.doc} .notebookId=${o.id} ?readonly=${o.readonly} ?awaitingConfirm=${o.awaitingConfirm} .origin=${o.origin}
        @aw-doc-change=${this.onDocChange} @aw-query-run=${this.onQueryRun} @aw-notebook-ran=${() => this.sidebarKey++} @aw-confirmed=${() => (this.open = { ...o, awaitingConfirm: false })}></aw-notebook>
      <aw-export-form modal .services=${this.services} .open=${this.exportOpen} source="view" @aw-close=${() => (this.exportOpen = false)}></aw-export-form>
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-notebooks': AwNotebooks;
  }
}
