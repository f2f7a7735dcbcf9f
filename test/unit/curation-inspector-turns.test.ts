import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatMessage } from '../../src/contract/step';
import { conversationTurns, type InspectorStep, prettyJson, toolCalls, toolResults } from '../../src/views/inspector/turns';

const sys: ChatMessage = { role: 'system', content: 'sys' };
const user: ChatMessage = { role: 'user', content: 'q' };
const call: ChatMessage = { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'calc', arguments: '{"x":1}' } }] };
const tool: ChatMessage = { role: 'tool', content: '1', tool_call_id: 'c1' };
const final: ChatMessage = { role: 'assistant', content: 'done' };

function step(i: number, messages: ChatMessage[], response: ChatMessage | null): InspectorStep {
  return {
    step_id: `t:${i}`, trajectory_uid: 't', prompt_uid: 'p', step_index: i, is_last: null, messages, response, reward: null, prompt_tokens: null,
    completion_tokens: null, latency_ms: null, finish_reason: null, status: 'ok', error: null, model: null, agent: null, raw: null,
    quality: null, trainable: null, tags: null, note: null,
  };
}

describe('inspector conversation turns', () => {
  it('shows each message once when the history grows step by step', () => {
    const turns = conversationTurns([step(0, [sys, user], call), step(1, [sys, user, call, tool], final)]);
    assert.deepEqual(
      turns.map((t) => (t.kind === 'earlier' ? `earlier:${t.step}:${t.messages.length}` : `${t.kind}:${t.step}:${t.message?.role}`)),
      ['context:0:system', 'context:0:user', 'response:0:assistant', 'earlier:1:3', 'context:1:tool', 'response:1:assistant'],
    );
    assert.equal(turns.some((t) => t.kind === 'context' && t.restated), false);
  });

  it('restates a context that does not continue the previous step, and keeps failed steps', () => {
    const turns = conversationTurns([step(0, [sys, user], null), step(1, [user], final)]);
    assert.deepEqual(
      turns.map((t) => `${t.kind}:${t.step}:${t.kind === 'context' ? t.restated : '-'}`),
      ['context:0:false', 'context:0:false', 'response:0:-', 'context:1:true', 'response:1:-'],
    );
  });

  it('pairs each tool call with the result that carries its tool_call_id', () => {
    const other: ChatMessage = { role: 'tool', content: '{"n":2}', tool_call_id: 'c9' };
    const turns = conversationTurns([step(0, [sys, user], call), step(1, [sys, user, call, other, tool], final)]);
    assert.equal(toolResults(turns).get('c1'), tool);
    assert.equal(toolResults(turns).get('c9'), other);
    assert.equal(toolCalls(turns).get('c1'), 'calc');
    assert.equal(toolCalls(turns).has('c9'), false);
  });

  it('pretty-prints JSON arguments and leaves other text as it is', () => {
    assert.equal(prettyJson('{"a":[1,2]}'), '{\n  "a": [\n    1,\n    2\n  ]\n}');
    assert.equal(prettyJson('not json {'), 'not json {');
    assert.equal(prettyJson(null), '');
  });
});
