/**
 * <aw-step-inspector>: one trajectory as a conversation (system / user / assistant / tool turns, tool
 * calls with pretty-printed arguments, reasoning collapsed), per-step reward, tokens, latency, finish
 * reason, errors and the raw source record. Keys: j / k or ↓ / ↑ between steps, [ / ] between
 * trajectories. Trace text is untrusted: it is rendered only through lit text bindings.
 *
 * API: `trajectoryUid`, `trajectoryUids` (the list [ and ] walk), `step` (selected index);
 * events `aw-trajectory-change` {trajectoryUid, index}, `aw-step-select` {step: InspectorStep}.
 */
import { consume } from '@lit/context';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { type Services, servicesContext } from '../kit/services';
import type { ChatMessage, ToolCall } from '../../contract/step';
import { loadTrajectory } from './load';
import { conversationTurns, type InspectorStep, prettyJson, type Turn, toolCalls, toolResults } from './turns';

/** Unknown values read the same everywhere in the inspector. */
const UNKNOWN = '—';

/** Characters of one text shown before "show all". */
export const CLIP = 20_000;

@customElement('aw-step-inspector')
export class AwStepInspector extends LitElement {
  @consume({ context: servicesContext, subscribe: true })
  @property({ attribute: false })
  services?: Services;

  @property({ attribute: 'trajectory-uid' }) trajectoryUid: string | null = null;
  @property({ attribute: false }) trajectoryUids: string[] = [];
  @property({ type: Number }) step = 0;

  @state() private steps: InspectorStep[] = [];
  @state() private error: string | null = null;
  @state() private loading = false;
  /** Pretty-print JSON tool arguments, tool results and raw records (off: exactly as recorded). */
  @state() pretty = true;
  /** Steps whose earlier messages are expanded (rendered only then: long histories stay cheap). */
  @state() private expanded = new Set<number>();
  /** Long texts the user asked to see whole (by value); the others show their first CLIP characters. */
  @state() private whole = new Set<string>();
  private results = new Map<string, ChatMessage>();
  private calls = new Map<string, string>();
  private loadSeq = 0;
  private offChange?: () => void;

  static override styles = css`
    :host { display: block; font: 13px/1.45 system-ui, sans-serif; color: #1f2328; outline: none; }
    :host(:focus-visible) { outline: 2px solid #0969da; outline-offset: 2px; }
    header { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: baseline; padding: 4px 0 8px; border-bottom: 1px solid #d0d7de; }
    header h2 { font-size: 14px; margin: 0; font-family: ui-monospace, monospace; }
    .muted { color: #57606a; }
    .turn { margin: 8px 0; padding: 6px 10px; border-radius: 6px; border: 1px solid #d0d7de; background: #fff; }
    .turn.system { background: #f6f8fa; }
    .turn.user { background: #f1f8ff; }
    .turn.assistant { background: #fff; border-color: #8c959f; }
    .turn.tool { background: #fbf8ef; }
    .turn.restated { opacity: 0.75; }
    .step { border-left: 4px solid transparent; padding-left: 6px; margin-left: -10px; }
    .step[aria-current='true'] { border-left-color: #0969da; }
    .role { font-weight: 600; font-size: 12px; color: var(--aw-muted, #57606a); }
    .role .who { text-transform: uppercase; letter-spacing: 0.03em; }
    .id { font-family: var(--aw-mono, ui-monospace, monospace); font-weight: 400; text-transform: none; }
    .pair { margin: 2px 0 0 12px; border-left: 2px solid var(--aw-border, #d0d7de); padding-left: 8px; }
    .earlier > summary { font-size: 12px; }
    .content { white-space: pre-wrap; word-break: break-word; margin: 2px 0; }
    pre { white-space: pre-wrap; word-break: break-word; margin: 2px 0; font: 12px/1.4 ui-monospace, monospace; background: #f6f8fa; padding: 4px 6px; border-radius: 4px; }
    .call { margin: 4px 0; }
    .call .name { font-family: ui-monospace, monospace; font-weight: 600; }
    .metrics { display: flex; flex-wrap: wrap; gap: 4px 12px; font-size: 12px; color: #57606a; margin-top: 4px; }
    .metrics button { font-size: 12px; }
    .err { color: #b42318; white-space: pre-wrap; }
    .badge { border-radius: 10px; padding: 0 6px; background: #eaeef2; font-size: 11px; }
    .badge.good { background: #dafbe1; } .badge.bad { background: #ffebe9; }
    details > summary { cursor: pointer; color: #57606a; font-size: 12px; }
    .empty { padding: 12px; color: #57606a; }
  `;

  override connectedCallback(): void {
    super.connectedCallback();
    if (!this.hasAttribute('tabindex')) this.tabIndex = 0;
    this.addEventListener('keydown', this.onKey);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.removeEventListener('keydown', this.onKey);
    this.offChange?.();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('services')) {
      this.offChange?.();
      this.offChange = this.services?.pool.onChange((e) => {
        if (e.tables.some((t) => t === 'curation' || t === 'steps')) void this.reload(false);
      });
    }
    if (changed.has('trajectoryUid')) this.expanded = new Set();
    if (changed.has('trajectoryUid') || changed.has('services')) void this.reload(changed.has('trajectoryUid'));
  }

  /** Reload the current trajectory (after a label changed). */
  async reload(resetStep = true): Promise<void> {
    const pool = this.services?.pool;
    const uid = this.trajectoryUid;
    const seq = ++this.loadSeq;
    if (!pool || !uid) {
      this.steps = [];
      return;
    }
    this.loading = true;
    try {
      const steps = await loadTrajectory(pool, uid);
      if (seq !== this.loadSeq) return;
      this.steps = steps;
      this.error = null;
      if (resetStep) this.step = 0;
      this.step = Math.min(this.step, Math.max(0, steps.length - 1));
      this.emitStep();
    } catch (e) {
      if (seq === this.loadSeq) this.error = `Could not load trajectory ${uid}: ${e instanceof Error ? e.message : String(e)}`;
    } finally {
      if (seq === this.loadSeq) this.loading = false;
    }
  }

  get selectedStep(): InspectorStep | null {
    return this.steps[this.step] ?? null;
  }

  get loadedSteps(): readonly InspectorStep[] {
    return this.steps;
  }

  selectStep(i: number): void {
    if (!this.steps.length) return;
    this.step = Math.max(0, Math.min(this.steps.length - 1, i));
    this.emitStep();
    void this.updateComplete.then(() => this.renderRoot.querySelector(`[data-step="${this.step}"]`)?.scrollIntoView?.({ block: 'nearest' }));
  }

  /** Move to the previous / next trajectory of `trajectoryUids`. */
  moveTrajectory(delta: number): void {
    const list = this.trajectoryUids;
    if (!list.length) return;
    const at = this.trajectoryUid ? list.indexOf(this.trajectoryUid) : -1;
    const index = Math.max(0, Math.min(list.length - 1, at + delta));
    if (list[index] === this.trajectoryUid) return;
    this.trajectoryUid = list[index];
    this.dispatchEvent(new CustomEvent('aw-trajectory-change', { detail: { trajectoryUid: list[index], index }, bubbles: true, composed: true }));
  }

  private emitStep(): void {
    const step = this.selectedStep;
    if (step) this.dispatchEvent(new CustomEvent('aw-step-select', { detail: { step }, bubbles: true, composed: true }));
  }

  private onKey = (e: KeyboardEvent): void => {
    const t = e.composedPath()[0] as HTMLElement | undefined;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable)) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const k = e.key;
    if (k === 'j' || k === 'ArrowDown') this.selectStep(this.step + 1);
    else if (k === 'k' || k === 'ArrowUp') this.selectStep(this.step - 1);
    else if (k === ']') this.moveTrajectory(1);
    else if (k === '[') this.moveTrajectory(-1);
    else return;
    e.preventDefault();
  };

  override render() {
    if (this.error) return html`<div class="err" role="alert">${this.error}</div>`;
    if (!this.trajectoryUid) return html`<div class="empty">Select a trajectory to inspect it.</div>`;
    if (!this.steps.length) return html`<div class="empty">${this.loading ? 'Loading…' : `No steps in trajectory ${this.trajectoryUid}.`}</div>`;
    const s0 = this.steps[0];
    const last = this.steps[this.steps.length - 1];
    const reward = this.steps.reduce((a, s) => (s.reward === null ? a : (a ?? 0) + s.reward), null as number | null);
    const turns = conversationTurns(this.steps);
    this.results = toolResults(turns);
    this.calls = toolCalls(turns);
    const at = this.trajectoryUids.indexOf(this.trajectoryUid);
    return html`
      <header>
        <h2>${this.trajectoryUid}</h2>
        <span class="muted">${this.steps.length} ${this.steps.length === 1 ? 'step' : 'steps'}</span>
        <span class="muted">reward ${reward ?? UNKNOWN}</span>
        <span class="muted">${last.is_last ? 'complete' : 'open'}</span>
        <span class="muted">prompt <span class="id">${s0.prompt_uid ?? UNKNOWN}</span></span>
        ${s0.agent ? html`<span class="muted">agent ${s0.agent}</span>` : nothing}
        <button class="fmt" aria-pressed=${this.pretty ? 'true' : 'false'} title="Show JSON arguments, results and raw records pretty-printed or exactly as recorded"
          @click=${(e: Event) => {
            e.stopPropagation();
            this.pretty = !this.pretty;
          }}>${this.pretty ? 'JSON: pretty' : 'JSON: raw'}</button>
        ${at >= 0 ? html`<span class="muted">trajectory ${at + 1} / ${this.trajectoryUids.length} · [ ] to move, j k between steps</span>` : nothing}
      </header>
      <div role="list" aria-label="Conversation">${this.renderSteps(turns)}</div>
    `;
  }

  private renderSteps(turns: Turn[]) {
    return this.steps.map((s, i) => {
      const mine = turns.filter((t) => t.step === i);
      return html`<section class="step" role="listitem" data-step=${i} aria-current=${i === this.step ? 'true' : 'false'}
        aria-label=${`Step ${s.step_index}`} @click=${() => this.selectStep(i)}>
        ${mine.map((t) =>
          t.kind === 'earlier'
            ? html`<details class="earlier" ?open=${this.expanded.has(i)} @toggle=${(e: Event) => this.toggleEarlier(i, (e.target as HTMLDetailsElement).open)}>
                <summary>${t.messages.length} earlier ${t.messages.length === 1 ? 'message' : 'messages'}</summary>
                ${this.expanded.has(i) ? t.messages.map((m) => this.renderMessage(m)) : nothing}</details>`
            : t.kind === 'context'
              ? this.renderMessage(t.message, t.restated)
              : this.renderResponse(s),
        )}
      </section>`;
    });
  }

  private renderMessage(m: ChatMessage, restated = false) {
    const role = m.role || 'unknown';
    return html`<div class=${`turn ${role}${restated ? ' restated' : ''}`}>
      <div class="role"><span class="who">${role}</span>${m.name ? html` · <span class="id">${m.name}</span>` : nothing}${m.tool_call_id
        ? html` · result of <span class="id">${this.calls.get(m.tool_call_id) ?? '?'}</span> (<span class="id">${m.tool_call_id}</span>)`
        : nothing}${restated ? ' · context restated' : ''}</div>
      ${m.reasoning ? html`<details><summary>Reasoning (${m.reasoning.length} chars)</summary><div class="content">${this.clip(m.reasoning)}</div></details>` : nothing}
      ${m.content ? (role === 'tool' ? html`<pre class="result">${this.json(m.content)}</pre>` : html`<div class="content">${this.clip(m.content)}</div>`) : nothing}
      ${(m.tool_calls ?? []).map((c) => this.renderCall(c))}
    </div>`;
  }

  private toggleEarlier(step: number, open: boolean): void {
    if (open === this.expanded.has(step)) return;
    const next = new Set(this.expanded);
    if (open) next.add(step);
    else next.delete(step);
    this.expanded = next;
  }

  private json(text: string | null | undefined) {
    const t = text ?? '';
    // pretty-printing parses the whole text: a huge value is shown as written (and clipped) instead
    return this.clip(this.pretty && t.length <= CLIP ? prettyJson(t) : t);
  }

  /**
   * A text of trace content, clipped to its first CLIP characters until the user asks for all of it: laying out a
   * 50 MB message at once froze the page for 20 s (issue 17 hole 10).
   */
  private clip(text: string) {
    if (text.length <= CLIP || this.whole.has(text)) return text;
    return html`${text.slice(0, CLIP)}<button class="show-all" aria-label=${`Show all ${text.length.toLocaleString('en-US')} characters`}
      @click=${() => (this.whole = new Set(this.whole).add(text))}>… show all ${text.length.toLocaleString('en-US')} characters</button>`;
  }

  /** A tool call with its arguments and, under it, the result that answers it (same tool_call_id). */
  private renderCall(c: ToolCall) {
    const result = c.id ? this.results.get(c.id) : undefined;
    return html`<div class="call"><span class="muted">tool call</span> <span class="name">${c.function?.name ?? '?'}</span>
      ${c.id ? html`<span class="muted">(<span class="id">${c.id}</span>)</span>` : nothing}<pre class="args">${this.json(c.function?.arguments)}</pre>
      <div class="pair" aria-label=${`Result of ${c.function?.name ?? 'the tool call'}`}>${result
        ? html`<span class="muted">result</span><pre class="result">${this.json(result.content)}</pre>`
        : html`<span class="muted">no result recorded</span>`}</div></div>`;
  }

  private renderResponse(s: InspectorStep) {
    const tokens = [s.prompt_tokens, s.completion_tokens].some((x) => x !== null) ? `${s.prompt_tokens ?? UNKNOWN} → ${s.completion_tokens ?? UNKNOWN} tokens` : `tokens ${UNKNOWN}`;
    return html`${s.response ? this.renderMessage(s.response) : html`<div class="turn assistant"><div class="role">assistant</div><div class="muted">no response</div></div>`}
      <div class="metrics" aria-label=${`Step ${s.step_index} details`}>
        <span>step ${s.step_index}</span>
        <span>reward ${s.reward ?? UNKNOWN}</span>
        <span>${tokens}</span>
        <span>${s.latency_ms === null ? `latency ${UNKNOWN}` : `${Math.round(s.latency_ms)} ms`}</span>
        <span>finish ${s.finish_reason ?? UNKNOWN}</span>
        ${s.model ? html`<span>${s.model}</span>` : nothing}
        <span class=${`badge ${s.quality ?? ''}`}>${s.quality ?? 'unreviewed'}</span>
        <span class="badge">${s.trainable ? 'trainable' : 'not trainable'}</span>
        ${(s.tags ?? []).map((t) => html`<span class="badge">#${t}</span>`)}
      </div>
      ${s.note ? html`<div class="muted">note: ${s.note}</div>` : nothing}
      ${s.status === 'error' || s.error ? html`<div class="err" role="note">error: ${s.error ?? 'unknown error'}</div>` : nothing}
      <details><summary>Raw source record of step ${s.step_index}</summary><pre>${this.json(s.raw)}</pre></details>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-step-inspector': AwStepInspector;
  }
}
