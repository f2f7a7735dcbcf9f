/**
 * <aw-step-inspector>: one trajectory as a conversation (system / user / assistant / tool turns, tool
 * calls with pretty-printed arguments, reasoning collapsed), per-step reward, tokens, latency, finish
 * reason, errors and the raw source record. Keys: j / k or ↓ / ↑ between steps, [ / ] between
 * trajectories. Trace text is untrusted: it is rendered only through lit text bindings.
 *
 * Views (tabs, INSPECTOR_VIEWS): the conversation; a timeline (steps as a tree by the source's span parent
 * ids, tool calls under their step, a latency waterfall, tokens and cost per step); two rollouts of the
 * prompt group side by side. JSON is a foldable tree (or raw), message text Markdown (sanitized) or source.
 *
 * API: `trajectoryUid`, `trajectoryUids` (the list [ and ] walk), `step` (selected index), `view`, `compact`
 * (conversation only, no tabs: a side of the compare view); events `aw-trajectory-change` {trajectoryUid, index},
 * `aw-step-select` {step: InspectorStep}, `aw-inspector-view` {view}.
 *
 * One concept: one element's render of one conversation; its data work is already out (queries.ts, turns.ts, timeline.ts, views.ts), what is left is markup that shares the selected step.
 */
import { consume } from '@lit/context';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { PoolQueryController } from '../kit/pool-refresh';
import { rovingIndex } from '../kit/roving';
import { type Services, servicesContext } from '../kit/services';
import { base } from '../kit/styles';
import type { ChatMessage, ToolCall } from '../../contract/step';
import './aw-trainer-view';
import '../kit/aw-price-table';
import type { AwPriceTable } from '../kit/aw-price-table';
import { jsonStyles, jsonView } from '../kit/json-view';
import { markdownStyles, markdownView } from '../kit/markdown-text';
import { formatUsd, onPricesChange, stepCost } from '../kit/prices';
import { failedResult, toolErrorMark, toolErrorStyles } from '../kit/tool-error';
import './aw-rollout-compare';
import { buildTimeline, type StepTiming, type TimelineRow } from './timeline';
import { loadTimings, loadTrajectory } from './queries';
import { conversationTurns, type InspectorStep, type Turn, toolCalls, toolResults } from './turns';
import { INSPECTOR_VIEWS, type InspectorView } from './views';

/** `set` with `key` in or out as `open` says; the same set when nothing changes (no re-render). */
function toggled(set: Set<string>, key: string, open: boolean): Set<string> {
  if (open === set.has(key)) return set;
  const next = new Set(set);
  if (open) next.add(key);
  else next.delete(key);
  return next;
}

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
  @property() view: InspectorView = 'conversation';
  @property({ type: Boolean, reflect: true }) compact = false;

  @state() private steps: InspectorStep[] = [];
  @state() private timings: StepTiming[] = [];
  /** Render message text as Markdown (sanitized); off: the text as written. */
  @state() markdown = true;
  @state() private error: string | null = null;
  @state() private loading = false;
  /** Pretty-print JSON tool arguments, tool results and raw records (off: exactly as recorded). */
  @state() pretty = true;
  /** Steps whose earlier messages are expanded (rendered only then: long histories stay cheap). */
  @state() private expanded = new Set<number>();
  /** Long texts the user asked to see whole (by value); the others show their first CLIP characters. */
  @state() private whole = new Set<string>();
  /** Steps whose "As the trainer sees it" view is open (rendered only then). */
  @state() private trainerOpen = new Set<string>();
  /** Steps whose raw source record is open (laid out only then). */
  @state() private rawOpen = new Set<string>();
  private results = new Map<string, ChatMessage>();
  private calls = new Map<string, string>();
  /** The next load starts at the first step (a new trajectory); a re-read after a label keeps the selected step. */
  private resetStep = false;
  /** The trajectory is re-read after writes to its steps or labels (a label changed it), not while hidden. */
  private query = new PoolQueryController(this, { pool: () => this.services?.pool, tables: ['curation', 'steps'], run: () => this.load() });
  private offPrices?: () => void;

  static override styles = [
    base,
    jsonStyles,
    markdownStyles,
    toolErrorStyles,
    css`
      :host { display: block; font-size: 13px; outline: none; }
      :host(:focus-visible) { outline: 2px solid var(--aw-accent); outline-offset: 2px; }
      header { display: flex; flex-wrap: wrap; gap: 6px 14px; align-items: baseline; padding: 4px 0 8px; border-bottom: 1px solid var(--aw-border); }
      header h2 { font: 600 13.5px var(--aw-mono); margin: 0; overflow-wrap: anywhere; }
      header .tools { display: flex; flex-wrap: wrap; gap: 4px; margin-left: auto; }
      header button { font-size: 12px; padding: 2px 8px; }
      [role='tablist'] { display: flex; gap: 2px; border-bottom: 1px solid var(--aw-border); margin: 4px 0 6px; }
      [role='tab'] { border: none; border-bottom: 2px solid transparent; border-radius: 0; background: none; padding: 4px 10px; font-size: 12.5px; }
      [role='tab'][aria-selected='true'] { border-bottom-color: var(--aw-accent); color: var(--aw-accent); font-weight: 600; }
      .turn { margin: 8px 0; padding: 6px 10px; border-radius: var(--aw-radius); border: 1px solid var(--aw-border); background: var(--aw-panel); }
      .turn.system { background: var(--aw-subtle); }
      .turn.user { background: var(--aw-user-bg); }
      .turn.assistant { border-color: var(--aw-muted); }
      .turn.tool { background: var(--aw-tool-bg); }
      .turn.restated { opacity: 0.8; }
      .step { border-left: 4px solid transparent; padding-left: 6px; margin-left: -10px; }
      .step[aria-current='true'] { border-left-color: var(--aw-accent); }
      .role { font-weight: 600; font-size: 12px; color: var(--aw-muted); }
      .id { font-family: var(--aw-mono); font-weight: 400; }
      .pair { margin: 2px 0 0 12px; border-left: 2px solid var(--aw-border); padding-left: 8px; }
      .earlier > summary { font-size: 12px; }
      .content { white-space: pre-wrap; overflow-wrap: anywhere; margin: 2px 0; }
      .content.md { white-space: normal; }
      pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 2px 0; font: 12px/1.4 var(--aw-mono); background: var(--aw-code-bg); padding: 4px 6px; border-radius: 4px; }
      .call { margin: 4px 0; }
      .call .name { font-family: var(--aw-mono); font-weight: 600; }
      .metrics { display: flex; flex-wrap: wrap; gap: 4px 12px; font-size: 12px; color: var(--aw-muted); margin-top: 4px; }
      .err { color: var(--aw-error); white-space: pre-wrap; }
      .badge { border-radius: 10px; padding: 0 6px; background: var(--aw-subtle); font-size: 11px; color: var(--aw-text); }
      .badge.good { background: var(--aw-ok-bg); } .badge.bad { background: var(--aw-error-bg); }
      details > summary { cursor: pointer; color: var(--aw-muted); font-size: 12px; }
      .empty { padding: 12px; color: var(--aw-muted); }
      table.timeline { border-collapse: collapse; width: 100%; font-size: 12px; table-layout: fixed; }
      table.timeline th, table.timeline td { padding: 2px 6px; border-bottom: 1px solid var(--aw-border); text-align: left; vertical-align: middle; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
      table.timeline th { color: var(--aw-muted); font-weight: 600; }
      table.timeline td.num, table.timeline th.num { text-align: right; font-variant-numeric: tabular-nums; }
      table.timeline tr[aria-current='true'] td { background: var(--aw-accent-bg); }
      table.timeline tr.span td { color: var(--aw-muted); font-family: var(--aw-mono); }
      table.timeline tr.tool td { color: var(--aw-muted); }
      table.timeline button.name { all: unset; cursor: pointer; font-family: var(--aw-mono); }
      table.timeline button.name:focus-visible { outline: 2px solid var(--aw-accent); }
      .bar { position: relative; height: 10px; background: var(--aw-subtle); border-radius: 2px; }
      .bar > span { position: absolute; top: 0; bottom: 0; min-width: 2px; background: var(--aw-bar); border-radius: 2px; }
      .bar > span.error { background: var(--aw-bar-error); }
      .totals { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 12px; color: var(--aw-muted); margin: 2px 0 6px; }
    `,
  ];

  override connectedCallback(): void {
    super.connectedCallback();
    if (!this.hasAttribute('tabindex')) this.tabIndex = 0;
    this.addEventListener('keydown', this.onKey);
    this.offPrices = onPricesChange(() => this.requestUpdate());
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.removeEventListener('keydown', this.onKey);
    this.offPrices?.();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    // a new pool is read by the controller; a new trajectory now, even hidden (it is what the caller opened)
    if (changed.has('trajectoryUid')) {
      this.expanded = new Set();
      void this.reload();
    }
  }

  /** Settles when the latest load has finished (for tests and callers that wait). */
  get loaded(): Promise<void> {
    return this.query.settled;
  }

  /** Reload the current trajectory (after the load in progress, if one is); `resetStep` false keeps the selected step. */
  reload(resetStep = true): Promise<void> {
    if (resetStep) this.resetStep = true;
    return this.query.refresh();
  }

  private async load(): Promise<void> {
    const pool = this.services?.pool;
    const uid = this.trajectoryUid;
    const resetStep = this.resetStep;
    this.resetStep = false;
    if (!pool || !uid) {
      this.steps = [];
      return;
    }
    this.loading = true;
    try {
      const [steps, timings] = await Promise.all([loadTrajectory(pool, uid), loadTimings(pool, uid)]);
      // another trajectory was opened meanwhile: the load queued after this one reads it
      if (uid !== this.trajectoryUid) return;
      this.steps = steps;
      this.timings = timings;
      this.error = null;
      if (resetStep) this.step = 0;
      this.step = Math.min(this.step, Math.max(0, steps.length - 1));
      this.emitStep();
    } catch (e) {
      if (uid === this.trajectoryUid) this.error = `Could not load trajectory ${uid}: ${e instanceof Error ? e.message : String(e)}`;
    } finally {
      this.loading = false;
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

  /** Show one of INSPECTOR_VIEWS. */
  setView(view: InspectorView): void {
    if (view === this.view) return;
    this.view = view;
    this.dispatchEvent(new CustomEvent('aw-inspector-view', { detail: { view }, bubbles: true, composed: true }));
  }

  /** The price table dialog (costs use it everywhere). */
  showPrices(): void {
    void (this.renderRoot.querySelector('aw-price-table') as AwPriceTable | null)?.show();
  }

  private onTabKey(e: KeyboardEvent): void {
    const ids = INSPECTOR_VIEWS.map((v) => v.id);
    const at = ids.indexOf((e.target as HTMLElement).dataset.view as InspectorView);
    const to = rovingIndex(e.key, Math.max(0, at), ids.length);
    if (to === null) return;
    e.preventDefault();
    e.stopPropagation();
    this.setView(ids[to]);
    void this.updateComplete.then(() => (this.renderRoot.querySelector(`[role="tab"][data-view="${ids[to]}"]`) as HTMLElement | null)?.focus());
  }

  private onKey = (e: KeyboardEvent): void => {
    // a compare view's inner inspectors handle their own keys
    if (e.defaultPrevented) return;
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
    const turns = conversationTurns(this.steps);
    this.results = toolResults(turns);
    this.calls = toolCalls(turns);
    if (this.compact) return html`${this.renderHeader()}<div role="list" aria-label="Conversation">${this.renderSteps(turns)}</div>`;
    const view = INSPECTOR_VIEWS.some((v) => v.id === this.view) ? this.view : 'conversation';
    return html`
      ${this.renderHeader()}
      <div role="tablist" aria-label="Inspector views" @keydown=${this.onTabKey}>
        ${INSPECTOR_VIEWS.map((v) => html`<button role="tab" data-view=${v.id} aria-selected=${view === v.id ? 'true' : 'false'} tabindex=${view === v.id ? 0 : -1}
          @click=${(e: Event) => {
            e.stopPropagation();
            this.setView(v.id);
          }}>${v.label}</button>`)}
      </div>
      <div role="tabpanel" aria-label=${INSPECTOR_VIEWS.find((v) => v.id === view)?.label ?? ''}>${this.renderView(view, turns)}</div>
      <aw-price-table></aw-price-table>
    `;
  }

  private renderView(view: InspectorView, turns: Turn[]) {
    switch (view) {
      case 'timeline':
        return this.renderTimeline();
      case 'compare':
        return html`<aw-rollout-compare .services=${this.services} .promptUid=${this.steps[0]?.prompt_uid ?? null} .left=${this.trajectoryUid}></aw-rollout-compare>`;
      default:
        return html`<div role="list" aria-label="Conversation">${this.renderSteps(turns)}</div>`;
    }
  }

  private renderHeader() {
    const s0 = this.steps[0];
    const last = this.steps[this.steps.length - 1];
    const reward = this.steps.reduce((a, s) => (s.reward === null ? a : (a ?? 0) + s.reward), null as number | null);
    const at = this.trajectoryUids.indexOf(this.trajectoryUid ?? '');
    const toggle = (label: string, title: string, on: boolean, flip: () => void) =>
      html`<button aria-pressed=${on ? 'true' : 'false'} title=${title} @click=${(e: Event) => {
        e.stopPropagation();
        flip();
      }}>${label}</button>`;
    return html`<header>
        <h2>${this.trajectoryUid}</h2>
        <span class="muted">${this.steps.length} ${this.steps.length === 1 ? 'step' : 'steps'}</span>
        <span class="muted">reward ${reward ?? UNKNOWN}</span>
        <span class="muted">${last.is_last ? 'complete' : 'open'}</span>
        ${this.compact ? nothing : html`<span class="muted">prompt <span class="id">${s0.prompt_uid ?? UNKNOWN}</span></span>`}
        ${s0.agent && !this.compact ? html`<span class="muted">agent ${s0.agent}</span>` : nothing}
        <span class="tools">
          ${toggle(this.pretty ? 'JSON: pretty' : 'JSON: raw', 'Show JSON arguments, results and raw records as a foldable tree or exactly as recorded', this.pretty, () => (this.pretty = !this.pretty))}
          ${toggle(this.markdown ? 'Text: Markdown' : 'Text: source', 'Render message text as Markdown (sanitized) or show its source', this.markdown, () => (this.markdown = !this.markdown))}
          ${this.compact ? nothing : html`<button title="Edit the per-model prices used for costs" @click=${(e: Event) => {
            e.stopPropagation();
            this.showPrices();
          }}>Prices…</button>`}
        </span>
        ${at >= 0 && !this.compact ? html`<span class="muted">trajectory ${at + 1} / ${this.trajectoryUids.length} · [ ] to move, j k between steps</span>` : nothing}
      </header>`;
  }

  private timeline() {
    const byIndex = new Map(this.timings.map((t) => [t.step_index, t]));
    return buildTimeline(
      this.steps.map((s) => {
        const t = byIndex.get(s.step_index);
        return {
          step_index: s.step_index, started_ms: t?.started_ms ?? null, ended_ms: t?.ended_ms ?? null, latency_ms: s.latency_ms,
          span_id: t?.span_id ?? null, parent_id: t?.parent_id ?? null, span_name: t?.span_name ?? null, model: s.model,
          prompt_tokens: s.prompt_tokens, completion_tokens: s.completion_tokens, status: s.status, tool_calls: s.response?.tool_calls ?? [],
        };
      }),
    );
  }

  private renderTimeline() {
    const t = this.timeline();
    const total = t.total ?? 0;
    const pct = (x: number) => `${total > 0 ? (100 * x) / total : 0}%`;
    const ms = (x: number | null) => (x === null ? UNKNOWN : `${Math.round(x).toLocaleString('en-US')} ms`);
    const tok = (a: number | null, b: number | null) => (a === null && b === null ? UNKNOWN : `${a ?? UNKNOWN} → ${b ?? UNKNOWN}`);
    const row = (r: TimelineRow) => {
      const indent = `padding-left:${6 + r.depth * 14}px`;
      if (r.kind === 'span') return html`<tr class="span"><td style=${indent} title=${r.label}>${r.label}</td><td colspan="5"><span class="muted">parent span (not an LLM call)</span></td></tr>`;
      if (r.kind === 'tool') {
        const result = this.results.get(r.call_id ?? '');
        return html`<tr class="tool"><td style=${indent} title=${r.label}>↳ tool <span class="id">${r.label}</span></td><td colspan="5">${r.call_id ? html`<span class="id">${r.call_id}</span> · ` : nothing}${result ? 'result recorded' : 'no result recorded'}${toolErrorMark(result)}</td></tr>`;
      }
      const s = this.steps[r.step];
      return html`<tr aria-current=${r.step === this.step ? 'true' : 'false'} class=${r.status === 'error' ? 'step error' : 'step'}>
        <td style=${indent}><button class="name" title=${`${r.label}${r.span_id ? ` (span ${r.span_id})` : ''}`} aria-label=${`Show step ${s.step_index} in the conversation`} @click=${(e: Event) => {
          e.stopPropagation();
          this.selectStep(r.step);
          this.setView('conversation');
        }}>${r.label}</button></td>
        <td title=${r.model ?? ''}>${r.model ?? UNKNOWN}</td>
        <td class="num">${tok(r.prompt_tokens, r.completion_tokens)}</td>
        <td class="num">${formatUsd(r.cost)}</td>
        <td class="num">${ms(r.duration)}</td>
        <td aria-hidden="true"><div class="bar">${r.start !== null && total > 0
          ? html`<span class=${r.status === 'error' ? 'error' : ''} style=${`left:${pct(r.start)};width:${pct(r.duration ?? 0)}`}></span>`
          : nothing}</div></td>
      </tr>`;
    };
    return html`<div class="totals" aria-label="Trajectory totals">
        <span>wall time ${ms(t.total)}${t.estimated ? ' (no start times: steps laid end to end by latency)' : ''}</span>
        <span>tokens ${tok(t.tokens.prompt, t.tokens.completion)}</span>
        <span>cost ${formatUsd(t.cost)}${t.unpriced ? ` (+ ${t.unpriced} ${t.unpriced === 1 ? 'step' : 'steps'} without a price)` : ''}</span>
        <span>${t.spans ? 'nested by the source’s span parents' : 'no span parents recorded: steps in order'}</span>
      </div>
      <table class="timeline" aria-label="Timeline of the trajectory's steps">
        <colgroup><col style="width:30%" /><col style="width:18%" /><col style="width:14%" /><col style="width:9%" /><col style="width:10%" /><col /></colgroup>
        <thead><tr><th scope="col">step / span</th><th scope="col">model</th><th scope="col" class="num">tokens</th><th scope="col" class="num">cost</th><th scope="col" class="num">latency</th><th scope="col">waterfall</th></tr></thead>
        <tbody>${t.rows.map(row)}</tbody>
      </table>`;
  }

  private renderSteps(turns: Turn[]) {
    return this.steps.map((s, i) => {
      const mine = turns.filter((t) => t.step === i);
      return html`<div class="step" role="listitem" data-step=${i} aria-current=${i === this.step ? 'true' : 'false'}
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
      </div>`;
    });
  }

  private renderMessage(m: ChatMessage, restated = false) {
    const role = m.role || 'unknown';
    return html`<div class=${`turn ${role}${restated ? ' restated' : ''}`}>
      <div class="role"><span class="who">${role}</span>${m.name ? html` · <span class="id">${m.name}</span>` : nothing}${m.tool_call_id
        ? html` · result of <span class="id">${this.calls.get(m.tool_call_id) ?? '?'}</span> (<span class="id">${m.tool_call_id}</span>)`
        : nothing}${restated ? ' · context restated' : ''}${toolErrorMark(m)}</div>
      ${m.reasoning ? html`<details><summary>Reasoning (${m.reasoning.length} chars)</summary><div class="content">${this.clip(m.reasoning)}</div></details>` : nothing}
      ${m.content ? (role === 'tool' ? html`<div class=${failedResult(m) ? 'result failed' : 'result'}>${this.json(m.content)}</div>` : (markdownView(m.content, this.markdown) ?? html`<div class="content">${this.clip(m.content)}</div>`)) : nothing}
      ${(m.tool_calls ?? []).map((c) => this.renderCall(c))}
    </div>`;
  }

  private toggleRaw(stepId: string, open: boolean): void {
    this.rawOpen = toggled(this.rawOpen, stepId, open);
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
    return jsonView(t, this.pretty && t.length <= CLIP, (x) => this.clip(x));
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
      ${c.id ? html`<span class="muted">(<span class="id">${c.id}</span>)</span>` : nothing}<div class="args">${this.json(c.function?.arguments)}</div>
      <div class="pair" aria-label=${`Result of ${c.function?.name ?? 'the tool call'}${failedResult(result) ? ': error' : ''}`}>${result
        ? html`<span class="muted">result</span>${toolErrorMark(result)}<div class=${failedResult(result) ? 'result failed' : 'result'}>${this.json(result.content)}</div>`
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
        <span>cost ${formatUsd(stepCost(s.model, s.prompt_tokens, s.completion_tokens))}</span>
        ${s.model ? html`<span>${s.model}</span>` : nothing}
        <span class=${`badge ${s.quality ?? ''}`}>${s.quality ?? 'unreviewed'}</span>
        <span class="badge">${s.trainable ? 'trainable' : 'not trainable'}</span>
        ${(s.tags ?? []).map((t) => html`<span class="badge">#${t}</span>`)}
      </div>
      ${s.note ? html`<div class="muted">note: ${s.note}</div>` : nothing}
      ${s.status === 'error' || s.error ? html`<div class="err" role="note">error: ${s.error ?? 'unknown error'}</div>` : nothing}
      <details @toggle=${(e: Event) => this.toggleRaw(s.step_id, (e.target as HTMLDetailsElement).open)}><summary>Raw source record of step ${s.step_index}</summary>${this.rawOpen.has(s.step_id) ? this.json(s.raw) : nothing}</details>
      <details class="trainer" @toggle=${(e: Event) => {
        const open = (e.target as HTMLDetailsElement).open;
        this.trainerOpen = toggled(this.trainerOpen, s.step_id, open);
      }}><summary>As the trainer sees it (step ${s.step_index})</summary>${this.trainerOpen.has(s.step_id) ? html`<aw-trainer-view .stepId=${s.step_id}></aw-trainer-view>` : nothing}</details>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-step-inspector': AwStepInspector;
  }
}
