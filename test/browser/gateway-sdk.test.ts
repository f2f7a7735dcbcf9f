import { expect } from '@esm-bundle/chai';
import { journalOf, startGateway, type TestGateway } from './gateway-harness';

const calculator = {
  type: 'function' as const,
  function: { name: 'calculator', description: 'Evaluate arithmetic', parameters: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] } },
};

describe('gateway through the real SDKs (mock upstream)', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway();
  });
  after(() => gw.close());

  it('OpenAI chat JSON with a tool call, then the tool result, is one trajectory of two steps', async () => {
    const init = await gw.win.fetch(`${gw.base}gateway/init_trajectory`, { method: 'POST', body: JSON.stringify({ prompt_uid: 'p-math-1', agent: 'sdk-test' }) }).then((r) => r.json());
    expect(init.base_url).to.equal(`${gw.base}gateway/${init.trajectory_uid}/p-math-1/v1`);
    const client = new gw.win.sdk.OpenAI({ baseURL: init.base_url, apiKey: 'sk-test-SECRETSECRETSECRET1234', dangerouslyAllowBrowser: true });
    const messages: Parameters<typeof client.chat.completions.create>[0]['messages'] = [
      { role: 'system', content: 'Use the calculator.' },
      { role: 'user', content: 'What is 17 * 23?' },
    ];
    const r1 = await client.chat.completions.create({ model: 'mock', messages, tools: [calculator] });
    const call = r1.choices[0].message.tool_calls![0];
    expect(call.type === 'function' && call.function.name).to.equal('calculator');
    messages.push(r1.choices[0].message, { role: 'tool', tool_call_id: call.id, content: '391' });
    const r2 = await client.chat.completions.create({ model: 'mock', messages, tools: [calculator] });
    expect(r2.choices[0].message.content).to.equal('The answer is 391.');
    const done = await gw.win.fetch(`${init.base_url}/complete_trajectory`, { method: 'POST', body: JSON.stringify({ reward: 1 }) }).then((r) => r.json());
    expect(done.steps).to.equal(2);
    const steps = (await journalOf(init.trajectory_uid, 2)).map((e) => e.step);
    expect(steps.map((s) => s.step_index)).to.deep.equal([0, 1]);
    expect(steps[0].response?.tool_calls?.[0].function.name).to.equal('calculator');
    expect(steps[0].finish_reason).to.equal('tool_calls');
    expect(steps[1].messages.map((m) => m.role)).to.deep.equal(['system', 'user', 'assistant', 'tool']);
    expect(steps[1].response_text).to.equal('The answer is 391.');
    expect(steps[1].is_last).to.equal(true);
    expect(steps[1].reward).to.equal(1);
    expect(steps[0].is_last).to.equal(false);
    expect(steps.every((s) => s.prompt_uid === 'p-math-1' && s.agent === 'sdk-test' && s.source === 'capture' && s.source_format === 'gateway')).to.equal(true);
  });

  it('OpenAI chat streaming with include_usage: the agent sees the stream, the record has the whole message', async () => {
    const client = new gw.win.sdk.OpenAI({ baseURL: gw.baseUrl, apiKey: 'sk-test-SECRETSECRETSECRET1234', dangerouslyAllowBrowser: true });
    const stream = await client.chat.completions.create({ model: 'mock', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Tell me about streaming gateways please' }] });
    let text = '';
    let chunks = 0;
    let usage = 0;
    for await (const c of stream) {
      chunks++;
      text += c.choices[0]?.delta?.content ?? '';
      if (c.usage) usage = c.usage.completion_tokens;
    }
    expect(chunks).to.be.greaterThan(5);
    expect(text).to.match(/^This is the mock model answering: Tell me about/);
    expect(usage).to.be.greaterThan(0);
    const all = (await journalOfText(text)).step;
    expect(all.response_text).to.equal(text);
    expect(all.completion_tokens).to.equal(usage);
    expect(all.ttft_ms).to.be.a('number');
    expect(all.metadata?.stream).to.equal('true');
  });

  it('OpenAI streaming tool calls are reassembled; the follow-up call joins the same trajectory on /gateway/v1', async () => {
    const client = new gw.win.sdk.OpenAI({ baseURL: gw.baseUrl, apiKey: 'k', dangerouslyAllowBrowser: true });
    const user = `What is ${Date.now() % 1000} + 7?`;
    const stream = await client.chat.completions.create({ model: 'mock', stream: true, messages: [{ role: 'user', content: user }], tools: [calculator] });
    let streamed = 0;
    for await (const c of stream) streamed += c.choices[0]?.delta?.tool_calls?.length ?? 0;
    expect(streamed).to.be.greaterThan(0);
    const s1 = (await waitFor((e) => e.step.messages.at(-1)?.content === user && e.step.step_index === 0)).step;
    const tc = s1.response!.tool_calls![0];
    expect(tc.function.name).to.equal('calculator');
    expect(JSON.parse(tc.function.arguments).expression).to.match(/\d+ \+ 7/);
    const r2 = await client.chat.completions.create({
      model: 'mock',
      messages: [{ role: 'user', content: user }, { role: 'assistant', content: null, tool_calls: [{ id: tc.id!, type: 'function', function: tc.function }] }, { role: 'tool', tool_call_id: tc.id!, content: '42' }],
      tools: [calculator],
    });
    expect(r2.choices[0].message.content).to.equal('The answer is 42.');
    const steps = (await journalOf(s1.trajectory_uid, 2)).map((e) => e.step);
    expect(steps.length).to.equal(2);
    expect(steps[1].response_text).to.equal('The answer is 42.');
  });

  it('Anthropic messages JSON and streaming, with tool_use and thinking', async () => {
    const client = new gw.win.sdk.Anthropic({ baseURL: gw.baseUrl.replace(/\/v1$/, ''), apiKey: 'sk-ant-api03-SECRETSECRETSECRET', dangerouslyAllowBrowser: true });
    const tools = [{ name: 'calculator', description: 'arithmetic', input_schema: { type: 'object' as const, properties: { expression: { type: 'string' } } } }];
    const m1 = await client.messages.create({ model: 'mock', max_tokens: 256, system: 'Be exact.', messages: [{ role: 'user', content: 'What is 6 * 7?' }], tools });
    const use = m1.content.find((b) => b.type === 'tool_use');
    expect(use && use.type === 'tool_use' && use.name).to.equal('calculator');
    const stream = client.messages.stream({
      model: 'mock', max_tokens: 256, system: 'Be exact.', tools, thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [{ role: 'user', content: 'What is 6 * 7?' }, { role: 'assistant', content: m1.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: (use as { id: string }).id, content: '42' }] }],
    });
    const deltas: string[] = [];
    stream.on('text', (t) => deltas.push(t));
    const m2 = await stream.finalMessage();
    expect(deltas.length).to.be.greaterThan(2);
    expect(m2.content.find((b) => b.type === 'text')).to.deep.include({ text: 'The answer is 42.' });
    const s1 = (await waitFor((e) => e.step.provider === 'mock' && e.step.metadata?.api === 'messages' && e.step.response?.tool_calls?.[0]?.id === (use as { id: string }).id)).step;
    const steps = (await journalOf(s1.trajectory_uid, 2)).map((e) => e.step);
    expect(steps.length).to.equal(2);
    expect(steps[1].response_text).to.equal('The answer is 42.');
    expect(steps[1].response?.reasoning).to.equal('Let me work this out step by step.');
    expect(steps[1].finish_reason).to.equal('stop');
    expect(steps[0].finish_reason).to.equal('tool_calls');
    expect(steps[1].messages.map((m) => m.role)).to.deep.equal(['system', 'user', 'assistant', 'tool']);
  });

  it('OpenAI responses API: a previous_response_id chain is one trajectory (JSON and stream)', async () => {
    const client = new gw.win.sdk.OpenAI({ baseURL: gw.baseUrl, apiKey: 'k', dangerouslyAllowBrowser: true });
    const tag = `resp-${Date.now()}`;
    const r1 = await client.responses.create({ model: 'mock', instructions: 'Be brief.', input: `Say hi ${tag}` });
    expect(r1.output_text).to.match(/mock model answering: Say hi/);
    const stream = await client.responses.create({ model: 'mock', previous_response_id: r1.id, input: 'and what is 2 + 2?', stream: true });
    let text = '';
    for await (const ev of stream) if (ev.type === 'response.output_text.delta') text += ev.delta;
    expect(text).to.equal('The answer is 4.');
    const s1 = (await waitFor((e) => e.step.metadata?.response_id === r1.id)).step;
    const steps = (await journalOf(s1.trajectory_uid, 2)).map((e) => e.step);
    expect(steps.length).to.equal(2);
    expect(steps[1].messages.map((m) => m.content)).to.deep.equal(['Be brief.', `Say hi ${tag}`, r1.output_text, 'and what is 2 + 2?']);
    expect(steps[1].response_text).to.equal('The answer is 4.');
  });

  it('unknown routes answer a clear JSON error', async () => {
    const r = await gw.win.fetch(`${gw.base}gateway/v1/embeddings`, { method: 'POST', body: '{}' });
    expect(r.status).to.equal(404);
    const j = await r.json();
    expect(j.error.type).to.equal('gateway_route_not_found');
    expect(j.error.message).to.match(/no gateway route for v1\/embeddings/);
    const r2 = await gw.win.fetch(`${gw.base}gateway/v1/complete_trajectory`, { method: 'POST', body: '{}' });
    expect((await r2.json()).error.message).to.match(/needs a trajectory/);
  });
});

async function waitFor(pred: (e: import('../../src/gateway/core/journal').JournalEntry) => boolean, timeoutMs = 5000) {
  const { allJournal } = await import('./gateway-harness');
  const t0 = Date.now();
  for (;;) {
    const hit = (await allJournal()).find(pred);
    if (hit) return hit;
    if (Date.now() - t0 > timeoutMs) throw new Error('journal entry did not appear');
    await new Promise((ok) => setTimeout(ok, 30));
  }
}

function journalOfText(text: string) {
  return waitFor((e) => e.step.response_text === text);
}
