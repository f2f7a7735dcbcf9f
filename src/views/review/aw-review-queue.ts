/**
 * <aw-review-queue>: review trajectories one by one, unreviewed first, ranked by a rule the user
 * picks. Keys: g good, b bad (both label and move on), t toggle trainable, u undo, n next, p previous;
 * in the inspector j / k between steps, [ ] between trajectories. Labels cover the whole trajectory,
 * or only the selected step when "this step only" is on.
 *
 * API: `where` (predicate of the dashboard filter).
 */
import { consume } from '@lit/context';
import { css, html, LitElement, type PropertyValues } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';
import { type Services, servicesContext } from '../kit/services';
import { type CurationPatch, type CurationTarget, curationStore } from '../../curation/store';
import '../inspector/aw-step-inspector';
import type { AwStepInspector } from '../inspector/aw-step-inspector';
import { REVIEW_RULES, type ReviewRule } from '../../pool/queries/review';
import { reviewQueue, unreviewedCount } from './queue';
import { base } from '../kit/styles';

@customElement('aw-review-queue')
export class AwReviewQueue extends LitElement {
  @consume({ context: servicesContext, subscribe: true })
  @property({ attribute: false })
  services?: Services;

  @property() where = '';
  @property() rule: ReviewRule = 'low-reward';

  @state() private uids: string[] = [];
  @state() private index = 0;
  @state() private unreviewed = 0;
  @state() private stepOnly = false;
  @state() private status = '';
  @query('aw-step-inspector') private inspector?: AwStepInspector;

  static override styles = [
    base,
    css`
    :host { display: block; font-size: 13px; }
    .bar { display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: center; padding: 6px 0; border-bottom: 1px solid var(--aw-border); }
    .keys { color: var(--aw-muted); font-size: 12px; }
    kbd { font: 11px var(--aw-mono); border: 1px solid var(--aw-border); border-radius: 3px; padding: 0 3px; background: var(--aw-subtle); }
    [role='status'] { color: var(--aw-ok); min-height: 1.2em; }
  `,
  ];

  override connectedCallback(): void {
    super.connectedCallback();
    this.addEventListener('keydown', this.onKey);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.removeEventListener('keydown', this.onKey);
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('where') || changed.has('rule') || changed.has('services')) void this.refresh();
  }

  get current(): string | null {
    return this.uids[this.index] ?? null;
  }

  get queue(): readonly string[] {
    return this.uids;
  }

  /** Trajectories of the queue with unreviewed steps, as shown in the bar. */
  get unreviewedTrajectories(): number {
    return this.unreviewed;
  }

  /** Recount after a label or an undo: the queue's order stays, the count is never stale. */
  private async recount(): Promise<void> {
    const pool = this.services?.pool;
    if (pool) this.unreviewed = await unreviewedCount(pool, this.where);
  }

  async refresh(): Promise<void> {
    const pool = this.services?.pool;
    if (!pool) return;
    try {
      const q = await reviewQueue(pool, this.where, this.rule);
      this.uids = q.uids;
      this.unreviewed = q.unreviewed;
      this.index = 0;
    } catch (e) {
      this.status = `Could not build the review queue: ${e instanceof Error ? e.message : String(e)}`;
    }
  }

  private target(): CurationTarget | null {
    const uid = this.current;
    if (!uid) return null;
    const step = this.inspector?.selectedStep;
    return this.stepOnly && step ? { stepIds: [step.step_id] } : { trajectoryUids: [uid] };
  }

  /** Apply a label to the current trajectory (or step); resolves when it is stored. */
  async label(patch: CurationPatch, advance: boolean): Promise<void> {
    const pool = this.services?.pool;
    const target = this.target();
    if (!pool || !target) return;
    try {
      const r = await curationStore(pool).apply(target, patch);
      this.status = `${Object.entries(patch).map(([k, v]) => `${k} ${v}`).join(', ')} → ${r.steps} ${r.steps === 1 ? 'step' : 'steps'} (u to undo)`;
      if (advance) this.move(1);
      await this.recount();
    } catch (e) {
      this.status = e instanceof Error ? e.message : String(e);
      this.services?.notify(this.status, 'error');
    }
  }

  async undo(): Promise<void> {
    const pool = this.services?.pool;
    if (!pool) return;
    const r = await curationStore(pool).undo();
    this.status = r ? `Undid ${r.label} on ${r.steps} ${r.steps === 1 ? 'step' : 'steps'}` : 'Nothing to undo';
    await this.recount();
  }

  move(delta: number): void {
    if (!this.uids.length) return;
    this.index = Math.max(0, Math.min(this.uids.length - 1, this.index + delta));
  }

  private onKey = (e: KeyboardEvent): void => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.composedPath()[0] as HTMLElement | undefined;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT')) return;
    const step = this.inspector?.selectedStep;
    switch (e.key) {
      case 'g':
        void this.label({ quality: 'good' }, true);
        break;
      case 'b':
        void this.label({ quality: 'bad' }, true);
        break;
      case 't':
        void this.label({ trainable: !(step?.trainable ?? true) }, false);
        break;
      case 'u':
        void this.undo();
        break;
      case 'n':
        this.move(1);
        break;
      case 'p':
        this.move(-1);
        break;
      default:
        return;
    }
    e.preventDefault();
  };

  override render() {
    return html`<div class="bar">
        <label>Order <select aria-label="Review order" .value=${this.rule} @change=${(e: Event) => (this.rule = (e.target as HTMLSelectElement).value as ReviewRule)}>
          ${Object.entries(REVIEW_RULES).map(([k, v]) => html`<option value=${k} ?selected=${k === this.rule}>${v}</option>`)}
        </select></label>
        <label><input type="checkbox" .checked=${this.stepOnly} @change=${(e: Event) => (this.stepOnly = (e.target as HTMLInputElement).checked)} /> this step only</label>
        <span>${this.uids.length ? `${this.index + 1} / ${this.uids.length}` : 'queue empty'} · ${this.unreviewed} unreviewed</span>
        <button @click=${() => void this.label({ quality: 'good' }, true)} aria-label="Label good and go to next">good (g)</button>
        <button @click=${() => void this.label({ quality: 'bad' }, true)} aria-label="Label bad and go to next">bad (b)</button>
        <button @click=${() => void this.label({ trainable: !(this.inspector?.selectedStep?.trainable ?? true) }, false)} aria-label="Toggle trainable">trainable (t)</button>
        <button @click=${() => void this.undo()} aria-label="Undo last label">undo (u)</button>
        <button @click=${() => this.move(1)} aria-label="Next trajectory">next (n)</button>
        <button @click=${() => void this.refresh()} aria-label="Rebuild the review queue">re-rank</button>
        <span class="keys"><kbd>g</kbd> good <kbd>b</kbd> bad (kept out of exports unless set trainable) <kbd>t</kbd> trainable <kbd>u</kbd> undo <kbd>n</kbd>/<kbd>p</kbd> next/prev <kbd>j</kbd>/<kbd>k</kbd> steps</span>
      </div>
      <div role="status" aria-live="polite">${this.status}</div>
      <aw-step-inspector .services=${this.services} .trajectoryUids=${this.uids} .trajectoryUid=${this.current}
        @aw-trajectory-change=${(e: CustomEvent<{ index: number }>) => (this.index = e.detail.index)}></aw-step-inspector>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-review-queue': AwReviewQueue;
  }
}
