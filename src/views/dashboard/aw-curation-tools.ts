/**
 * <aw-curation-tools>: run the curation helpers that write tables — near-duplicate detection
 * (near_duplicates) and the deterministic train/val split (curation.split).
 */
import { consume } from '@lit/context';
import { css, html, LitElement } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { type Services, servicesContext } from '../kit/services';
import { findNearDuplicates } from '../../curation/near-duplicates';
import { assignSplit } from '../../curation/split';
import { base } from '../kit/styles';

@customElement('aw-curation-tools')
export class AwCurationTools extends LitElement {
  @consume({ context: servicesContext, subscribe: true })
  @property({ attribute: false })
  services?: Services;

  @state() private threshold = 0.8;
  @state() private valFraction = 0.1;
  @state() private seed = 'aw';
  @state() private by: 'trajectory' | 'prompt' = 'trajectory';
  @state() private busy = false;
  @state() private status = '';

  static override styles = [
    base,
    css`
    :host { display: block; font-size: 12px; }
    fieldset { border: 1px solid var(--aw-border); margin: 6px 0; display: flex; flex-wrap: wrap; gap: 6px 12px; align-items: center; }
    input { width: 6em; font: inherit; }
  `,
  ];

  private async run(what: string, fn: (s: Services) => Promise<string>): Promise<void> {
    const s = this.services;
    if (!s || this.busy) return;
    this.busy = true;
    this.status = `${what}…`;
    try {
      this.status = await fn(s);
    } catch (e) {
      this.status = `${what} failed: ${e instanceof Error ? e.message : String(e)}`;
      s.notify(this.status, 'error');
    } finally {
      this.busy = false;
    }
  }

  override render() {
    return html`
      <fieldset><legend>Near-duplicates (MinHash, in a worker)</legend>
        <label>min similarity <input type="number" min="0.1" max="1" step="0.05" aria-label="Minimum similarity" .value=${String(this.threshold)}
          @change=${(e: Event) => (this.threshold = Math.min(1, Math.max(0.1, Number((e.target as HTMLInputElement).value) || 0.8)))} /></label>
        <button ?disabled=${this.busy} @click=${() => this.run('Finding near-duplicates', async (s) => {
          const r = await findNearDuplicates(s.pool, { threshold: this.threshold });
          return `${r.steps} steps in ${r.clusters} clusters → SELECT * FROM near_duplicates`;
        })}>Find near-duplicates</button>
      </fieldset>
      <fieldset><legend>Train / val split (deterministic, no leakage)</legend>
        <label>val fraction <input type="number" min="0" max="1" step="0.01" aria-label="Validation fraction" .value=${String(this.valFraction)}
          @change=${(e: Event) => (this.valFraction = Math.min(1, Math.max(0, Number((e.target as HTMLInputElement).value) || 0)))} /></label>
        <label>seed <input aria-label="Split seed" .value=${this.seed} @change=${(e: Event) => (this.seed = (e.target as HTMLInputElement).value)} /></label>
        <label>keep together <select aria-label="Split unit" .value=${this.by} @change=${(e: Event) => (this.by = (e.target as HTMLSelectElement).value as 'trajectory' | 'prompt')}>
          <option value="trajectory">each trajectory</option><option value="prompt">each prompt group</option></select></label>
        <button ?disabled=${this.busy} @click=${() => this.run('Assigning splits', async (s) => {
          const r = await assignSplit(s.pool, { valFraction: this.valFraction, seed: this.seed, by: this.by });
          return `${r.train} train / ${r.val} val steps written to curation.split`;
        })}>Assign split</button>
      </fieldset>
      <div role="status" aria-live="polite">${this.status}</div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-curation-tools': AwCurationTools;
  }
}
