import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { providerFromModel } from '../../src/ingest/chat-steps';
import { importBytes, importFixture } from './helpers/real-read';

const jsonl = (rows: unknown[]) => new TextEncoder().encode(`${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);

describe('provider from the model name (issue 16 defect 9)', () => {
  it('names the provider for routes and single-provider families only', () => {
    assert.equal(providerFromModel('anthropic/claude-sonnet-4-5-20250929'), 'anthropic');
    assert.equal(providerFromModel('hosted_vllm/Qwen/Qwen3-8B'), 'hosted_vllm');
    assert.equal(providerFromModel('claude-sonnet-4-20250514'), 'anthropic');
    assert.equal(providerFromModel('gpt-4o-mini'), 'openai');
    assert.equal(providerFromModel('o3-mini'), 'openai');
    assert.equal(providerFromModel('gemini-2.5-pro'), 'google');
    assert.equal(providerFromModel('gpt-oss-120b'), null, 'open weights: anyone may serve it');
    assert.equal(providerFromModel('Qwen/Qwen3-8B'), null);
    assert.equal(providerFromModel('meta-llama/Llama-3.1-8B-Instruct'), null);
    assert.equal(providerFromModel(null), null);
  });

  it('fills provider on imported steps whose source names the model but not the provider', async () => {
    const swe = await importFixture('swe-agent-submit.traj');
    assert.ok(swe.steps.every((s) => s.provider === 'anthropic'));
    const mini = await importFixture('mini-swe-agent.traj.json');
    assert.equal(mini.steps[0].provider, 'anthropic', 'litellm route prefix');
    const chat = await importBytes(jsonl([{ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }] }, { model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hey' }] }]));
    assert.deepEqual(chat.steps.map((s) => s.provider), ['openai', null]);
    const harbor = await importFixture('harbor-traces.json');
    assert.equal(harbor.steps[0].provider, 'hosted_vllm', "the source's own model_provider wins");
  });
});

describe('ShareGPT tool-call ids (issue 16 defect 9)', () => {
  it('marks made-up ids as synthetic, and leaves real ids alone', async () => {
    const made = await importBytes(
      jsonl([
        {
          conversations: [
            { from: 'human', value: 'Rate USD→EUR?' },
            { from: 'function_call', value: '{"name": "get_rate", "arguments": {"base": "USD", "target": "EUR"}}' },
            { from: 'observation', value: '{"rate": 0.92}' },
            { from: 'gpt', value: '0.92' },
          ],
          tools: '[{"name": "get_rate", "description": "FX rate", "parameters": {"type": "object"}}]',
        },
      ]),
    );
    assert.equal(made.format, 'sharegpt');
    const s = made.steps[0];
    assert.match(s.response?.tool_calls?.[0].id ?? '', /^sharegpt_call_/);
    assert.equal(s.metadata?.tool_call_ids, 'synthetic');
    assert.equal(made.steps[1].messages.at(-1)?.tool_call_id, s.response?.tool_calls?.[0].id, 'the observation answers the call it follows');
    const real = await importBytes(
      jsonl([{ conversations: [{ from: 'human', value: 'x' }, { from: 'function_call', value: '{"id": "call_real1", "name": "f", "arguments": {}}' }, { from: 'observation', value: 'y' }, { from: 'gpt', value: 'z' }] }]),
    );
    assert.equal(real.steps[0].metadata?.tool_call_ids, undefined);
  });
});
