/**
 * The built-in mock upstream: a deterministic scripted model speaking OpenAI chat, OpenAI responses
 * and Anthropic messages, JSON or SSE. It answers arithmetic with a `calculator` tool call when that
 * tool is offered, then states the tool's result; otherwise it answers in text. `seed % 4 === 3`
 * makes it skip the tool and answer off by one, so GRPO groups get reward variance.
 * Models: `mock` (fast), `mock-slow` (120 ms between chunks), `mock-500` (an HTTP 500).
 * It is a set of MSW request handlers (decision 020) on a virtual origin: the gateway service worker
 * resolves a call with `getResponse(mockUpstreamHandlers, request)`, tests can serve the same
 * handlers with `setupServer`.
 */
import { getResponse, http } from 'msw';
import { calculate, findExpression, formatNumber } from '../../util/calculator';
import { hash64 } from '../../util/hash';
import { int, isObject, type Obj, str } from '../../contract/json';
import { API_PATHS, GATEWAY_APIS, type GatewayApi, wireRequest } from '../../wire';

interface Plan {
  text: string | null;
  tool: { name: string; args: string } | null;
  thinking: string | null;
}

function toolNames(api: GatewayApi, body: Obj): string[] {
  const tools = Array.isArray(body.tools) ? body.tools.filter(isObject) : [];
  return tools.map((t) => (api === 'chat' && isObject(t.function) ? str(t.function.name) : str(t.name)) ?? '').filter(Boolean);
}

function plan(api: GatewayApi, body: Obj): Plan {
  const { messages } = wireRequest(api, body);
  const last = messages.at(-1);
  const seed = int(body.seed) ?? 0;
  const thinking = api === 'messages' && isObject(body.thinking) && body.thinking.type === 'enabled' ? 'Let me work this out step by step.' : null;
  if (last?.role === 'tool') return { text: `The answer is ${(last.content ?? '').trim()}.`, tool: null, thinking };
  const userText = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const expr = findExpression(userText);
  if (expr) {
    let value: number | null = null;
    try {
      value = calculate(expr);
    } catch {
      value = null;
    }
    const calc = toolNames(api, body).find((n) => /calc/i.test(n));
    if (calc && seed % 4 !== 3) return { text: null, tool: { name: calc, args: JSON.stringify({ expression: expr }) }, thinking };
    if (value !== null) return { text: `The answer is ${formatNumber(seed % 4 === 3 ? value + 1 : value)}.`, tool: null, thinking };
  }
  const words = userText.split(/\s+/).filter(Boolean).slice(0, 8).join(' ');
  return { text: `This is the mock model answering: ${words || 'hello'}. It needs no key and always says the same thing.`, tool: null, thinking };
}

const words = (s: string) => s.match(/\S+\s*/g) ?? [];
const tokenId = (w: string) => Number.parseInt(hash64(w).slice(0, 6), 16) % 50000;
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((ok, fail) => {
    const t = setTimeout(ok, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      fail(new DOMException('aborted', 'AbortError'));
    });
  });

function sse(events: { event?: string; data: unknown }[], delayMs: number, signal?: AbortSignal): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let i = 0;
  return new ReadableStream({
    async pull(ctl) {
      if (i >= events.length) return ctl.close();
      if (i > 0 && delayMs) await sleep(delayMs, signal);
      const e = events[i++];
      const data = typeof e.data === 'string' ? e.data : JSON.stringify(e.data);
      ctl.enqueue(enc.encode(`${e.event ? `event: ${e.event}\n` : ''}data: ${data}\n\n`));
    },
  });
}

function chat(body: Obj, p: Plan, created: number) {
  const id = `chatcmpl-mock-${hash64(JSON.stringify(body.messages ?? '')).slice(0, 12)}`;
  const model = str(body.model) ?? 'mock';
  const toks = words(p.text ?? '');
  const asIds = body.return_tokens_as_token_ids === true;
  const lp = (w: string, k: number) => ({ token: asIds ? `token_id:${tokenId(w)}` : w, logprob: -0.05 * ((k % 5) + 1), bytes: null, top_logprobs: [] });
  const wantLp = body.logprobs === true;
  const call = p.tool ? { id: `call_${hash64(p.tool.args).slice(0, 10)}`, type: 'function', function: { name: p.tool.name, arguments: p.tool.args } } : null;
  const usage = { prompt_tokens: words(JSON.stringify(body.messages ?? '')).length, completion_tokens: Math.max(1, toks.length), total_tokens: 0 };
  usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
  const finish = call ? 'tool_calls' : 'stop';
  const json = {
    id, object: 'chat.completion', created, model,
    choices: [{ index: 0, message: { role: 'assistant', content: p.text, ...(call ? { tool_calls: [call] } : {}) }, finish_reason: finish, logprobs: wantLp ? { content: toks.map(lp) } : null }],
    usage,
  };
  const chunk = (delta: Obj, extra: Obj = {}) => ({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: null, logprobs: null, ...extra }] });
  const events: { data: unknown }[] = [{ data: chunk({ role: 'assistant', content: '' }) }];
  toks.forEach((w, k) => {
    events.push({ data: chunk({ content: w }, wantLp ? { logprobs: { content: [lp(w, k)] } } : {}) });
  });
  if (call) {
    const half = Math.ceil(call.function.arguments.length / 2);
    events.push({ data: chunk({ tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments.slice(0, half) } }] }) });
    events.push({ data: chunk({ tool_calls: [{ index: 0, function: { arguments: call.function.arguments.slice(half) } }] }) });
  }
  events.push({ data: { ...chunk({}), choices: [{ index: 0, delta: {}, finish_reason: finish, logprobs: null }] } });
  const so = isObject(body.stream_options) ? body.stream_options : {};
  if (so.include_usage === true) events.push({ data: { id, object: 'chat.completion.chunk', created, model, choices: [], usage } });
  events.push({ data: '[DONE]' });
  return { json, events };
}

function messages(body: Obj, p: Plan) {
  const id = `msg_mock_${hash64(JSON.stringify(body.messages ?? '')).slice(0, 12)}`;
  const model = str(body.model) ?? 'mock';
  const content: Obj[] = [];
  if (p.thinking) content.push({ type: 'thinking', thinking: p.thinking, signature: 'mock-signature' });
  if (p.text) content.push({ type: 'text', text: p.text });
  if (p.tool) content.push({ type: 'tool_use', id: `toolu_${hash64(p.tool.args).slice(0, 10)}`, name: p.tool.name, input: JSON.parse(p.tool.args) });
  const usage = { input_tokens: words(JSON.stringify(body.messages ?? '')).length, output_tokens: Math.max(1, words(p.text ?? '').length) };
  const stop_reason = p.tool ? 'tool_use' : 'end_turn';
  const json = { id, type: 'message', role: 'assistant', model, content, stop_reason, stop_sequence: null, usage };
  const events: { event: string; data: unknown }[] = [
    { event: 'message_start', data: { type: 'message_start', message: { ...json, content: [], stop_reason: null, usage: { input_tokens: usage.input_tokens, output_tokens: 1 } } } },
  ];
  content.forEach((b, index) => {
    const start = b.type === 'text' ? { type: 'text', text: '' } : b.type === 'thinking' ? { type: 'thinking', thinking: '' } : { ...b, input: {} };
    events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: start } });
    if (b.type === 'text') for (const w of words(String(b.text))) events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text: w } } });
    if (b.type === 'thinking') {
      events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: b.thinking } } });
      events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: b.signature } } });
    }
    if (b.type === 'tool_use') events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } } });
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  events.push({ event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } } });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return { json, events };
}

function responses(body: Obj, p: Plan, created: number) {
  const id = `resp_mock_${hash64(JSON.stringify([body.input, body.previous_response_id])).slice(0, 12)}`;
  const model = str(body.model) ?? 'mock';
  const output: Obj[] = [];
  if (p.text) output.push({ type: 'message', id: `msg_${id}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: p.text, annotations: [] }] });
  if (p.tool) output.push({ type: 'function_call', id: `fc_${id}`, call_id: `call_${hash64(p.tool.args).slice(0, 10)}`, name: p.tool.name, arguments: p.tool.args, status: 'completed' });
  const usage = { input_tokens: words(JSON.stringify(body.input ?? '')).length, output_tokens: Math.max(1, words(p.text ?? '').length), total_tokens: 0 };
  usage.total_tokens = usage.input_tokens + usage.output_tokens;
  const json = { id, object: 'response', created_at: created, status: 'completed', model, output, usage, previous_response_id: body.previous_response_id ?? null };
  let seq = 0;
  const ev = (type: string, rest: Obj) => ({ event: type, data: { type, sequence_number: seq++, ...rest } });
  const events = [ev('response.created', { response: { ...json, status: 'in_progress', output: [] } })];
  output.forEach((item, output_index) => {
    events.push(ev('response.output_item.added', { output_index, item: item.type === 'message' ? { ...item, content: [] } : { ...item, arguments: '' } }));
    if (item.type === 'message') {
      for (const w of words(p.text ?? '')) events.push(ev('response.output_text.delta', { item_id: item.id, output_index, content_index: 0, delta: w }));
      events.push(ev('response.output_text.done', { item_id: item.id, output_index, content_index: 0, text: p.text }));
    } else {
      events.push(ev('response.function_call_arguments.delta', { item_id: item.id, output_index, delta: item.arguments }));
      events.push(ev('response.function_call_arguments.done', { item_id: item.id, output_index, arguments: item.arguments }));
    }
    events.push(ev('response.output_item.done', { output_index, item }));
  });
  events.push(ev('response.completed', { response: json }));
  return { json, events };
}

/** The mock's answer to `body` on `api`, as the HTTP response a real server would send. */
export async function mockRespond(api: GatewayApi, body: unknown, signal?: AbortSignal): Promise<Response> {
  const b = isObject(body) ? body : {};
  const model = str(b.model) ?? 'mock';
  if (/-500\b/.test(model)) {
    const err = api === 'messages' ? { type: 'error', error: { type: 'api_error', message: 'mock upstream: scripted internal error' } } : { error: { message: 'mock upstream: scripted internal error', type: 'server_error', code: 'mock_500' } };
    return new Response(JSON.stringify(err), { status: 500, headers: { 'content-type': 'application/json' } });
  }
  const delay = /-slow\b/.test(model) ? 120 : 0;
  if (delay) await sleep(delay, signal);
  const p = plan(api, b);
  const created = 1767225600;
  const out = api === 'chat' ? chat(b, p, created) : api === 'messages' ? messages(b, p) : responses(b, p, created);
  if (b.stream === true) {
    return new Response(sse(out.events, delay, signal), { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' } });
  }
  return new Response(JSON.stringify(out.json), { status: 200, headers: { 'content-type': 'application/json' } });
}

/** The mock's virtual origin: never on the network, only matched by the handlers below. */
export const MOCK_ORIGIN = 'https://mock-upstream.invalid';

async function bodyOf(request: Request): Promise<unknown> {
  const text = await request.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The mock upstream as MSW handlers: one per API path on MOCK_ORIGIN. */
export const mockUpstreamHandlers = GATEWAY_APIS.map((api) =>
  http.post(`${MOCK_ORIGIN}/v1/${API_PATHS[api]}`, async ({ request }) => mockRespond(api, await bodyOf(request), request.signal)),
);

/** A call to the mock, resolved by its handlers in this context (the gateway service worker, a page, a test). */
export async function mockFetch(api: GatewayApi, body: string, signal?: AbortSignal): Promise<Response> {
  const path = `/v1/${API_PATHS[api]}`;
  const request = new Request(`${MOCK_ORIGIN}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal });
  const res = await getResponse(mockUpstreamHandlers, request);
  return res ?? new Response(JSON.stringify({ error: { message: `mock upstream: no handler for ${path}` } }), { status: 404, headers: { 'content-type': 'application/json' } });
}
