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
import { css, html, LitElement, nothing, type PropertyValues, svg } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { PoolQueryController } from '../kit/pool-refresh';
import { type Services, servicesContext } from '../kit/services';
import type { Row } from '../../pool/rows';
import { type AuditCause, auditRowsSql, auditSql, lengthHistogramSql } from '../../tokenizer/audit-sql';
import { activeTokenizer, type TokenizerInput, type TokenizerService, type TokenizerState } from '../../tokenizer/service';
import type { ProfileInfo } from '../../tokenizer/profile';

const LIMIT_KEY = 'aw-token-limit';

/** Up to ~5 round tick values from 0 to `hi` (1, 2 or 5 × a power of ten apart). */
function ticks(hi: number): number[] {
  if (!(hi > 0)) return [0];
  const raw = hi / 4;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((x) => x >= raw) ?? raw;
  const out: number[] = [];
  for (let v = 0; v <= hi + 1e-9; v += step) out.push(v);
  return out;
}

const fmt = (v: number) => (v >= 1e6 ? `${+(v / 1e6).toFixed(1)}M` : v >= 1e3 ? `${+(v / 1e3).toFixed(1)}k` : String(Math.round(v)));

/**
 * The length histogram: steps per n_tokens bin (binned in SQL: `lengthHistogramSql`, 24 rows), bins over the limit red,
 * the limit a red rule. Drawn as a plain SVG of those rows (decision 039): Observable Plot's scales and layout for the
 * same 24 bars were the longest main-thread task while counting (~500 ms at load; bench --tok-profile).
 */
export function lengthHistogram(rows: Row[], limit: number) {
  const W = 360;
  const H = 180;
  const m = { l: 40, r: 12, t: 14, b: 40 };
  const data = rows.map((r) => ({ x1: Number(r.x1), x2: Number(r.x2), steps: Number(r.steps), over: Number(r.x1) >= limit }));
  const hiX = Math.max(limit, ...data.map((d) => d.x2), 1);
  const hiY = Math.max(1, ...data.map((d) => d.steps));
  const x = (v: number) => m.l + ((W - m.l - m.r) * v) / hiX;
  const y = (v: number) => H - m.b - ((H - m.t - m.b) * v) / hiY;
  const yTicks = ticks(hiY).filter((v) => Number.isInteger(v));
  return svg`<svg width=${W} height=${H} viewBox="0 0 ${W} ${H}" role="img" style="font-size:11px;background:transparent;overflow:visible"
      aria-label=${`Steps by rendered length in tokens; the limit of ${limit} tokens is marked`}>
    ${yTicks.map((v) => svg`<line x1=${m.l} x2=${W - m.r} y1=${y(v)} y2=${y(v)} stroke="currentColor" stroke-opacity="0.1"></line><text x=${m.l - 4} y=${y(v)} dy="0.32em" text-anchor="end" fill="currentColor">${fmt(v)}</text>`)}
    <text x=${m.l - 4} y=${m.t - 4} text-anchor="end" fill="currentColor">↑ steps</text>
    ${data.map((d) => svg`<rect x=${x(d.x1) + 0.5} width=${Math.max(0, x(d.x2) - x(d.x1) - 1)} y=${y(d.steps)} height=${Math.max(0, y(0) - y(d.steps))} fill=${d.over ? '#cf222e' : '#0969da'}><title>${`${fmt(d.x1)}–${fmt(d.x2)} tokens: ${d.steps} steps`}</title></rect>`)}
    <line x1=${m.l} x2=${W - m.r} y1=${y(0)} y2=${y(0)} stroke="currentColor"></line>
    ${ticks(hiX).map((v) => svg`<line x1=${x(v)} x2=${x(v)} y1=${y(0)} y2=${y(0) + 4} stroke="currentColor"></line><text x=${x(v)} y=${y(0) + 14} text-anchor="middle" fill="currentColor">${fmt(v)}</text>`)}
    <text x=${m.l + (W - m.l - m.r) / 2} y=${H - 6} text-anchor="middle" fill="currentColor">tokens (whole rendered conversation)</text>
    <line x1=${x(limit)} x2=${x(limit)} y1=${m.t} y2=${y(0)} stroke="#cf222e" stroke-width="2" stroke-dasharray="4,3"></line>
    <text x=${x(limit) + 4} y=${m.t + 8} fill="#cf222e">${`limit ${limit}`}</text>
  </svg>`;
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
  /** What is loading while `busy` (shown with a progress bar: the bundled Qwen3 takes seconds). */
  @state() private loading = '';
  private off?: () => void;
  /** The histogram and the audit are re-read when token counts are written (counting, a new profile), not while hidden. */
  private query = new PoolQueryController(this, { pool: () => this.services?.pool, tables: ['token_counts'], run: () => this.load() });
  /** The drawn histogram, redrawn only when its rows or the limit change (not on every counting progress update). */
  private chart: { rows: Row[]; limit: number; el: ReturnType<typeof lengthHistogram> } | null = null;

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
    // a new pool is read by the controller
    if (changed.has('where') || changed.has('limit')) void this.refresh();
  }

  /** Rerun the histogram and the audit for the selection (after the run in progress, if one is). */
  refresh(): Promise<void> {
    return this.query.refresh();
  }

  private async load(): Promise<void> {
    const pool = this.services?.pool;
    if (!pool || !this.svc()?.info()) return;
    const { where, limit } = this;
    // the selection or the limit changed meanwhile: the run queued after this one reads them
    const current = () => where === this.where && limit === this.limit;
    try {
      const [h, a, warnings] = await Promise.all([pool.rows(lengthHistogramSql(where, limit)), pool.rows(auditSql(where, limit)), this.svc()?.toolWarnings() ?? []]);
      if (!current()) return;
      this.histogram = h;
      this.audit = a.map((r) => ({ id: String(r.id), label: String(r.label), steps: Number(r.steps), trajectories: Number(r.trajectories) }));
      this.warnings = warnings;
      if (this.cause && !this.audit.some((c) => c.id === this.cause)) this.cause = null;
      if (this.cause) this.causeRows = await pool.rows(auditRowsSql(where, this.cause, limit));
    } catch (e) {
      if (current()) this.message = { kind: 'error', text: `The token audit failed: ${e instanceof Error ? e.message : String(e)}` };
    }
  }

  /** Make a profile active; on bad input the message names what is wrong and the previous profile stays. */
  async choose(input: TokenizerInput): Promise<void> {
    const svc = this.svc();
    if (!svc) return;
    this.busy = true;
    this.loading = 'bundled' in input ? (input.bundled === 'qwen3' ? 'the bundled Qwen3 tokenizer' : 'OpenAI o200k_base') : 'your tokenizer files';
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
    if (!s?.counting) {
      if (s?.error) return html`<p class="err" role="alert">Counting failed: ${s.error}</p>`;
      return s?.notice ? html`<p class=${s.profile ? 'muted' : 'err'} role=${s.profile ? 'status' : 'alert'}>${s.notice}</p>` : nothing;
    }
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
      ${this.busy ? html`<p class="row muted" role="status"><progress aria-label="Loading the tokenizer"></progress> Loading ${this.loading}…</p>` : nothing}
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
   * The histogram for the current rows and limit, kept until they change: render() runs on every counting progress
   * update, and the same template result lets lit keep the drawn <svg> as it is.
   */
  private histogramChart() {
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
