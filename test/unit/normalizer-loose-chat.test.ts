/**
 * Loose chat messages from tracing tools (src/ingest/normalizers/loose-chat.ts over src/wire/shapes.ts), used
 * by Langfuse, Phoenix, SWE-agent, ATIF, Harbor and more: role aliases, LangChain serialised messages,
 * `{messages|input|prompt|inputs}` wrappers, batches, Anthropic blocks, completion / choices / generations
 * outputs, and metadata values with credentials. Text that reads as JSON but is not the structure a field
 * takes stays text (issue 32).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { looseMessage, looseMessages, looseResponse, normalRole, safeMetaValue } from '../../src/ingest/normalizers/loose-chat';

const SECRET = 'sk-live-0123456789abcdefghijklmnop';
const pairs = (ms: { role: string; content: string | null }[]) => ms.map((m) => [m.role, m.content]);

describe('loose chat', () => {
  it('normalRole: each alias, other roles lower-cased, the fallback for none', () => {
    const aliases: Record<string, string> = {
      human: 'user', HumanMessage: 'user', ai: 'assistant', AIMessage: 'assistant', AIMessageChunk: 'assistant', model: 'assistant', bot: 'assistant', gpt: 'assistant', agent: 'assistant',
      SystemMessage: 'system', ToolMessage: 'tool', function: 'tool', observation: 'tool', USER: 'user', Developer: 'developer',
    };
    for (const [k, v] of Object.entries(aliases)) assert.equal(normalRole(k), v, k);
    assert.equal(normalRole(null), 'user');
    assert.equal(normalRole('', 'assistant'), 'assistant');
    assert.equal(normalRole(undefined, 'tool'), 'tool');
  });

  it('looseMessage: text, JSON text, numbers, nothing; LangChain constructors; type as role unless a text part', () => {
    assert.deepEqual(looseMessage('plain'), [{ role: 'user', content: 'plain' }]);
    assert.deepEqual(looseMessage(7), [{ role: 'user', content: '7' }]);
    assert.deepEqual(looseMessage(null), []);
    assert.deepEqual(looseMessage(undefined), []);
    assert.deepEqual(pairs(looseMessage(JSON.stringify({ role: 'assistant', content: 'as json' }))), [['assistant', 'as json']]);
    const lc = { lc: 1, type: 'constructor', id: ['langchain', 'schema', 'messages', 'SystemMessage'], kwargs: { content: 'Be terse.' } };
    assert.deepEqual(pairs(looseMessage(lc)), [['system', 'Be terse.']]);
    assert.deepEqual(pairs(looseMessage({ kwargs: { content: 'x' }, id: 'not-a-list', role: 'ai' })), [['assistant', null]], 'kwargs without an id list is not LangChain');
    assert.deepEqual(pairs(looseMessage({ type: 'human', content: 'hi' })), [['user', 'hi']]);
    assert.deepEqual(pairs(looseMessage({ type: 'text', text: 'part' })), [['user', 'part']], 'a text part is not a role');
    assert.deepEqual(pairs(looseMessage({ role: 'ai', type: 'human', content: 'x' })), [['assistant', 'x']], 'role first');
    assert.deepEqual(pairs(looseMessage({ type: 5, content: 'x' })), [['user', 'x']]);
    assert.deepEqual(pairs(looseMessage({ role: 'user', content: { nested: true } })), [['user', '{"nested":true}']]);
    assert.deepEqual(pairs(looseMessage({ role: 'user', content: null, text: 'ignored' })), [['user', null]]);
    assert.deepEqual(pairs(looseMessage({ role: 'user', content: '["a","b"]' })), [['user', '["a","b"]']], 'text that reads as a JSON list is text');
    assert.deepEqual(pairs(looseMessage({ role: 'user', content: '[{"type":"text","text":"a"}]' })), [['user', 'a']], 'a part list as JSON text is parts');
  });

  it('looseMessage: Anthropic tool_use / tool_result / thinking blocks (also as JSON text) go through the Anthropic reader', () => {
    const use = looseMessage({ role: 'assistant', content: [{ type: 'thinking', thinking: 'hm' }, { type: 'tool_use', id: 'tu1', name: 'ls', input: {} }] });
    assert.deepEqual([use[0].reasoning, use[0].tool_calls?.[0].id], ['hm', 'tu1']);
    const res = looseMessage({ role: 'user', content: JSON.stringify([{ type: 'tool_result', tool_use_id: 'tu1', content: 'a.txt' }, { type: 'text', text: 'next?' }]) });
    assert.deepEqual(res.map((m) => [m.role, m.tool_call_id ?? null]), [['tool', 'tu1'], ['user', null]]);
    assert.equal(looseMessage({ role: 'user', content: [{ type: 'image', source: {} }, 'x'] })[0].role, 'user');
  });

  it('looseMessages: wrappers, batches, a system field, objects and text', () => {
    const chat = [{ role: 'user', content: 'hi' }];
    assert.deepEqual(pairs(looseMessages({ messages: chat, system: 'S' })), [['system', 'S'], ['user', 'hi']]);
    assert.deepEqual(pairs(looseMessages({ input: { prompt: { inputs: JSON.stringify(chat) } } })), [['user', 'hi']], 'nested wrappers, JSON text inside');
    assert.deepEqual(pairs(looseMessages([[{ role: 'user', content: 'b1' }], [{ role: 'user', content: 'b2' }]])), [['user', 'b1']], "LangChain's batch: the first");
    assert.deepEqual(pairs(looseMessages(chat, [{ type: 'text', text: 'sys parts' }])), [['system', 'sys parts'], ['user', 'hi']]);
    assert.deepEqual(pairs(looseMessages({ system: 'not a wrapper', content: 'q' })), [['system', 'not a wrapper'], ['user', 'q']], 'an object with a system string');
    assert.deepEqual(pairs(looseMessages({ content: 'q', system: 5 })), [['user', 'q']]);
    assert.deepEqual(pairs(looseMessages('just text')), [['user', 'just text']]);
    assert.deepEqual(pairs(looseMessages(42)), [['user', '42']]);
    assert.deepEqual(looseMessages(null), []);
    assert.deepEqual(looseMessages([]), []);
    assert.deepEqual(pairs(looseMessages({ system: 'S', prompt: 'p' })), [['system', 'S'], ['user', 'p']], "the AI SDK's {system, prompt}");
    let deep: unknown = chat;
    for (let i = 0; i < 6; i++) deep = { messages: deep };
    assert.deepEqual(pairs(looseMessages(deep)), [['user', 'hi']], 'six wrappers deep');
    assert.match(looseMessages({ messages: { messages: deep } })[0].content ?? '', /^\{"messages":\{"messages":/, 'the wrapper chain ends after six: the rest is the text');
  });

  it('looseResponse: completions, choices, generations, completion fields, message lists, Anthropic messages, text', () => {
    assert.equal(looseResponse(null), null);
    assert.equal(looseResponse(undefined), null);
    assert.deepEqual(pairs([looseResponse({ choices: [{ message: { role: 'assistant', content: 'c' } }] })!]), [['assistant', 'c']]);
    assert.deepEqual(pairs([looseResponse({ message: { role: 'assistant', content: 'm' } })!]), [['assistant', 'm']]);
    assert.deepEqual(pairs([looseResponse({ generations: [[{ text: 'g1' }], [{ text: 'g2' }]] })!]), [['assistant', 'g1']]);
    assert.deepEqual(pairs([looseResponse({ completion: 'done' })!]), [['assistant', 'done']]);
    assert.deepEqual(pairs([looseResponse({ completion: 'no', content: 'yes' })!]), [['assistant', 'yes']]);
    const list = [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a1' }, { role: 'assistant', content: 'a2' }, { role: 'tool', content: 't' }];
    assert.deepEqual(pairs([looseResponse({ messages: list })!]), [['assistant', 'a2']], 'the last assistant message');
    assert.equal(looseResponse([{ role: 'tool', content: 't1' }, { role: 'tool', content: 't2' }]), null, 'tool results alone answer nothing');
    assert.deepEqual(pairs([looseResponse(['a plain answer'])!]), [['assistant', 'a plain answer']]);
    assert.equal(looseResponse([]), null);
    const anth = looseResponse({ type: 'message', role: 'assistant', content: [{ type: 'text', text: 'x' }, { type: 'tool_use', id: 'tu', name: 'f', input: { a: 1 } }] });
    assert.deepEqual([anth?.content, anth?.tool_calls?.[0].function.arguments], ['x', '{"a":1}']);
    assert.equal(looseResponse({ content: [{ type: 'thinking', thinking: 'hm' }, { type: 'text', text: 'y' }] })?.reasoning, 'hm');
    assert.deepEqual(pairs([looseResponse({ role: 'user', content: 'forced' })!]), [['assistant', 'forced']]);
    assert.deepEqual(pairs([looseResponse('text')!]), [['assistant', 'text']]);
    assert.deepEqual(pairs([looseResponse(3)!]), [['assistant', '3']]);
    assert.deepEqual(pairs([looseResponse(JSON.stringify({ choices: [{ message: { content: 'from json' } }] }))!]), [['assistant', 'from json']]);
  });

  it('safeMetaValue: nothing for null, JSON for structures (secrets redacted, JSON text parsed), text redacted', () => {
    assert.equal(safeMetaValue(null), null);
    assert.equal(safeMetaValue(undefined), null);
    assert.equal(safeMetaValue(3), '3');
    assert.equal(safeMetaValue(false), 'false');
    assert.equal(safeMetaValue([1, 'a']), '[1,"a"]');
    const obj = JSON.parse(safeMetaValue({ api_key: SECRET, keep: 1 }) ?? '{}');
    assert.equal(obj.keep, 1);
    assert.notEqual(obj.api_key, SECRET);
    assert.notEqual(JSON.parse(safeMetaValue(JSON.stringify({ password: 'hunter2', keep: 1 })) ?? '{}').password, 'hunter2', 'JSON text: secret-named keys caught');
    assert.ok(!(safeMetaValue(`key=${SECRET}`) ?? '').includes(SECRET));
    assert.equal(safeMetaValue('plain'), 'plain');
  });
});
