/**
 * <aw-gateway-calls>: captured calls, live — each row appears when the service worker announces the call and
 * fills in (status, latency, tokens) when it is in the pool. A row opens the call's trajectory in the
 * inspector below, at that step.
 */
import { consume } from '@lit/context';
import { css, html, LitElement, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { type Services, servicesContext } from '../kit/services';
import { base } from '../kit/styles';
import { PoolQueryController } from '../kit/pool-refresh';
import '../inspector/aw-step-inspector';
import type { AwStepInspector } from '../inspector/aw-step-inspector';
import { type CallRow, capturedCalls, LiveCalls } from './calls';

const time = (ms: number | null) => (ms === null ? '—' : new Date(ms).toISOString().slice(11, 19));
const num = (v: number | null) => (v === null ? '—' : v.toLocaleString('en-US'));

@customElement('aw-gateway-calls')
export class AwGatewayCalls extends LitElement {
  @consume({ context: servicesContext, subscribe: true }) @property({ attribute: false }) services?: Services;
  @state() rows: CallRow[] = [];
  @state() private pooled: CallRow[] = [];
  @state() private open: CallRow | null = null;
  @state() private error: string | null = null;
  private live = new LiveCalls(() => (this.rows = this.live.merge(this.pooled)));
  /** Calls re-read as soon as they are in the pool (no burst window: a capture writes one call at a time); none for a hidden tab. */
  private query = new PoolQueryController(this, { pool: () => this.services?.pool, tables: ['steps'], run: () => this.load(), delayMs: 0 });

  static override styles = [
    base,
    css`
      :host { display: block; font-size: 13px; }
      .scroll { max-height: 300px; overflow: auto; border: 1px solid var(--aw-border); border-radius: var(--aw-radius); }
      table.grid { font-size: 12.5px; }
      table.grid thead th { position: sticky; top: 0; background: var(--aw-subtle); }
      tbody tr { cursor: pointer; }
      tbody tr:hover td { background: var(--aw-accent-bg); }
      tbody tr[aria-selected='true'] td { background: var(--aw-selected); }
      td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
      .live { color: var(--aw-accent); }
      .bad { color: var(--aw-error); }
      aw-step-inspector { margin-top: 10px; max-height: 560px; overflow: auto; border: 1px solid var(--aw-border); border-radius: var(--aw-radius); padding: 6px 8px; }
    `,
  ];

  override connectedCallback(): void {
    super.connectedCallback();
    this.live.start();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.live.stop();
  }

  /** Re-read the captured calls from the pool (after the read in progress, if one is). */
  refresh(): Promise<void> {
    return this.query.refresh();
  }

  private async load(): Promise<void> {
    const pool = this.services?.pool;
    if (!pool) return;
    try {
      const rows = await capturedCalls(pool);
      this.pooled = rows;
      this.rows = this.live.merge(rows);
      this.error = null;
    } catch (e) {
      this.error = `Could not list captured calls: ${e instanceof Error ? e.message : String(e)}`;
    }
  }

  private async show(r: CallRow): Promise<void> {
    this.open = r;
    await this.updateComplete;
    const inspector = this.renderRoot.querySelector('aw-step-inspector') as AwStepInspector | null;
    if (!inspector) return;
    const index = Number(r.step_id.slice(r.step_id.lastIndexOf(':') + 1));
    await inspector.updateComplete;
    await inspector.loaded;
    const at = inspector.loadedSteps.findIndex((s) => s.step_index === index);
    if (at >= 0) inspector.selectStep(at);
    inspector.scrollIntoView?.({ block: 'nearest' });
  }

  override render() {
    return html`<h2>Captured calls</h2>
      ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : nothing}
      ${this.rows.length
        ? html`<div class="scroll"><table class="grid" aria-label="Captured calls, newest first">
            <thead><tr><th scope="col">time (UTC)</th><th scope="col">method</th><th scope="col">model</th><th scope="col">status</th>
              <th scope="col" class="num">latency</th><th scope="col" class="num">tokens in → out</th><th scope="col">trajectory</th></tr></thead>
            <tbody>${this.rows.map(
              (r) => html`<tr tabindex="0" aria-selected=${this.open?.step_id === r.step_id ? 'true' : 'false'} aria-label=${`Open call ${r.step_id} in the inspector`}
                @click=${() => void this.show(r)} @keydown=${(e: KeyboardEvent) => {
                  if (e.key === 'Enter' || e.key === ' ') {
                    e.preventDefault();
                    void this.show(r);
                  }
                }}>
                <td class="mono">${time(r.started)}</td><td class="mono">${r.method}</td><td>${r.model ?? '—'}</td>
                <td class=${r.error ? 'bad' : r.status === 'in flight' || r.status === 'saving…' ? 'live' : ''}>${r.status}</td>
                <td class="num">${r.latency_ms === null ? '—' : `${Math.round(r.latency_ms).toLocaleString('en-US')} ms`}</td>
                <td class="num">${r.prompt_tokens === null && r.completion_tokens === null ? '—' : `${num(r.prompt_tokens)} → ${num(r.completion_tokens)}`}</td>
                <td class="mono">${r.trajectory_uid}</td></tr>`,
            )}</tbody></table></div>`
        : html`<p class="muted">No captured calls yet: they appear here as they arrive.</p>`}
      ${this.open ? html`<aw-step-inspector .services=${this.services} .trajectoryUid=${this.open.trajectory_uid}></aw-step-inspector>` : nothing}`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-gateway-calls': AwGatewayCalls;
  }
}
