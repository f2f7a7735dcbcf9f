/**
 * <aw-tokenizer-panel>: the model's tokenizer and what its chat template does to the selection (issue 19).
 * Pick a profile (the bundled Qwen3, or a model's tokenizer.json + tokenizer_config.json [+ chat_template.jinja]);
 * token counting progress with Cancel; the length histogram of the selected steps with the limit marked; the
 * template audit — steps whose rendering raises, is over the limit or loses content, by cause — where a cause lists
 * its steps and a step opens its trajectory (`aw-trajectory-select` {trajectoryUid}, as the trajectory list sends).
 *
 * API: `where` (predicate over `steps s` / `curation c`, the dashboard's), `service` (default: the page's).
 */
import { consume } from '@lit/context';
import * as Plot from '@observablehq/plot';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { type Services, servicesContext } from '../kit/services';
import type { Row } from '../../pool/rows';
import { type AuditCause, auditRowsSql, auditSql, lengthHistogramSql } from '../../tokenizer/audit-sql';
import { activeTokenizer, type TokenizerInput, type TokenizerService, type TokenizerState } from '../../tokenizer/service';
import type { ProfileInfo } from '../../tokenizer/profile';

const LIMIT_KEY = 'aw-token-limit';

/** The length histogram: steps per n_tokens bin, bins over the limit red, the limit a red rule. */
export function lengthHistogram(rows: Row[], limit: number): Element {
  const data = rows.map((r) => ({ x1: Number(r.x1), x2: Number(r.x2), steps: Number(r.steps), over: Number(r.x1) >= limit }));
  return Plot.plot({
    width: 360,
    height: 180,
    marginBottom: 40,
    style: { fontSize: '11px', background: 'transparent' },
    ariaLabel: `Steps by rendered length in tokens; the limit of ${limit} tokens is marked`,
    x: { label: 'tokens (whole rendered conversation)', labelAnchor: 'center', labelOffset: 34 },
    y: { label: '↑ steps', labelAnchor: 'top', grid: true },
    marks: [
      Plot.rectY(data, { x1: 'x1', x2: 'x2', y: 'steps', fill: (d: { over: boolean }) => (d.over ? '#cf222e' : '#0969da'), insetLeft: 0.5, insetRight: 0.5 }),
      Plot.ruleX([limit], { stroke: '#cf222e', strokeWidth: 2, strokeDasharray: '4,3' }),
      Plot.text([limit], { x: (d: number) => d, frameAnchor: 'top', text: () => `limit ${limit}`, dx: 4, textAnchor: 'start', fill: '#cf222e' }),
      Plot.ruleY([0]),
    ],
  });
}

function sortFiles(files: File[]): { tokenizer?: File; config?: File; template?: File } {
  const out: { tokenizer?: File; config?: File; template?: File } = {};
  for (const f of files) {
    const n = f.name.toLowerCase();
    if (n.endsWith('.jinja') || n.endsWith('.j2')) out.template = f;
    else if (n.includes('tokenizer_config')) out.config = f;
    else if (n.endsWith('.json')) out.tokenizer = f;
  }
  return out;
}

@customElement('aw-tokenizer-panel')
export class AwTokenizerPanel extends LitElement {
  @consume({ context: servicesContext, subscribe: true })
  @property({ attribute: false })
  services?: Services;

  @property() where = '';
  @property({ attribute: false }) service: TokenizerService | null = null;
  @property({ type: Number }) limit = Number(globalThis.localStorage?.getItem(LIMIT_KEY)) || 32768;

  @state() tok: TokenizerState | null = null;
  @state() histogram: Row[] = [];
  @state() audit: AuditCause[] = [];
  @state() cause: string | null = null;
  @state() causeRows: Row[] = [];
  @state() message: { kind: 'error' | 'info'; text: string } | null = null;
  @state() warnings: string[] = [];
  @state() private busy = false;
  private off?: () => void;
  private offPool?: () => void;
  /** The drawn histogram, redrawn only when its rows or the limit change (not on every counting progress update). */
  private chart: { rows: Row[]; limit: number; el: Element } | null = null;
  private seq = 0;

  static override styles = css`
    :host { display: block; font: 13px/1.4 system-ui, sans-serif; }
    .row { display: flex; flex-wrap: wrap; gap: 6px 12px; align-items: center; margin: 4px 0; }
    .muted { color: var(--aw-muted); }
    .err { color: var(--aw-error); white-space: pre-wrap; }
    .warn { border-left: 4px solid var(--aw-warn-border); background: var(--aw-warn-bg); padding: 2px 8px; margin: 4px 0; }
    progress { width: 200px; }
    ul { margin: 2px 0; padding-left: 18px; }
    li button, .cause { font: inherit; background: none; border: none; padding: 0; color: var(--aw-accent); cursor: pointer; text-align: left; }
    .cause[aria-pressed='true'] { font-weight: 600; }
    input[type='number'] { width: 7em; }
    code { font-size: 12px; }
  `;

  private svc(): TokenizerService | null {
    return this.service ?? activeTokenizer();
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.listen();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.off?.();
    this.offPool?.();
  }

  private listen(): void {
    this.off?.();
    let wasCounting = false;
    this.off = this.svc()?.onState((s) => {
      this.tok = s;
      if (wasCounting && !s.counting) void this.refresh();
      wasCounting = s.counting;
    });
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('service')) this.listen();
    if (changed.has('services')) {
      this.offPool?.();
      this.offPool = this.services?.pool.onChange((e) => {
        if (e.tables.includes('token_counts')) void this.refresh();
      });
    }
    if (changed.has('where') || changed.has('limit') || changed.has('services')) void this.refresh();
  }

  /** Rerun the histogram and the audit for the selection. */
  async refresh(): Promise<void> {
    const pool = this.services?.pool;
    if (!pool || !this.svc()?.info()) return;
    const seq = ++this.seq;
    try {
      const [h, a, warnings] = await Promise.all([pool.rows(lengthHistogramSql(this.where, this.limit)), pool.rows(auditSql(this.where, this.limit)), this.svc()?.toolWarnings() ?? []]);
      if (seq !== this.seq) return;
      this.histogram = h;
      this.audit = a.map((r) => ({ id: String(r.id), label: String(r.label), steps: Number(r.steps), trajectories: Number(r.trajectories) }));
      this.warnings = warnings;
      if (this.cause && !this.audit.some((c) => c.id === this.cause)) this.cause = null;
      if (this.cause) this.causeRows = await pool.rows(auditRowsSql(this.where, this.cause, this.limit));
    } catch (e) {
      if (seq === this.seq) this.message = { kind: 'error', text: `The token audit failed: ${e instanceof Error ? e.message : String(e)}` };
    }
  }

  /** Make a profile active; on bad input the message names what is wrong and the previous profile stays. */
  async choose(input: TokenizerInput): Promise<void> {
    const svc = this.svc();
    if (!svc) return;
    this.busy = true;
    this.message = null;
    try {
      const info = await svc.set(input);
      this.message = { kind: 'info', text: `Using ${info.name}: ${info.vocabSize.toLocaleString('en-US')} tokens, template ${info.templateHash.slice(0, 12)}…` };
      this.warnings = await svc.toolWarnings();
    } catch (e) {
      const prev = svc.info();
      this.message = { kind: 'error', text: `${e instanceof Error ? e.message : String(e)}${prev ? ` — still using ${prev.name}.` : ''}` };
    } finally {
      this.busy = false;
    }
  }

  private async onFiles(e: Event): Promise<void> {
    const input = e.target as HTMLInputElement;
    const f = sortFiles([...(input.files ?? [])]);
    input.value = '';
    if (!f.tokenizer || !f.config) {
      this.message = { kind: 'error', text: 'Choose the model\'s tokenizer.json and tokenizer_config.json together (and chat_template.jinja if the template is a separate file).' };
      return;
    }
    await this.choose({ tokenizer: f.tokenizer, config: f.config, template: f.template ?? null, name: f.tokenizer.name === 'tokenizer.json' ? undefined : f.tokenizer.name });
  }

  private async openCause(id: string): Promise<void> {
    const pool = this.services?.pool;
    if (!pool) return;
    this.cause = this.cause === id ? null : id;
    this.causeRows = this.cause ? await pool.rows(auditRowsSql(this.where, this.cause, this.limit)) : [];
  }

  private select(trajectoryUid: string): void {
    this.dispatchEvent(new CustomEvent('aw-trajectory-select', { detail: { trajectoryUid }, bubbles: true, composed: true }));
  }

  private renderProgress() {
    const s = this.tok;
    if (!s?.counting) return s?.error ? html`<p class="err" role="alert">Counting failed: ${s.error}</p>` : nothing;
    const p = s.progress;
    return html`<div class="row" role="status" aria-live="polite">
      <progress max=${p?.total || 1} value=${p?.done ?? 0}></progress>
      <span>Counting tokens… ${p ? `${p.done.toLocaleString('en-US')} / ${p.total.toLocaleString('en-US')} steps` : ''}</span>
      <button @click=${() => void this.svc()?.cancel()}>Cancel</button></div>`;
  }

  override render() {
    const profile = this.tok?.profile ?? null;
    const over = this.histogram.filter((r) => Number(r.x1) >= this.limit).reduce((a, r) => a + Number(r.steps), 0);
    return html`
      <div class="row">
        <strong>Tokenizer</strong>
        <span class="muted">${profile ? `${profile.name} · ${profile.vocabSize.toLocaleString('en-US')} tokens · ${profile.countingOnly ? 'no chat template' : `template ${profile.templateHash.slice(0, 12)}…${profile.toolSupport ? '' : ' · no tool support'}`}` : 'none chosen'}</span>
        <button ?disabled=${this.busy} @click=${() => void this.choose({ bundled: 'qwen3' })}>Use Qwen3 (bundled)</button>
        <button ?disabled=${this.busy} @click=${() => void this.choose({ bundled: 'o200k_base' })}>Use OpenAI o200k_base (counting only)</button>
        <label>Your model's files <input type="file" multiple accept=".json,.jinja,.j2" aria-label="tokenizer.json and tokenizer_config.json (and chat_template.jinja)"
          ?disabled=${this.busy} @change=${(e: Event) => void this.onFiles(e)} /></label>
      </div>
      ${this.message ? html`<p class=${this.message.kind === 'error' ? 'err' : 'muted'} role=${this.message.kind === 'error' ? 'alert' : 'status'}>${this.message.text}</p>` : nothing}
      ${this.warnings.map((w) => html`<p class="warn" role="note">${w}</p>`)}
      ${this.renderProgress()}
      ${profile ? this.renderCounts(over) : nothing}`;
  }

  private renderCounts(over: number) {
    return html`
      <div class="row">
        <label>Limit (tokens) <input type="number" min="1" step="1" aria-label="Length limit in tokens" .value=${String(this.limit)}
          @change=${(e: Event) => {
            const v = Math.floor(Number((e.target as HTMLInputElement).value));
            if (v > 0) {
              this.limit = v;
              globalThis.localStorage?.setItem(LIMIT_KEY, String(v));
            }
          }} /></label>
        <span class="muted">${over.toLocaleString('en-US')} selected steps over the limit</span>
        ${this.tok?.counting ? nothing : html`<button @click=${() => void this.svc()?.count().catch(() => undefined)}>Count again</button>`}
      </div>
      ${this.histogram.length ? html`<figure style="margin:0"><figcaption class="muted">Rendered length of the selected steps</figcaption>${this.histogramChart()}</figure>` : nothing}
      ${this.tok?.profile?.countingOnly ? this.renderCountingOnly(this.tok.profile) : this.renderAudit()}`;
  }

  /**
   * The histogram element for the current rows and limit. Drawing it (Observable Plot) was the longest main-thread task
   * while counting (bench --tok-profile): render() runs on every progress update, so the element is kept until its
   * inputs change.
   */
  private histogramChart(): Element {
    const c = this.chart;
    if (c && c.rows === this.histogram && c.limit === this.limit) return c.el;
    const el = lengthHistogram(this.histogram, this.limit);
    this.chart = { rows: this.histogram, limit: this.limit, el };
    return el;
  }

  /** A counting-only profile has no chat template: no audit of what a template loses, said instead of shown as zero. */
  private renderCountingOnly(p: ProfileInfo) {
    return html`<div aria-label="Template audit"><strong>Template audit</strong>
      <span class="muted" role="note"> — unavailable: ${p.name} has no chat template (counted as ${p.rendering}). Losses, trained-token masks and exports with tokens need a model's tokenizer and template.</span></div>`;
  }

  private renderAudit() {
    return html`
      <div aria-label="Template audit">
        <strong>Template audit</strong>
        ${this.audit.length
          ? html`<ul>${this.audit.map((c) => html`<li><button class="cause" aria-pressed=${this.cause === c.id ? 'true' : 'false'} @click=${() => void this.openCause(c.id)}>${c.label}</button>:
              ${c.steps.toLocaleString('en-US')} steps in ${c.trajectories.toLocaleString('en-US')} trajectories
              ${this.cause === c.id ? html`<ul>${this.causeRows.map((r) => html`<li><button @click=${() => this.select(String(r.trajectory_uid))}>${String(r.trajectory_uid)}</button>
                  <span class="muted">step ${String(r.step_id)} · ${r.n_tokens ?? '—'} tokens</span></li>`)}</ul>` : nothing}</li>`)}</ul>`
          : html`<span class="muted"> — every selected step renders whole and within the limit.</span>`}
        <div class="muted">Filter on the same flags in SQL: <code>token_counts</code> columns template_error, lost_reasoning, lost_tool_calls, lost_tool_results, lost_content, n_tokens.</div>
      </div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-tokenizer-panel': AwTokenizerPanel;
  }
}
