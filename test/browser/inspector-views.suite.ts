import { expect } from '@esm-bundle/chai';
import type { StepRecord } from '../../src/contract/step';
import type { PoolClient } from '../../src/pool/client';
import type { AwRolloutCompare } from '../../src/views/inspector/aw-rollout-compare';
import '../../src/views/inspector/aw-step-inspector';
import type { AwStepInspector } from '../../src/views/inspector/aw-step-inspector';
import { formatUsd, stepCost } from '../../src/views/kit/prices';
import { insertSteps, testServices, trajectorySteps } from './curation-data';
import { emptyPagePool, until } from './helpers';

const IMG = '<img src=x onerror="window.__mdxss=1">';

/** A Phoenix-like trace: an agent span (not an LLM call) parenting two LLM spans, the second a child of the first. */
function spanSteps(): StepRecord[] {
  const steps = trajectorySteps({ uid: 'trace-Span-1', prompt: 'p-span', question: 'Plan a trip', steps: 3, reward: 1, model: 'gpt-4o-mini-2024-07-18' });
  const meta = [
    { span_id: 'sp-A', parent_id: 'agent-root', span_name: 'ChatCompletion' },
    { span_id: 'sp-B', parent_id: 'sp-A', span_name: 'ChatCompletion.retry' },
    { span_id: 'sp-C', parent_id: 'agent-root', span_name: 'Final' },
  ];
  steps.forEach((s, i) => {
    s.metadata = meta[i];
    s.started_at = Date.UTC(2026, 0, 1, 0, 0, 0) + i * 1000;
    s.latency_ms = [800, 400, 1000][i];
    s.prompt_tokens = 1000 * (i + 1);
    s.completion_tokens = 100;
  });
  steps[2].model = 'mock-model';
  return steps;
}

async function open(pool: PoolClient, uid: string, view?: AwStepInspector['view']): Promise<AwStepInspector> {
  const el = document.createElement('aw-step-inspector');
  el.services = testServices(pool);
  el.trajectoryUid = uid;
  if (view) el.view = view;
  document.body.append(el);
  for (let i = 0; i < 60 && !el.loadedSteps.length; i++) await new Promise((r) => setTimeout(r, 50));
  await el.updateComplete;
  return el;
}

describe('<aw-step-inspector> views', () => {
  let pool: PoolClient;
  before(async () => {
    localStorage.removeItem('aw-model-prices');
    pool = await emptyPagePool();
    await insertSteps(pool, spanSteps(), 'spans.jsonl');
    const md = trajectorySteps({ uid: 'md-1', prompt: 'p-md', question: 'Format it', reward: 1, answer: `# Title\n\n**bold** and \`a<b\`\n${IMG}\n\n- one\n- two` });
    await insertSteps(pool, md, 'md.jsonl');
    const group = [
      ...trajectorySteps({ uid: 'g-hi', prompt: 'p-grp', question: 'What is 6*7?', reward: 1, answer: 'It is 42.' }),
      ...trajectorySteps({ uid: 'g-mid', prompt: 'p-grp', question: 'What is 6*7?', reward: 0.5, answer: 'About 40.' }),
      ...trajectorySteps({ uid: 'g-lo', prompt: 'p-grp', question: 'What is 6*7?', reward: 0, answer: 'It is 13.' }),
    ];
    await insertSteps(pool, group, 'group.jsonl');
  });
  afterEach(() => {
    for (const e of document.querySelectorAll('aw-step-inspector')) e.remove();
  });

  it('has a tab list of its views that the arrow keys move through', async () => {
    const el = await open(pool, 'md-1');
    const tabs = [...el.renderRoot.querySelectorAll('[role="tab"]')] as HTMLElement[];
    expect(tabs.map((t) => t.textContent)).to.deep.equal(['Conversation', 'Timeline', 'Compare rollouts']);
    tabs[0].focus();
    tabs[0].dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true, composed: true }));
    await el.updateComplete;
    expect(el.view).to.equal('timeline');
    expect(el.renderRoot.querySelector('table.timeline')).to.not.equal(null);
  });

  it('timeline: steps nested under their parent spans, a waterfall from the start times, tokens and cost per step', async () => {
    const el = await open(pool, 'trace-Span-1', 'timeline');
    const rows = [...el.renderRoot.querySelectorAll('table.timeline tbody tr')] as HTMLTableRowElement[];
    const label = (r: HTMLTableRowElement) => `${r.className}:${r.cells[0].textContent?.trim()}:${r.cells[0].style.paddingLeft}`;
    expect(rows.map(label)).to.deep.equal([
      'span:span agent-root:6px', 'step:ChatCompletion:20px', 'tool:↳ tool calc:34px', 'step:ChatCompletion.retry:34px', 'tool:↳ tool calc:48px', 'step:Final:20px',
    ]);
    const steps = rows.filter((r) => r.classList.contains('step'));
    expect(steps.map((r) => r.cells[3].textContent)).to.deep.equal([
      formatUsd(stepCost('gpt-4o-mini-2024-07-18', 1000, 100)), formatUsd(stepCost('gpt-4o-mini-2024-07-18', 2000, 100)), '—',
    ]);
    expect(steps[0].cells[2].textContent).to.equal('1000 → 100');
    // the waterfall spans 0 … 3000 ms: step 1 starts at a third and lasts 400 ms
    const bar = steps[1].querySelector('.bar span') as HTMLElement;
    expect(Number.parseFloat(bar.style.left)).to.be.closeTo(100 / 3, 0.01);
    expect(Number.parseFloat(bar.style.width)).to.be.closeTo(40 / 3, 0.01);
    const totals = (el.renderRoot.querySelector('.totals') as HTMLElement).textContent ?? '';
    expect(totals).to.include('wall time 3,000 ms');
    expect(totals).to.include('(+ 1 step without a price)');
    // a step's name opens it in the conversation
    (steps[1].querySelector('button.name') as HTMLButtonElement).click();
    await el.updateComplete;
    expect(el.view).to.equal('conversation');
    expect(el.step).to.equal(1);
  });

  it('costs follow the edited price table', async () => {
    const el = await open(pool, 'trace-Span-1', 'timeline');
    const { setPrices } = await import('../../src/views/kit/prices');
    setPrices([{ pattern: 'mock-model', input: 1, output: 2, source: 'test' }]);
    try {
      await el.updateComplete;
      const cells = [...el.renderRoot.querySelectorAll('table.timeline tbody tr.step td:nth-child(4)')].map((c) => c.textContent);
      expect(cells).to.deep.equal(['—', '—', formatUsd((3000 * 1 + 100 * 2) / 1e6)]);
    } finally {
      setPrices(null);
    }
  });

  it('message Markdown renders sanitized, HTML in it reads as text, and a toggle shows the source', async () => {
    const el = await open(pool, 'md-1');
    const root = el.renderRoot as ShadowRoot;
    const md = root.querySelector('.turn.assistant .md') as HTMLElement;
    expect(md.querySelector('h1')?.textContent).to.equal('Title');
    expect(md.querySelector('strong')?.textContent).to.equal('bold');
    expect(md.querySelector('code')?.textContent).to.equal('a<b');
    expect(md.querySelectorAll('li').length).to.equal(2);
    expect(root.querySelectorAll('img, script').length).to.equal(0);
    expect(md.textContent).to.include(IMG);
    expect((window as { __mdxss?: unknown }).__mdxss).to.equal(undefined);
    const toggle = [...root.querySelectorAll('button')].find((b) => b.textContent?.startsWith('Text:')) as HTMLButtonElement;
    toggle.click();
    await el.updateComplete;
    expect(root.querySelector('.turn.assistant .md')).to.equal(null);
    expect(root.querySelector('.turn.assistant > .content')?.textContent).to.equal(`# Title\n\n**bold** and \`a<b\`\n${IMG}\n\n- one\n- two`);
  });

  it('compare: two rollouts of the prompt group side by side with their rewards, the farthest reward first', async () => {
    const el = await open(pool, 'g-hi', 'compare');
    const cmp = el.renderRoot.querySelector('aw-rollout-compare') as AwRolloutCompare;
    await until(() => cmp.rollouts.length === 3 && cmp.renderRoot.querySelectorAll('aw-step-inspector').length === 2, 'three rollouts, two side by side', 100);
    expect(cmp.right).to.equal('g-lo');
    const sides = [...cmp.renderRoot.querySelectorAll('aw-step-inspector')] as AwStepInspector[];
    await until(() => sides.every((s) => s.loadedSteps.length > 0), 'both sides loaded', 100);
    await Promise.all(sides.map((s) => s.updateComplete));
    expect(sides.map((s) => s.trajectoryUid)).to.deep.equal(['g-hi', 'g-lo']);
    expect([...cmp.renderRoot.querySelectorAll('[data-reward]')].map((r) => `${r.textContent}:${r.className}`)).to.deep.equal(['1:reward better', '0:reward worse']);
    expect(sides[0].renderRoot.textContent).to.include('It is 42.');
    expect(sides[1].renderRoot.textContent).to.include('It is 13.');
    expect(sides[0].renderRoot.querySelector('[role="tablist"]')).to.equal(null);
    const second = cmp.renderRoot.querySelectorAll('select')[1] as HTMLSelectElement;
    second.value = 'g-mid';
    second.dispatchEvent(new Event('change'));
    await cmp.updateComplete;
    expect(cmp.right).to.equal('g-mid');
    expect(cmp.renderRoot.querySelectorAll('[data-reward]')[1].textContent).to.equal('0.5');
  });

  it('compare says so when the prompt group has one rollout', async () => {
    const el = await open(pool, 'md-1', 'compare');
    const cmp = el.renderRoot.querySelector('aw-rollout-compare') as AwRolloutCompare;
    await until(() => (cmp.renderRoot.textContent ?? '').includes('nothing to compare'), 'nothing to compare', 100);
  });
});
