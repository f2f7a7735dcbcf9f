/**
 * <aw-gateway>: upstream settings, agent/task configs, the Run panel, the live status strip and the
 * black-box host. Keys stay in memory unless "remember on this device" is ticked.
 *
 * One concept: the tab's settings, configs and run panel share the upstream and key state; the call list and status strip are modules of their own.
 */
import { css, html, LitElement, nothing } from 'lit';
import { consume } from '@lit/context';
import { customElement, property, state } from 'lit/decorators.js';
import { type Services, servicesContext } from '../kit/services';
import { emptyState } from '../empty-state';
import { agentSource, runBlackBox } from '../../agents/black-box-host';
import { type ConfigKind, listConfigs, type StoredConfig, saveConfig } from '../../agents/store';
import type { AgentProgress } from '../../agents/white-box';
import { base as baseStyles } from '../kit/styles';
import { gatewayBaseUrl } from '../../gateway/page/api';
import { runAgent } from '../../agents/run';
import { gatewayBase } from '../../gateway/page/register';
import { getSettings, type KeyProtection, keyProtection, protectKeys, setSettings, unlockKeys, unprotectKeys } from '../../gateway/page/settings';
import { corsHint, type GatewaySettings, type UpstreamConfig, type UpstreamKind } from '../../gateway/core/upstream';
import { type GatewayStatus, watchGatewayStatus } from './status';
import './aw-gateway-calls';
import { STEP_COUNT } from '../kit/queries';
import { PoolQueryController } from '../kit/pool-refresh';
import { Cancellable } from '../../util/jobs';

@customElement('aw-gateway')
export class AwGateway extends LitElement {
  static override styles = [
    baseStyles,
    css`
      :host { display: grid; gap: 12px; }
      .strip { display: flex; gap: 16px; font-size: 13px; }
      label { display: inline-flex; gap: 4px; align-items: center; }
      textarea { width: 100%; min-height: 120px; box-sizing: border-box; font-family: var(--aw-mono); font-size: 12.5px; }
      progress { width: 240px; }
      .hint { background: var(--aw-warn-bg); border: 1px solid var(--aw-warn-border); padding: 6px 8px; border-radius: var(--aw-radius); }
    `,
  ];

  @consume({ context: servicesContext, subscribe: true }) @property({ attribute: false }) services?: Services;
  /** Steps in the pool (null until counted): 0 shows what to do first. */
  @state() poolSteps: number | null = null;
  /** Steps in the pool (the empty state); hidden, it counts when shown again (it counted after every imported batch: 18 times during the demo's import). */
  readonly query = new PoolQueryController(this, { pool: () => this.services?.pool, tables: ['steps'], run: () => this.countSteps() });
  @state() private settings: GatewaySettings | null = null;
  @state() private editing: UpstreamConfig | null = null;
  @state() private hint: string | null = null;
  @state() private configs: StoredConfig[] = [];
  @state() private status: GatewayStatus = { inFlight: 0, perMinute: 0, errors: 0, lastError: null };
  @state() private progress: AgentProgress | null = null;
  @state() private runError: string | null = null;
  @state() private message: string | null = null;
  @state() private blackBoxOut: string | null = null;
  @state() private configKey = '';
  @state() private configText = '';
  @state() private protection: KeyProtection = 'clear';
  @state() private vaultError: string | null = null;
  private run = { agent: '', tasks: '', upstream: '', rollouts: 4 };
  private job = new Cancellable();
  private unwatch: (() => void) | null = null;

  override connectedCallback(): void {
    super.connectedCallback();
    this.unwatch = watchGatewayStatus((s) => (this.status = s));
    void this.load();
  }

  private async countSteps(): Promise<void> {
    const rows = await this.services?.pool.rows(STEP_COUNT).catch(() => null);
    if (rows) this.poolSteps = Number(rows[0]?.n ?? 0);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.unwatch?.();
  }

  private async load(): Promise<void> {
    this.settings = structuredClone(await getSettings());
    this.protection = keyProtection();
    this.configs = await listConfigs(gatewayBase());
    this.run.agent ||= this.configs.find((c) => c.kind === 'agent')?.name ?? '';
    this.run.tasks ||= this.configs.find((c) => c.kind === 'tasks')?.name ?? '';
    this.run.upstream ||= this.settings.defaultUpstream;
  }

  private async saveUpstream(u: UpstreamConfig): Promise<void> {
    const s = this.settings!;
    const upstreams = [...s.upstreams.filter((x) => x.id !== u.id), u];
    try {
      await setSettings({ ...s, upstreams });
    } catch (e) {
      this.vaultError = e instanceof Error ? e.message : String(e);
      return;
    }
    this.settings = structuredClone(await getSettings());
    this.editing = null;
    this.message = `Saved upstream “${u.name}”${u.key && !u.remember ? ' (key kept in memory only)' : ''}.`;
  }

  private async testUpstream(u: UpstreamConfig): Promise<void> {
    this.hint = null;
    if (u.kind === 'mock') return void (this.message = 'The mock upstream is built in and always reachable.');
    const url = `${u.baseUrl.replace(/\/+$/, '')}${u.kind === 'anthropic' && !/\/v1$/.test(u.baseUrl) ? '/v1' : ''}/models`;
    try {
      const headers: Record<string, string> = u.kind === 'anthropic' ? { 'x-api-key': u.key ?? '', 'anthropic-version': '2023-06-01', 'anthropic-dangerous-direct-browser-access': 'true' } : u.key ? { authorization: `Bearer ${u.key}` } : {};
      const r = await fetch(url, { headers });
      this.message = r.ok ? `Reached ${u.name}: HTTP ${r.status}.` : `${u.name} answered HTTP ${r.status}; check the URL and key.`;
    } catch {
      this.hint = corsHint(u, location.origin);
    }
  }

  /** Encrypt (passphrase), unlock (passphrase), store unencrypted again / forget (no passphrase). */
  private async keyAction(action: 'protect' | 'unlock' | 'unprotect', form?: HTMLFormElement): Promise<void> {
    this.vaultError = null;
    const pass = form ? String(new FormData(form).get('passphrase') ?? '') : '';
    try {
      if (action === 'protect') await protectKeys(pass);
      else if (action === 'unlock') await unlockKeys(pass);
      else await unprotectKeys();
      form?.reset();
      this.message =
        action === 'protect' ? 'Remembered keys are now stored encrypted; you will be asked for the passphrase after a reload.'
        : action === 'unlock' ? 'Keys unlocked for this tab.'
        : 'Remembered keys are stored unencrypted again.';
    } catch (e) {
      this.vaultError = e instanceof Error ? e.message : String(e);
    }
    this.settings = structuredClone(await getSettings());
    this.protection = keyProtection();
  }

  private keysPanel() {
    const submit = (action: 'protect' | 'unlock') => (e: Event) => {
      e.preventDefault();
      void this.keyAction(action, e.target as HTMLFormElement);
    };
    const panel =
      this.protection === 'clear'
        ? html`<p class="hint">Keys marked “remember on this device” are stored <strong>unencrypted</strong> in this browser's IndexedDB: anyone who can use this browser profile or read its files can read them. Other keys stay in this tab's memory only. To store remembered keys encrypted (AES-GCM under a key derived from a passphrase with PBKDF2), set a passphrase; you enter it again after each reload.</p>
            <form class="row" @submit=${submit('protect')}>
              <label>Passphrase <input type="password" name="passphrase" minlength="8" required autocomplete="new-password" aria-label="New passphrase for remembered keys" /></label>
              <button type="submit">Encrypt remembered keys</button>
            </form>`
        : this.protection === 'locked'
          ? html`<p class="hint">Remembered keys are encrypted and locked. Enter your passphrase to use them in this tab.</p>
              <form class="row" @submit=${submit('unlock')}>
                <label>Passphrase <input type="password" name="passphrase" required autocomplete="current-password" aria-label="Passphrase to unlock remembered keys" /></label>
                <button class="primary" type="submit">Unlock keys</button>
                <button type="button" class="danger" @click=${() => void this.keyAction('unprotect')}>Forget encrypted keys</button>
              </form>`
          : html`<div class="row"><span class="muted">Remembered keys are stored encrypted with your passphrase (unlocked in this tab).</span>
              <button type="button" @click=${() => void this.keyAction('unprotect')}>Store them unencrypted</button></div>`;
    return html`<div aria-label="Remembered keys">${panel}${this.vaultError ? html`<p class="error" role="alert">${this.vaultError}</p>` : nothing}</div>`;
  }

  private async startRun(): Promise<void> {
    this.runError = null;
    const signal = this.job.start();
    this.progress = { done: 0, total: 0, errors: 0, last: null };
    try {
      const r = await runAgent({ agent: this.run.agent, tasks: this.run.tasks, rollouts: this.run.rollouts, upstream: this.run.upstream, signal, onProgress: (p) => (this.progress = p) });
      this.message = `Run finished: ${r.trajectories.length} trajectories captured.`;
    } catch (e) {
      this.runError = e instanceof Error ? e.message : String(e);
    } finally {
      this.job.end();
    }
  }

  private async importConfig(kind: ConfigKind, file: File): Promise<void> {
    try {
      const c = await saveConfig(kind, await file.text(), file.name);
      this.message = `Imported ${kind === 'agent' ? 'agent' : 'task set'} “${c.name}”.`;
      this.configs = await listConfigs(gatewayBase());
    } catch (e) {
      this.runError = e instanceof Error ? e.message : String(e);
    }
  }

  private pickConfig(key: string): void {
    this.configKey = key;
    this.configText = this.configs.find((c) => c.key === key)?.text ?? '';
  }

  /** Save the edited text of an agent config or task set (validated; the user's copy overrides a built-in). */
  private async saveEdited(): Promise<void> {
    const c = this.configs.find((x) => x.key === this.configKey);
    if (!c) return;
    try {
      const saved = await saveConfig(c.kind, this.configText, c.file);
      this.configs = await listConfigs(gatewayBase());
      this.configKey = saved.key;
      this.runError = null;
      this.message = `Saved ${saved.kind === 'agent' ? 'agent' : 'task set'} “${saved.name}” in this browser.`;
    } catch (e) {
      this.runError = e instanceof Error ? e.message : String(e);
    }
  }

  private async runBlackBox(form: HTMLFormElement): Promise<void> {
    const data = new FormData(form);
    const url = String(data.get('url') ?? '').trim();
    const code = String(data.get('code') ?? '');
    this.blackBoxOut = 'running…';
    try {
      const result = await runBlackBox(gatewayBase(), await agentSource(url ? { url } : { code }));
      this.blackBoxOut = JSON.stringify(result, null, 2);
    } catch (e) {
      this.blackBoxOut = e instanceof Error ? e.message : String(e);
    }
  }

  private upstreamForm(u: UpstreamConfig) {
    const set = (patch: Partial<UpstreamConfig>) => (this.editing = { ...u, ...patch });
    return html`<form class="card" @submit=${(e: Event) => {
      e.preventDefault();
      void this.saveUpstream(u);
    }}>
      <h3>${u.name || 'New upstream'}</h3>
      <div class="row">
        <label>Name <input type="text" aria-label="Upstream name" .value=${u.name} @input=${(e: InputEvent) => set({ name: (e.target as HTMLInputElement).value })} /></label>
        <label>Kind <select aria-label="Upstream kind" .value=${u.kind} @change=${(e: Event) => set({ kind: (e.target as HTMLSelectElement).value as UpstreamKind })}>
          <option value="openai">OpenAI-compatible</option><option value="anthropic">Anthropic</option><option value="mock">Mock</option>
        </select></label>
        <label>Base URL <input type="url" aria-label="Upstream base URL" placeholder="http://127.0.0.1:8000/v1" .value=${u.baseUrl} @input=${(e: InputEvent) => set({ baseUrl: (e.target as HTMLInputElement).value })} /></label>
        <label>Key <input type="password" aria-label="API key" autocomplete="off" .value=${u.key ?? ''} @input=${(e: InputEvent) => set({ key: (e.target as HTMLInputElement).value || null })} /></label>
        <label><input type="checkbox" aria-label="Remember the key on this device" .checked=${u.remember} @change=${(e: Event) => set({ remember: (e.target as HTMLInputElement).checked })} /> remember on this device (${this.protection === 'clear' ? 'stored unencrypted' : 'stored encrypted'})</label>
        <label>Models <input type="text" aria-label="Model names routed here" placeholder="gpt-*, qwen*" .value=${u.models.join(', ')} @input=${(e: InputEvent) => set({ models: (e.target as HTMLInputElement).value.split(',').map((x) => x.trim()).filter(Boolean) })} /></label>
        <label><input type="checkbox" aria-label="Server returns token ids (vLLM)" .checked=${u.tokenIds === true} @change=${(e: Event) => set({ tokenIds: (e.target as HTMLInputElement).checked })} /> token ids (vLLM)</label>
      </div>
      <div class="row">
        <button class="primary" type="submit">Save upstream</button>
        <button type="button" @click=${() => void this.testUpstream(u)}>Test connection</button>
        <button type="button" @click=${() => (this.editing = null)}>Cancel</button>
      </div>
    </form>`;
  }

  override render() {
    const s = this.settings;
    if (!s) return html`<p class="muted">Loading gateway settings…</p>`;
    const p = this.progress;
    const agents = this.configs.filter((c) => c.kind === 'agent');
    const tasks = this.configs.filter((c) => c.kind === 'tasks');
    return html`
      <div class="strip card" role="status" aria-label="Gateway status">
        <span>Gateway <span class="mono">${gatewayBaseUrl()}</span></span>
        <span>${this.status.inFlight} in flight</span>
        <span>${this.status.perMinute} calls/min</span>
        <span class=${this.status.errors ? 'error' : ''} title=${this.status.lastError ?? ''}>${this.status.errors} errors</span>
      </div>
      ${this.poolSteps === 0
        ? emptyState('No calls captured yet', `The pool is empty. Run an agent below (the mock upstream needs no key), point an OpenAI or Anthropic SDK at ${gatewayBaseUrl()}, or import traces you already have.`)
        : nothing}
      ${this.message ? html`<p class="muted" role="status">${this.message}</p>` : nothing}
      ${this.hint ? html`<p class="hint" role="alert">${this.hint}</p>` : nothing}
      <section class="card" aria-label="Captured calls"><aw-gateway-calls .services=${this.services}></aw-gateway-calls></section>
      <section class="card" aria-label="Upstreams">
        <h2>Upstreams</h2>
        <table class="grid"><thead><tr><th>Name</th><th>Kind</th><th>Base URL</th><th>Key</th><th><span class="sr-only">Actions</span></th></tr></thead><tbody>
          ${s.upstreams.map((u) => html`<tr><td>${u.name}${u.id === s.defaultUpstream ? html` <span class="muted">(default)</span>` : nothing}</td><td>${u.kind}</td><td class="mono">${u.baseUrl || '—'}</td>
            <td>${u.kind === 'mock' ? 'none needed' : u.key ? (u.remember ? (this.protection === 'clear' ? 'remembered (unencrypted)' : 'remembered (encrypted)') : 'in memory') : u.sealedKey ? 'remembered (locked)' : 'not set'}</td>
            <td><button aria-label=${`Edit ${u.name}`} @click=${() => (this.editing = structuredClone(u))}>Edit</button>
              <button aria-label=${`Make ${u.name} the default`} ?disabled=${u.id === s.defaultUpstream} @click=${() => void setSettings((this.settings = { ...s, defaultUpstream: u.id })).catch((e: unknown) => (this.vaultError = String(e)))}>Default</button></td></tr>`)}
        </tbody></table>
        <div class="row"><button @click=${() => (this.editing = { id: `u${Date.now().toString(36)}`, name: 'local vLLM', kind: 'openai', baseUrl: 'http://127.0.0.1:8000/v1', key: null, remember: false, models: [] })}>Add upstream</button></div>
        ${this.keysPanel()}
        ${this.editing ? this.upstreamForm(this.editing) : nothing}
      </section>
      <section class="card" aria-label="Run an agent">
        <h2>Run</h2>
        <div class="row">
          <label>Agent <select aria-label="Agent" @change=${(e: Event) => (this.run.agent = (e.target as HTMLSelectElement).value)}>${agents.map((c) => html`<option ?selected=${c.name === this.run.agent}>${c.name}</option>`)}</select></label>
          <label>Tasks <select aria-label="Task set" @change=${(e: Event) => (this.run.tasks = (e.target as HTMLSelectElement).value)}>${tasks.map((c) => html`<option ?selected=${c.name === this.run.tasks}>${c.name}</option>`)}</select></label>
          <label>Upstream <select aria-label="Upstream for the run" @change=${(e: Event) => (this.run.upstream = (e.target as HTMLSelectElement).value)}>${s.upstreams.map((u) => html`<option value=${u.id} ?selected=${u.id === this.run.upstream}>${u.name}</option>`)}</select></label>
          <label>Rollouts <input type="number" min="1" max="64" aria-label="Rollouts per task" .value=${String(this.run.rollouts)} @input=${(e: InputEvent) => (this.run.rollouts = Number((e.target as HTMLInputElement).value) || 1)} /></label>
          <button class="primary" ?disabled=${this.job.running} @click=${() => void this.startRun()}>Start</button>
          <button class="danger" ?disabled=${!this.job.running} @click=${() => this.job.cancel()}>Stop</button>
        </div>
        ${p ? html`<div class="row"><progress aria-label="Run progress" max=${p.total || 1} value=${p.done}></progress><span>${p.done} / ${p.total} rollouts, ${p.errors} errors${p.last ? `, last reward ${p.last.reward}` : ''}</span></div>` : nothing}
        ${this.runError ? html`<p class="error" role="alert">${this.runError}</p>` : nothing}
        <div class="row">
          <label>Import agent config <input type="file" accept=".json,.yaml,.yml" aria-label="Import agent config" @change=${(e: Event) => { const f = (e.target as HTMLInputElement).files?.[0]; if (f) void this.importConfig('agent', f); }} /></label>
          <label>Import task set <input type="file" accept=".json,.yaml,.yml" aria-label="Import task set" @change=${(e: Event) => { const f = (e.target as HTMLInputElement).files?.[0]; if (f) void this.importConfig('tasks', f); }} /></label>
        </div>
        <details>
          <summary>Edit agent and task configs</summary>
          <div class="row">
            <label>Config <select aria-label="Config to edit" @change=${(e: Event) => this.pickConfig((e.target as HTMLSelectElement).value)}>
              <option value="" ?selected=${!this.configKey}>choose…</option>
              ${this.configs.map((c) => html`<option value=${c.key} ?selected=${c.key === this.configKey}>${c.kind === 'agent' ? 'agent' : 'tasks'}: ${c.name}${c.builtin ? ' (built-in)' : ''}</option>`)}
            </select></label>
            <button ?disabled=${!this.configKey} @click=${() => void this.saveEdited()}>Save config</button>
          </div>
          <textarea class="mono" aria-label="Config text (YAML or JSON)" rows="12" .value=${this.configText} ?disabled=${!this.configKey}
            @input=${(e: Event) => (this.configText = (e.target as HTMLTextAreaElement).value)}></textarea>
        </details>
      </section>
      <section class="card" aria-label="Black-box agent">
        <h2>Black-box agent</h2>
        <p class="muted">Runs in a sandboxed iframe that can reach only the gateway. The module's default export gets <span class="mono">{baseUrl, input}</span>.</p>
        <form @submit=${(e: Event) => {
          e.preventDefault();
          void this.runBlackBox(e.target as HTMLFormElement);
        }}>
          <div class="row"><label>Module URL <input type="url" name="url" aria-label="Agent module URL" placeholder="https://…/agent.js" /></label></div>
          <textarea name="code" aria-label="Agent module code" placeholder="export default async ({ baseUrl }) => { … }"></textarea>
          <div class="row"><button class="primary" type="submit">Run black-box agent</button></div>
        </form>
        ${this.blackBoxOut ? html`<pre class="mono">${this.blackBoxOut}</pre>` : nothing}
      </section>
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-gateway': AwGateway;
  }
}
