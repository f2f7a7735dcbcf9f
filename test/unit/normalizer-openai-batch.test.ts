/**
 * The Batch API normalizer (src/ingest/normalizers/openai-batch.ts) and the recorded
 * call reader it shares with HAR and VCR (wire-call.ts): OpenAI and Anthropic batch output and input lines
 * as the APIs write them, joined by `custom_id` across the files of one import, with the report's notes;
 * which API a URL or body names, and what a response body (JSON, SSE text, error) becomes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TrajectoryDraft } from '../../src/contract/step';
import type { NormalizeContext, SourceRecord } from '../../src/ingest/normalizer';
import { type BatchState, openaiBatch } from '../../src/ingest/normalizers/openai-batch';
import { apiOf, parseResponse, wireStep } from '../../src/ingest/normalizers/wire-call';
import { ctx as baseCtx, runNormalizer } from './helpers/formats';
import { detectFormat } from '../../src/ingest/detect';
import { formatFile, importWith } from './helpers/ingest-files';

const user = { role: 'user', content: 'Summarize: the kettle is blue.' };
const chatBody = (content = 'A blue kettle.', extra: Record<string, unknown> = {}) => ({
  id: 'chatcmpl-B1',
  object: 'chat.completion',
  model: 'gpt-4o-mini-2024-07-18',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 20, completion_tokens: 4 },
  ...extra,
});
const output = (id: string, body: unknown = chatBody(), extra: Record<string, unknown> = {}) => ({
  id: `batch_req_${id}`,
  custom_id: id,
  response: { status_code: 200, request_id: `req_${id}`, body },
  error: null,
  ...extra,
});
const input = (id: string, content = user.content, url = '/v1/chat/completions') => ({
  custom_id: id,
  method: 'POST',
  url,
  body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content }] },
});
const anthropicMessage = { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-haiku-4-5', content: [{ type: 'text', text: 'Blue.' }], stop_reason: 'end_turn', usage: { input_tokens: 9, output_tokens: 2 } };

function run(values: unknown[], companions: NormalizeContext['companions'] = undefined) {
  const ctx: NormalizeContext = { ...baseCtx, file: 'out.jsonl', companions };
  const st = openaiBatch.createState?.(ctx) as BatchState;
  const out: TrajectoryDraft[] = [];
  values.forEach((value, index) => {
    out.push(...openaiBatch.normalize({ value, line: index + 1, index } as SourceRecord, ctx, st));
  });
  return { out, st, notes: openaiBatch.notes?.(st) ?? [], steps: out.map((d) => d.steps[0]) };
}

describe('wire-call: which API a recorded call used', () => {
  it('reads the URL path first, ignoring query, fragment and trailing slashes', () => {
    assert.equal(apiOf('https://api.openai.com/v1/chat/completions?x=1', null), 'chat');
    assert.equal(apiOf('https://api.openai.com/v1/chat/completions/', null), 'chat');
    assert.equal(apiOf('https://api.openai.com/v1/chat/completions#frag', null), 'chat');
    assert.equal(apiOf('https://api.anthropic.com/v1/messages', null), 'messages');
    assert.equal(apiOf('https://api.openai.com/v1/responses//', null), 'responses');
    assert.equal(apiOf('https://api.openai.com/v1/completions', null), 'completions');
    assert.equal(apiOf('/v1/embeddings', { model: 'x', input: 'y' }), 'responses', 'an unknown path falls back to the body');
    assert.equal(apiOf('https://example.com/v1/chat/completions-archive', null), null);
    assert.equal(apiOf(null, null), null);
  });

  it('falls back to the body: model plus messages, input or prompt', () => {
    assert.equal(apiOf(null, { model: 'gpt-4o', messages: [user] }), 'chat');
    assert.equal(apiOf(null, { model: 'claude', system: 'Be brief.', messages: [user] }), 'messages');
    assert.equal(apiOf(null, { model: 'claude', system: [{ type: 'text', text: 'Be brief.' }], messages: [user] }), 'messages');
    assert.equal(apiOf(null, { model: 'claude', system: 5, messages: [user] }), 'chat');
    const toolUse = { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: {} }] };
    const toolResult = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] };
    assert.equal(apiOf(null, { model: 'claude', messages: [user, toolUse] }), 'messages');
    assert.equal(apiOf(null, { model: 'claude', messages: [user, toolResult] }), 'messages');
    assert.equal(apiOf(null, { model: 'gpt', messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }, 'y'] }, 'z'] }), 'chat');
    assert.equal(apiOf(null, { model: 'gpt-4.1', input: 'Hi' }), 'responses');
    assert.equal(apiOf(null, { model: 'davinci-002', prompt: 'Hi' }), 'completions');
    assert.equal(apiOf(null, { model: 'x' }), null);
    assert.equal(apiOf(null, { model: 5, messages: [user] }), null);
    assert.equal(apiOf(null, { messages: [user] }), null);
    assert.equal(apiOf(null, 'messages'), null);
    assert.equal(apiOf(null, { model: 'x', messages: 'hi', prompt: 'p' }), 'completions');
  });
});

describe('wire-call: response bodies', () => {
  it('reads JSON text, SSE text of the API, and a body of another API by its own shape', () => {
    assert.equal(parseResponse('chat', JSON.stringify(chatBody())).message?.content, 'A blue kettle.');
    const chunks = `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;
    assert.equal(parseResponse('chat', chunks).message?.content, 'Hi');
    assert.equal(parseResponse('completions', chunks).message?.content, 'Hi');
    const anth = [
      { type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', model: 'claude', content: [], usage: { input_tokens: 3, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Yo' } },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } },
    ]
      .map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`)
      .join('');
    assert.equal(parseResponse('messages', anth).message?.content, 'Yo');
    assert.equal(parseResponse('chat', anthropicMessage).message?.content, 'Blue.', 'type message: the Messages reader');
    const resp = { id: 'resp_1', object: 'response', status: 'completed', model: 'gpt-4.1', output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'R' }] }] };
    assert.equal(parseResponse('chat', resp).message?.content, 'R', 'object response: the Responses reader');
    assert.equal(parseResponse('responses', resp).message?.content, 'R');
    assert.equal(parseResponse('messages', chatBody()).message, null, 'a chat body under the Messages API is read as Messages');
  });

  it('turns text that is no JSON into the error, cut at 2000 characters, and blank text into nothing', () => {
    assert.equal(parseResponse('chat', '<html>502 Bad Gateway</html>').error, '<html>502 Bad Gateway</html>');
    assert.equal(parseResponse('chat', 'x'.repeat(2500)).error?.length, 2000);
    assert.equal(parseResponse('chat', '   ').error, null);
    assert.equal(parseResponse('chat', '').error, null);
    assert.equal(parseResponse('chat', '"quoted"').error, '"quoted"');
  });

  it('reads error bodies of both APIs, and a body that is no object', () => {
    assert.equal(parseResponse('chat', { error: { message: 'Invalid model', code: 'model_not_found' } }).error, 'Invalid model');
    assert.equal(parseResponse('chat', { error: 'Upstream failed' }).error, 'Upstream failed');
    assert.equal(parseResponse('chat', chatBody('ok', { error: 'partial' })).message?.content, 'ok', 'a string error beside choices: the answer is read');
    assert.equal(parseResponse('messages', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }).error, 'Overloaded');
    assert.equal(parseResponse('messages', { type: 'error', message: 'flat' }).error, 'flat');
    assert.equal(parseResponse('chat', [{ error: { message: 'in a list' } }]).error, 'in a list');
    assert.equal(parseResponse('chat', 42).error, null);
    assert.equal(parseResponse('chat', null).message, null);
    assert.equal(parseResponse('chat', { error: 5, choices: [] }).error, null);
  });

  it('makes a step of request and response: model, provider, finish reason, tokens, original tools', () => {
    const s = wireStep('chat', { model: 'gpt-4o-mini', messages: [user] }, chatBody());
    assert.equal(s.model, 'gpt-4o-mini-2024-07-18');
    assert.equal(s.provider, 'openai');
    assert.equal(s.finish_reason, 'stop');
    assert.deepEqual([s.prompt_tokens, s.completion_tokens], [20, 4]);
    assert.equal(s.error, null);
    assert.equal(s.metadata, undefined);
    assert.equal(wireStep('chat', { model: 'gpt-4o-mini', messages: [user] }, chatBody('x', { model: undefined })).model, 'gpt-4o-mini');
    const failed = wireStep('responses', { model: 'gpt-4.1', input: 'hi' }, { error: { message: 'boom' } });
    assert.equal(failed.finish_reason, 'error');
    assert.equal(failed.provider, 'openai');
    assert.equal(wireStep('completions', { model: 'd', prompt: 'p' }, null).provider, 'openai');
    assert.equal(wireStep('completions', { model: 'd', prompt: 'Once upon' }, null).messages[0].content, 'Once upon', 'legacy completions: the chat reader');
    assert.equal(wireStep('chat', { model: 'gpt', messages: [user] }, null).finish_reason, null);
    const tools = [{ name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: {} } }];
    const a = wireStep('messages', { model: 'claude', max_tokens: 100, messages: [user], tools }, anthropicMessage);
    assert.equal(a.provider, 'anthropic');
    assert.deepEqual(a.metadata, { tools_original: JSON.stringify(tools) });
    assert.equal(a.response?.content, 'Blue.');
  });
});

describe('openai-batch: detection and companions', () => {
  it('scores output lines above input lines and accepts a sibling file of batch lines', () => {
    assert.equal(openaiBatch.detect([output('r1')]), 0.97);
    assert.equal(openaiBatch.detect([input('r1')]), 0.96);
    assert.equal(openaiBatch.detect([{ custom_id: 'r', response: null }]), 0.97);
    assert.equal(openaiBatch.detect([{ custom_id: 'r', response: { body: {} } }]), 0, 'a response without status_code');
    assert.equal(openaiBatch.detect([{ custom_id: 'r', response: 'x' }]), 0);
    assert.equal(openaiBatch.detect([{ custom_id: 'r', result: { type: 'succeeded', message: anthropicMessage } }]), 0.97);
    assert.equal(openaiBatch.detect([{ custom_id: 'r', result: { type: 5 } }]), 0);
    assert.equal(openaiBatch.detect([{ custom_id: 5, response: null }]), 0);
    assert.equal(openaiBatch.detect([{ custom_id: 'r', params: { model: 'claude', messages: [user] } }]), 0.96);
    assert.equal(openaiBatch.detect([{ custom_id: 'r', params: { model: 'claude', messages: 'hi' } }]), 0);
    assert.equal(openaiBatch.detect([{ custom_id: 'r', body: {}, url: 5 }]), 0);
    assert.equal(openaiBatch.detect([{ custom_id: 'r', body: 'x', url: '/v1/chat/completions' }]), 0);
    assert.equal(openaiBatch.detect([null, 'null', 7]), 0, 'a JSONL line that is no object');
    assert.equal(openaiBatch.detect([{ method: 'POST', url: '/v1/chat/completions', body: {} }]), 0, 'no custom_id');
    assert.equal(openaiBatch.detect([{ custom_id: 7, params: { messages: [] } }]), 0);
    const accepts = openaiBatch.companions?.accepts ?? (() => false);
    assert.equal(accepts([]), false);
    assert.equal(accepts([input('a'), input('b'), input('c'), input('d'), { other: 1 }]), true, '80 % is enough');
    assert.equal(accepts([input('a'), input('b'), input('c'), { other: 1 }]), false);
    assert.equal(accepts([output('a'), input('b')]), true);
  });
});

describe('openai-batch: outputs', () => {
  it('an output alone: the response with its ids, the request missing, grouped by its own id', () => {
    const { out, steps, notes, st } = run([output('r1')]);
    assert.equal(out[0].prompt_uid, 'batch-0123456789ab:r1');
    assert.equal(steps[0].response?.content, 'A blue kettle.');
    assert.deepEqual(steps[0].messages, []);
    assert.equal(steps[0].status, 'ok');
    assert.equal(steps[0].error, null);
    assert.equal(steps[0].finish_reason, 'stop');
    assert.deepEqual(steps[0].metadata, { custom_id: 'r1', batch_request_id: 'batch_req_r1', request_id: 'req_r1', status_code: '200', request_missing: 'true' });
    assert.equal(st.missing, 1);
    assert.deepEqual(notes, [
      '1 response(s) have no request: messages are empty. Import the Batch input file (custom_id, method, url, body) together with this output to read the requests.',
    ]);
  });

  it('joins an output with its input by custom_id and says from which file', () => {
    const { out, steps, notes } = run([output('r1'), output('r2')], [{ file: 'in.jsonl', records: [input('r1', 'first'), input('r2', 'second'), { other: true }] }]);
    assert.deepEqual(steps.map((s) => s.messages?.[0].content), ['first', 'second']);
    assert.equal(out[0].prompt_uid, null);
    assert.deepEqual(steps[0].metadata, { custom_id: 'r1', batch_request_id: 'batch_req_r1', request_id: 'req_r1', status_code: '200', url: '/v1/chat/completions' });
    assert.deepEqual(notes, ['2 response(s) joined with their request by custom_id from in.jsonl']);
  });

  it('joins nothing when two batches of the import use the same custom_id', () => {
    const companions = [
      { file: 'in-a.jsonl', records: [input('r1', 'a')] },
      { file: 'in-b.jsonl', records: [input('r1', 'b')] },
    ];
    const { steps, notes, st } = run([output('r1')], companions);
    assert.deepEqual(steps[0].messages, []);
    assert.equal(steps[0].metadata?.request_ambiguous, 'true');
    assert.equal(steps[0].metadata?.request_missing, 'true');
    assert.equal(st.ambiguous, 1);
    assert.equal(st.missing, 0);
    assert.deepEqual(notes, [
      '1 response(s) not joined: their custom_id is in more than one Batch file of this import (in-a.jsonl, in-b.jsonl); import each output with its own input',
    ]);
    const answered = run([output('r1')], [{ file: 'in.jsonl', records: [input('r1')] }, { file: 'out-b.jsonl', records: [output('r1')] }]);
    assert.equal(answered.steps[0].metadata?.request_ambiguous, 'true', 'another output file answers the same id');
    const outputsOnly = run([output('r1')], [{ file: 'out-b.jsonl', records: [output('r1')] }]);
    assert.equal(outputsOnly.steps[0].metadata?.request_ambiguous, undefined, 'two outputs and no input: nothing to join, nothing ambiguous');
    assert.equal(outputsOnly.steps[0].metadata?.request_missing, 'true');
    assert.equal(answered.notes[0], '1 response(s) not joined: their custom_id is in more than one Batch file of this import (in.jsonl, out-b.jsonl); import each output with its own input');
  });

  it('reports an HTTP failure, a batch error and an error body', () => {
    const http = run([output('r1', chatBody(), { response: { status_code: 500, request_id: 'q', body: {} } })]).steps[0];
    assert.equal(http.status, 'error');
    assert.equal(http.error, 'HTTP 500');
    assert.equal(http.finish_reason, 'error');
    assert.equal(run([output('r1', chatBody(), { response: { status_code: 400, body: chatBody() } })]).steps[0].error, 'HTTP 400');
    assert.equal(run([output('r1', chatBody(), { response: { status_code: 399, body: chatBody() } })]).steps[0].error, null);
    assert.equal(run([output('r1', chatBody(), { response: { status_code: '500', body: chatBody() } })]).steps[0].metadata?.status_code, undefined);
    const body = run([output('r1', { error: { message: 'Invalid model', code: 'model_not_found' } }, { response: { status_code: 404, body: { error: { message: 'Invalid model' } } } })]).steps[0];
    assert.equal(body.error, 'Invalid model');
    const expired = run([{ id: 'b', custom_id: 'r9', response: null, error: { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' } }]).steps[0];
    assert.equal(expired.status, 'error');
    assert.equal(expired.error, 'This request could not be executed before the completion window expired.');
    assert.equal(expired.finish_reason, 'error');
    assert.equal(run([{ custom_id: 'r9', response: null, error: 'expired' }]).steps[0].error, 'expired');
    assert.equal(run([{ custom_id: 'r9', response: null, error: {} }]).steps[0].error, '{}');
    assert.equal(run([{ custom_id: 'r9', response: null, error: 5 }]).steps[0].error, '5');
    assert.equal(run([{ id: '', custom_id: 'r9', response: null }]).steps[0].metadata?.batch_request_id, undefined, 'an empty value is left out');
  });

  it('refuses an embeddings response', () => {
    assert.throws(() => run([output('e1', { object: 'list', data: [{ embedding: [0.1] }] })]), { message: 'custom_id e1: an embeddings response, not an LLM call' });
    assert.doesNotThrow(() => run([output('e2', { object: 'list', data: 'x' })]));
    assert.doesNotThrow(() => run([output('e3', { object: 'thing', data: [] })]));
  });

  it('splits n choices into one row each, with the usage of all choices noted', () => {
    const body = chatBody('one', {
      choices: [
        { index: 0, message: { role: 'assistant', content: 'one' }, finish_reason: 'stop' },
        { index: 1, message: { role: 'assistant', content: 'two' }, finish_reason: 'length' },
      ],
    });
    const { out, steps } = run([output('n1', body)]);
    assert.deepEqual(steps.map((s) => [s.response?.content, s.finish_reason, s.completion_tokens, s.prompt_tokens]), [
      ['one', 'stop', null, 20],
      ['two', 'length', null, 20],
    ]);
    assert.equal(steps[1].metadata?.choice_index, '1');
    assert.equal(steps[0].metadata?.completion_tokens_all_choices, '4');
    assert.equal(steps[0].metadata?.custom_id, 'n1');
    assert.equal(out[0].prompt_uid, out[1].prompt_uid);
    const single = run([output('n2')]).steps[0];
    assert.equal(single.completion_tokens, 4);
    assert.equal(single.metadata?.choice_index, undefined);
    const noUsage = run([output('n3', { ...body, usage: undefined })]).steps[0];
    assert.equal(noUsage.metadata?.completion_tokens_all_choices, '');
  });

  it('reads the API from the body when the request is missing', () => {
    const resp = { id: 'resp_1', object: 'response', status: 'completed', model: 'gpt-4.1', output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'R' }] }] };
    assert.equal(run([output('a', resp)]).steps[0].response?.content, 'R');
    assert.equal(run([output('a', { id: 'cmpl', object: 'text_completion', model: 'd', choices: [{ index: 0, text: 'T', finish_reason: 'stop' }] })]).steps[0].response?.content, 'T');
    assert.equal(run([output('a', anthropicMessage)]).steps[0].response?.content, 'Blue.');
    assert.equal(run([output('a', anthropicMessage)]).steps[0].provider, 'anthropic');
    assert.equal(run([output('a', chatBody())]).steps[0].provider, 'openai');
    assert.equal(run([output('a', { choices: [{ index: 0, message: { role: 'assistant', content: 'C' }, finish_reason: 'stop' }] })]).steps[0].provider, 'openai', 'no object name: chat');
    assert.equal(run([output('a', 'not json')]).steps[0].error, 'not json');
  });
});

describe('openai-batch: Anthropic Message Batches', () => {
  const params = { model: 'claude-haiku-4-5', max_tokens: 64, system: 'Be brief.', messages: [user] };
  it('joins a succeeded result with its params, and reads errored / expired results', () => {
    const { steps, notes } = run(
      [
        { custom_id: 'm1', result: { type: 'succeeded', message: anthropicMessage } },
        { custom_id: 'm2', result: { type: 'errored', error: { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens too large' } } } },
        { custom_id: 'm3', result: { type: 'expired' } },
      ],
      [{ file: 'params.jsonl', records: [{ custom_id: 'm1', params }] }],
    );
    assert.equal(steps[0].response?.content, 'Blue.');
    assert.equal(steps[0].messages?.[0].role, 'system');
    assert.equal(steps[0].metadata?.url, '/v1/messages');
    assert.equal(steps[0].provider, 'anthropic');
    assert.equal(steps[1].error, 'max_tokens too large');
    assert.equal(steps[1].provider, 'anthropic');
    assert.equal(steps[2].error, 'expired');
    assert.equal(run([{ custom_id: 'm4', result: { type: 'canceled' }, error: null }]).steps[0].error, 'canceled', 'error: null does not clear the result’s');
    assert.equal(steps[2].status, 'error');
    assert.equal(steps[2].provider, 'anthropic', 'a result without a body is still an Anthropic call');
    assert.equal(notes.length, 2);
  });

  it('imports params alone as prompt rows', () => {
    const { out } = run([{ custom_id: 'p1', params }]);
    assert.deepEqual(out[0].steps[0].metadata, { custom_id: 'p1', url: '/v1/messages', response_missing: 'true' });
    assert.equal(out[0].steps[0].model, 'claude-haiku-4-5');
    assert.equal(out[0].steps[0].response, null);
    assert.equal(out[0].steps[0].messages?.[1].content, user.content);
  });
});

describe('openai-batch: inputs', () => {
  it('an input alone is a prompt row; one its output file answers is left to the output', () => {
    const alone = run([input('i1')]);
    assert.equal(alone.out.length, 1);
    assert.deepEqual(alone.steps[0].metadata, { custom_id: 'i1', url: '/v1/chat/completions', response_missing: 'true' });
    assert.equal(alone.steps[0].model, 'gpt-4o-mini');
    assert.equal(alone.steps[0].response, null);
    assert.deepEqual(alone.notes, []);
    const deferred = run([input('i1'), input('i2')], [{ file: 'out.jsonl', records: [output('i1'), { other: 1 }] }]);
    assert.equal(deferred.out.length, 1, 'i1 comes with its response');
    assert.equal(deferred.st.deferred, 1);
    assert.deepEqual(deferred.notes, ['1 request(s) are imported with their responses from out.jsonl, not as rows of this file']);
    const twice = run([input('i1')], [{ file: 'o1.jsonl', records: [output('i1')] }, { file: 'o2.jsonl', records: [output('i1')] }]);
    assert.equal(twice.out.length, 1, 'answered by two outputs: not deferred');
    const alsoInput = run([input('i1')], [{ file: 'o1.jsonl', records: [output('i1')] }, { file: 'in2.jsonl', records: [input('i1')] }]);
    assert.equal(alsoInput.out.length, 1, 'the id is also another input’s: not deferred');
  });

  it('refuses an input that is no LLM call, naming the id and the URL', () => {
    assert.throws(() => run([{ custom_id: 'x1', method: 'POST', url: '/v1/embeddings', body: { input: 'hi' } }]), {
      message: 'custom_id x1: /v1/embeddings is not an LLM call (chat, responses, completions or messages)',
    });
    assert.throws(() => run([{ custom_id: 'x2', method: 'POST', url: '', body: { input: 'hi' } }]), {
      message: 'custom_id x2:  is not an LLM call (chat, responses, completions or messages)',
    });
  });

  it('rejects a line that is no batch line', () => {
    assert.throws(() => run([{ id: 'x' }]), {
      message: 'expected a Batch API line with "custom_id" and a "response"/"result" (output) or "body"/"params" (input)',
    });
    assert.deepEqual(openaiBatch.flush?.(baseCtx, {} as BatchState), []);
  });
});

describe('openai-batch normalizer', () => {
  it('output dropped with its input: each response joined with its request by custom_id', async () => {
    const { report, rows } = await importWith('openai-batch-output.jsonl', ['openai-batch-input.jsonl', 'claude-code-session.jsonl']);
    assert.equal(report.status, 'done');
    assert.equal(report.format, 'openai-batch');
    assert.equal(rows.length, 4);
    assert.ok(report.warnings.some((w) => /4 response\(s\) joined with their request by custom_id from openai-batch-input\.jsonl/.test(w)), report.warnings.join(' | '));
    const byId = new Map(rows.map((r) => [r.metadata?.custom_id, r]));
    const t2 = byId.get('ticket-0002')!;
    assert.deepEqual(
      t2.messages.map((m) => m.role),
      ['system', 'user'],
    );
    assert.equal(t2.messages[1].content, 'Where is my order 88412?');
    assert.equal(JSON.parse(String(t2.tools))[0].function.name, 'lookup_order', 'tool definitions come from the request');
    assert.equal(t2.metadata?.request_missing, undefined);
    assert.equal(t2.metadata?.url, '/v1/chat/completions');
    const t4 = byId.get('ticket-0004')!;
    assert.deepEqual(
      t4.messages.map((m) => [m.role, m.content]),
      [
        ['system', 'Classify the ticket as shipping, returns or other. Answer with the label only.'],
        ['user', 'The parcel arrived with a torn cover.'],
      ],
    );
    assert.equal(byId.get('ticket-0003')?.messages[1].content, 'Can I return a signed copy?', 'a failed request keeps its prompt');
  });

  it('the input dropped with its output adds no rows of its own', async () => {
    const joined = await importWith('openai-batch-input.jsonl', ['openai-batch-output.jsonl']);
    assert.equal(joined.rows.length, 0);
    assert.ok(joined.report.warnings.some((w) => /4 request\(s\) are imported with their responses from openai-batch-output\.jsonl/.test(w)), joined.report.warnings.join(' | '));
  });

  it('Anthropic Message Batches: results joined with their params by custom_id', () => {
    const requests = [
      { custom_id: 'q-1', params: { model: 'claude-haiku-4-5', max_tokens: 256, system: 'Answer briefly.', messages: [{ role: 'user', content: 'Capital of Peru?' }] } },
      { custom_id: 'q-2', params: { model: 'claude-haiku-4-5', max_tokens: 256, messages: [{ role: 'user', content: 'Capital of Chile?' }] } },
    ];
    const results = [
      {
        custom_id: 'q-1',
        result: {
          type: 'succeeded',
          message: { id: 'msg_01Fx', type: 'message', role: 'assistant', model: 'claude-haiku-4-5-20251001', content: [{ type: 'text', text: 'Lima.' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 14, output_tokens: 4 } },
        },
      },
      { custom_id: 'q-2', result: { type: 'errored', error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } } },
    ];
    const st = openaiBatch.createState!({ sourceId: 'x'.repeat(64), file: 'results.jsonl', companions: [{ file: 'requests.jsonl', records: requests }] });
    assert.equal(detectFormat(results).normalizer.id, 'openai-batch');
    const rows = runNormalizer({ ...openaiBatch, createState: () => st }, results.map((value, index) => ({ value, line: index + 1, index })));
    assert.deepEqual(
      rows.map((r) => [r.messages.map((m) => `${m.role}:${m.content}`).join('|'), r.response_text, r.finish_reason, r.status, r.error, r.provider]),
      [
        ['system:Answer briefly.|user:Capital of Peru?', 'Lima.', 'stop', 'ok', null, 'anthropic'],
        ['user:Capital of Chile?', null, 'error', 'error', 'Overloaded', 'anthropic'],
      ],
    );
  });

  it('two batches that reuse custom_ids, dropped together: nothing is joined to the wrong request, and no prompt is dropped', async () => {
    const other = async (name: string, edit: (line: Record<string, unknown>) => void) => {
      const lines = (await formatFile(name).text()).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      for (const l of lines) edit(l);
      return new File([lines.map((l) => JSON.stringify(l)).join('\n')], `other-${name}`);
    };
    const inputB = await other('openai-batch-input.jsonl', (l) => {
      for (const m of (l.body as { messages?: { content: string }[] }).messages ?? []) m.content = `B: ${m.content}`;
    });
    const outputB = await other('openai-batch-output.jsonl', (l) => {
      l.id = `${l.id}-b`;
    });
    const out = await importWith('openai-batch-output.jsonl', ['openai-batch-input.jsonl', inputB, outputB]);
    assert.equal(out.rows.length, 4);
    assert.ok(out.rows.every((r) => r.messages.length === 0 && r.metadata?.request_ambiguous === 'true'));
    assert.ok(out.report.warnings.some((w) => /4 response\(s\) not joined: their custom_id is in more than one Batch file/.test(w)), out.report.warnings.join(' | '));
    const inp = await importWith('openai-batch-input.jsonl', ['openai-batch-output.jsonl', inputB, outputB]);
    assert.equal(inp.rows.length, 4, 'the requests stay as prompt rows');
  });
});
