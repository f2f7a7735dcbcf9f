// Issue 5 "Done means", on the built app: no key, live capture, an agent config edited and run (the 4 rollouts and
// GRPO-ready rl_steps: gateway-capture.test.mjs).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, uniquePool, waitForQuery } from './harness.mjs';

/**
 * One page and one pool for the gateway's flows, in order (a page boot is the costliest step of an e2e test): the live
 * call list starts empty → an edited agent config. Each test reads only its own
 * trajectories, and waits until every one of its calls is stored before the next starts.
 */
let app;
let page;
before(async () => {
  app = await startApp();
  page = await app.open(uniquePool('gw-app'));
});
after(async () => {
  await page?.close();
  await app?.close();
});

const inList = (ids) => ids.map((t) => `'${t}'`).join(', ');

describe('captured calls in the Gateway tab', () => {
  it('lists each call as it arrives (method, model, status, latency, tokens) and opens it in the inspector from the keyboard', async () => {
    await page.evaluate(() => document.querySelector('aw-app').selectTab('gateway'));
    const calls = page.locator('aw-gateway-calls');
    await calls.getByText('No captured calls yet').waitFor();
    const base = await page.evaluate(() => window.workbench.gatewayBaseUrl());
    const answer = await page.evaluate(async (b) => {
      const r = await fetch(`${b}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'What is 2+3?' }] }) });
      return { status: r.status, body: await r.json() };
    }, base);
    assert.equal(answer.status, 200);
    const row = calls.locator('tbody tr').first();
    // the status cell (4th) reads 'saving…' until the pool has the step, then the HTTP status (a bare '200' may be in other cells)
    await row.locator('td:nth-child(4)', { hasText: /^200$/ }).waitFor({ timeout: 30000 });
    const cells = await row.locator('td').allTextContents();
    assert.equal(cells[1], 'POST /v1/chat/completions');
    assert.equal(cells[2], 'gpt-4o-mini');
    assert.equal(cells[3], '200');
    assert.match(cells[4], /^\d[\d,]* ms$/);
    const [step] = await waitForQuery(page, `SELECT trajectory_uid, prompt_tokens, completion_tokens FROM steps WHERE source = 'capture'`, (r) => r.length === 1);
    assert.equal(cells[5], `${step.prompt_tokens ?? '—'} → ${step.completion_tokens ?? '—'}`);
    assert.equal(cells[6], step.trajectory_uid);
    await row.focus();
    await page.keyboard.press('Enter');
    const inspector = calls.locator('aw-step-inspector');
    await inspector.locator('header h2', { hasText: step.trajectory_uid }).waitFor();
    await inspector.getByText('What is 2+3?').first().waitFor();
    await page.keyboard.press('Escape');
  });
});

// The built-in agent's 4 rollouts → GRPO groups → rl_steps read back natively: test/e2e/gateway-capture.test.mjs › the
// white-box agent in a worker, from a background tab (its run of 12 trajectories, exported there); the built-in
// calculator-agent and math tasks by name: the agent config test below and test/e2e/durability.test.mjs.

describe('agent configs in the app', () => {
  it('an agent config is edited in the Gateway tab, saved in the browser and used by the next run', async () => {
    await page.evaluate(() => document.querySelector('aw-app').selectTab('gateway'));
    await page.getByText('Edit agent and task configs').click();
    await page.getByLabel('Config to edit').selectOption({ label: 'agent: calculator-agent (built-in)' });
    const text = await page.getByLabel('Config text (YAML or JSON)').inputValue();
    assert.match(text, /name:\s*calculator-agent/);
    await page.getByLabel('Config text (YAML or JSON)').fill(text.replace(/name:\s*calculator-agent/, 'name: edited-agent'));
    await page.getByRole('button', { name: 'Save config' }).click();
    await page.getByText('Saved agent “edited-agent” in this browser.').waitFor();
    const broken = text.replace(/name:\s*calculator-agent/, 'name: [unclosed');
    await page.getByLabel('Config to edit').selectOption({ label: 'agent: edited-agent' });
    await page.getByLabel('Config text (YAML or JSON)').fill(broken);
    await page.getByRole('button', { name: 'Save config' }).click();
    await page.locator('aw-gateway [role=alert]').waitFor();
    const run = await page.evaluate(() => window.workbench.runAgent({ agent: 'edited-agent', tasks: 'math', rollouts: 1 }).then((x) => x.results.map((r) => [r.trajectory_uid, r.turns])));
    assert.ok(run.length >= 1);
    // every turn's step stored before the page closes: a capture still in the gateway's journal when its page
    // closes is handed to the next page that opens (another test's pool)
    const turns = run.reduce((a, [, n]) => a + n, 0);
    const ids = inList(run.map(([t]) => t));
    await waitForQuery(page, `SELECT count(*)::INT AS n FROM steps WHERE trajectory_uid IN (${ids})`, (rows) => rows[0].n >= turns);
    const agents = await page.evaluate((sql) => window.workbench.query(sql), `SELECT DISTINCT agent FROM steps WHERE trajectory_uid IN (${ids})`);
    assert.deepEqual(agents.map((a) => a.agent), ['edited-agent']);
  });
});
