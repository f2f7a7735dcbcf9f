import { expect } from '@esm-bundle/chai';
import type { PoolClient } from '../../src/pool/client';
import type { AwTrajectoryList } from '../../src/views/dashboard/aw-trajectory-list';
import type { AwRolloutCompare } from '../../src/views/inspector/aw-rollout-compare';
import type { AwStepInspector } from '../../src/views/inspector/aw-step-inspector';
import { formatUsd, setPrices, stepCost } from '../../src/views/kit/prices';
import { loadStandardPool, standardPool, trajectorySteps } from './curation-data';
import { mountDashboard } from './dashboard-helpers';
import { emptyPagePool, until } from './helpers';

describe('<aw-dashboard> costs and rollout compare', () => {
  let pool: PoolClient;
  before(async () => {
    setPrices([{ pattern: 'm-large', input: 3, output: 15, source: 'test' }]);
    pool = await emptyPagePool();
    await loadStandardPool(pool);
  });
  after(() => {
    setPrices(null);
  });
  afterEach(() => {
    for (const e of document.querySelectorAll('aw-dashboard')) e.remove();
  });

  const mount = () => mountDashboard(pool);

  it('the cost card, the per-model rollup and the list column add up the price table over the steps', async () => {
    const el = await mount();
    const steps = standardPool().flatMap(trajectorySteps);
    const priced = steps.map((s) => stepCost(s.model, s.prompt_tokens, s.completion_tokens)).filter((c): c is number => c !== null);
    const total = priced.reduce((a, b) => a + b, 0);
    expect(priced.length).to.equal(steps.filter((s) => s.model === 'm-large').length);
    expect(el.renderRoot.querySelector('[aria-label="cost"] b')?.textContent).to.equal(`${formatUsd(total)}+`);
    // every step here has token counts: all that is missing is a price, and the card says so
    expect(el.renderRoot.querySelector('[aria-label="cost"] span')?.textContent).to.equal(`cost (steps: ${steps.length - priced.length} need a price)`);
    const large = el.costByModel.find((r) => r.model === 'm-large');
    expect(Number(large?.cost_usd)).to.be.closeTo(total, 1e-12);
    expect(el.costByModel.find((r) => r.model === 'm-small')?.cost_usd).to.equal(null);
    const list = el.renderRoot.querySelector('aw-trajectory-list') as AwTrajectoryList;
    await list.updateComplete;
    const p3a = steps.filter((s) => s.trajectory_uid === 'p3-a').map((s) => stepCost(s.model, s.prompt_tokens, s.completion_tokens) ?? 0);
    const row = [...list.renderRoot.querySelectorAll('[role="row"]')].find((r) => r.textContent?.includes('p3-a')) as HTMLElement;
    expect(row.querySelector('[data-col="cost_usd"]')?.textContent).to.equal(formatUsd(p3a.reduce((a, b) => a + b, 0)));
    // the cost column sorts like any other: most expensive first, as the SQL over the same prices orders them
    (list.renderRoot.querySelector('button[data-col="cost_usd"]') as HTMLButtonElement).click();
    await until(() => el.sort.column === 'cost_usd', 'sorted by cost');
    await el.loaded;
    const byCost = (uid: string) => steps.filter((s) => s.trajectory_uid === uid).reduce<number | null>((a, s) => {
      const c = stepCost(s.model, s.prompt_tokens, s.completion_tokens);
      return c === null ? a : (a ?? 0) + c;
    }, null);
    const want = [...new Set(steps.map((s) => s.trajectory_uid))].sort((a, b) => (byCost(b) ?? -1) - (byCost(a) ?? -1) || (a < b ? -1 : 1));
    expect(list.uids.slice(0, 3)).to.deep.equal(want.slice(0, 3));
    expect(byCost(list.uids[0])).to.be.greaterThan(0);
    // a new price reaches the open dashboard
    setPrices([{ pattern: 'm-*', input: 1, output: 1, source: 'test' }]);
    await until(() => !(el.renderRoot.querySelector('[aria-label="cost"] b')?.textContent ?? '').endsWith('+'), 'every step priced');
    const all = steps.reduce((a, s) => a + ((s.prompt_tokens ?? 0) + (s.completion_tokens ?? 0)) / 1e6, 0);
    expect(el.renderRoot.querySelector('[aria-label="cost"] b')?.textContent).to.equal(formatUsd(all));
    setPrices([{ pattern: 'm-large', input: 3, output: 15, source: 'test' }]);
  });

  it('a GRPO group opens its rollouts side by side in the inspector, each with its reward', async () => {
    const el = await mount();
    el.style.width = '1300px'; // wide enough for the inspector beside the list
    const groups = el.renderRoot.querySelector('aw-grpo-groups')!;
    await groups.updateComplete;
    const inspectorBox = () => {
      const r = (el.renderRoot.querySelector('aw-step-inspector') as HTMLElement).getBoundingClientRect();
      return [r.left + window.scrollX, r.width, r.top + window.scrollY];
    };
    const before = inspectorBox();
    (groups.renderRoot.querySelector('button[aria-label="Compare the rollouts of prompt p0"]') as HTMLButtonElement).click();
    await until(() => el.selectedTrajectory === 'p0-a', 'best rollout selected');
    const inspector = el.renderRoot.querySelector('aw-step-inspector') as AwStepInspector;
    await until(() => inspector.view === 'compare' && !!inspector.renderRoot.querySelector('aw-rollout-compare'), 'compare view');
    const cmp = inspector.renderRoot.querySelector('aw-rollout-compare') as AwRolloutCompare;
    await until(() => cmp.right !== null && cmp.renderRoot.querySelectorAll('[data-reward]').length === 2, 'two sides');
    expect([cmp.left, cmp.right]).to.deep.equal(['p0-a', 'p0-b']);
    expect([...cmp.renderRoot.querySelectorAll('[data-reward]')].map((r) => r.textContent)).to.deep.equal(['1', '0']);
    // the inspector keeps its place and size in every view (decision 068): nothing reflows on a tab switch
    const after = inspectorBox();
    expect(after).to.deep.equal(before);
    const list = (el.renderRoot.querySelector('aw-trajectory-list') as HTMLElement).getBoundingClientRect();
    expect(after[0], 'beside the list, on its right').to.be.greaterThan(list.right + window.scrollX);
    window.scrollTo(0, 0);
  });
});
