import { consume } from '@lit/context';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { type HubEntry, HubError } from '../../hub/hub-api';
import { importHubFiles, listHubFiles, notATraceFile, poolHubHost } from '../../hub/hub-import';
import { type HubRef, hubRefString, parseHubRef } from '../../hub/hub-ref';
import { hubEndpoint, hubToken, onHubSettings, setHubToken } from '../../hub/settings';
import { sqlString } from '../../pool/sql';
import { formatBytes } from '../kit/download';
import type { Services } from '../kit/services';
import { servicesContext } from '../kit/services';
import { base } from '../kit/styles';

/** At most this many file rows are drawn; the others are chosen with their folder. */
const SHOWN = 1000;

interface Folder {
  path: string;
  files: HubEntry[];
}

/**
 * Import from a Hugging Face dataset: lists the files a pasted `hf://datasets/…` reference or Hub URL points at
 * (the tree API, page by page), with their sizes; the user picks files or whole folders and imports them, each file
 * a job on the import list. Gated and private datasets take a token, held in this tab's memory only.
 */
@customElement('aw-hub-import')
export class AwHubImport extends LitElement {
  static override styles = [
    base,
    css`
      :host { display: block; margin-top: 10px; text-align: left; }
      .card { padding: 10px 12px; }
      header { display: flex; gap: 10px; align-items: baseline; flex-wrap: wrap; }
      .ref { font-weight: 600; word-break: break-all; }
      .files { max-height: 320px; overflow: auto; margin: 8px 0; border: 1px solid var(--aw-border); border-radius: var(--aw-radius); }
      .files label { display: flex; gap: 8px; align-items: baseline; padding: 2px 8px; }
      .files label.folder { font-weight: 600; background: var(--aw-panel); }
      .files label.file { padding-left: 28px; }
      .files label.off { color: var(--aw-muted); }
      .path { flex: 1; word-break: break-all; }
      .size { white-space: nowrap; }
      .token input { width: 260px; max-width: 50vw; }
    `,
  ];

  @consume({ context: servicesContext, subscribe: true }) @property({ attribute: false }) services!: Services;
  /** What the user pasted: an hf:// reference or a Hub URL. */
  @property() reference = '';
  @state() private ref: HubRef | null = null;
  @state() private files: HubEntry[] = [];
  @state() private listed = 0;
  @state() private listing = false;
  @state() private error: string | null = null;
  @state() private needsToken = false;
  @state() private chosen = new Set<string>();
  @state() private tokenText = '';
  @state() private importing = false;
  private run = 0;
  private offSettings: (() => void) | null = null;

  override connectedCallback(): void {
    super.connectedCallback();
    this.offSettings = onHubSettings(() => this.requestUpdate());
  }

  override disconnectedCallback(): void {
    this.offSettings?.();
    this.run++;
    super.disconnectedCallback();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('reference')) void this.list();
  }

  private async list(): Promise<void> {
    const run = ++this.run;
    this.files = [];
    this.chosen = new Set();
    this.error = null;
    this.needsToken = false;
    this.listed = 0;
    try {
      this.ref = parseHubRef(this.reference, hubEndpoint());
      if (!this.ref) throw new Error(`${this.reference} is not a Hugging Face dataset reference (hf://datasets/<owner>/<name>/… or a huggingface.co/datasets/… URL).`);
      this.listing = true;
      const listing = await listHubFiles(this.ref, { endpoint: hubEndpoint(), token: hubToken(), onPage: (n) => run === this.run && (this.listed = n) });
      if (run !== this.run) return;
      this.ref = listing.ref;
      this.files = listing.files;
      // a named file is imported whatever its name; in a folder, the trace files are chosen to begin with
      this.chosen = new Set(listing.files.filter((f) => listing.ref.kind === 'file' || !notATraceFile(f.path)).map((f) => f.path));
    } catch (e) {
      if (run !== this.run) return;
      this.error = e instanceof Error ? e.message : String(e);
      this.needsToken = e instanceof HubError && (e.code === 'unauthorized' || e.code === 'forbidden');
    } finally {
      if (run === this.run) this.listing = false;
    }
  }

  private folders(): Folder[] {
    const by = new Map<string, HubEntry[]>();
    for (const f of this.files) {
      const dir = f.path.includes('/') ? f.path.slice(0, f.path.lastIndexOf('/')) : '';
      by.set(dir, [...(by.get(dir) ?? []), f]);
    }
    return [...by.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([path, files]) => ({ path, files }));
  }

  private toggle(paths: string[], on: boolean): void {
    const next = new Set(this.chosen);
    for (const p of paths) {
      if (on) next.add(p);
      else next.delete(p);
    }
    this.chosen = next;
  }

  /** A folder's box chooses the trace files in it and below it. */
  private below(folder: string): string[] {
    const prefix = folder ? `${folder}/` : '';
    return this.files.filter((f) => f.path.startsWith(prefix) && !notATraceFile(f.path)).map((f) => f.path);
  }

  private useToken(e: Event): void {
    e.preventDefault();
    try {
      setHubToken(this.tokenText);
      this.tokenText = '';
      void this.list();
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
    }
  }

  private async importChosen(): Promise<void> {
    if (!this.ref || this.importing) return;
    const files = this.files.filter((f) => this.chosen.has(f.path));
    this.importing = true;
    this.dispatchEvent(new CustomEvent('aw-hub-close', { bubbles: true, composed: true }));
    try {
      const host = poolHubHost(this.services.pool, this.services.imports, sqlString);
      const reports = await importHubFiles(this.ref, files, host, { endpoint: hubEndpoint(), token: hubToken() });
      const added = reports.reduce((a, r) => a + r.added, 0);
      const failed = reports.filter((r) => r.status === 'failed').length;
      this.services.notify(`${hubRefString(this.ref)}: ${reports.length} file(s) imported, ${added} new steps${failed ? `, ${failed} failed` : ''}.`, failed ? 'error' : 'info');
    } catch (e) {
      this.services.notify(e instanceof Error ? e.message : String(e), 'error');
    } finally {
      this.importing = false;
    }
  }

  override render() {
    const chosen = this.files.filter((f) => this.chosen.has(f.path));
    const bytes = chosen.reduce((a, f) => a + f.size, 0);
    let rows = 0;
    return html`<section class="card" aria-label="Import from the Hugging Face Hub">
      <header>
        <span class="ref">${this.ref ? hubRefString(this.ref) : this.reference}</span>
        <span class="muted">from ${hubEndpoint()}</span>
        ${this.listing ? html`<span class="muted" role="status">listing… ${this.listed} entries</span>` : nothing}
        ${!this.listing && this.files.length ? html`<span class="muted">${this.files.length} files, ${formatBytes(this.files.reduce((a, f) => a + f.size, 0))}</span>` : nothing}
      </header>
      ${this.error ? html`<div class="error" role="alert">${this.error}</div>` : nothing}
      <form class="row token" @submit=${this.useToken}>
        ${hubToken()
          ? html`<span class="muted">A token is held for this tab (memory only; sent only to ${hubEndpoint()}).</span>
              <button type="button" @click=${() => setHubToken(null)}>Forget token</button>`
          : html`<input type="password" autocomplete="off" spellcheck="false" aria-label="Hugging Face access token" placeholder=${this.needsToken ? 'hf_… token needed for this dataset' : 'hf_… token (gated or private datasets)'} .value=${this.tokenText} @input=${(e: Event) => (this.tokenText = (e.target as HTMLInputElement).value)} />
              <button type="submit" ?disabled=${!this.tokenText.trim()}>Use token</button>
              <span class="muted">kept in this tab's memory only</span>`}
      </form>
      ${this.files.length
        ? html`<div class="files" role="group" aria-label="Files of the dataset">
            ${this.folders().map((folder) => {
              const under = this.below(folder.path);
              const all = under.length > 0 && under.every((p) => this.chosen.has(p));
              return html`${folder.path
                ? html`<label class="folder"><input type="checkbox" aria-label=${`Folder ${folder.path}`} .checked=${all} ?disabled=${!under.length} @change=${(e: Event) => this.toggle(under, (e.target as HTMLInputElement).checked)} /><span class="path">${folder.path}/</span><span class="size muted">${under.length} trace files</span></label>`
                : nothing}
              ${folder.files.map((f) => {
                if (++rows > SHOWN) return nothing;
                const why = this.ref?.kind === 'file' ? null : notATraceFile(f.path);
                return html`<label class="file ${why ? 'off' : ''}" title=${why ?? ''}><input type="checkbox" aria-label=${`File ${f.path}`} .checked=${this.chosen.has(f.path)} @change=${(e: Event) => this.toggle([f.path], (e.target as HTMLInputElement).checked)} /><span class="path">${f.path.split('/').pop()}</span>${why ? html`<span class="muted">${why}</span>` : nothing}<span class="size muted">${formatBytes(f.size)}</span></label>`;
              })}`;
            })}
            ${rows > SHOWN ? html`<div class="muted">… ${rows - SHOWN} more files, chosen with their folder</div>` : nothing}
          </div>`
        : nothing}
      <div class="row">
        <button class="primary" ?disabled=${!chosen.length || this.importing} @click=${() => void this.importChosen()}>Import ${chosen.length} file${chosen.length === 1 ? '' : 's'} (${formatBytes(bytes)})</button>
        <button @click=${() => this.dispatchEvent(new CustomEvent('aw-hub-close', { bubbles: true, composed: true }))}>Close</button>
      </div>
    </section>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-hub-import': AwHubImport;
  }
}
