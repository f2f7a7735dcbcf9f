/**
 * <aw-grpo-groups>: trajectories grouped by prompt_uid (GRPO groups) with size and reward mean / std;
 * groups whose rewards are all equal are flagged: their advantages are zero, they carry no signal.
 *
 * API: `rows` (rows of groupsSql, the first LIST_LIMIT groups), `counts` (groupCountsSql, over all groups); event `aw-group-select` {promptUid}.
 */
import { css, html, LitElement } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { Row } from '../../pool/rows';
import { base } from '../kit/styles';

const fmt = (v: unknown) => (v === null || v === undefined ? '—' : typeof v === 'number' ? String(Number(v.toFixed(4))) : String(v));

@customElement('aw-grpo-groups')
export class AwGrpoGroups extends LitElement {
  @property({ attribute: false }) rows: Row[] = [];
  /** Counts over every group; when absent they are counted from `rows`. */
  @property({ attribute: false }) counts: { groups: number; multi: number; no_signal: number } | null = null;
  @property({ type: Number }) limit = 200;

  static override styles = [
    base,
    css`
    :host { display: block; font-size: 12px; }
    .wrap { max-height: 320px; overflow: auto; border: 1px solid var(--aw-border); }
    table { border-collapse: collapse; width: 100%; }
    th, td { padding: 2px 6px; text-align: right; border-bottom: 1px solid var(--aw-border); white-space: nowrap; }
    th:first-child, td:first-child { text-align: left; }
    thead th { position: sticky; top: 0; background: var(--aw-subtle); }
    tr.flat td { background: var(--aw-warn-bg); }
    button { all: unset; cursor: pointer; color: var(--aw-accent); font-family: var(--aw-mono); }
    button:focus-visible { outline: 2px solid var(--aw-accent); }
    .summary { margin: 4px 0; color: var(--aw-muted); }
  `,
  ];

  override render() {
    const flat = this.counts?.no_signal ?? this.rows.filter((r) => r.no_signal).length;
    const multi = this.counts?.multi ?? this.rows.filter((r) => Number(r.group_size) > 1).length;
    const total = this.counts?.groups ?? this.rows.length;
    return html`<div class="summary">${total.toLocaleString('en-US')} prompt groups · ${multi.toLocaleString('en-US')} with more than one rollout ·
        <strong>${flat}</strong> with no GRPO signal (fewer than two rewards, or all equal)</div>
      <div class="wrap"><table aria-label="GRPO groups">
        <thead><tr><th scope="col">prompt_uid</th><th scope="col">size</th><th scope="col">rewarded</th><th scope="col">mean</th><th scope="col">std</th><th scope="col">min</th><th scope="col">max</th><th scope="col">signal</th></tr></thead>
        <tbody>${this.rows.slice(0, this.limit).map(
          (r) => html`<tr class=${r.no_signal ? 'flat' : ''}>
            <td><button aria-label=${`Compare the rollouts of prompt ${String(r.prompt_uid)}`} title="Compare two rollouts of this group side by side" @click=${() =>
              this.dispatchEvent(new CustomEvent('aw-group-select', { detail: { promptUid: r.prompt_uid }, bubbles: true, composed: true }))}>${fmt(r.prompt_uid)}</button></td>
            <td>${fmt(r.group_size)}</td><td>${fmt(r.rewarded)}</td><td>${fmt(r.reward_mean)}</td><td>${fmt(r.reward_std)}</td>
            <td>${fmt(r.reward_min)}</td><td>${fmt(r.reward_max)}</td><td>${signalText(r)}</td>
          </tr>`,
        )}</tbody>
      </table></div>`;
  }
}

/** Why a group does or does not carry a GRPO signal, in words. */
export function signalText(r: Record<string, unknown>): string {
  const size = Number(r.group_size);
  const rewarded = Number(r.rewarded);
  if (size <= 1) return 'single';
  if (rewarded === 0) return 'none: no rewards';
  if (rewarded < 2) return 'none: one reward';
  if (r.no_signal) return 'none: all same reward';
  return rewarded < size ? `yes (${rewarded} of ${size} rewarded)` : 'yes';
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-grpo-groups': AwGrpoGroups;
  }
}
