/**
 * <aw-rollout-compare>: two rollouts of one prompt group side by side (the pair a DPO export would make),
 * each with its reward and its conversation. The second defaults to the rollout whose reward is farthest
 * from the first's; both are picked from the group's rollouts.
 *
 * API: `promptUid`, `left` (trajectory_uid), `right` (optional); event `aw-compare-change` {left, right}.
 */
import { consume } from '@lit/context';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { type Services, servicesContext } from '../kit/services';
import { base } from '../kit/styles';
import { pairFor } from './compare';
import { loadRollouts, type Rollout, ROLLOUT_LIMIT } from './queries';

const fmtReward = (r: number | null) => (r === null ? '—' : String(Number(r.toFixed(4))));

@customElement('aw-rollout-compare')
export class AwRolloutCompare extends LitElement {
  @consume({ context: servicesContext, subscribe: true })
  @property({ attribute: false })
  services?: Services;

  @property({ attribute: false }) promptUid: string | null = null;
  @property({ attribute: false }) left: string | null = null;
  @property({ attribute: false }) right: string | null = null;
  @state() rollouts: Rollout[] = [];
  @state() private error: string | null = null;
  private seq = 0;

  static override styles = [
    base,
    css`
      :host { display: block; font-size: 13px; }
      .sides { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 10px; }
      .side { min-width: 0; border: 1px solid var(--aw-border); border-radius: var(--aw-radius); padding: 6px 8px; }
      .side header { display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: center; margin-bottom: 4px; }
      .reward { font-variant-numeric: tabular-nums; font-weight: 600; }
      .reward.better { color: var(--aw-ok); }
      .reward.worse { color: var(--aw-error); }
      select { max-width: 100%; }
      p { margin: 4px 0; }
    `,
  ];

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('promptUid') || changed.has('services')) void this.load();
    else if (changed.has('left') && !changed.has('right')) this.right = this.left ? pairFor(this.left, this.rollouts) : null;
  }

  private async load(): Promise<void> {
    const pool = this.services?.pool;
    const seq = ++this.seq;
    if (!pool || !this.promptUid) {
      this.rollouts = [];
      return;
    }
    try {
      const rows = await loadRollouts(pool, this.promptUid);
      if (seq !== this.seq) return;
      this.rollouts = rows;
      this.error = null;
      if (!this.right || !rows.some((r) => r.trajectory_uid === this.right) || this.right === this.left) this.right = this.left ? pairFor(this.left, rows) : null;
    } catch (e) {
      if (seq === this.seq) this.error = `Could not list the rollouts of prompt ${this.promptUid}: ${e instanceof Error ? e.message : String(e)}`;
    }
  }

  private pick(side: 'left' | 'right', uid: string): void {
    this[side] = uid;
    if (side === 'left' && uid === this.right) this.right = pairFor(uid, this.rollouts);
    this.dispatchEvent(new CustomEvent('aw-compare-change', { detail: { left: this.left, right: this.right }, bubbles: true, composed: true }));
  }

  private side(which: 'left' | 'right', other: Rollout | undefined) {
    const uid = this[which];
    const me = this.rollouts.find((r) => r.trajectory_uid === uid);
    const cmp = me?.reward !== null && me?.reward !== undefined && other?.reward !== null && other?.reward !== undefined ? Math.sign(me.reward - other.reward) : 0;
    return html`<section class="side" aria-label=${`${which === 'left' ? 'First' : 'Second'} rollout`}>
      <header>
        <label>${which === 'left' ? 'Rollout A' : 'Rollout B'}
          <select aria-label=${`${which === 'left' ? 'First' : 'Second'} rollout to compare`} @change=${(e: Event) => this.pick(which, (e.target as HTMLSelectElement).value)}>
            ${this.rollouts.map((r) => html`<option value=${r.trajectory_uid} ?selected=${r.trajectory_uid === uid}>${r.trajectory_uid} · reward ${fmtReward(r.reward)}</option>`)}
          </select></label>
        <span>reward <span class=${`reward ${cmp > 0 ? 'better' : cmp < 0 ? 'worse' : ''}`} data-reward>${fmtReward(me?.reward ?? null)}</span></span>
        <span class="muted">${me ? `${me.steps} ${me.steps === 1 ? 'step' : 'steps'}` : ''}</span>
      </header>
      ${uid ? html`<aw-step-inspector compact .services=${this.services} .trajectoryUid=${uid}></aw-step-inspector>` : html`<p class="muted">No other rollout to compare.</p>`}
    </section>`;
  }

  override render() {
    if (this.error) return html`<p class="error" role="alert">${this.error}</p>`;
    if (!this.promptUid) return html`<p class="muted">This trajectory has no prompt group.</p>`;
    const n = this.rollouts.length;
    if (n < 2)
      return html`<p class="muted" role="status">Prompt group <span class="mono">${this.promptUid}</span> has ${n === 1 ? 'only this rollout' : 'no rollouts'}: there is nothing to compare it with. Groups with several rollouts are listed under GRPO groups.</p>`;
    const a = this.rollouts.find((r) => r.trajectory_uid === this.left);
    const b = this.rollouts.find((r) => r.trajectory_uid === this.right);
    return html`<p class="muted">Prompt group <span class="mono">${this.promptUid}</span>: ${n}${n >= ROLLOUT_LIMIT ? '+' : ''} rollouts.
        ${a?.reward !== null && b?.reward !== null && a && b ? html`Reward A − B = <span class="mono">${fmtReward((a.reward as number) - (b.reward as number))}</span>` : nothing}</p>
      <div class="sides">${this.side('left', b)}${this.side('right', a)}</div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-rollout-compare': AwRolloutCompare;
  }
}
