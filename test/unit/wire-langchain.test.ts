/**
 * src/wire/langchain.ts on the message shapes LangChain / LangGraph traces hold: `model_dump()` dicts
 * (`type: ai`, `tool_calls: [{name, args, id, type: 'tool_call'}]`, `response_metadata`, `usage_metadata`),
 * the serialized `{lc: 1, type: 'constructor', id: [..., 'AIMessage'], kwargs}` form, `messages_to_dict`'s
 * `{type, data}`, the dicts langfuse-python's CallbackHandler writes (`_convert_message_to_dict`: `{role,
 * content, tool_calls, additional_kwargs}`; before v3 without `tool_calls`), and an `LLMResult`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isLangchainMessage, langchainMessage, langchainMessages, langchainResponse } from '../../src/wire/langchain';

const OPENAI_CALL = { id: 'call_7Kx', function: { arguments: '{"query":"weather in SF"}', name: 'tavily_search' }, type: 'function' };

describe('LangChain messages', () => {
  it('LangGraph state dicts: human, ai with parsed tool_calls, tool with status, system', () => {
    const msgs = langchainMessages([
      { content: 'You are a research agent.', type: 'system', id: 'sys-1' },
      { content: 'what is the weather in sf', additional_kwargs: {}, response_metadata: {}, type: 'human', name: null, id: '0c3f' },
      {
        content: '',
        additional_kwargs: { tool_calls: [OPENAI_CALL], refusal: null },
        response_metadata: { token_usage: { completion_tokens: 21, prompt_tokens: 88 }, model_name: 'gpt-4o-2024-08-06', finish_reason: 'tool_calls' },
        type: 'ai',
        id: 'run-9d1e',
        tool_calls: [{ name: 'tavily_search', args: { query: 'weather in SF' }, id: 'call_7Kx', type: 'tool_call' }],
        invalid_tool_calls: [],
        usage_metadata: { input_tokens: 88, output_tokens: 21, total_tokens: 109 },
      },
      { content: '[{"url": "https://weather.com", "content": "62°F"}]', type: 'tool', name: 'tavily_search', id: 't-1', tool_call_id: 'call_7Kx', status: 'success' },
      { content: 'Request timed out', type: 'tool', name: 'tavily_search', tool_call_id: 'call_8', status: 'error' },
    ]);
    assert.deepEqual(
      msgs.map((m) => [m.role, m.content, m.tool_calls?.map((c) => `${c.id}:${c.function.name}:${c.function.arguments}`) ?? null, m.tool_call_id ?? null, m.is_error ?? null]),
      [
        ['system', 'You are a research agent.', null, null, null],
        ['user', 'what is the weather in sf', null, null, null],
        ['assistant', '', ['call_7Kx:tavily_search:{"query":"weather in SF"}'], null, null],
        ['tool', '[{"url": "https://weather.com", "content": "62°F"}]', null, 'call_7Kx', null],
        ['tool', 'Request timed out', null, 'call_8', true],
      ],
    );
    assert.equal(msgs[2].tool_calls?.[0].type, 'function', "LangChain's 'tool_call' type is the OpenAI 'function'");
  });

  it("Langfuse's handler dicts before v3: the calls only in additional_kwargs.tool_calls are kept", () => {
    const [m] = langchainMessage({ role: 'assistant', content: '', additional_kwargs: { tool_calls: [OPENAI_CALL] } });
    assert.deepEqual(m.tool_calls, [{ id: 'call_7Kx', type: 'function', function: { name: 'tavily_search', arguments: '{"query":"weather in SF"}' } }]);
  });

  it('Anthropic through LangChain: text and thinking blocks, the tool_use block and tool_calls are one call', () => {
    const [m] = langchainMessage({
      type: 'ai',
      content: [
        { type: 'thinking', thinking: 'Look it up.', signature: 'EqQB…' },
        { type: 'text', text: "I'll search." },
        { type: 'tool_use', id: 'toolu_01A', name: 'search', input: { q: 'sf weather' } },
      ],
      tool_calls: [{ name: 'search', args: { q: 'sf weather' }, id: 'toolu_01A', type: 'tool_call' }],
      response_metadata: { stop_reason: 'tool_use', model: 'claude-sonnet-4-20250514' },
    });
    assert.deepEqual([m.content, m.reasoning, m.tool_calls?.length, m.tool_calls?.[0].id], ["I'll search.", 'Look it up.', 1, 'toolu_01A']);
  });

  it('Gemini through LangChain: the legacy function_call when tool_calls is absent; serialized and stored forms', () => {
    const [g] = langchainMessage({ type: 'ai', content: '', additional_kwargs: { function_call: { name: 'get_time', arguments: '{"tz": "UTC"}' } } });
    assert.deepEqual(g.tool_calls?.[0].function, { name: 'get_time', arguments: '{"tz":"UTC"}' });
    const [s] = langchainMessage({ lc: 1, type: 'constructor', id: ['langchain', 'schema', 'messages', 'HumanMessage'], kwargs: { content: 'hi', type: 'human' } });
    assert.deepEqual(s, { role: 'user', content: 'hi' });
    const [d] = langchainMessage({ type: 'ai', data: { content: 'stored', type: 'ai', additional_kwargs: {} } });
    assert.deepEqual([d.role, d.content], ['assistant', 'stored']);
    assert.deepEqual(langchainMessage({ type: 'remove', id: 'x', content: '' }), [], 'a RemoveMessage is no message');
    assert.equal(langchainMessages([[{ type: 'human', content: 'batch 1' }], [{ type: 'human', content: 'batch 2' }]])[0].content, 'batch 1');
  });

  it('shapes: LangChain messages are told from plain OpenAI ones', () => {
    assert.ok(isLangchainMessage({ type: 'ai', content: 'x' }));
    assert.ok(isLangchainMessage({ role: 'assistant', content: '', additional_kwargs: {} }));
    assert.ok(isLangchainMessage({ lc: 1, type: 'constructor', id: ['langchain_core', 'messages', 'AIMessageChunk'], kwargs: { content: 'x' } }));
    assert.equal(isLangchainMessage({ role: 'assistant', content: 'x', tool_calls: [OPENAI_CALL] }), false);
    assert.equal(isLangchainMessage({ type: 'message', role: 'user', content: 'x' }), false, 'a Responses input item');
  });
});

describe('LangChain responses', () => {
  it('an AI message: finish reason, usage, model from response_metadata; STOP with calls is tool_calls', () => {
    const r = langchainResponse({
      type: 'ai',
      content: '',
      tool_calls: [{ name: 'get_time', args: { tz: 'UTC' }, id: 'b7e1', type: 'tool_call' }],
      response_metadata: { finish_reason: 'STOP', model_name: 'gemini-2.0-flash', safety_ratings: [] },
      usage_metadata: { input_tokens: 40, output_tokens: 6, total_tokens: 46 },
    });
    assert.deepEqual([r.finish_reason, r.prompt_tokens, r.completion_tokens, r.model, r.message?.tool_calls?.[0].id], ['tool_calls', 40, 6, 'gemini-2.0-flash', 'b7e1']);
    const a = langchainResponse({ type: 'ai', content: 'Done.', response_metadata: { stop_reason: 'max_tokens' } });
    assert.deepEqual([a.message?.content, a.finish_reason], ['Done.', 'length']);
  });

  it('an LLMResult: the last generation, generation_info, llm_output usage and model', () => {
    const r = langchainResponse({
      generations: [
        [
          {
            text: 'Paris.',
            generation_info: { finish_reason: 'stop', logprobs: null },
            type: 'ChatGeneration',
            message: { lc: 1, type: 'constructor', id: ['langchain', 'schema', 'messages', 'AIMessage'], kwargs: { content: 'Paris.', type: 'ai', tool_calls: [], invalid_tool_calls: [] } },
          },
        ],
      ],
      llm_output: { token_usage: { completion_tokens: 2, prompt_tokens: 14, total_tokens: 16 }, model_name: 'gpt-4o-mini' },
    });
    assert.deepEqual([r.message?.content, r.finish_reason, r.prompt_tokens, r.completion_tokens, r.model], ['Paris.', 'stop', 14, 2, 'gpt-4o-mini']);
    assert.equal(langchainResponse({ type: 'ai', content: '' }).message, null, 'an empty AI message is no response');
  });
});
