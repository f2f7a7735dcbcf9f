/**
 * Timestamps the source holds are kept (issue 32 item 5): a response's own creation time (OpenAI chat
 * `created`, Responses `created_at`, in seconds) and a recording's `Date` response header, when the
 * recording has no time of its own (VCR cassettes and nock recordings record none; a Batch output only has
 * the body's). The step says where its time came from in `metadata.time_source`; a recording's own time wins.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { har } from '../../src/ingest/normalizers/har';
import { openaiBatch } from '../../src/ingest/normalizers/openai-batch';
import { vcr } from '../../src/ingest/normalizers/vcr';
import { runOne } from './helpers/formats';

const chatReq = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] };
const chatRes = { id: 'chatcmpl-9x', object: 'chat.completion', created: 1735732800, model: 'gpt-4o-mini-2024-07-18', choices: [{ index: 0, message: { role: 'assistant', content: 'Hello!' }, finish_reason: 'stop' }], usage: { prompt_tokens: 8, completion_tokens: 2 } };
const claudeRes = { id: 'msg_01', type: 'message', role: 'assistant', model: 'claude-haiku-4-5', content: [{ type: 'text', text: 'Hello!' }], stop_reason: 'end_turn', usage: { input_tokens: 8, output_tokens: 2 } };
const DATE = 'Wed, 01 Jan 2025 12:00:05 GMT';

const cassette = (uri: string, body: unknown, headers: Record<string, string[]>) => ({
  interactions: [
    {
      request: { method: 'POST', uri, body: JSON.stringify(uri.endsWith('/messages') ? { model: 'claude-haiku-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] } : chatReq), headers: { 'Content-Type': ['application/json'] } },
      response: { status: { code: 200, message: 'OK' }, headers, body: { string: JSON.stringify(body) } },
    },
  ],
  version: 1,
});

describe('timestamps from the source', () => {
  it("a VCR cassette: the chat response's `created`, else the Date header", () => {
    const a = runOne(vcr, cassette('https://api.openai.com/v1/chat/completions', chatRes, { Date: [DATE] }));
    assert.deepEqual([a.started_at, a.metadata?.time_source], [Date.UTC(2025, 0, 1, 12, 0, 0), 'response created']);
    const b = runOne(vcr, cassette('https://api.anthropic.com/v1/messages', claudeRes, { date: [DATE] }));
    assert.deepEqual([b.started_at, b.metadata?.time_source], [Date.UTC(2025, 0, 1, 12, 0, 5), 'response Date header']);
    const c = runOne(vcr, cassette('https://api.anthropic.com/v1/messages', claudeRes, {}));
    assert.deepEqual([c.started_at, c.metadata?.time_source], [null, undefined], 'no time anywhere: none invented');
  });

  it('a HAR entry keeps its own startedDateTime; a Batch output line takes the body\'s created', () => {
    const h = runOne(har, {
      log: {
        entries: [
          {
            startedDateTime: '2025-01-01T11:59:59.500Z',
            time: 900,
            request: { method: 'POST', url: 'https://api.openai.com/v1/chat/completions', headers: [], postData: { mimeType: 'application/json', text: JSON.stringify(chatReq) } },
            response: { status: 200, statusText: 'OK', headers: [{ name: 'date', value: DATE }], content: { mimeType: 'application/json', text: JSON.stringify(chatRes) } },
            timings: { wait: 800 },
          },
        ],
      },
    });
    assert.deepEqual([h.started_at, h.metadata?.time_source], [Date.UTC(2025, 0, 1, 11, 59, 59, 500), undefined]);
    const b = runOne(openaiBatch, { id: 'batch_req_1', custom_id: 'r-1', response: { status_code: 200, request_id: 'req_1', body: chatRes }, error: null });
    assert.equal(b.started_at, Date.UTC(2025, 0, 1, 12, 0, 0));
  });
});
