/**
 * <aw-price-table>: the editable per-model price table in a modal dialog (Esc closes it without saving).
 * Saving persists it in this browser and every view that shows costs recomputes them.
 */
import { css, html, LitElement } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { base } from './styles';
import { DEFAULT_PRICES, getPrices, type ModelPrice, setPrices, validPrice } from './prices';

type Draft = { pattern: string; input: string; output: string; source: string };
const toDraft = (p: ModelPrice): Draft => ({ pattern: p.pattern, input: String(p.input), output: String(p.output), source: p.source });

@customElement('aw-price-table')
export class AwPriceTable extends LitElement {
  @state() private rows: Draft[] = [];
  @state() private problem: string | null = null;

  static override styles = [
    base,
    css`
      dialog { border: 1px solid var(--aw-border); border-radius: var(--aw-radius); padding: 14px 16px; width: min(760px, calc(100vw - 48px)); max-height: calc(100vh - 64px); overflow: auto; background: var(--aw-panel); color: var(--aw-text); }
      dialog::backdrop { background: rgb(0 0 0 / 0.25); }
      table.grid input { width: 100%; box-sizing: border-box; }
      td.num { width: 7em; }
      td.x { width: 1%; }
      .actions { margin-top: 10px; justify-content: flex-end; }
    `,
  ];

  private get dialog(): HTMLDialogElement {
    return this.renderRoot.querySelector('dialog') as HTMLDialogElement;
  }

  get isOpen(): boolean {
    return this.dialog?.open ?? false;
  }

  async show(): Promise<void> {
    this.rows = getPrices().map(toDraft);
    this.problem = null;
    await this.updateComplete;
    if (!this.dialog.open) this.dialog.showModal();
  }

  private save(): void {
    const bad = this.rows.findIndex((r) => (r.pattern.trim() || r.input || r.output) && !validPrice({ ...r, input: r.input === '' ? Number.NaN : Number(r.input), output: r.output === '' ? Number.NaN : Number(r.output) }));
    if (bad >= 0) {
      this.problem = `Row ${bad + 1}: a model pattern and two prices (USD per million tokens, 0 or more) are needed.`;
      return;
    }
    setPrices(this.rows.filter((r) => r.pattern.trim()).map((r) => ({ pattern: r.pattern, input: Number(r.input), output: Number(r.output), source: r.source })));
    this.dialog.close();
  }

  private edit(i: number, key: keyof Draft, value: string): void {
    this.rows = this.rows.map((r, j) => (j === i ? { ...r, [key]: value, ...(key !== 'source' ? { source: 'edited' } : {}) } : r));
  }

  override render() {
    return html`<dialog aria-labelledby="prices-title">
      <h2 id="prices-title">Model prices</h2>
      <p class="muted">USD per million tokens. A pattern ending in <span class="mono">*</span> matches every model id that starts with it; the longest match wins. Costs are shown as — for models without a price.</p>
      <table class="grid" aria-label="Model prices">
        <thead><tr><th scope="col">model or prefix*</th><th scope="col">input $/1M</th><th scope="col">output $/1M</th><th scope="col">source</th><th scope="col"><span class="muted">remove</span></th></tr></thead>
        <tbody>${this.rows.map(
          (r, i) => html`<tr>
            <td><input type="text" aria-label=${`Model pattern, row ${i + 1}`} .value=${r.pattern} @input=${(e: Event) => this.edit(i, 'pattern', (e.target as HTMLInputElement).value)} /></td>
            <td class="num"><input type="number" min="0" step="any" aria-label=${`Input price, row ${i + 1}`} .value=${r.input} @input=${(e: Event) => this.edit(i, 'input', (e.target as HTMLInputElement).value)} /></td>
            <td class="num"><input type="number" min="0" step="any" aria-label=${`Output price, row ${i + 1}`} .value=${r.output} @input=${(e: Event) => this.edit(i, 'output', (e.target as HTMLInputElement).value)} /></td>
            <td><input type="text" aria-label=${`Source, row ${i + 1}`} .value=${r.source} @input=${(e: Event) => this.edit(i, 'source', (e.target as HTMLInputElement).value)} /></td>
            <td class="x"><button aria-label=${`Remove ${r.pattern || `row ${i + 1}`}`} @click=${() => (this.rows = this.rows.filter((_, j) => j !== i))}>×</button></td>
          </tr>`,
        )}</tbody>
      </table>
      ${this.problem ? html`<p class="error" role="alert">${this.problem}</p>` : ''}
      <div class="row actions">
        <button @click=${() => (this.rows = [...this.rows, { pattern: '', input: '', output: '', source: 'edited' }])}>Add a model</button>
        <button @click=${() => (this.rows = DEFAULT_PRICES.map(toDraft))}>Reset to defaults</button>
        <button @click=${() => this.dialog.close()}>Cancel</button>
        <button class="primary" @click=${() => this.save()}>Save prices</button>
      </div>
    </dialog>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-price-table': AwPriceTable;
  }
}
