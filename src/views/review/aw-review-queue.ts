/**
 * <aw-review-queue>: review trajectories one by one, unreviewed first, ranked by a rule the user
 * picks. Keys: g good, b bad (both label and move on), t trainable on / off (a toggle showing whether the target is
 * trainable now, by the export's rule), u undo, n next, p previous; j / k between steps, [ ] between trajectories.
 * The keys work as soon as the queue is shown, wherever the focus is (a select or checkbox included), except while
 * a text field has it, which the bar then says. Labels cover the whole trajectory, or only the selected step when
 * "this step only" is on.
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
import { REVIEW_RULES, type ReviewRule, reviewQueue, unreviewedCount } from './queries';
import { base } from '../kit/styles';
import { deepActiveElement, fromDialog, isTextEntry } from '../kit/keys';

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
  /** A text field has the focus: the single keys are the field's (the bar says so). */
  @state() private paused = false;
  @query('aw-step-inspector') private inspector?: AwStepInspector;

  static override styles = [
    base,
    css`
    :host { display: block; font-size: 13px; }
    .bar { display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: center; padding: 6px 0; border-bottom: 1px solid var(--aw-border); }
    .keys { color: var(--aw-muted); font-size: 12px; }
    kbd { font: 11px var(--aw-mono); border: 1px solid var(--aw-border); border-radius: 3px; padding: 0 3px; background: var(--aw-subtle); }
    [role='status'] { color: var(--aw-ok); min-height: 1.2em; }
    button.toggle[aria-pressed='true'] { background: var(--aw-accent-bg); border-color: var(--aw-accent); }
    button.toggle[aria-pressed='true']::before { content: '✓ '; }
  `,
  ];

  override connectedCallback(): void {
    super.connectedCallback();
    // on the window: the keys work right after the queue's tab is clicked, before anything in it has the focus
    window.addEventListener('keydown', this.onKey);
    window.addEventListener('focusin', this.onFocus);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    window.removeEventListener('keydown', this.onKey);
    window.removeEventListener('focusin', this.onFocus);
  }

  private onFocus = (): void => {
    this.paused = isTextEntry(deepActiveElement());
  };

  /** Whether the target (the step, or every step of the trajectory) is trainable now, by the export's rule. */
  get targetTrainable(): boolean | null {
    const steps = this.inspector?.loadedSteps ?? [];
    if (!steps.length) return null;
    const step = this.inspector?.selectedStep;
    return this.stepOnly && step ? step.trainable === true : steps.every((s) => s.trainable === true);
  }

  /** `t` and its button: turn the target's trainable label to the opposite of what it is now. */
  toggleTrainable(): Promise<void> {
    const now = this.targetTrainable;
    return now === null ? Promise.resolve() : this.label({ trainable: !now }, false);
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
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || !this.isConnected || !this.checkVisibility()) return;
    if (isTextEntry(e.composedPath()[0] as Element) || fromDialog(e)) return;
    const inspector = this.inspector;
    switch (e.key) {
      case 'g':
        void this.label({ quality: 'good' }, true);
        break;
      case 'b':
        void this.label({ quality: 'bad' }, true);
        break;
      case 't':
        void this.toggleTrainable();
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
      // the inspector's own keys, when the focus is outside it (inside, it has handled them already)
      case 'j':
        inspector?.selectStep((inspector.step ?? 0) + 1);
        break;
      case 'k':
        inspector?.selectStep((inspector.step ?? 0) - 1);
        break;
      case ']':
        inspector?.moveTrajectory(1);
        break;
      case '[':
        inspector?.moveTrajectory(-1);
        break;
      default:
        return;
    }
    e.preventDefault();
  };

  override render() {
    const trainable = this.targetTrainable;
    return html`<div class="bar">
        <label>Order <select aria-label="Review order" .value=${this.rule} @change=${(e: Event) => (this.rule = (e.target as HTMLSelectElement).value as ReviewRule)}>
          ${Object.entries(REVIEW_RULES).map(([k, v]) => html`<option value=${k} ?selected=${k === this.rule}>${v}</option>`)}
        </select></label>
        <label><input type="checkbox" .checked=${this.stepOnly} @change=${(e: Event) => (this.stepOnly = (e.target as HTMLInputElement).checked)} /> this step only</label>
        <span>${this.uids.length ? `${this.index + 1} / ${this.uids.length}` : 'queue empty'} · ${this.unreviewed} unreviewed</span>
        <button @click=${() => void this.label({ quality: 'good' }, true)} title="Label good and go to the next trajectory">good (g)</button>
        <button @click=${() => void this.label({ quality: 'bad' }, true)} title="Label bad (kept out of exports unless set trainable) and go to the next trajectory">bad (b)</button>
        <button class="toggle" aria-pressed=${trainable ? 'true' : 'false'} ?disabled=${trainable === null} @click=${() => void this.toggleTrainable()}
          title=${trainable ? `Trainable now: t sets this ${this.stepOnly ? 'step' : 'trajectory'} not trainable` : `Not trainable now: t sets this ${this.stepOnly ? 'step' : 'trajectory'} trainable`}>trainable (t)</button>
        <button @click=${() => void this.undo()} title="Undo the last label">undo (u)</button>
        <button @click=${() => this.move(1)} title="Next trajectory">next (n)</button>
        <button @click=${() => void this.refresh()} title="Rebuild the review queue in the chosen order">re-rank</button>
        <span class="keys" aria-live="polite">${this.paused
          ? html`Keys paused: a text field has the focus (click elsewhere or press Tab to use them)`
          : html`Keys work anywhere in this view: <kbd>g</kbd> good <kbd>b</kbd> bad <kbd>t</kbd> trainable on/off <kbd>u</kbd> undo <kbd>n</kbd>/<kbd>p</kbd> next/prev <kbd>j</kbd>/<kbd>k</kbd> steps`}</span>
      </div>
      <div role="status" aria-live="polite">${this.status}</div>
      <aw-step-inspector .services=${this.services} .trajectoryUids=${this.uids} .trajectoryUid=${this.current}
        @aw-step-select=${() => this.requestUpdate()} @aw-trajectory-change=${(e: CustomEvent<{ index: number }>) => (this.index = e.detail.index)}></aw-step-inspector>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-review-queue': AwReviewQueue;
  }
}
