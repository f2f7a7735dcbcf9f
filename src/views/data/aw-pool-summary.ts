import { consume } from '@lit/context';
import { css, html, LitElement, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { formatBytes } from '../kit/download';
import { PoolQueryController } from '../kit/pool-refresh';
import type { Services } from '../kit/services';
import { servicesContext } from '../kit/services';
import { base } from '../kit/styles';
import type { Row } from '../../pool/rows';
import { importHistory, POOL_TOTALS } from './queries';

/** What is in the pool: totals, per-format counts, the import log, and "Clear pool". */
@customElement('aw-pool-summary')
export class AwPoolSummary extends LitElement {
  static override styles = [
    base,
    css`
      .stats { display: flex; gap: 22px; flex-wrap: wrap; margin-bottom: 10px; }
      .stat b { font-size: 20px; display: block; }
      .log { max-height: 280px; overflow: auto; }
      dialog { border: 1px solid var(--aw-border); border-radius: var(--aw-radius); padding: 16px 18px; }
    `,
  ];

  @consume({ context: servicesContext, subscribe: true }) @property({ attribute: false }) services!: Services;
  @state() private totals: Row | null = null;
  @state() private imports: Row[] = [];
  @state() private error: string | null = null;
  /** The database file and the size past which imports are refused (null: an in-memory pool). */
  @state() private room: { bytes: number; limit: number } | null = null;
  @state() private compacting = false;
  /** The Pool card's figures: steps, curation and the import history. */
  private query = new PoolQueryController(this, { pool: () => this.services?.pool, tables: ['steps', 'curation', 'imports', 'import_errors'], run: () => this.load() });

  /** Re-read the totals and the import log (after the read in progress, if one is). */
  refresh(): Promise<void> {
    return this.query.refresh();
  }

  private async load(): Promise<void> {
    try {
      const pool = this.services.pool;
      [this.totals] = await pool.rows(POOL_TOTALS);
      this.imports = await pool.rows(importHistory());
      // the room left is a hint: a pool that cannot say (an in-memory one) shows none
      this.room = pool.status.persistent ? await pool.room().catch(() => null) : null;
      this.error = null;
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    }
  }

  private async clear() {
    (this.renderRoot.querySelector('dialog') as HTMLDialogElement).close();
    await this.services.pool.clear();
    this.services.notify('The pool was cleared.');
  }

  /** Rewrite the saved pool into a new file (PoolClient.compact): the engine restarts on it. */
  private async compact() {
    this.compacting = true;
    try {
      const c = await this.services.pool.compact();
      this.services.notify(
        `The pool was compacted: ${formatBytes(c.bytesBefore)} → ${formatBytes(c.bytesAfter)} (storage ${c.storageVersion}; ${c.tables.length} tables, ${c.rows.toLocaleString()} rows copied and checked, ${(c.ms / 1000).toFixed(1)} s).`,
      );
    } catch (e) {
      this.services.notify(e instanceof Error ? e.message : String(e), 'error');
    } finally {
      this.compacting = false;
      void this.refresh();
    }
  }

  override render() {
    const t = this.totals;
    return html`
      ${this.error ? html`<p class="error">${this.error}</p>` : nothing}
      <div class="stats" aria-label="Pool totals">
        ${(['steps', 'trajectories', 'prompts', 'errors', 'curated'] as const).map(
          (k) => html`<div class="stat" data-stat=${k}><b>${t ? Number(t[k]).toLocaleString() : '…'}</b><span class="muted">${k}</span></div>`,
        )}
        ${this.room
          ? html`<div class="stat" data-stat="room" title=${`The pool's database file is ${formatBytes(this.room.bytes)}; imports stop at ${formatBytes(this.room.limit)} (DuckDB-WASM's browser storage limit).`}>
              <b>${formatBytes(Math.max(0, this.room.limit - this.room.bytes))}</b><span class="muted">room left · file ${formatBytes(this.room.bytes)} of ${formatBytes(this.room.limit)}</span>
            </div>`
          : nothing}
        <div style="margin-left:auto" class="row">
          ${this.room
            ? html`<button
                ?disabled=${this.compacting}
                aria-busy=${this.compacting ? 'true' : 'false'}
                title="Rewrite the pool's database file: gives back the space deleted rows left, and stores a pool made by an older version in the current, smaller format. Every table is copied and checked; queries wait meanwhile."
                @click=${() => this.compact()}
              >${this.compacting ? 'Compacting…' : 'Compact'}</button>`
            : nothing}
          <button class="danger" @click=${() => (this.renderRoot.querySelector('dialog') as HTMLDialogElement).showModal()}>Clear pool…</button>
        </div>
      </div>
      <div class="log">
        <table class="grid" aria-label="Import log">
          <thead><tr><th>#</th><th>file</th><th>format</th><th>records</th><th>steps</th><th>added</th><th>rejected</th><th>status</th><th>size</th><th>when</th></tr></thead>
          <tbody>
            ${this.imports.map(
              (r) => html`<tr title=${String(r.message ?? '')}>
                <td>${r.import_id}</td><td>${r.file}</td><td>${r.format ?? ''}</td><td>${r.records ?? ''}</td><td>${r.rows_made ?? ''}</td>
                <td>${r.rows_added ?? ''}</td><td>${r.rejected ?? ''}</td><td class=${r.status === 'failed' || r.status === 'cancelled' ? 'error' : r.status === 'running' ? 'muted' : ''}>${r.status === 'running' ? 'running…' : r.status}</td>
                <td>${r.bytes ? formatBytes(Number(r.bytes)) : ''}</td><td class="muted">${r.started}</td>
              </tr>`,
            )}
          </tbody>
        </table>
        ${this.imports.length ? nothing : html`<p class="muted">Nothing imported yet.</p>`}
      </div>
      <dialog aria-label="Clear the pool?">
        <p><b>Clear the pool?</b> Every step, curation label and import record is deleted from this browser. This cannot be undone.</p>
        <div class="row" style="justify-content:flex-end">
          <button @click=${() => (this.renderRoot.querySelector('dialog') as HTMLDialogElement).close()}>Cancel</button>
          <button class="primary" @click=${() => this.clear()}>Clear pool</button>
        </div>
      </dialog>
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-pool-summary': AwPoolSummary;
  }
}
