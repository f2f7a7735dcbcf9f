/**
 * <aw-tokenizer-panel> over a counted pool and the inspector's "As the trainer sees it": the length histogram with the
 * limit, the template audit by cause (counts equal to SQL over token_counts, a click lists the steps and opens a
 * trajectory), counting progress with Cancel, and the trainer view of a step.
 */
import { expect } from '@esm-bundle/chai';
import type { PoolClient } from '../../src/pool/client';
import { activeTokenizer, type TokenizerService } from '../../src/tokenizer/service';
import '../../src/views/inspector/aw-step-inspector';
import type { AwStepInspector } from '../../src/views/inspector/aw-step-inspector';
import '../../src/views/tokenizer/aw-tokenizer-panel';
import type { AwTokenizerPanel } from '../../src/views/tokenizer/aw-tokenizer-panel';
import { testServices } from './curation-data';
import { importerFor, until } from './helpers';
import { mountTokenizerPanel, tokenizerPool } from './tokenizer-helpers';

describe('<aw-tokenizer-panel> audit, progress and the trainer view in the inspector', function () {
  this.timeout(300_000);
  let pool: PoolClient;
  let svc: TokenizerService;
  let panel: AwTokenizerPanel;
  let unmount: () => Promise<void>;

  before(async () => {
    pool = await tokenizerPool();
    ({ svc, panel, unmount } = mountTokenizerPanel(pool));
    await panel.choose({ bundled: 'qwen3' });
  });
  after(() => unmount());

  it('histogram with the limit, audit counts equal SQL over token_counts, a cause lists its steps and a step opens its trajectory', async () => {
    // a small pool: the main worker alone (every counting worker in use past the threshold: tokenizer-profiles.suite.ts
    // › helpers count only past BYTES_PER_HELPER…)
    const r = await svc.whenCounted();
    expect(r?.workers).to.equal(1);
    panel.limit = 120;
    await panel.refresh();
    await panel.updateComplete;
    const [{ over }] = await pool.rows('SELECT count(*)::INTEGER AS over FROM token_counts WHERE n_tokens > 120');
    expect(over as number).to.be.greaterThan(0);
    const tooLong = panel.audit.find((c) => c.id === 'too_long');
    expect(tooLong?.steps).to.equal(over);
    const svg = panel.shadowRoot?.querySelector('figure svg');
    expect(svg?.getAttribute('aria-label')).to.contain('limit of 120 tokens');
    expect(panel.shadowRoot?.querySelector('figure')?.textContent).to.contain('limit 120');
    // one bar per SQL bin, red from the first bin at or over the limit (drawn as plain SVG, decision 039)
    const bars = [...(svg?.querySelectorAll('rect') ?? [])];
    expect(bars.length).to.equal(panel.histogram.length);
    expect(bars.filter((b) => b.getAttribute('fill') === '#cf222e').length).to.equal(panel.histogram.filter((r) => Number(r.x1) >= 120).length);
    const [{ reasoning }] = await pool.rows('SELECT count(*)::INTEGER AS reasoning FROM token_counts WHERE lost_reasoning > 0');
    expect(panel.audit.find((c) => c.id === 'reasoning')?.steps ?? 0).to.equal(reasoning);
    const button = [...(panel.shadowRoot?.querySelectorAll('button.cause') ?? [])].find((b) => b.textContent?.includes('longer than 120')) as HTMLButtonElement;
    button.click();
    await until(() => panel.causeRows.length > 0, "the audit's causes", 1200);
    await panel.updateComplete;
    expect(panel.causeRows.length).to.equal(Math.min(50, over as number));
    let opened = '';
    panel.addEventListener('aw-trajectory-select', (e) => (opened = (e as CustomEvent<{ trajectoryUid: string }>).detail.trajectoryUid), { once: true });
    ((panel.shadowRoot as ShadowRoot).querySelector('li li button') as HTMLButtonElement).click();
    expect(opened).to.equal(String(panel.causeRows[0].trajectory_uid));
  });

  it('counting shows progress and Cancel stops it; token_counts keeps what it had', async () => {
    // enough long steps that counting takes a while
    const lines = Array.from({ length: 400 }, (_, i) =>
      JSON.stringify({ messages: [{ role: 'user', content: `Question ${i}: ${'lorem ipsum dolor sit amet '.repeat(200)}${i}` }, { role: 'assistant', content: `Answer ${i} ${'consectetur adipiscing '.repeat(150)}` }] }),
    );
    const [before] = await pool.rows('SELECT count(*)::INTEGER AS n FROM token_counts');
    await importerFor(pool).importFiles([new File([lines.join('\n')], 'many.jsonl')]);
    const drawn = panel.shadowRoot?.querySelector('figure svg');
    expect(drawn).to.not.equal(null);
    const run = svc.count();
    await until(() => panel.shadowRoot?.querySelector('progress') !== null, 'the progress bar', 600);
    // the render that shows the progress does not redraw the histogram (redrawing it on every progress update was the
    // longest main-thread task while counting)
    expect(panel.shadowRoot?.querySelector('figure svg')).to.equal(drawn);
    expect(panel.shadowRoot?.querySelector('div[role=status]')?.textContent).to.match(/Counting tokens/);
    const cancel = [...(panel.shadowRoot?.querySelectorAll('button') ?? [])].find((b) => b.textContent === 'Cancel') as HTMLButtonElement;
    cancel.click();
    expect(await run).to.equal(null);
    await until(() => !svc.state().counting, 'the count to end', 1200);
    await panel.updateComplete;
    expect(panel.shadowRoot?.querySelector('progress')).to.equal(null);
    const [after] = await pool.rows('SELECT count(*)::INTEGER AS n FROM token_counts');
    expect(after.n).to.equal(before.n);
  });

  it('the inspector opens "As the trainer sees it" for a step: rendered text, trained tokens, count', async () => {
    await svc.whenCounted();
    const [step] = await pool.rows('SELECT s.trajectory_uid, s.step_id, t.n_tokens FROM steps s JOIN token_counts t USING (step_id) WHERE s.response.content IS NOT NULL ORDER BY s.step_id LIMIT 1');
    expect(activeTokenizer()).to.equal(svc);
    const el = document.createElement('aw-step-inspector') as AwStepInspector;
    el.services = testServices(pool);
    el.trajectoryUid = String(step.trajectory_uid);
    document.body.append(el);
    await until(() => (el.shadowRoot?.querySelectorAll('details.trainer').length ?? 0) > 0, 'the trainer view', 1200);
    const d = [...(el.shadowRoot?.querySelectorAll('details.trainer') ?? [])].find((x) => x.closest('.step')?.querySelector('.metrics')) as HTMLDetailsElement;
    d.open = true;
    await until(() => !!d.querySelector('aw-trainer-view')?.shadowRoot?.querySelector('pre'), 'the rendered template', 1200);
    const view = d.querySelector('aw-trainer-view') as HTMLElement;
    expect(view.shadowRoot?.querySelector('.counts')?.textContent).to.match(/\d+ tokens, \d+ trained/);
    expect(view.shadowRoot?.querySelectorAll('.t.trained').length).to.be.greaterThan(0);
    el.remove();
  });
});
