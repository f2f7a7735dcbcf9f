/**
 * <aw-formats>: the Formats tab — built-in formats, the user's mappings (IndexedDB) and shipped
 * examples, and a mapping editor with inline validation and a live preview on a sample file.
 * A file the importer did not recognise arrives through the 'aw-start-mapping' event.
 */
import { consume } from '@lit/context';
import { css, html, LitElement, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { download, stamp } from '../kit/download';
import type { ImportReport } from '../../contract/reports';
import type { Services } from '../kit/services';
import { servicesContext } from '../kit/services';
import { base } from '../kit/styles';
import { type MappingPreview, previewMapping, readSample, type SampleRecords } from '../../ingest/mapping/preview';
import { keyPaths, skeletonMapping } from '../../ingest/mapping/skeleton';
import { MappingError, type MappingSpec } from '../../ingest/mapping/spec';
import { type BuiltinMapping, type MappingStore, mappingStore, parseMapping, type StoredMapping } from '../../ingest/mapping/store';
import { NORMALIZERS } from '../../ingest/normalizers';
import { previewView } from './preview-view';
import { toolErrorStyles } from '../kit/tool-error';
import { takePendingMapping, watchStartMapping } from './start-mapping';

const BLANK = `{
  "id": "my-format",
  "label": "My format",
  "detect": { "required": ["messages"] },
  "fields": {
    "messages": { "path": "messages" }
  }
}
`;

function problemParts(p: string): [string, string] {
  const i = p.indexOf(': ');
  return i > 0 ? [p.slice(0, i), p.slice(i + 2)] : ['', p];
}

@customElement('aw-formats')
export class AwFormats extends LitElement {
  static override styles = [
    base,
    toolErrorStyles,
    css`
      :host { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 2fr); gap: 14px; align-items: start; }
      @media (max-width: 1000px) { :host { grid-template-columns: minmax(0, 1fr); } }
      aside { display: grid; gap: 12px; min-width: 0; }
      ul.list { list-style: none; margin: 0; padding: 0; display: grid; gap: 4px; }
      ul.list li { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
      .id { font-family: var(--aw-mono); font-size: 12.5px; }
      .editor { display: grid; gap: 10px; min-width: 0; }
      textarea { width: 100%; box-sizing: border-box; min-height: 320px; font-family: var(--aw-mono); font-size: 12.5px; tab-size: 2; }
      .problems { margin: 0; padding-left: 18px; }
      .problems code { font-weight: 600; }
      .picker { position: relative; display: inline-block; }
      .picker input { position: absolute; inset: 0; opacity: 0; cursor: pointer; width: 100%; }
      .preview { display: grid; gap: 10px; }
      .record { border-top: 1px solid var(--aw-border); padding-top: 6px; }
      .step { margin: 6px 0 6px 10px; }
      .messages, .response { margin: 4px 0; padding-left: 8px; list-style: none; display: grid; gap: 2px; }
      .msg .content { white-space: pre-wrap; word-break: break-word; }
      ul.list li.kv { display: grid; grid-template-columns: minmax(0, 130px) minmax(0, 1fr); gap: 6px; overflow-wrap: anywhere; }
      .role { font-weight: 600; margin-right: 6px; }
      .resp .role { color: var(--aw-accent); }
      .call { margin-left: 12px; font-family: var(--aw-mono); font-size: 12.5px; }
      .keys { max-height: 140px; overflow: auto; white-space: pre; }
    `,
  ];

  @consume({ context: servicesContext, subscribe: true }) @property({ attribute: false }) services?: Services;
  /** Where mappings are kept; tests pass their own. */
  @property({ attribute: false }) store: MappingStore = mappingStore;

  @state() private mine: StoredMapping[] = [];
  @state() private examples: BuiltinMapping[] = [];
  @state() private text = BLANK;
  /** Text as last loaded or saved, to tell unsaved edits. */
  @state() private savedText = BLANK;
  @state() private openId: string | null = null;
  @state() private sample: File | null = null;
  @state() private sampleRecords: SampleRecords | null = null;
  @state() private message: { text: string; kind: 'info' | 'error' } | null = null;
  @state() private importReport: ImportReport | null = null;
  private preview: MappingPreview | null = null;
  private unwatch: (() => void) | null = null;

  override connectedCallback(): void {
    super.connectedCallback();
    this.unwatch = watchStartMapping((file) => void this.startMapping(file));
    const pending = takePendingMapping();
    if (pending) void this.startMapping(pending);
    void this.refresh();
  }

  override disconnectedCallback(): void {
    this.unwatch?.();
    this.unwatch = null;
    super.disconnectedCallback();
  }

  override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('text') || changed.has('sampleRecords')) this.preview = previewMapping(this.text, this.sampleRecords ?? { file: '', records: [], rejected: [], warnings: [] });
  }

  /** Reload the lists (user mappings and shipped examples). */
  async refresh(): Promise<void> {
    [this.mine, this.examples] = await Promise.all([this.store.list(), this.store.builtins()]);
  }

  /** Open the editor on a file: it becomes the sample, and a first mapping is guessed from it unless the editor holds unsaved work. */
  async startMapping(file: File): Promise<void> {
    await this.setSample(file);
    if (this.text === this.savedText) this.startFromSample();
    else this.say(`Sample set to ${file.name}. The editor has unsaved changes, so they were kept: press "Start from this file" to replace them.`);
    this.scrollIntoView?.({ block: 'start' });
  }

  /** Set the sample file the preview runs on (reads its first records only). */
  async setSample(file: File | null): Promise<void> {
    this.sample = file;
    this.importReport = null;
    this.sampleRecords = file ? await readSample(file) : null;
  }

  private say(text: string, kind: 'info' | 'error' = 'info'): void {
    this.message = { text, kind };
  }

  private startFromSample(): void {
    const s = this.sampleRecords;
    if (!s?.records.length) {
      this.say('Pick a sample file with at least one readable record first.', 'error');
      return;
    }
    this.text = `${JSON.stringify(skeletonMapping(s.records.map((r) => r.value), s.file), null, 2)}\n`;
    this.openId = null;
    this.say(`A first mapping was guessed from ${s.file}: check the paths against the preview, then save.`);
  }

  private edit(m: { id: string; text: string }, saved: boolean): void {
    this.text = m.text;
    this.savedText = saved ? m.text : '';
    this.openId = saved ? m.id : null;
    this.message = null;
  }

  private async save(): Promise<void> {
    try {
      const m = await this.store.save(this.text);
      this.openId = m.id;
      this.savedText = this.text;
      this.say(`Saved "${m.id}"${m.enabled ? ' (enabled: the next imports try it)' : ' (disabled)'}.`);
      this.services?.notify(`Format mapping "${m.id}" saved`);
    } catch (e) {
      this.say(e instanceof MappingError ? 'Not saved: fix the problems listed under the editor.' : `Not saved: ${e instanceof Error ? e.message : String(e)}`, 'error');
    }
    await this.refresh();
  }

  private async deleteMapping(id: string): Promise<void> {
    await this.store.delete(id);
    if (this.openId === id) {
      this.openId = null;
      this.savedText = '';
    }
    this.say(`Deleted "${id}".`);
    await this.refresh();
  }

  private async toggle(id: string, enabled: boolean): Promise<void> {
    await this.store.setEnabled(id, enabled);
    this.say(`"${id}" ${enabled ? 'enabled: the next imports try it' : 'disabled'}.`);
    await this.refresh();
  }

  private async copy(b: BuiltinMapping): Promise<void> {
    try {
      const m = await this.store.copyBuiltin(b.file);
      this.edit(m, true);
      this.say(`Copied the example "${m.id}" into your mappings (enabled).`);
    } catch (e) {
      this.say(e instanceof Error ? e.message : String(e), 'error');
    }
    await this.refresh();
  }

  private async exportAll(): Promise<void> {
    download(await this.store.exportAll(), `aw-formats-${stamp()}.json`);
  }

  private async importMappings(e: Event): Promise<void> {
    const input = e.target as HTMLInputElement;
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    try {
      const r = await this.store.importFile(file);
      const refused = r.refused.map((x) => `${x.id ?? '(no id)'}: ${x.problems.join('; ')}`).join(' · ');
      this.say(`Imported ${r.saved.length} mapping(s)${r.saved.length ? ` (${r.saved.join(', ')})` : ''}.${refused ? ` Refused: ${refused}` : ''}`, r.refused.length ? 'error' : 'info');
    } catch (err) {
      this.say(err instanceof Error ? err.message : String(err), 'error');
    }
    await this.refresh();
  }

  /** Import the sample with the mapping on screen (saved or not, enabled or not): what the preview shows is what lands. */
  private async importSample(): Promise<void> {
    if (!this.sample || !this.services) return;
    let spec: MappingSpec;
    try {
      spec = parseMapping(this.text).spec;
    } catch (e) {
      this.say(`Not imported: ${e instanceof Error ? e.message : String(e)}`, 'error');
      return;
    }
    const [rep] = await this.services.importer.importFiles([this.sample], { mappings: [spec], format: spec.id });
    this.importReport = rep;
  }

  override render() {
    const open = this.mine.find((m) => m.id === this.openId) ?? null;
    const dirty = this.text !== this.savedText;
    const p = this.preview;
    return html`
      <aside>
        <section class="card" aria-label="Built-in formats">
          <h2>Built-in formats</h2>
          <ul class="list">${NORMALIZERS.map((n) => html`<li class="kv"><span class="id">${n.id}</span><span class="muted">${n.label}</span></li>`)}</ul>
        </section>
        <section class="card" aria-label="Your mappings">
          <h2>Your mappings</h2>
          ${this.mine.length ? nothing : html`<p class="muted">None yet. Write one in the editor, copy an example, or import a file.</p>`}
          <ul class="list">
            ${this.mine.map(
              (m) => html`<li>
                <input type="checkbox" .checked=${m.enabled} aria-label=${`Enable ${m.id}`} @change=${(e: Event) => this.toggle(m.id, (e.target as HTMLInputElement).checked)} />
                <span class="id">${m.id}</span><span class="muted">${m.label}</span>
                <button aria-label=${`Edit ${m.id}`} @click=${() => this.edit(m, true)}>Edit</button>
                <button class="danger" aria-label=${`Delete ${m.id}`} @click=${() => this.deleteMapping(m.id)}>Delete</button>
              </li>`,
            )}
          </ul>
          <div class="row" style="margin-top:8px">
            <button aria-label="Export all mappings" ?disabled=${!this.mine.length} @click=${this.exportAll}>Export all</button>
            <span class="picker"><button tabindex="-1" aria-hidden="true">Import…</button><input type="file" accept=".json,application/json" aria-label="Import mappings from a JSON file" @change=${this.importMappings} /></span>
          </div>
        </section>
        <section class="card" aria-label="Example mappings">
          <h2>Examples</h2>
          ${this.examples.length ? nothing : html`<p class="muted">No examples found under notebooks/formats/.</p>`}
          <ul class="list">
            ${this.examples.map(
              (b) => html`<li>
                <span class="id">${b.id}</span><span class="muted">${b.label}</span>
                <button aria-label=${`Open example ${b.id}`} @click=${() => this.edit(b, false)}>Open</button>
                <button aria-label=${`Copy example ${b.id} to my mappings`} @click=${() => this.copy(b)}>Copy</button>
              </li>`,
            )}
          </ul>
        </section>
      </aside>
      <section class="editor card" aria-label="Mapping editor">
        <div class="row">
          <h2 style="margin:0">${open ? html`Mapping <span class="id">${open.id}</span>` : 'New mapping'}</h2>
          ${dirty ? html`<span class="muted">unsaved</span>` : nothing}
          <span style="flex:1"></span>
          <button aria-label="New mapping" @click=${() => this.edit({ id: '', text: BLANK }, false)}>New</button>
          <button class="primary" aria-label="Save mapping" ?disabled=${p !== null && p.problems.length > 0} @click=${this.save}>Save</button>
          <button aria-label=${open?.enabled ? 'Disable mapping' : 'Enable mapping'} ?disabled=${!open} @click=${() => open && this.toggle(open.id, !open.enabled)}>${open?.enabled ? 'Disable' : 'Enable'}</button>
          <button class="danger" aria-label="Delete mapping" ?disabled=${!open} @click=${() => open && this.deleteMapping(open.id)}>Delete</button>
        </div>
        ${this.message ? html`<div role="status" class=${this.message.kind === 'error' ? 'error' : 'muted'}>${this.message.text}</div>` : nothing}
        <textarea aria-label="Mapping JSON" spellcheck="false" .value=${this.text} @input=${(e: Event) => (this.text = (e.target as HTMLTextAreaElement).value)}></textarea>
        ${p?.problems.length
          ? html`<ul class="problems error" role="list" aria-label="Mapping problems">${p.problems.map((x) => {
              const [path, msg] = problemParts(x);
              return html`<li>${path ? html`<code>${path}</code>: ` : nothing}${msg}</li>`;
            })}</ul>`
          : html`<div class="muted">The mapping is valid.</div>`}
        <div class="row">
          <span class="picker"><button tabindex="-1" aria-hidden="true">Sample file…</button><input type="file" aria-label="Sample file for the mapping" @change=${(e: Event) => this.setSample((e.target as HTMLInputElement).files?.[0] ?? null)} /></span>
          <span class="sample-name">${this.sample ? this.sample.name : html`<span class="muted">no sample file</span>`}</span>
          <button aria-label="Start from this file" ?disabled=${!this.sampleRecords?.records.length} @click=${this.startFromSample}>Start from this file</button>
          <button aria-label="Import the sample file" ?disabled=${!this.sample || !this.services || (p !== null && p.problems.length > 0)} title="Imports the sample with the mapping shown in the editor" @click=${this.importSample}>Import the sample</button>
        </div>
        ${this.importReport ? html`<div role="status">Imported ${this.importReport.file} as <b>${this.importReport.format}</b>: ${this.importReport.rows} step(s), ${this.importReport.rejected.length} rejected. ${this.importReport.message ?? ''}</div>` : nothing}
        ${this.sampleRecords?.records.length
          ? html`<details><summary>Key paths of the first record</summary><div class="keys mono">${keyPaths(this.sampleRecords.records[0].value).join('\n')}</div></details>`
          : nothing}
        <section class="preview" aria-label="Preview" aria-live="polite">${previewView(p, this.sampleRecords)}</section>
      </section>
    `;
  }
}

export { START_MAPPING_EVENT, requestMapping } from './start-mapping';

declare global {
  interface HTMLElementTagNameMap {
    'aw-formats': AwFormats;
  }
}
