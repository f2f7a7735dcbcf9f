/**
 * <aw-dashboard>: the trajectory dashboard. Counts and charts at a glance, composable filters (one
 * SQL predicate shared by counts, list, review, bulk labels and export), a virtualized sortable
 * trajectory list with the step inspector beside it, GRPO groups, the review queue and the SQL
 * helper reference. Self-contained: it needs only the services context.
 *
 * One concept: the overview's layout and its refresh; the SQL is queries.ts beside it and the parts are elements of their own.
 */
import { consume } from '@lit/context';
import type { Table } from 'apache-arrow';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { PoolQueryController } from '../kit/pool-refresh';
import { rovingIndex } from '../kit/roving';
import { emptyState } from '../empty-state';
import { type Services, servicesContext } from '../kit/services';
import { type CurationFilter, filterWhere } from '../../curation/filter';
import type { Row } from '../../pool/rows';
import '../export/aw-export-form';
import '../inspector/aw-step-inspector';
import '../review/aw-bulk-label';
import '../review/aw-review-queue';
import '../tokenizer/aw-tokenizer-panel';
import './aw-curation-tools';
import './aw-dashboard-filters';
import './aw-grpo-groups';
import './aw-sql-reference';
import './aw-trajectory-list';
import { NO_OPTIONS, type FilterOptions } from './aw-dashboard-filters';
import { breakdownBars, rewardHistogram } from './charts';
import { setDashboardFilter } from './filter-state';
import type { AwTrajectoryList, TrajectoryCost } from './aw-trajectory-list';
import { formatUsd, onPricesChange, pricedModels } from '../kit/prices';
import { loadRollouts } from '../inspector/queries';
import type { InspectorView } from '../inspector/views';
import type { AwStepInspector } from '../inspector/aw-step-inspector';
import '../kit/aw-price-table';
import type { AwPriceTable } from '../kit/aw-price-table';
import { breakdownSql, costByModelSql, DEFAULT_SORT, DIMENSIONS, type Dimension, groupCountsSql, groupsSql, LIST_LIMIT, listedTrajectories, OPTIONS_SQL, rewardsSql, type Sort, summarySql, trajectoriesSql, trajectoryCostSql } from './queries';
import { base } from '../kit/styles';
import { STEP_COUNT } from '../kit/queries';
import { currentRoute, registerRouteState, ROUTE_EVENT, type Route, writeRoute } from '../kit/route';
import { type DashboardTab, type DashboardUrlState, dashboardRoute, readDashboardRoute } from './url-state';

type Tab = DashboardTab;

/** The list-and-inspector split's height, and the inspector's share of its width (per cent, kept in localStorage). */
const SPLIT_H = 560;
const INSPECTOR_WIDTH_KEY = 'aw-inspector-width';
const INSPECTOR_MIN = 25;
const INSPECTOR_MAX = 75;

function savedInspectorWidth(): number {
  const v = Number(globalThis.localStorage?.getItem(INSPECTOR_WIDTH_KEY));
  return Number.isFinite(v) && v >= INSPECTOR_MIN && v <= INSPECTOR_MAX ? v : 45;
}

const fmtInt = (v: unknown) => (v === null || v === undefined ? '—' : Number(v).toLocaleString('en-US'));
const fmtMs = (v: unknown) => (v === null || v === undefined ? '—' : `${Math.round(Number(v)).toLocaleString('en-US')} ms`);

@customElement('aw-dashboard')
export class AwDashboard extends LitElement {
  @consume({ context: servicesContext, subscribe: true })
  @property({ attribute: false })
  services?: Services;

  @property({ attribute: false }) filter: CurationFilter = {};
  @state() private tab: Tab = 'overview';
  @state() sort: Sort = DEFAULT_SORT;
  @state() summary: Row | null = null;
  @state() private breakdowns: Partial<Record<Dimension, Row[]>> = {};
  @state() private rewards: Row[] = [];
  @state() private groups: Row[] = [];
  @state() private groupCounts: { groups: number; multi: number; no_signal: number } | null = null;
  @state() trajectories: Table | null = null;
  /** trajectory_uids of the list, in its order (what [ and ] walk in the inspector). */
  @state() uids: string[] = [];
  @state() private options: FilterOptions = NO_OPTIONS;
  @state() private selected: string | null = null;
  @state() private error: string | null = null;
  @state() private exportOpen = false;
  /** Cost per model of the filtered steps (the price table applied). */
  @state() costByModel: Row[] = [];
  @state() private costs: Map<string, TrajectoryCost> = new Map();
  @state() private inspectorView: InspectorView = 'conversation';
  /** The inspector's step (its index in the trajectory), kept for the address. */
  @state() private stepIndex = 0;
  /** The state being set comes from the address (a link, the back button): written back without a new history entry. */
  private fromRoute = false;
  private offRoute?: () => void;
  /** The inspector panel's share of the split's width, in per cent. */
  @state() inspectorWidth = savedInspectorWidth();
  private models: string[] = [];
  private offPrices?: () => void;
  /** Steps in the whole pool, unfiltered (null until counted): 0 shows the empty state. */
  @state() poolSteps: number | null = null;
  /** Bumped by each read and each new filter or sort: a read whose number is not the latest drops its rows. */
  private seq = 0;
  /**
   * Its queries rerun after writes to what it shows, one run at a time; a hidden dashboard does not rerun them after
   * every import or label (they would hold the single-threaded pool, seconds on a large pool, while the user works
   * elsewhere): it is marked stale and reruns when shown.
   */
  private query = new PoolQueryController(this, { pool: () => this.services?.pool, tables: ['steps', 'curation', 'trajectories'], run: () => this.load() });

  /** Settles when the latest refresh has rendered (for tests and callers that wait). */
  get loaded(): Promise<void> {
    return this.query.settled;
  }

  static override styles = [
    base,
    css`
    :host { display: block; font-size: 13px; line-height: 1.4; color: var(--aw-text); container-type: inline-size; }
    nav { display: flex; gap: 4px; border-bottom: 1px solid var(--aw-border); margin-bottom: 8px; }
    nav button { border: none; border-radius: 0; background: none; padding: 6px 10px; cursor: pointer; font: inherit; border-bottom: 2px solid transparent; }
    nav button[aria-selected='true'] { border-bottom-color: var(--aw-accent); color: var(--aw-accent); font-weight: 600; }
    .cards { display: flex; flex-wrap: wrap; gap: 8px; margin: 8px 0; }
    .card { border: 1px solid var(--aw-border); border-radius: var(--aw-radius); padding: 4px 10px; min-width: 84px; background: var(--aw-panel); }
    .card b { display: block; font-size: 16px; font-variant-numeric: tabular-nums; }
    .card span { color: var(--aw-muted); font-size: 11px; }
    .card.warn b { color: var(--aw-error); }
    .charts { display: flex; flex-wrap: wrap; gap: 12px; }
    .charts figure { margin: 0; }
    .charts figcaption { font-weight: 600; font-size: 12px; }
    /* the inspector: one resizable panel beside the list in every view (decision 068); stacked under it when narrow */
    .split { display: grid; grid-template-columns: minmax(0, 1fr) 12px minmax(0, var(--insp, 45%)); height: ${SPLIT_H}px; margin-top: 8px; }
    .split > aw-step-inspector { overflow: auto; border: 1px solid var(--aw-border); border-radius: var(--aw-radius); padding: 6px 8px; background: var(--aw-panel); min-height: 0; }
    .sep { cursor: col-resize; display: flex; align-items: center; justify-content: center; touch-action: none; }
    .sep::before { content: ''; width: 4px; height: 40px; border-radius: 2px; background: var(--aw-border); }
    .sep:hover::before, .sep:focus-visible::before { background: var(--aw-accent); }
    .sep:focus-visible { outline: 2px solid var(--aw-accent); outline-offset: -2px; }
    @container (max-width: 1000px) {
      .split { grid-template-columns: minmax(0, 1fr); height: auto; gap: 8px; }
      .sep { display: none; }
      .split > aw-step-inspector { max-height: 640px; }
    }
    details.costs { margin: 4px 0 8px; }
    details.costs > summary { cursor: pointer; color: var(--aw-muted); }
    details.costs table { width: auto; min-width: 60%; margin: 4px 0; font-size: 12px; }
    .num { text-align: right; font-variant-numeric: tabular-nums; }
    h2 { font-size: 13px; margin: 14px 0 4px; }
    .toolbar { display: flex; gap: 8px; align-items: center; margin: 6px 0; }
    .err { color: var(--aw-error); }
    /* skip links: out of sight until one has the focus (the list is ~40 controls down the page) */
    .skip { display: flex; gap: 10px; height: 0; overflow: hidden; }
    .skip:focus-within { height: auto; padding: 4px 0; }
    .skip button.link { all: unset; cursor: pointer; color: var(--aw-accent); text-decoration: underline; }
    .skip button.link:focus-visible { outline: 2px solid var(--aw-accent); }
  `,
  ];

  override connectedCallback(): void {
    super.connectedCallback();
    this.offRoute = registerRouteState('dashboard', () => dashboardRoute(this.urlState));
    window.addEventListener(ROUTE_EVENT, this.onRoute);
    const r = currentRoute();
    if (r.tab === 'dashboard') this.applyRoute(r);
    // sorted by cost, a new price can reorder the list: rerun it; otherwise only the costs change
    this.offPrices = onPricesChange(() => void (this.sort.column === 'cost_usd' ? this.refresh() : this.refreshCosts(this.seq)));
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.offPrices?.();
    this.offRoute?.();
    window.removeEventListener(ROUTE_EVENT, this.onRoute);
  }

  /** What the address says of the dashboard (views/kit/route.ts). */
  get urlState(): DashboardUrlState {
    return { tab: this.tab, filter: this.filter, sort: this.sort, trajectory: this.selected, step: this.stepIndex, view: this.inspectorView };
  }

  private onRoute = (e: Event): void => {
    const r = (e as CustomEvent<Route>).detail;
    if (r.tab === 'dashboard') this.applyRoute(r);
  };

  /** Show what a dashboard address describes: sub-view, filter, sort, trajectory, step and inspector view. */
  applyRoute(r: Route): void {
    const s = readDashboardRoute(r.sub, r.params);
    this.fromRoute = true;
    this.tab = s.tab;
    if (JSON.stringify(s.filter) !== JSON.stringify(this.filter)) this.filter = s.filter;
    if (s.sort.column !== this.sort.column || s.sort.descending !== this.sort.descending) this.sort = s.sort;
    this.selected = s.trajectory;
    this.stepIndex = s.step;
    this.inspectorView = s.view;
  }

  /** Open a trajectory in the inspector (at its first step). */
  private select(uid: string | null): void {
    if (uid !== this.selected) this.stepIndex = 0;
    this.selected = uid;
  }

  protected override updated(changed: PropertyValues): void {
    const keys = ['tab', 'filter', 'sort', 'selected', 'inspectorView', 'stepIndex'];
    if (!keys.some((k) => changed.has(k))) return;
    // a new trajectory, filter, sort or view is a place the back button returns to; a step is not
    const onlyStep = !keys.some((k) => k !== 'stepIndex' && changed.has(k));
    writeRoute('dashboard', this.fromRoute || onlyStep ? 'replace' : 'push');
    this.fromRoute = false;
  }

  /** The trajectory open in the inspector, if any. */
  get selectedTrajectory(): string | null {
    return this.selected;
  }

  get where(): string {
    return filterWhere(this.filter);
  }

  protected override willUpdate(changed: PropertyValues): void {
    if (changed.has('filter')) setDashboardFilter(this.filter);
    // a new pool is read by the controller; a new filter or sort drops the rows of a read still running
    if (changed.has('filter') || changed.has('sort')) {
      this.seq++;
      void this.query.invalidate();
    }
  }

  /** Rerun every query of the dashboard for the current filter (after the run in progress, if one is). */
  refresh(): Promise<void> {
    return this.query.refresh();
  }

  private async load(): Promise<void> {
    const pool = this.services?.pool;
    if (!pool) return;
    const seq = ++this.seq;
    const where = this.where;
    try {
      const [total, summary, rewards, groups, groupCounts, trajectories, options, ...dims] = await Promise.all([
        pool.rows(STEP_COUNT),
        pool.rows(summarySql(where)),
        pool.rows(rewardsSql(where)),
        pool.rows(groupsSql(where)),
        pool.rows(groupCountsSql(where)),
        pool.query(trajectoriesSql(where, this.sort, pricedModels(this.models))),
        pool.rows(OPTIONS_SQL),
        ...DIMENSIONS.map((d) => pool.rows(breakdownSql(where, d))),
      ]);
      if (seq !== this.seq) return;
      this.poolSteps = Number(total[0]?.n ?? 0);
      this.summary = summary[0] ?? null;
      this.rewards = rewards;
      this.groups = groups;
      const gc = groupCounts[0] ?? {};
      this.groupCounts = { groups: Number(gc.groups ?? 0), multi: Number(gc.multi ?? 0), no_signal: Number(gc.no_signal ?? 0) };
      this.trajectories = trajectories;
      this.uids = Array.from((trajectories.getChild('trajectory_uid')?.toArray() ?? []) as Iterable<unknown>, String);
      // the inspector never keeps showing a trajectory that the filter now excludes
      if (this.selected !== null && !this.uids.includes(this.selected)) this.selected = null;
      const o = options[0] ?? {};
      this.options = {
        agents: (o.agents as string[]) ?? [], models: (o.models as string[]) ?? [], data_sources: (o.data_sources as string[]) ?? [],
        channels: (o.channels as string[]) ?? [], qualities: (o.qualities as string[]) ?? NO_OPTIONS.qualities, tags: (o.tags as string[]) ?? [],
      };
      this.breakdowns = Object.fromEntries(DIMENSIONS.map((d, i) => [d, dims[i]]));
      this.models = this.options.models;
      this.error = null;
      await this.refreshCosts(seq);
      await this.updateComplete;
    } catch (e) {
      if (seq === this.seq) this.error = `The dashboard query failed: ${e instanceof Error ? e.message : String(e)}. Clear the filter or check the pool.`;
    }
  }

  /** Costs under the current price table: per model over the filter, and per listed trajectory. */
  private async refreshCosts(seq: number): Promise<void> {
    const pool = this.services?.pool;
    if (!pool) return;
    const where = this.where;
    const [byModel, perTrajectory] = await Promise.all([
      pool.rows(costByModelSql(where, pricedModels(this.models))),
      pool.rows(trajectoryCostSql(listedTrajectories(where, this.sort, pricedModels(this.models)), pricedModels(this.models))),
    ]);
    if (seq !== this.seq) return;
    this.costByModel = byModel;
    this.costs = new Map(perTrajectory.map((r) => [String(r.trajectory_uid), { usd: r.cost_usd === null ? null : Number(r.cost_usd), unpriced: Number(r.unpriced_steps), untokened: Number(r.untokened_steps) }]));
  }

  /** Open a prompt group's rollouts side by side: its best-rewarded rollout against the farthest reward. */
  async compareGroup(promptUid: string): Promise<void> {
    const pool = this.services?.pool;
    if (!pool) return;
    const rollouts = await loadRollouts(pool, promptUid);
    if (!rollouts.length) return;
    this.select(rollouts[0].trajectory_uid);
    this.inspectorView = 'compare';
    await this.updateComplete;
    const inspector = this.renderRoot.querySelector('aw-step-inspector') as AwStepInspector | null;
    inspector?.scrollIntoView?.({ block: 'nearest' });
    (inspector?.renderRoot.querySelector('[role="tab"][aria-selected="true"]') as HTMLElement | null)?.focus();
  }

  private costCard() {
    const known = this.costByModel.filter((r) => r.cost_usd !== null);
    const total = known.length ? known.reduce((a, r) => a + Number(r.cost_usd), 0) : null;
    const unpriced = this.costByModel.reduce((a, r) => a + Number(r.unpriced_steps ?? 0), 0);
    const untokened = this.costByModel.reduce((a, r) => a + Number(r.untokened_steps ?? 0), 0);
    const missing = [unpriced ? `${fmtInt(unpriced)} need a price` : '', untokened ? `${fmtInt(untokened)} without token counts` : ''].filter(Boolean);
    return html`<div class="card" role="group" aria-label="cost"
      title=${missing.length ? `Not in the total: ${unpriced ? `${fmtInt(unpriced)} steps whose model has no price (Tokens and cost by model → Edit prices…)` : ''}${unpriced && untokened ? '; ' : ''}${untokened ? `${fmtInt(untokened)} steps whose source recorded no token counts (no price can cost them)` : ''}` : ''}>
      <b>${formatUsd(total)}${missing.length && total !== null ? '+' : ''}</b><span>cost${missing.length ? ` (steps: ${missing.join(', ')})` : ''}</span></div>`;
  }

  private costTable() {
    if (!this.costByModel.length) return nothing;
    return html`<details class="costs">
      <summary>Tokens and cost by model</summary>
      <table class="grid" aria-label="Tokens and cost by model">
        <thead><tr><th scope="col">model</th><th scope="col" class="num">steps</th><th scope="col" class="num">tokens in</th><th scope="col" class="num">tokens out</th><th scope="col" class="num">cost</th><th scope="col" class="num">steps needing a price</th><th scope="col" class="num">steps without token counts</th></tr></thead>
        <tbody>${this.costByModel.map((r) => html`<tr><td class="mono">${String(r.model)}</td><td class="num">${fmtInt(r.steps)}</td><td class="num">${fmtInt(r.prompt_tokens)}</td>
          <td class="num">${fmtInt(r.completion_tokens)}</td><td class="num">${formatUsd(r.cost_usd === null ? null : Number(r.cost_usd))}</td><td class="num">${fmtInt(r.unpriced_steps)}</td><td class="num">${fmtInt(r.untokened_steps)}</td></tr>`)}</tbody>
      </table>
      <button @click=${() => void (this.renderRoot.querySelector('aw-price-table') as AwPriceTable | null)?.show()}>Edit prices…</button>
    </details>`;
  }

  /** "1,234", or "the first 2,000 of 627,256" when the list is cut at LIST_LIMIT. */
  private listNote(): string {
    const shown = this.trajectories?.numRows ?? 0;
    const total = Number(this.summary?.trajectories ?? shown);
    return shown >= LIST_LIMIT && total > shown ? `the first ${fmtInt(shown)} of ${fmtInt(total)} in this order` : fmtInt(shown);
  }

  private card(label: string, value: string, warn = false) {
    return html`<div class=${warn ? 'card warn' : 'card'} role="group" aria-label=${label}><b>${value}</b><span>${label}</span></div>`;
  }

  /** A skip link's target: the list's active row, the inspector, or the GRPO table's first button. */
  private jump(e: Event, to: 'list' | 'inspector' | 'groups'): void {
    e.preventDefault();
    if (to === 'list') void (this.renderRoot.querySelector('aw-trajectory-list') as AwTrajectoryList | null)?.focusActive();
    else if (to === 'inspector') {
      // its selected view tab (no tabindex on the host: a negative one would take its whole shadow tree out of the Tab order)
      const root = this.renderRoot.querySelector('aw-step-inspector')?.shadowRoot;
      const target = root?.querySelector('[role="tab"][aria-selected="true"]') ?? root?.querySelector('button, [tabindex="0"]');
      if (target) (target as HTMLElement).focus();
      else void (this.renderRoot.querySelector('aw-trajectory-list') as AwTrajectoryList | null)?.focusActive();
    }
    else {
      const groups = this.renderRoot.querySelector('aw-grpo-groups');
      ((groups?.shadowRoot?.querySelector('button') ?? groups) as HTMLElement | null)?.focus();
    }
  }

  private renderOverview() {
    const s = this.summary ?? {};
    const flat = this.groupCounts?.no_signal ?? 0;
    return html`
      <nav class="skip" aria-label="Skip to">
        <button class="link" @click=${(e: Event) => this.jump(e, 'list')}>Skip to the trajectory list</button>
        <button class="link" @click=${(e: Event) => this.jump(e, 'inspector')}>Skip to the inspector</button>
        <button class="link" @click=${(e: Event) => this.jump(e, 'groups')}>Skip to the GRPO groups</button>
      </nav>
      <aw-dashboard-filters .filter=${this.filter} .options=${this.options}
        @aw-filter-change=${(e: CustomEvent<{ filter: CurationFilter }>) => (this.filter = e.detail.filter)}></aw-dashboard-filters>
      ${this.error ? html`<p class="err" role="alert">${this.error}</p>` : nothing}
      <div class="cards" aria-label="Counts">
        ${this.card('steps', fmtInt(s.steps))}
        ${this.card('trajectories', fmtInt(s.trajectories))}
        ${this.card('complete', fmtInt(s.complete))}
        ${this.card('open', fmtInt(s.open))}
        ${this.card('prompt groups', fmtInt(s.prompts))}
        ${this.card('no-signal groups', fmtInt(flat), flat > 0)}
        ${this.card('error steps', fmtInt(s.error_steps), Number(s.error_steps) > 0)}
        ${this.card('trainable steps', fmtInt(s.trainable_steps))}
        ${this.card('reviewed steps', fmtInt(s.reviewed_steps))}
        ${this.card('good / bad', `${fmtInt(s.good_steps)} / ${fmtInt(s.bad_steps)}`)}
        ${this.card('tokens in / out', `${fmtInt(s.prompt_tokens)} / ${fmtInt(s.completion_tokens)}`)}
        ${this.card('latency p50 / p90 / p99', `${fmtMs(s.latency_p50)} / ${fmtMs(s.latency_p90)} / ${fmtMs(s.latency_p99)}`)}
        ${this.costCard()}
      </div>
      ${this.costTable()}
      <div class="toolbar">
        <aw-bulk-label .services=${this.services} .where=${this.where} .steps=${Number(s.steps ?? 0)}></aw-bulk-label>
        <button @click=${() => (this.exportOpen = true)} title="Export the filtered steps">Export filtered…</button>
      </div>
      <div class="charts">
        <figure><figcaption>Trajectory reward</figcaption>${this.rewards.length ? rewardHistogram(this.rewards) : html`<p>No rewards in the selection.</p>`}</figure>
        ${DIMENSIONS.map((d) => {
          const rows = this.breakdowns[d] ?? [];
          return rows.length ? html`<figure><figcaption>Steps per ${d} (errors red)</figcaption>${breakdownBars(rows, d)}</figure>` : nothing;
        })}
      </div>
      <h2>As the trainer sees it</h2>
      <aw-tokenizer-panel .services=${this.services} .where=${this.where}
        @aw-trajectory-select=${(e: CustomEvent<{ trajectoryUid: string }>) => this.select(e.detail.trajectoryUid)}></aw-tokenizer-panel>
      <h2 id="trajectories-h">Trajectories (${this.listNote()}; click a header to sort)</h2>
      <div class="split" style=${`--insp:${this.inspectorWidth}%`}>
        <aw-trajectory-list .table=${this.trajectories} .costs=${this.costs} .sort=${this.sort} .selected=${this.selected} .height=${SPLIT_H}
          @aw-sort-change=${(e: CustomEvent<{ sort: Sort }>) => (this.sort = e.detail.sort)}
          @aw-trajectory-select=${(e: CustomEvent<{ trajectoryUid: string }>) => this.select(e.detail.trajectoryUid)}></aw-trajectory-list>
        <div class="sep" role="separator" tabindex="0" aria-orientation="vertical" aria-label="Inspector width" aria-valuemin=${INSPECTOR_MIN} aria-valuemax=${INSPECTOR_MAX}
          aria-valuenow=${Math.round(this.inspectorWidth)} aria-valuetext=${`inspector ${Math.round(this.inspectorWidth)}% wide`} title="Drag, or ←/→, to resize the inspector"
          @pointerdown=${this.onSepDown} @keydown=${this.onSepKey}></div>
        <aw-step-inspector id="inspector" role="region" aria-label="Inspector" .services=${this.services} .trajectoryUid=${this.selected} .trajectoryUids=${this.uids} .view=${this.inspectorView}
          .step=${this.stepIndex}
          @aw-inspector-view=${(e: CustomEvent<{ view: InspectorView }>) => (this.inspectorView = e.detail.view)}
          @aw-step-select=${(e: Event) => {
            // the compare view's own inspectors select their steps too: only the panel's own counts
            if (e.composedPath()[0] === e.currentTarget) this.stepIndex = (e.currentTarget as AwStepInspector).step;
          }}
          @aw-trajectory-change=${(e: CustomEvent<{ trajectoryUid: string }>) => this.select(e.detail.trajectoryUid)}></aw-step-inspector>
      </div>
      <h2>GRPO groups (trajectories sharing a prompt_uid)</h2>
      <aw-grpo-groups .rows=${this.groups} .counts=${this.groupCounts}
        @aw-group-select=${(e: CustomEvent<{ promptUid: string }>) => void this.compareGroup(e.detail.promptUid)}></aw-grpo-groups>`;
  }

  private setInspectorWidth(pct: number): void {
    this.inspectorWidth = Math.max(INSPECTOR_MIN, Math.min(INSPECTOR_MAX, pct));
    try {
      localStorage.setItem(INSPECTOR_WIDTH_KEY, String(Math.round(this.inspectorWidth)));
    } catch {
      /* storage refused: the width holds for this page */
    }
  }

  /** The splitter: drag it; ← widens the inspector, → narrows it, Home / End to the limits. */
  private onSepKey = (e: KeyboardEvent): void => {
    const to = { ArrowLeft: this.inspectorWidth + 5, ArrowRight: this.inspectorWidth - 5, Home: INSPECTOR_MAX, End: INSPECTOR_MIN }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    this.setInspectorWidth(to);
  };

  private onSepDown = (e: PointerEvent): void => {
    const sep = e.currentTarget as HTMLElement;
    const box = (sep.parentElement as HTMLElement).getBoundingClientRect();
    sep.setPointerCapture(e.pointerId);
    const move = (m: PointerEvent) => this.setInspectorWidth(((box.right - m.clientX) / box.width) * 100);
    const up = () => {
      sep.removeEventListener('pointermove', move);
      sep.removeEventListener('pointerup', up);
    };
    sep.addEventListener('pointermove', move);
    sep.addEventListener('pointerup', up);
  };

  private onTabKey(e: KeyboardEvent, ids: Tab[]): void {
    const i = ids.indexOf(((e.target as HTMLElement).id.replace(/^view-/, '') as Tab) ?? this.tab);
    const to = rovingIndex(e.key, Math.max(0, i), ids.length);
    if (to === null) return;
    e.preventDefault();
    this.tab = ids[to];
    void this.updateComplete.then(() => (this.renderRoot.querySelector(`#view-${ids[to]}`) as HTMLElement | null)?.focus());
  }

  override render() {
    const tabs: [Tab, string][] = [['overview', 'Overview'], ['review', 'Review queue'], ['reference', 'Curation tools & SQL']];
    return html`<nav role="tablist" aria-label="Dashboard views" @keydown=${(e: KeyboardEvent) => this.onTabKey(e, tabs.map(([t]) => t))}>
        ${tabs.map(([t, label]) => html`<button role="tab" id=${`view-${t}`} aria-selected=${this.tab === t ? 'true' : 'false'} tabindex=${this.tab === t ? 0 : -1}
          @click=${() => (this.tab = t)}>${label}</button>`)}
      </nav>
      ${this.poolSteps === 0 && this.tab !== 'reference'
        ? emptyState(this.tab === 'review' ? 'Import traces to review them' : 'Import traces to see the dashboard', 'The pool is empty. Drop trace files (or load the demo data) on the Data tab; counts, charts, the trajectory list and the review queue fill in as steps arrive.')
        : nothing}
      ${this.tab === 'overview' && this.poolSteps !== 0 ? this.renderOverview() : nothing}
      ${this.tab === 'review' && this.poolSteps !== 0 ? html`<aw-review-queue .services=${this.services} .where=${this.where}></aw-review-queue>` : nothing}
      ${this.tab === 'reference' ? html`<aw-curation-tools .services=${this.services}></aw-curation-tools><aw-sql-reference></aw-sql-reference>` : nothing}
      <aw-export-form modal .services=${this.services} .open=${this.exportOpen} source="filter" .where=${this.where} .filter=${this.filter}
        @aw-close=${() => (this.exportOpen = false)}></aw-export-form>
      <aw-price-table></aw-price-table>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-dashboard': AwDashboard;
  }
}
