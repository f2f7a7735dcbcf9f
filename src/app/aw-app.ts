import { provide } from '@lit/context';
import { css, html, LitElement, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { Services } from '../views/kit/services';
import { servicesContext } from '../views/kit/services';
import { base } from '../views/kit/styles';
import type { Workbench } from './workbench';
import { NAVIGATE_EVENT } from '../views/empty-state';
import { rovingIndex } from '../views/kit/roving';
import { currentRoute, ROUTE_EVENT, sectionHash } from '../views/kit/route';
import './aw-shortcuts';
import type { AwShortcuts } from './aw-shortcuts';
import '../views/data/aw-import-panel';
import '../views/data/aw-pool-summary';
import '../views/data/aw-export-panel';
import type { AwImportPanel } from '../views/data/aw-import-panel';

export interface TabDef {
  id: string;
  label: string;
  render: () => unknown;
}


/** The shell: header, tabs, banners, and the Data tab (import, pool, export). Other tabs are registered. */
@customElement('aw-app')
export class AwApp extends LitElement {
  static override styles = [
    base,
    css`
      :host { display: block; }
      header.top { display: flex; align-items: center; gap: 16px; padding: 8px 16px; background: var(--aw-panel); border-bottom: 1px solid var(--aw-border); position: sticky; top: 0; z-index: 5; flex-wrap: wrap; }
      header.top h1 { font-size: 16px; margin: 0; white-space: nowrap; }
      nav { display: flex; gap: 2px; }
      nav button { border: none; border-bottom: 2px solid transparent; border-radius: 0; background: none; padding: 6px 12px; }
      nav button[aria-selected='true'] { border-bottom-color: var(--aw-accent); color: var(--aw-accent); font-weight: 600; }
      .status { margin-left: auto; font-size: 12.5px; }
      header.top button.keys { order: 1; border-radius: 50%; width: 26px; height: 26px; padding: 0; }
      main { padding: 14px 16px; max-width: 1500px; margin: 0 auto; display: grid; grid-template-columns: minmax(0, 1fr); gap: 14px; }
      main > section { min-width: 0; }
      .banner { padding: 8px 12px; border-radius: var(--aw-radius); background: var(--aw-warn-bg); border: 1px solid var(--aw-warn-border); }
      .banner.error { background: var(--aw-error-bg); border-color: var(--aw-error); color: var(--aw-error); }
      .welcome { display: grid; grid-template-columns: minmax(0, 1.2fr) minmax(0, 1fr); gap: 14px; }
      @media (max-width: 900px) { .welcome { grid-template-columns: minmax(0, 1fr); } }
      .toast { position: fixed; bottom: 16px; right: 16px; background: var(--aw-text); color: var(--aw-panel); padding: 8px 14px; border-radius: var(--aw-radius); max-width: 480px; z-index: 20; }
      .toast.error { background: var(--aw-error); }
      [hidden] { display: none !important; }
      ul.examples { margin: 6px 0 0; padding-left: 18px; }
      /* the first Tab stop: out of sight until focused */
      button.skip { position: absolute; left: 8px; top: -60px; z-index: 30; background: var(--aw-panel); padding: 6px 10px; border: 1px solid var(--aw-accent); border-radius: var(--aw-radius); }
      button.skip:focus { top: 8px; }
      main > section:focus { outline: none; }
    `,
  ];

  @provide({ context: servicesContext }) @property({ attribute: false }) services!: Services;
  @property({ attribute: false }) banners: { text: string; kind: 'info' | 'error' }[] = [];
  /** The Workbench service (importing, demo data…); its `services` are provided to the views. */
  @property({ attribute: false }) workbench: Workbench | null = null;
  @property({ attribute: false }) tabs: TabDef[] = [];
  /** Renders the welcome card's "Open an example notebook" list, when the notebook is registered. */
  @property({ attribute: false }) examples: (() => unknown) | null = null;
  @state() private tab = 'data';
  @state() private toast: { text: string; kind: 'info' | 'error' } | null = null;
  @state() private demoBusy = false;
  /** Files of the demo imported so far, while it loads. */
  @state() private demoDone: { done: number; total: number } | null = null;
  private toastTimer = 0;

  get importPanel(): AwImportPanel {
    return this.renderRoot.querySelector('aw-import-panel') as AwImportPanel;
  }

  /** Show a section; the address then holds it with its own state (views/kit/route.ts), and Back returns here. */
  selectTab(id: string): void {
    this.tab = id;
    const hash = sectionHash(id);
    if (hash !== location.hash) history.pushState(null, '', `${location.pathname}${location.search}${hash}`);
  }

  /** Back / forward (or an edited address): show its section and tell every section its state. */
  private onPop = (): void => {
    const r = currentRoute();
    this.tab = r.tab || 'data';
    window.dispatchEvent(new CustomEvent(ROUTE_EVENT, { detail: r }));
  };

  override connectedCallback(): void {
    super.connectedCallback();
    const r = currentRoute();
    if (r.tab) this.tab = r.tab;
    window.addEventListener('popstate', this.onPop);
    window.addEventListener('keydown', this.onGlobalKey);
    this.addEventListener(NAVIGATE_EVENT, (e) => void this.goTo((e as CustomEvent<{ tab: string }>).detail.tab));
  }

  /** Switch section; the Data tab focuses the import panel's first control. */
  private async goTo(tab: string): Promise<void> {
    this.selectTab(tab);
    await this.updateComplete;
    if (tab !== 'data') return;
    const first = this.importPanel?.shadowRoot?.querySelector('button, input, [tabindex="0"]') as HTMLElement | null;
    first?.focus();
    first?.scrollIntoView({ block: 'center' });
  }

  notify(text: string, kind: 'info' | 'error' = 'info'): void {
    this.toast = { text, kind };
    clearTimeout(this.toastTimer);
    this.toastTimer = window.setTimeout(() => (this.toast = null), 5000);
  }

  private async loadDemo(): Promise<void> {
    if (!this.workbench) return;
    this.demoBusy = true;
    try {
      await this.workbench.loadDemoData(document.baseURI, (done, total) => (this.demoDone = { done, total }));
    } catch (e) {
      this.notify(`The demo data could not be loaded: ${e instanceof Error ? e.message : String(e)}`, 'error');
    } finally {
      this.demoBusy = false;
      this.demoDone = null;
    }
  }

  /** Roving tabindex: arrows move from the focused tab, Home / End go to the ends; the tab follows focus. */
  private onKey(e: KeyboardEvent) {
    const all = [{ id: 'data' }, ...this.tabs];
    const focused = (e.target as HTMLElement).closest('[role="tab"]')?.id.replace(/^tab-/, '') ?? this.tab;
    const i = Math.max(0, all.findIndex((t) => t.id === focused));
    const to = rovingIndex(e.key, i, all.length);
    if (to === null) return;
    e.preventDefault();
    const next = all[to];
    this.selectTab(next.id);
    void this.updateComplete.then(() => (this.renderRoot.querySelector(`#tab-${next.id}`) as HTMLElement | null)?.focus());
  }

  /** `?` anywhere outside a text field opens the shortcut sheet. */
  private onGlobalKey = (e: KeyboardEvent): void => {
    if (e.key !== '?' || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
    const t = e.composedPath()[0] as HTMLElement | undefined;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable)) return;
    e.preventDefault();
    this.shortcuts?.show();
  };

  get shortcuts(): AwShortcuts | null {
    return this.renderRoot.querySelector('aw-shortcuts');
  }

  override disconnectedCallback(): void {
    window.removeEventListener('keydown', this.onGlobalKey);
    window.removeEventListener('popstate', this.onPop);
    super.disconnectedCallback();
  }

  override render() {
    if (!this.services) return html`<p class="muted" role="status" style="padding:24px">Starting the data pool…</p>`;
    const all = [{ id: 'data', label: 'Data' }, ...this.tabs];
    return html`
      <header class="top">
        <button class="skip" @click=${() => (this.renderRoot.querySelector(`#panel-${this.tab}`) as HTMLElement | null)?.focus()}>Skip to the ${all.find((t) => t.id === this.tab)?.label ?? 'section'} section</button>
        <h1>AgentWorld Workbench</h1>
        <nav role="tablist" aria-label="Sections" @keydown=${this.onKey}>
          ${all.map(
            (t) => html`<button role="tab" id=${`tab-${t.id}`} aria-controls=${`panel-${t.id}`} aria-selected=${this.tab === t.id ? 'true' : 'false'}
              tabindex=${this.tab === t.id ? 0 : -1} @click=${() => this.selectTab(t.id)}>${t.label}</button>`,
          )}
        </nav>
        <button class="keys" aria-label="Keyboard shortcuts (?)" title="Keyboard shortcuts (?)" @click=${() => this.shortcuts?.show()}>?</button>
        <span class="status muted" aria-label="Pool status">${this.services.pool.status.persistent ? 'pool: saved in this browser (OPFS)' : 'pool: in memory only'} · DuckDB ${this.services.pool.status.version}</span>
      </header>
      <main id="main">
        ${this.banners.map((b) => html`<div class="banner ${b.kind}" role=${b.kind === 'error' ? 'alert' : 'status'}>${b.text}</div>`)}
        <section id="panel-data" role="tabpanel" tabindex="-1" aria-labelledby="tab-data" ?hidden=${this.tab !== 'data'} style="display:grid;grid-template-columns:minmax(0,1fr);gap:14px">
          <div class="welcome">
            <div class="card">
              <h2>Import traces</h2>
              <aw-import-panel></aw-import-panel>
            </div>
            <div class="card">
              <h2>Start here</h2>
              <p class="muted" style="margin-top:0">Everything runs in this tab: files never leave your browser. Drop traces from any agent runtime (OpenAI / Anthropic logs, SSE, OpenTelemetry, Langfuse, Phoenix, ShareGPT, ATIF, SWE-agent, OpenHands, tau-bench, veRL rows…), curate them, and download training-ready Parquet.</p>
              ${this.workbench?.demo.length
                ? html`<button class="primary" ?disabled=${this.demoBusy} @click=${() => this.loadDemo()}>${this.demoBusy ? 'Loading demo data…' : 'Load demo data'}</button>
                    ${this.demoBusy && this.demoDone
                      ? html`<span role="status"><progress aria-label="Demo data files imported" max=${this.demoDone.total} value=${this.demoDone.done}></progress> ${this.demoDone.done} of ${this.demoDone.total} files</span>`
                      : html`<span class="muted">${this.workbench.demo.length} small files in several formats</span>`}`
                : nothing}
              ${this.examples ? this.examples() : nothing}
            </div>
          </div>
          <div class="card">
            <h2>Pool</h2>
            <aw-pool-summary></aw-pool-summary>
          </div>
          <div class="card">
            <h2>Export</h2>
            <aw-export-panel></aw-export-panel>
          </div>
        </section>
        ${this.tabs.map(
          (t) => html`<section id=${`panel-${t.id}`} role="tabpanel" tabindex="-1" aria-labelledby=${`tab-${t.id}`} ?hidden=${this.tab !== t.id}>${t.render()}</section>`,
        )}
      </main>
      <aw-shortcuts></aw-shortcuts>
      ${this.toast ? html`<div class="toast ${this.toast.kind}" role="status">${this.toast.text}</div>` : nothing}
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-app': AwApp;
  }
}
