import { expect } from '@esm-bundle/chai';
import type { StepRecord } from '../../src/contract/step';
import type { PoolClient } from '../../src/pool/client';
import '../../src/views/dashboard/aw-dashboard';
import '../../src/views/inspector/aw-step-inspector';
import { type AwStepInspector, CLIP } from '../../src/views/inspector/aw-step-inspector';
import { insertSteps, testServices, trajectorySteps } from './curation-data';
import { emptyPagePool } from './helpers';

const IMG = '<img src=x onerror="window.__xss2=1">';

/** Three steps of one agent loop, as OpenAI-style chat records: two tool calls, then the answer. */
function agentSteps(): StepRecord[] {
  const steps = trajectorySteps({ uid: 'run-AbC-01', prompt: 'pR-Mixed', question: 'Weather in Oslo?', steps: 3, reward: 1 });
  steps[0].response!.tool_calls![0] = { id: 'call_AbC1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo","units":"C"}' } };
  steps[1].messages = [...steps[0].messages, steps[0].response!, { role: 'tool', content: `{"temp":4,"note":"${IMG.replaceAll('"', '\\"')}"}`, tool_call_id: 'call_AbC1' }];
  steps[1].response!.tool_calls![0] = { id: 'call_XyZ2', type: 'function', function: { name: 'get_time', arguments: '{"tz":"Europe/Oslo"}' } };
  steps[2].messages = [...steps[1].messages, steps[1].response!, { role: 'tool', content: '12:00', tool_call_id: 'call_XyZ2' }];
  for (const s of steps) {
    s.prompt_tokens = null;
    s.completion_tokens = null;
    s.latency_ms = null;
  }
  steps[2].finish_reason = null;
  return steps;
}

/** Two tool calls, the first failed (is_error, schema 4: its text as the tool wrote it, no prefix), the second answered. */
function failedToolSteps(): StepRecord[] {
  const steps = trajectorySteps({ uid: 'run-Err-01', prompt: 'pR-Err', question: 'Read the config', steps: 3, reward: 0 });
  steps[0].response!.tool_calls![0] = { id: 'call_Rd1', type: 'function', function: { name: 'read_file', arguments: '{"path":"/etc/app.yml"}' } };
  steps[1].messages = [...steps[0].messages, steps[0].response!, { role: 'tool', content: 'ENOENT: no such file', tool_call_id: 'call_Rd1', is_error: true }];
  steps[1].response!.tool_calls![0] = { id: 'call_Ls2', type: 'function', function: { name: 'list_dir', arguments: '{"path":"/etc"}' } };
  steps[2].messages = [...steps[1].messages, steps[1].response!, { role: 'tool', content: 'app.yaml', tool_call_id: 'call_Ls2', is_error: false }];
  // no token counts (the dashboard test below reads '— / —' over the whole pool)
  for (const s of steps) [s.prompt_tokens, s.completion_tokens] = [null, null];
  return steps;
}

async function open(pool: PoolClient, uid: string): Promise<AwStepInspector> {
  const el = document.createElement('aw-step-inspector');
  el.services = testServices(pool);
  el.trajectoryUid = uid;
  document.body.append(el);
  for (let i = 0; i < 60 && !el.loadedSteps.length; i++) await new Promise((r) => setTimeout(r, 50));
  await el.updateComplete;
  return el;
}

describe('<aw-step-inspector> reading a trajectory', () => {
  let pool: PoolClient;
  before(async () => {
    pool = await emptyPagePool();
    await insertSteps(pool, agentSteps(), 'agent.jsonl');
    await insertSteps(pool, failedToolSteps(), 'failed-tool.jsonl');
  });
  afterEach(() => {
    for (const e of document.querySelectorAll('aw-step-inspector')) e.remove();
  });

  it('shows only what is new in each step, earlier messages behind "N earlier messages"', async () => {
    const el = await open(pool, 'run-AbC-01');
    const root = el.renderRoot as ShadowRoot;
    const summaries = [...root.querySelectorAll('details.earlier summary')].map((s) => s.textContent?.trim());
    expect(summaries).to.deep.equal(['3 earlier messages', '5 earlier messages']);
    expect(root.querySelectorAll('.turn.system').length).to.equal(1);
    const d = root.querySelector('details.earlier') as HTMLDetailsElement;
    d.open = true;
    await new Promise((r) => setTimeout(r, 50));
    await el.updateComplete;
    expect(d.querySelectorAll('.turn').length).to.equal(3);
  });

  it('pairs each tool call with its result, pretty-printed, with a raw toggle; all as text', async () => {
    const el = await open(pool, 'run-AbC-01');
    const root = el.renderRoot as ShadowRoot;
    const calls = [...root.querySelectorAll('.call')];
    expect(calls.length).to.equal(2);
    // pretty: a foldable tree, each object a <details> whose summary counts its keys
    const args = calls[0].querySelector('.args') as HTMLElement;
    expect(args.querySelector('details summary')?.textContent).to.equal('{…} 2 keys');
    expect([...args.querySelectorAll('.kv')].map((k) => k.textContent)).to.deep.equal(['"city": "Oslo"', '"units": "C"']);
    expect([...calls[0].querySelectorAll('.pair .result .kv')].map((k) => k.textContent)).to.include('"temp": 4');
    expect(calls[1].querySelector('.pair .result')?.textContent).to.equal('12:00');
    expect(root.querySelectorAll('img, script').length).to.equal(0);
    expect(calls[0].textContent).to.include('<img src=x onerror=');
    expect((window as { __xss2?: unknown }).__xss2).to.equal(undefined);
    const toggle = [...root.querySelectorAll('button')].find((b) => b.textContent?.startsWith('JSON:')) as HTMLButtonElement;
    toggle.click();
    await el.updateComplete;
    expect(root.querySelector('.call .args')?.textContent).to.equal('{"city":"Oslo","units":"C"}');
    expect(toggle.getAttribute('aria-pressed')).to.equal('false');
  });

  it('marks a failed tool result (is_error) in words, in the conversation and the timeline; an answered one has no mark', async () => {
    const el = await open(pool, 'run-Err-01');
    const root = el.renderRoot as ShadowRoot;
    const calls = [...root.querySelectorAll('.call')];
    expect(calls.length).to.equal(2);
    const [failed, answered] = calls.map((c) => c.querySelector('.pair') as HTMLElement);
    expect(failed.getAttribute('aria-label')).to.equal('Result of read_file: error');
    expect(failed.querySelector('.tool-error')?.textContent).to.equal('✕ error');
    expect(failed.querySelector('.tool-error [aria-hidden="true"]')?.textContent, 'the symbol is not read out').to.equal('✕ ');
    expect(failed.querySelector('.result')?.textContent, 'the text as the tool wrote it').to.equal('ENOENT: no such file');
    expect(answered.getAttribute('aria-label')).to.equal('Result of list_dir');
    expect(answered.querySelector('.tool-error')).to.equal(null);
    // the tool turns of the conversation (expand the earlier messages of the last step to see both)
    for (const d of root.querySelectorAll('details.earlier')) (d as HTMLDetailsElement).open = true;
    await new Promise((r) => setTimeout(r, 50));
    await el.updateComplete;
    const toolTurns = [...root.querySelectorAll('.turn.tool')].map((t) => (t.querySelector('.role') as HTMLElement).textContent ?? '');
    expect(toolTurns.some((t) => t.includes('read_file') && t.includes('error'))).to.equal(true);
    expect(toolTurns.filter((t) => t.includes('list_dir')).every((t) => !t.includes('error'))).to.equal(true);
    el.setView('timeline');
    await el.updateComplete;
    const rows = [...root.querySelectorAll('table.timeline tr.tool')].map((r) => r.textContent?.replace(/\s+/g, ' ').trim());
    expect(rows).to.deep.equal(['↳ tool read_filecall_Rd1 · result recorded✕ error', '↳ tool list_dircall_Ls2 · result recorded']);
  });

  it('never upper-cases ids and shows unknown values as —', async () => {
    const el = await open(pool, 'run-AbC-01');
    const root = el.renderRoot as ShadowRoot;
    // biome-ignore lint/performance/useDomNodeTextContent: innerText applies CSS text-transform, which is what this checks
    const visible = (root.querySelector('[role="list"]') as HTMLElement).innerText;
    for (const id of ['call_AbC1', 'call_XyZ2', 'get_weather']) expect(visible).to.include(id);
    expect(visible).not.to.include('CALL_ABC1');
    // biome-ignore lint/performance/useDomNodeTextContent: innerText applies CSS text-transform, which is what this checks
    const header = (root.querySelector('header') as HTMLElement).innerText;
    expect(header).to.include('run-AbC-01');
    expect(header).to.include('pR-Mixed');
    // biome-ignore lint/performance/useDomNodeTextContent: innerText applies CSS text-transform, which is what this checks
    const metrics = [...root.querySelectorAll('.metrics')].map((m) => (m as HTMLElement).innerText);
    expect(metrics[0]).to.include('tokens —');
    expect(metrics[0]).to.include('latency —');
    expect(metrics[2]).to.include('finish —');
    expect((root.textContent ?? '').includes('∅')).to.equal(false);
  });

  it('the dashboard shows unknown token counts as — / —, not 0 / 0', async () => {
    const el = document.createElement('aw-dashboard');
    el.services = testServices(pool);
    document.body.append(el);
    for (let i = 0; i < 100 && el.summary === null; i++) await new Promise((r) => setTimeout(r, 50));
    await el.loaded;
    const card = el.renderRoot.querySelector('[aria-label="tokens in / out"] b');
    expect(card?.textContent).to.equal('— / —');
    el.remove();
  });

  it('a huge message shows its first CLIP characters and a "show all" button, not megabytes of text at once', async () => {
    const big = trajectorySteps({ uid: 'huge-1', prompt: 'p-huge', question: `${'x'.repeat(3_000_000)} END-OF-HUGE`, reward: 1 });
    await insertSteps(pool, big, 'huge.jsonl');
    const el = await open(pool, 'huge-1');
    const root = el.renderRoot as ShadowRoot;
    const user = [...root.querySelectorAll('.turn.user .content')].at(-1) as HTMLElement;
    expect(user.textContent!.length).to.be.lessThan(CLIP + 200);
    expect(user.textContent).to.not.include('END-OF-HUGE');
    const more = user.querySelector('button.show-all') as HTMLButtonElement;
    expect(more.getAttribute('aria-label')).to.equal(`Show all ${(3_000_000 + ' END-OF-HUGE'.length).toLocaleString('en-US')} characters`);
    more.click();
    await el.updateComplete;
    const whole = [...root.querySelectorAll('.turn.user .content')].at(-1) as HTMLElement;
    expect(whole.textContent).to.include('END-OF-HUGE');
    expect(whole.querySelector('button.show-all')).to.equal(null);
  });
});
