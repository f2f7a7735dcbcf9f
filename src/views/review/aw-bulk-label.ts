/**
 * <aw-bulk-label>: label every step the current filter selects, in one undoable write.
 *
 * API: `where`, `steps` (how many steps it covers, shown to the user); event `aw-labelled` {steps}.
 */
import { consume } from '@lit/context';
import { css, html, LitElement } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { type Services, servicesContext } from '../../app/services';
import { type CurationPatch, curationStore } from '../../curation/store';

@customElement('aw-bulk-label')
export class AwBulkLabel extends LitElement {
  @consume({ context: servicesContext, subscribe: true })
  @property({ attribute: false })
  services?: Services;

  @property() where = '';
  @property({ type: Number }) steps = 0;
  @state() private quality = '';
  @state() private trainable = '';
  @state() private tag = '';
  @state() private note = '';
  @state() private busy = false;
  @state() private status = '';

  static override styles = css`
    :host { display: block; font: 12px system-ui, sans-serif; }
    form { display: flex; flex-wrap: wrap; gap: 6px 10px; align-items: center; }
    input, select { font: inherit; }
  `;

  patch(): CurationPatch {
    const p: CurationPatch = {};
    if (this.quality) p.quality = this.quality;
    if (this.trainable) p.trainable = this.trainable === 'reset' ? null : this.trainable === 'yes';
    const tags = this.tag.split(',').map((t) => t.trim()).filter(Boolean);
    if (tags.length) p.addTags = tags;
    if (this.note.trim()) p.note = this.note.trim();
    return p;
  }

  private async apply(): Promise<void> {
    const pool = this.services?.pool;
    const p = this.patch();
    if (!pool || !Object.keys(p).length) {
      this.status = 'Pick a quality, trainable, tag or note to apply.';
      return;
    }
    this.busy = true;
    try {
      const r = await curationStore(pool).apply({ where: this.where }, p);
      this.status = `Labelled ${r.steps} steps.`;
      this.dispatchEvent(new CustomEvent('aw-labelled', { detail: { steps: r.steps }, bubbles: true, composed: true }));
    } catch (e) {
      this.status = e instanceof Error ? e.message : String(e);
      this.services?.notify(this.status, 'error');
    } finally {
      this.busy = false;
    }
  }

  private async undo(): Promise<void> {
    const pool = this.services?.pool;
    if (!pool) return;
    const r = await curationStore(pool).undo();
    this.status = r ? `Undid ${r.label} on ${r.steps} steps.` : 'Nothing to undo.';
  }

  override render() {
    const custom = this.quality && !['good', 'bad', 'unreviewed'].includes(this.quality);
    return html`<form aria-label="Label all filtered steps" @submit=${(e: Event) => {
      e.preventDefault();
      void this.apply();
    }}>
      <strong>Label all ${this.steps.toLocaleString('en-US')} filtered steps:</strong>
      <select aria-label="Quality to set" .value=${custom ? 'custom' : this.quality} @change=${(e: Event) => {
        const v = (e.target as HTMLSelectElement).value;
        this.quality = v === 'custom' ? 'needs-fix' : v;
      }}>
        <option value="">quality unchanged</option><option value="good">good</option><option value="bad">bad</option>
        <option value="unreviewed">unreviewed</option><option value="custom">custom…</option>
      </select>
      ${custom ? html`<input aria-label="Custom quality label" .value=${this.quality} @input=${(e: Event) => (this.quality = (e.target as HTMLInputElement).value.trim() || 'needs-fix')} />` : ''}
      <select aria-label="Trainable to set" .value=${this.trainable} @change=${(e: Event) => (this.trainable = (e.target as HTMLSelectElement).value)}>
        <option value="">trainable unchanged</option><option value="yes">trainable</option><option value="no">not trainable</option><option value="reset">default</option>
      </select>
      <input aria-label="Tags to add, comma separated" placeholder="add tags" .value=${this.tag} @input=${(e: Event) => (this.tag = (e.target as HTMLInputElement).value)} />
      <input aria-label="Note to set" placeholder="note" .value=${this.note} @input=${(e: Event) => (this.note = (e.target as HTMLInputElement).value)} />
      <button type="submit" ?disabled=${this.busy || !this.steps}>Apply</button>
      <button type="button" @click=${() => void this.undo()} aria-label="Undo last label">Undo</button>
      <span role="status" aria-live="polite">${this.status}</span>
    </form>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-bulk-label': AwBulkLabel;
  }
}
