/**
 * <aw-bulk-label>: label every step the current filter selects, in one undoable write.
 *
 * API: `where`, `steps` (how many steps it covers, shown to the user); event `aw-labelled` {steps}.
 * Apply asks first: the confirmation names the count and that the whole filter is labelled, not only the visible rows.
 */
import { consume } from '@lit/context';
import { css, html, LitElement } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { type Services, servicesContext } from '../kit/services';
import { type CurationPatch, curationStore } from '../../curation/store';
import { base } from '../kit/styles';

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
  /** The patch waiting for the user's confirmation, with the step count it would touch. */
  @state() private pending: { patch: CurationPatch; steps: number } | null = null;

  static override styles = [
    base,
    css`
    :host { display: block; font-size: 12px; }
    form { display: flex; flex-wrap: wrap; gap: 6px 10px; align-items: center; }
    input, select { font: inherit; }
    .confirm { display: flex; flex-wrap: wrap; gap: 6px 10px; align-items: center; margin-top: 6px; padding: 6px 8px;
      border: 1px solid var(--aw-warn); background: var(--aw-panel); border-radius: var(--aw-radius); }
  `,
  ];

  patch(): CurationPatch {
    const p: CurationPatch = {};
    if (this.quality) p.quality = this.quality;
    if (this.trainable) p.trainable = this.trainable === 'reset' ? null : this.trainable === 'yes';
    const tags = this.tag.split(',').map((t) => t.trim()).filter(Boolean);
    if (tags.length) p.addTags = tags;
    if (this.note.trim()) p.note = this.note.trim();
    return p;
  }

  /** First step of Apply: nothing is written until the user confirms the count. */
  private ask(): void {
    const p = this.patch();
    if (!this.services?.pool || !Object.keys(p).length) {
      this.status = 'Pick a quality, trainable, tag or note to apply.';
      return;
    }
    this.status = '';
    this.pending = { patch: p, steps: this.steps };
    void this.updateComplete.then(() => (this.renderRoot.querySelector('.confirm button') as HTMLButtonElement | null)?.focus());
  }

  private async apply(): Promise<void> {
    const pool = this.services?.pool;
    const pending = this.pending;
    this.pending = null;
    if (!pool || !pending) return;
    this.busy = true;
    try {
      const r = await curationStore(pool).apply({ where: this.where }, pending.patch);
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
      this.ask();
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
        <option value="">trainable unchanged</option><option value="yes">trainable</option><option value="no">not trainable</option><option value="reset">default (ok and not bad)</option>
      </select>
      <input aria-label="Tags to add, comma separated" placeholder="add tags" .value=${this.tag} @input=${(e: Event) => (this.tag = (e.target as HTMLInputElement).value)} />
      <input aria-label="Note to set" placeholder="note" .value=${this.note} @input=${(e: Event) => (this.note = (e.target as HTMLInputElement).value)} />
      <button type="submit" ?disabled=${this.busy || !this.steps || !!this.pending}>Apply</button>
      <button type="button" @click=${() => void this.undo()} aria-label="Undo last label">Undo</button>
      <span role="status" aria-live="polite">${this.status}</span>
    </form>
    ${this.pending ? this.renderConfirm(this.pending.steps) : ''}`;
  }

  private renderConfirm(steps: number) {
    const n = steps.toLocaleString('en-US');
    const scope = this.where.trim() ? 'every step the current filter selects, not only the rows on screen' : 'every step in the pool (no filter is set)';
    return html`<div class="confirm" role="alertdialog" aria-label="Confirm bulk label" @keydown=${(e: KeyboardEvent) => {
      if (e.key === 'Escape') this.pending = null;
    }}>
      <span>This labels <strong>${n}</strong> ${steps === 1 ? 'step' : 'steps'}: ${scope}. Undo reverts it.</span>
      <button type="button" @click=${() => void this.apply()}>Label ${n} ${steps === 1 ? 'step' : 'steps'}</button>
      <button type="button" @click=${() => (this.pending = null)}>Cancel</button>
    </div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-bulk-label': AwBulkLabel;
  }
}
