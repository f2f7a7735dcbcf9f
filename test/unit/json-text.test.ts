/**
 * Text that looks like JSON stays text (issue 32): parseJsonDeep decodes only JSON text of an object or array
 * (also encoded twice, as logs write it), and the readers of fields that hold text or a structure (Responses
 * `input`, Anthropic content, a recorded answer) keep a string that is not the structure they take.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseJsonDeep } from '../../src/contract/json';
import { openaiResponses } from '../../src/ingest/normalizers/openai-responses';
import { anthropicRequest } from '../../src/wire/anthropic';
import { itemsToMessages } from '../../src/wire/openai-responses';
import { runNormalizer } from './helpers/formats';

describe('JSON text', () => {
  it('parseJsonDeep: objects and arrays (once or twice encoded) are decoded; a JSON string literal keeps its quotes; other text is kept', () => {
    assert.deepEqual(parseJsonDeep('{"a":1}'), { a: 1 });
    assert.deepEqual(parseJsonDeep(JSON.stringify(JSON.stringify([1, 2]))), [1, 2]);
    assert.equal(parseJsonDeep('"yes"'), '"yes"');
    assert.equal(parseJsonDeep(JSON.stringify('"yes"')), JSON.stringify('"yes"'));
    assert.equal(parseJsonDeep('{not json'), '{not json');
    assert.equal(parseJsonDeep('plain'), 'plain');
  });

  it('a Responses request whose input is a JSON document keeps it as the user text, so prompts stay apart', () => {
    assert.deepEqual(itemsToMessages('{"task": "sort", "items": [3, 1, 2]}'), [{ role: 'user', content: '{"task": "sort", "items": [3, 1, 2]}' }]);
    assert.deepEqual(itemsToMessages('[{"role": "user", "content": "hi"}]'), [{ role: 'user', content: 'hi' }], 'an item list as JSON text is still a list');
    const record = (input: string, line: number) => ({
      value: { request: { model: 'gpt-4.1', instructions: 'Answer in JSON.', input }, response: { id: `resp_${line}`, object: 'response', status: 'completed', model: 'gpt-4.1', output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: '"ok"' }] }] } },
      line,
      index: line - 1,
    });
    const rows = runNormalizer(openaiResponses, [record('{"task": "sort"}', 1), record('{"task": "sum"}', 2)]);
    assert.deepEqual(rows.map((r) => r.messages.at(-1)?.content), ['{"task": "sort"}', '{"task": "sum"}']);
    assert.notEqual(rows[0].prompt_uid, rows[1].prompt_uid, 'two prompts, two groups');
    assert.equal(rows[0].response?.content, '"ok"', 'an answer keeps its quotes');
  });

  it('Anthropic content that is text reading as a JSON list stays text; a block list as JSON text is still blocks', () => {
    const req = anthropicRequest({ model: 'claude', messages: [{ role: 'user', content: '["a", "b"]' }, { role: 'assistant', content: '[1, 2]' }, { role: 'user', content: '[{"type":"text","text":"blocks"}]' }] });
    assert.deepEqual(req.messages.map((m) => m.content), ['["a", "b"]', '[1, 2]', 'blocks']);
  });
});
