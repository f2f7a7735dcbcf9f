// Writes the bundled demo set under notebooks/data/ (deterministic: seeded PRNG). `npm run demo-data`.
import { mkdirSync, writeFileSync } from 'node:fs';

const OUT = new URL('../notebooks/data/', import.meta.url);
mkdirSync(OUT, { recursive: true });

let seed = 20261202;
const rand = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
const pick = (a) => a[Math.floor(rand() * a.length)];
const id = (p, n = 12) => p + Array.from({ length: n }, () => pick('abcdefghijklmnopqrstuvwxyz0123456789')).join('');
const iso = (ms) => new Date(ms).toISOString();
let clock = Date.UTC(2026, 10, 20, 9, 0, 0);
const tick = (ms) => (clock += ms);

const CALC = { type: 'function', function: { name: 'calculator', description: 'Evaluate an arithmetic expression exactly.', parameters: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] } } };
const SYSTEM = 'You are a careful math tutor. Use the calculator tool for arithmetic, then answer with "Answer: <number>".';
const NAMES = ['Ava', 'Ben', 'Chen', 'Dana', 'Eli', 'Farah', 'Goro', 'Hana', 'Ivan', 'Jonas', 'Kemi', 'Lea'];
const ITEMS = ['apples', 'stickers', 'marbles', 'books', 'coins', 'pencils'];

function problem(i) {
  const a = 3 + ((i * 7) % 20);
  const b = 2 + ((i * 5) % 9);
  const c = 1 + ((i * 3) % 6);
  const who = NAMES[i % NAMES.length];
  const what = ITEMS[i % ITEMS.length];
  return { q: `${who} has ${a} boxes with ${b} ${what} each and gives away ${c} ${what}. How many ${what} are left?`, expr: `${a}*${b}-${c}`, answer: a * b - c };
}

// 1. GRPO rollouts in OpenAI chat format: 12 prompts × 4 rollouts, tool calls, rewards
const rollouts = [];
for (let p = 0; p < 12; p++) {
  const pr = problem(p);
  for (let r = 0; r < 4; r++) {
    const correct = rand() < 0.55 + (p % 3) * 0.15;
    const useTool = rand() < 0.75;
    const got = correct ? pr.answer : pr.answer + pick([-2, -1, 1, 3, 10]);
    const msgs = [{ role: 'system', content: SYSTEM }, { role: 'user', content: pr.q }];
    if (useTool) {
      const cid = id('call_', 8);
      const args = JSON.stringify({ expression: correct ? pr.expr : pr.expr.replace('-', '+') });
      msgs.push({ role: 'assistant', content: null, tool_calls: [{ id: cid, type: 'function', function: { name: 'calculator', arguments: r === 3 ? JSON.stringify(args) : args } }] });
      msgs.push({ role: 'tool', tool_call_id: cid, content: String(got) });
    }
    msgs.push({ role: 'assistant', content: `${correct ? 'Multiply, then subtract.' : 'Let me add them up.'} Answer: ${got}` });
    rollouts.push({ messages: msgs, tools: [CALC], parallel_tool_calls: false, uid: `gsm8k-${p}`, data_source: 'gsm8k-mini', agent: useTool ? 'react-calculator' : 'cot-baseline', model: pick(['qwen2.5-7b-instruct', 'llama-3.1-8b-instruct']), reward: correct ? 1 : 0, rollout: r });
  }
}
writeFileSync(new URL('gsm8k-rollouts.jsonl', OUT), rollouts.map((x) => JSON.stringify(x)).join('\n') + '\n');

// 2. ShareGPT support conversations (JSON array) with function calls and observations
const TOPICS = [
  ['I was charged twice for my subscription.', 'lookup_invoice', { customer_id: 'C-1042' }, '{"invoices":[{"id":"INV-88","amount":12.0},{"id":"INV-89","amount":12.0}]}', 'I see two charges of $12.00 (INV-88 and INV-89). I have refunded INV-89; it will appear in 3–5 days.'],
  ['How do I reset my password?', null, null, null, 'Open Settings → Security → Reset password, then follow the link we email you.'],
  ['Where is my order #5521?', 'track_order', { order_id: '5521' }, '{"status":"in transit","eta":"2026-11-24"}', 'Order #5521 is in transit and should arrive on November 24.'],
  ['Can I change my plan to annual?', 'change_plan', { plan: 'annual' }, '{"ok":true,"prorated_credit":4.5}', 'Done — you are on the annual plan now, with a $4.50 prorated credit.'],
];
const sharegpt = [];
for (let i = 0; i < 20; i++) {
  const [ask, fn, args, obs, answer] = TOPICS[i % TOPICS.length];
  const conv = [{ from: 'human', value: ask }];
  if (fn) {
    conv.push({ from: 'function_call', value: JSON.stringify({ name: fn, arguments: args }) });
    conv.push({ from: 'observation', value: obs });
  }
  conv.push({ from: 'gpt', value: answer });
  if (i % 3 === 0) {
    conv.push({ from: 'human', value: 'Thanks! One more thing: can you email me the receipt?' });
    conv.push({ from: 'gpt', value: 'Sure — the receipt is on its way to the address on file.' });
  }
  sharegpt.push({ id: `support-${i}`, system: 'You are a friendly support agent for Acme Cloud.', tools: JSON.stringify([{ name: 'lookup_invoice' }, { name: 'track_order' }, { name: 'change_plan' }]), conversations: conv });
}
writeFileSync(new URL('support-chats.sharegpt.json', OUT), JSON.stringify(sharegpt, null, 2) + '\n');

// 3. OpenAI Chat Completions request/response log: each call repeats the growing history
const log = [];
for (let s = 0; s < 15; s++) {
  const pr = problem(20 + s);
  const history = [{ role: 'system', content: SYSTEM }, { role: 'user', content: pr.q }];
  const model = pick(['gpt-4o-mini', 'gpt-4.1-mini']);
  const calls = [
    { role: 'assistant', content: null, tool_calls: [{ id: id('call_', 8), type: 'function', function: { name: 'calculator', arguments: JSON.stringify({ expression: pr.expr }) } }] },
    { role: 'assistant', content: `Answer: ${pr.answer}` },
  ];
  for (let k = 0; k < calls.length; k++) {
    const started = tick(400 + Math.floor(rand() * 3000));
    const latency = 300 + Math.floor(rand() * 2500);
    const failed = s === 7 && k === 1;
    const response = failed
      ? { error: { message: 'Rate limit reached for gpt-4o-mini. Please try again in 20s.', type: 'rate_limit_error', code: 'rate_limit_exceeded' } }
      : { id: id('chatcmpl-', 10), object: 'chat.completion', created: Math.floor(started / 1000), model, choices: [{ index: 0, message: calls[k], finish_reason: calls[k].tool_calls ? 'tool_calls' : 'stop' }], usage: { prompt_tokens: 80 + 30 * k, completion_tokens: 12 + k * 5, total_tokens: 92 + 35 * k } };
    log.push({ timestamp: iso(started), latency_ms: latency, request: { model, messages: history.map((m) => ({ ...m })), tools: [CALC], temperature: 0.7 }, response, status: failed ? 429 : 200 });
    if (failed) break;
    history.push(calls[k]);
    if (calls[k].tool_calls) history.push({ role: 'tool', tool_call_id: calls[k].tool_calls[0].id, content: String(pr.answer) });
  }
}
const logLines = log.map((x) => JSON.stringify(x));
logLines.splice(9, 0, '{"timestamp": "2026-11-20T10:00:00Z", "request": {"model": "gpt-4o-mini", "messages": [');
writeFileSync(new URL('api-calls.openai-log.jsonl', OUT), logLines.join('\n') + '\n');

// 4. Anthropic Messages request/response log with thinking and tool_use
const anth = [];
for (let s = 0; s < 10; s++) {
  const pr = problem(40 + s);
  const tu = id('toolu_', 10);
  const req1 = { model: 'claude-sonnet-4-5', max_tokens: 1024, system: SYSTEM, tools: [{ name: 'calculator', description: 'Evaluate arithmetic', input_schema: CALC.function.parameters }], messages: [{ role: 'user', content: pr.q }] };
  const res1 = { id: id('msg_', 12), type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'thinking', thinking: `I need ${pr.expr}.`, signature: 'EqQBCgIYAhIM' + id('', 16) }, { type: 'tool_use', id: tu, name: 'calculator', input: { expression: pr.expr } }], stop_reason: 'tool_use', usage: { input_tokens: 410, output_tokens: 58, cache_read_input_tokens: s ? 380 : 0, cache_creation_input_tokens: s ? 0 : 380 } };
  const req2 = { ...req1, messages: [...req1.messages, { role: 'assistant', content: res1.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: tu, content: String(pr.answer) }] }] };
  const res2 = { id: id('msg_', 12), type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: `Answer: ${pr.answer}` }], stop_reason: 'end_turn', usage: { input_tokens: 480, output_tokens: 9 } };
  anth.push({ request: req1, response: res1 }, { request: req2, response: res2 });
}
writeFileSync(new URL('claude-calls.anthropic.jsonl', OUT), anth.map((x) => JSON.stringify(x)).join('\n') + '\n');

// 5. tau-bench style results: airline tasks × 2 trials, one errored run with an empty trajectory
const tau = [];
for (let t = 0; t < 8; t++) {
  for (let trial = 0; trial < 2; trial++) {
    const errored = t === 5 && trial === 1;
    const reward = errored ? 0 : rand() < 0.5 ? 1 : 0;
    const traj = errored ? [] : [
      { role: 'system', content: 'You are an airline customer service agent. Follow the policy.' },
      { role: 'user', content: `Hi, I need to change my flight for reservation R${100 + t}.` },
      { role: 'assistant', content: null, tool_calls: [{ id: id('call_', 6), type: 'function', function: { name: 'get_reservation_details', arguments: JSON.stringify({ reservation_id: `R${100 + t}` }) } }] },
      { role: 'tool', tool_call_id: 'x', name: 'get_reservation_details', content: JSON.stringify({ reservation_id: `R${100 + t}`, cabin: 'economy', flights: [{ flight: `HAT0${t}`, date: '2026-12-10' }] }) },
      { role: 'assistant', content: reward ? 'I can move you to the 2026-12-12 flight at no extra cost. Shall I proceed?' : 'Your fare cannot be changed.' },
    ];
    tau.push({ task_id: t, trial, reward, traj, info: errored ? { error: 'litellm.Timeout: Request timed out after 600 seconds' } : { reward_info: { reward, actions: [] } } });
  }
}
writeFileSync(new URL('airline.tau-bench.json', OUT), JSON.stringify(tau, null, 1) + '\n');

// 6. veRL prompt rows (no responses yet)
const verl = [];
for (let i = 0; i < 24; i++) {
  const pr = problem(60 + i);
  verl.push({ data_source: 'gsm8k-mini', prompt: [{ role: 'user', content: `${pr.q} Let's think step by step and output the final answer after "####".` }], ability: 'math', reward_model: { style: 'rule', ground_truth: String(pr.answer) }, extra_info: { split: i % 6 === 0 ? 'test' : 'train', index: i, answer: `${pr.expr} = ${pr.answer} #### ${pr.answer}` } });
}
writeFileSync(new URL('gsm8k-prompts.verl.jsonl', OUT), verl.map((x) => JSON.stringify(x)).join('\n') + '\n');

const manifest = [
  { file: 'gsm8k-rollouts.jsonl', description: 'OpenAI chat format: 12 math prompts × 4 rollouts with calculator tool calls and 0/1 rewards (GRPO groups)' },
  { file: 'support-chats.sharegpt.json', description: 'ShareGPT JSON array: support conversations with function calls and observations' },
  { file: 'api-calls.openai-log.jsonl', description: 'Chat Completions request/response log repeating the growing history, one rate-limit error and one truncated line' },
  { file: 'claude-calls.anthropic.jsonl', description: 'Anthropic Messages log with thinking, tool_use and tool_result blocks and cache usage' },
  { file: 'airline.tau-bench.json', description: 'tau-bench results: 8 tasks × 2 trials, rewards, one errored run with an empty trajectory' },
  { file: 'gsm8k-prompts.verl.jsonl', description: 'veRL RL prompt rows with reward_model ground truth and train/test split' },
];
writeFileSync(new URL('manifest.json', OUT), JSON.stringify(manifest, null, 2) + '\n');
console.log(`wrote ${manifest.length} demo files to notebooks/data/`);
