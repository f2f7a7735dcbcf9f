/**
 * Reasoning the source holds no text of (issue 32 item 5): a Responses reasoning item with only
 * `encrypted_content`, Anthropic `redacted_thinking`, Inspect's redacted reasoning. No placeholder text is
 * stored as reasoning; the step says `metadata.reasoning_hidden` ('encrypted' / 'redacted'), on every path
 * that reads such a response (logs, recordings, traces).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { anthropic } from '../../src/ingest/normalizers/anthropic';
import { inspect } from '../../src/ingest/normalizers/inspect';
import { langfuse } from '../../src/ingest/normalizers/langfuse';
import { openaiResponses } from '../../src/ingest/normalizers/openai-responses';
import { wireStep } from '../../src/ingest/normalizers/wire-call';
import { Api } from '../../src/wire';
import { runOne } from './helpers/formats';

const redacted = { type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw' }, { type: 'text', text: 'Done.' }], stop_reason: 'end_turn', usage: { input_tokens: 10, output_tokens: 5 } };
const encrypted = { id: 'resp_1', object: 'response', status: 'completed', model: 'o4-mini', output: [{ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAAABo…' }, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: '42' }] }] };

describe('hidden reasoning', () => {
  it('Anthropic log: redacted thinking is no reasoning text, and the step says it was hidden', () => {
    const s = runOne(anthropic, { request: { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'go' }] }, response: redacted });
    assert.deepEqual([s.response?.content, s.response?.reasoning ?? null, s.metadata?.reasoning_hidden], ['Done.', null, 'redacted']);
  });

  it('Responses log and a recorded exchange: encrypted reasoning without a summary', () => {
    const s = runOne(openaiResponses, { request: { model: 'o4-mini', input: 'Answer?' }, response: encrypted });
    assert.deepEqual([s.response?.content, s.response?.reasoning ?? null, s.metadata?.reasoning_hidden], ['42', null, 'encrypted']);
    const w = wireStep(Api.responses, { model: 'o4-mini', input: 'Answer?' }, encrypted);
    assert.equal(w.metadata?.reasoning_hidden, 'encrypted');
    assert.equal(wireStep(Api.messages, { model: 'c', messages: [] }, redacted).metadata?.reasoning_hidden, 'redacted');
  });

  it('a trace export whose output is such a response says so too', () => {
    const s = runOne(langfuse, { id: 'o1', traceId: 't1', type: 'GENERATION', startTime: '2025-01-01T00:00:00Z', input: { messages: [{ role: 'user', content: 'go' }] }, output: redacted });
    assert.deepEqual([s.response?.content, s.metadata?.reasoning_hidden], ['Done.', 'redacted']);
  });

  it('Inspect: a redacted reasoning part of the output', () => {
    const s = runOne(inspect, {
      id: 's1',
      epoch: 1,
      input: 'go',
      target: 'x',
      scores: {},
      messages: [],
      events: [
        {
          event: 'model',
          model: 'anthropic/claude-sonnet-4-5',
          input: [{ role: 'user', content: 'go' }],
          output: { model: 'claude-sonnet-4-5', choices: [{ message: { role: 'assistant', content: [{ type: 'reasoning', reasoning: 'EmwKAhgB', redacted: true }, { type: 'text', text: 'Done.' }] }, stop_reason: 'stop' }] },
        },
      ],
    });
    assert.deepEqual([s.response?.content, s.response?.reasoning ?? null, s.metadata?.reasoning_hidden], ['Done.', null, 'redacted']);
  });
});
