/**
 * Capture and import are two sources of one record (decision 084): the same call, captured by the gateway core
 * (src/gateway/core/capture.ts: a real request through the route, the forward, the tee and to-step, the upstream a
 * scripted fetch answering with the recorded bytes) and imported from a recording of it (a HAR entry and a VCR
 * interaction), gives the same step — every field but those that say where and when it was recorded (SOURCE_FIELDS,
 * SOURCE_METADATA below). The calls: test/fixtures/formats/wire-same-call.json (each API, JSON and streamed), plus the
 * shapes only some calls carry: vLLM log-probs and token ids, a Responses reasoning item with only encrypted_content,
 * Anthropic redacted_thinking (public API shapes, written here).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { StepRecord } from '../../src/contract/step';
import { Gateway } from '../../src/gateway/core/capture';
import type { JournalEntry } from '../../src/gateway/core/journal';
import type { GatewaySettings } from '../../src/gateway/core/upstream';
import { har } from '../../src/ingest/normalizers/har';
import { vcr } from '../../src/ingest/normalizers/vcr';
import { API_PATHS, API_PROVIDER, type GatewayApi } from '../../src/wire';
import { runOne } from './helpers/formats';
import { MemoryJournal } from './helpers/memory-journal';

interface Call {
  api: GatewayApi;
  request: Record<string, unknown>;
  response: unknown;
  content_type: string;
}

/** Where and when a step was recorded, and by what: each source's own. */
const SOURCE_FIELDS = [
  'step_id', 'trajectory_uid', 'is_last', 'started_at', 'ended_at', 'latency_ms', 'ttft_ms', 'raw',
  'source', 'source_format', 'source_line', 'source_id', 'import_id', 'source_trajectory_id',
] as const;
/** Metadata only one source can know: the gateway's upstream, stream flag and response id; a recording's URL and its clock. */
const SOURCE_METADATA = ['upstream', 'stream', 'response_id', 'url', 'time_source'];

function recordOnly(s: StepRecord): Partial<StepRecord> {
  const out: Partial<StepRecord> = { ...s };
  for (const k of SOURCE_FIELDS) delete out[k];
  out.metadata = Object.fromEntries(Object.entries(s.metadata ?? {}).filter(([k]) => !SOURCE_METADATA.includes(k)));
  return out;
}

const bodyText = (c: Call) => (typeof c.response === 'string' ? c.response : JSON.stringify(c.response));

async function captured(c: Call): Promise<StepRecord> {
  const mem = new MemoryJournal();
  const kind = API_PROVIDER[c.api] as 'openai' | 'anthropic';
  const settings: GatewaySettings = { upstreams: [{ id: 'up', name: 'Up', kind, baseUrl: 'https://llm.example/v1', key: null, remember: false, models: ['*'] }], defaultUpstream: 'up' };
  // the bytes as a network delivers them: 3-byte pieces, so multi-byte characters split across chunks
  const bytes = new TextEncoder().encode(bodyText(c));
  const pieces = () =>
    new ReadableStream<Uint8Array>({
      start(ctl) {
        for (let i = 0; i < bytes.length; i += 3) ctl.enqueue(bytes.slice(i, i + 3));
        ctl.close();
      },
    });
  const upstream = (async () => new Response(pieces(), { status: 200, headers: { 'content-type': c.content_type } })) as typeof fetch;
  const gw = new Gateway('/wb/', { db: async () => mem.asDb(), settings: async () => settings, notify: () => {}, fetch: upstream });
  const h = gw.handle(new Request(`https://workbench.example/wb/gateway/v1/${API_PATHS[c.api]}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(c.request) }));
  await (await h.response).text();
  await h.done;
  const steps = (mem.all('journal') as JournalEntry[]).map((e) => e.step);
  assert.equal(steps.length, 1);
  return steps[0];
}

const URL_OF = (c: Call) => `https://${c.api === 'messages' ? 'api.anthropic.com' : 'api.openai.com'}/v1/${API_PATHS[c.api]}`;

function viaHar(c: Call): StepRecord {
  const entry = {
    startedDateTime: '2026-12-02T09:15:00.100Z',
    time: 900,
    request: { method: 'POST', url: URL_OF(c), headers: [{ name: 'content-type', value: 'application/json' }], postData: { mimeType: 'application/json', text: JSON.stringify(c.request) } },
    response: { status: 200, statusText: 'OK', headers: [{ name: 'content-type', value: c.content_type }], content: { mimeType: c.content_type, text: bodyText(c) } },
    timings: { wait: 400 },
  };
  return runOne(har, { log: { version: '1.2', entries: [entry] } });
}

function viaVcr(c: Call): StepRecord {
  const interaction = {
    request: { method: 'POST', uri: URL_OF(c), headers: { 'content-type': ['application/json'] }, body: JSON.stringify(c.request) },
    response: { status: { code: 200, message: 'OK' }, headers: { 'content-type': [c.content_type] }, body: { string: bodyText(c) } },
  };
  return runOne(vcr, { interactions: [interaction], version: 1 });
}

const user = { role: 'user', content: 'Is 2100 a leap year?' };
const EXTRA: Call[] = [
  {
    // vLLM's OpenAI server with logprobs and return_token_ids
    api: 'chat',
    request: { model: 'Qwen/Qwen3-8B', messages: [user], logprobs: true, return_token_ids: true },
    response: {
      id: 'chatcmpl-v1', object: 'chat.completion', created: 1767225600, model: 'Qwen/Qwen3-8B', prompt_token_ids: [151644, 872, 198],
      choices: [{ index: 0, message: { role: 'assistant', content: 'No.' }, finish_reason: 'stop', token_ids: [2753, 13],
        logprobs: { content: [{ token: 'No', logprob: -0.012, bytes: [78, 111], top_logprobs: [] }, { token: '.', logprob: -0.2, bytes: [46], top_logprobs: [] }] } }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    },
    content_type: 'application/json',
  },
  {
    // a reasoning model's Responses answer whose reasoning is returned only encrypted (include: reasoning.encrypted_content)
    api: 'responses',
    request: { model: 'o4-mini', input: 'Is 2100 a leap year?', include: ['reasoning.encrypted_content'], store: false },
    response: {
      id: 'resp_9', object: 'response', created_at: 1767225600, status: 'completed', model: 'o4-mini-2025-04-16',
      output: [{ type: 'reasoning', id: 'rs_9', summary: [], encrypted_content: 'gAAAAABoZ0kq3v' }, { type: 'message', id: 'msg_9', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'No.', annotations: [] }] }],
      usage: { input_tokens: 12, output_tokens: 70, total_tokens: 82 },
    },
    content_type: 'application/json',
  },
  {
    // Claude with extended thinking, a block of it redacted by the safety system, and a tool in Anthropic's shape
    api: 'messages',
    request: { model: 'claude-sonnet-4-5', max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [user], tools: [{ name: 'calendar', description: 'Look up a date.', input_schema: { type: 'object', properties: { year: { type: 'integer' } } } }] },
    response: {
      id: 'msg_9', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929',
      content: [{ type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' }, { type: 'text', text: 'No.' }], stop_reason: 'end_turn', usage: { input_tokens: 40, output_tokens: 9 },
    },
    content_type: 'application/json',
  },
];

const { calls } = JSON.parse(readFileSync(new URL('../fixtures/formats/wire-same-call.json', import.meta.url), 'utf8')) as { calls: Call[] };
const label = (c: Call) => `${c.api} ${typeof c.response === 'string' ? 'stream' : 'JSON'} ${String(c.request.model)}`;

describe('one call captured by the gateway and imported from its recording gives one step', () => {
  for (const c of [...calls, ...EXTRA]) {
    it(label(c), async () => {
      const g = recordOnly(await captured(c));
      assert.deepEqual(recordOnly(viaHar(c)), g, 'HAR import = gateway capture');
      assert.deepEqual(recordOnly(viaVcr(c)), g, 'VCR import = gateway capture');
      assert.equal(g.status, 'ok');
    });
  }

  it('the record-only fields carry what the calls say (the comparison is not of empty steps)', async () => {
    const [logprobs, encrypted, redacted] = await Promise.all(EXTRA.map(captured));
    assert.deepEqual([logprobs.rollout_log_probs, logprobs.prompt_ids, logprobs.response_ids], [[-0.012, -0.2], [151644, 872, 198], [2753, 13]]);
    assert.equal(encrypted.metadata?.reasoning_hidden, 'encrypted');
    assert.equal(redacted.metadata?.reasoning_hidden, 'redacted');
    assert.deepEqual(JSON.parse(redacted.metadata?.tools_original ?? 'null')[0].input_schema.properties.year, { type: 'integer' });
    assert.equal(redacted.metadata?.api, 'messages');
    assert.match(redacted.prompt_uid, /^p-[0-9a-f]+$/);
  });
});
