import { expect } from '@esm-bundle/chai';
import { setCuration } from '../../src/curation/api';
import type { StepRecord } from '../../src/contract/step';
import type { PoolClient } from '../../src/pool/client';
import '../../src/views/inspector/aw-step-inspector';
import type { AwStepInspector } from '../../src/views/inspector/aw-step-inspector';
import { insertSteps, loadStandardPool, testServices, trajectorySteps } from './curation-data';
import { emptyPagePool, until } from './helpers';

declare global {
  interface Window {
    __xss?: unknown;
  }
}

const IMG = '<img src=x onerror="window.__xss=1">';
const SCRIPT = '<script>window.__xss=2</script>';
const SVG = '<svg onload="window.__xss=3"></svg>';


function xssSteps(): StepRecord[] {
  const steps = trajectorySteps({ uid: `xss-${IMG}`, prompt: 'px', question: `Hi ${IMG} ${SCRIPT}`, steps: 2, reward: 1, answer: `Sure ${SVG} ${SCRIPT}` });
  steps[0].response!.tool_calls![0].function.arguments = JSON.stringify({ html: IMG });
  steps[0].response!.tool_calls![0].function.name = `calc${SCRIPT}`;
  steps[1].messages[0] = { role: 'system', content: SCRIPT, name: IMG };
  steps[1].response!.reasoning = `thinking ${IMG}`;
  steps[1].error = `fail ${IMG}`;
  steps[1].raw = JSON.stringify({ payload: SCRIPT + IMG });
  return steps;
}

async function settle(el: AwStepInspector): Promise<void> {
  for (let i = 0; i < 50 && !el.loadedSteps.length; i++) await new Promise((r) => setTimeout(r, 50));
  // a trajectory change starts its load in the next update: wait for that update, then for the load
  await el.updateComplete;
  await el.loaded;
  await el.updateComplete;
  await new Promise((r) => setTimeout(r, 100));
}

describe('<aw-step-inspector>', () => {
  let pool: PoolClient;
  before(async () => {
    pool = await emptyPagePool();
    await loadStandardPool(pool);
    await insertSteps(pool, xssSteps(), 'xss.jsonl');
  });
  afterEach(() => {
    for (const e of document.querySelectorAll('aw-step-inspector')) e.remove();
  });

  it('renders an XSS payload in every text field as literal text; nothing executes', async () => {
    window.__xss = undefined;
    const uid = `xss-${IMG}`;
    await setCuration(pool, [`${uid}:1`], { note: `note ${SCRIPT}`, addTags: [IMG] });
    const el = document.createElement('aw-step-inspector');
    el.services = testServices(pool);
    el.trajectoryUid = uid;
    document.body.append(el);
    await settle(el);
    for (const d of el.renderRoot.querySelectorAll('details')) d.open = true;
    await new Promise((r) => setTimeout(r, 300));
    const root = el.renderRoot as ShadowRoot;
    expect(root.querySelectorAll('img, script, svg, iframe, object').length).to.equal(0);
    const text = root.textContent ?? '';
    for (const p of [IMG, SCRIPT, SVG, `note ${SCRIPT}`, `fail ${IMG}`, `thinking ${IMG}`, `calc${SCRIPT}`, `#${IMG}`]) expect(text).to.include(p);
    expect(text).to.include('"html": "<img src=x onerror=\\"window.__xss=1\\">"');
    expect(window.__xss).to.equal(undefined);
  });

  it('a label re-reads the open trajectory and keeps the selected step; hidden, it re-reads only when shown', async () => {
    const el = document.createElement('aw-step-inspector');
    el.services = testServices(pool);
    el.trajectoryUid = 'p3-a';
    document.body.append(el);
    await settle(el);
    el.selectStep(1);
    const text = () => el.renderRoot.textContent ?? '';
    await setCuration(pool, ['p3-a:0'], { addTags: ['relabelled'] });
    await until(() => text().includes('#relabelled'), 'the label shown');
    expect(el.step, 'the selection stays').to.equal(1);
    // hidden: the write is heard and nothing is read until the inspector is shown again
    el.style.display = 'none';
    let heard = false;
    const off = pool.onChange((e) => (heard ||= e.tables.includes('curation')));
    await setCuration(pool, ['p3-a:0'], { addTags: ['while-hidden'] });
    await until(() => heard, 'the change reported');
    off();
    await el.loaded;
    await el.updateComplete;
    expect(text()).to.not.include('#while-hidden');
    el.style.display = '';
    await until(() => text().includes('#while-hidden'), 'the label shown once the inspector is');
    expect(el.step).to.equal(1);
    await setCuration(pool, ['p3-a:0'], { removeTags: ['relabelled', 'while-hidden'] });
  });

  it('shows the conversation once, per-step metrics, and moves with j/k and [ ]', async () => {
    const el = document.createElement('aw-step-inspector');
    el.services = testServices(pool);
    el.trajectoryUids = ['p3-a', 'p3-b', 'p3-c'];
    el.trajectoryUid = 'p3-a';
    document.body.append(el);
    await settle(el);
    const roles = [...el.renderRoot.querySelectorAll('.turn .role')].map((r) => r.textContent?.split(' ')[0].trim());
    expect(roles).to.deep.equal(['system', 'user', 'assistant', 'tool', 'assistant']);
    const text = el.renderRoot.textContent ?? '';
    expect(text).to.include('"expression": "0+1"');
    expect(text).to.include('reward 1');
    expect(text).to.include('200 ms');
    expect(text).to.include('finish tool_calls');
    const steps: string[] = [];
    el.addEventListener('aw-step-select', (e) => steps.push((e as CustomEvent).detail.step.step_id));
    const key = (k: string) => el.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, composed: true }));
    key('j');
    expect(el.selectedStep?.step_id).to.equal('p3-a:1');
    key('j');
    expect(el.selectedStep?.step_id).to.equal('p3-a:1');
    key('ArrowUp');
    expect(el.selectedStep?.step_id).to.equal('p3-a:0');
    expect(steps).to.deep.equal(['p3-a:1', 'p3-a:1', 'p3-a:0']);
    const moved: string[] = [];
    el.addEventListener('aw-trajectory-change', (e) => moved.push((e as CustomEvent).detail.trajectoryUid));
    key(']');
    key(']');
    key(']');
    key('[');
    expect(moved).to.deep.equal(['p3-b', 'p3-c', 'p3-b']);
    await settle(el);
    await new Promise((r) => setTimeout(r, 200));
    expect(el.selectedStep?.trajectory_uid).to.equal('p3-b');
    expect(el.renderRoot.textContent).to.include('p3-b');
  });
});
