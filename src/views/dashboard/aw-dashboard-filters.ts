/**
 * <aw-dashboard-filters>: the filter bar. Every control narrows the same CurationFilter; changes
 * are reported as `aw-filter-change` {filter} (text search debounced).
 *
 * API: `filter`, `options` (values to offer).
 */
import { css, html, LitElement } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { CurationFilter, TrajectoryStatus } from '../../curation/filter';
import { base } from '../kit/styles';

export interface FilterOptions {
  agents: string[];
  models: string[];
  data_sources: string[];
  channels: string[];
  qualities: string[];
  tags: string[];
}

export const NO_OPTIONS: FilterOptions = { agents: [], models: [], data_sources: [], channels: [], qualities: ['unreviewed', 'good', 'bad'], tags: [] };

type ListKey = 'agents' | 'models' | 'dataSources' | 'channels' | 'quality' | 'tags';

@customElement('aw-dashboard-filters')
export class AwDashboardFilters extends LitElement {
  @property({ attribute: false }) filter: CurationFilter = {};
  @property({ attribute: false }) options: FilterOptions = NO_OPTIONS;
  private textTimer = 0;

  static override styles = [
    base,
    css`
    :host { display: block; font-size: 12px; }
    form { display: flex; flex-wrap: wrap; gap: 6px 12px; align-items: end; }
    label { display: flex; flex-direction: column; gap: 2px; color: var(--aw-muted); }
    select, input { font: inherit; padding: 2px 4px; min-width: 7em; }
    input[type='number'] { width: 6em; min-width: 0; }
    input[type='search'] { min-width: 16em; }
  `,
  ];

  private emit(patch: Partial<CurationFilter>): void {
    this.filter = { ...this.filter, ...patch };
    this.dispatchEvent(new CustomEvent('aw-filter-change', { detail: { filter: this.filter }, bubbles: true, composed: true }));
  }

  private select(label: string, key: ListKey, values: string[]) {
    const cur = this.filter[key]?.[0] ?? '';
    return html`<label>${label}
      <select aria-label=${`Filter by ${label.toLowerCase()}`} .value=${cur}
        @change=${(e: Event) => {
          const v = (e.target as HTMLSelectElement).value;
          this.emit({ [key]: v ? [v] : [] });
        }}>
        <option value="">any</option>
        ${values.map((v) => html`<option value=${v} ?selected=${v === cur}>${v}</option>`)}
      </select></label>`;
  }

  private num(label: string, key: 'rewardMin' | 'rewardMax') {
    const v = this.filter[key];
    return html`<label>${label}
      <input type="number" step="any" aria-label=${`Trajectory ${label.toLowerCase()}`} .value=${v === null || v === undefined ? '' : String(v)}
        @change=${(e: Event) => {
          const s = (e.target as HTMLInputElement).value.trim();
          this.emit({ [key]: s === '' ? null : Number(s) });
        }} /></label>`;
  }

  override render() {
    const o = this.options;
    const f = this.filter;
    return html`<form role="search" aria-label="Dashboard filters" @submit=${(e: Event) => e.preventDefault()}>
      <label>Search messages
        <input type="search" placeholder="text in any message or response" aria-label="Search messages and responses" .value=${f.text ?? ''}
          @input=${(e: Event) => {
            const v = (e.target as HTMLInputElement).value;
            clearTimeout(this.textTimer);
            this.textTimer = window.setTimeout(() => this.emit({ text: v }), 300);
          }} /></label>
      ${this.select('Agent', 'agents', o.agents)}
      ${this.select('Model', 'models', o.models)}
      ${this.select('Source', 'dataSources', o.data_sources)}
      ${this.select('Channel', 'channels', o.channels)}
      ${this.num('Reward ≥', 'rewardMin')}
      ${this.num('Reward ≤', 'rewardMax')}
      <label>Status
        <select aria-label="Filter by trajectory status" .value=${f.status ?? 'any'}
          @change=${(e: Event) => this.emit({ status: (e.target as HTMLSelectElement).value as TrajectoryStatus })}>
          ${['any', 'complete', 'open', 'error', 'ok'].map((s) => html`<option value=${s} ?selected=${(f.status ?? 'any') === s}>${s === 'error' ? 'has errors' : s === 'ok' ? 'no errors' : s}</option>`)}
        </select></label>
      ${this.select('Quality', 'quality', o.qualities)}
      ${this.select('Tag', 'tags', o.tags)}
      <label>Trainable
        <select aria-label="Filter by trainable" .value=${f.trainable ?? 'any'}
          @change=${(e: Event) => this.emit({ trainable: (e.target as HTMLSelectElement).value as 'any' | 'yes' | 'no' })}>
          ${['any', 'yes', 'no'].map((s) => html`<option value=${s} ?selected=${(f.trainable ?? 'any') === s}>${s}</option>`)}
        </select></label>
      <button type="button" aria-label="Clear all filters" @click=${() => {
        this.filter = {};
        this.emit({});
      }}>Clear</button>
    </form>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-dashboard-filters': AwDashboardFilters;
  }
}
