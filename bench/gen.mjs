// Seeded generator of realistic chat-step JSONL (OpenAI chat format, one LLM call or a multi-turn
// agent conversation per line) for the benchmarks. Same seed + size → the same bytes.
//   node bench/gen.mjs --sizes 10,100 [--seed 7] [--out bench/data] [--single-step]
import { closeSync, existsSync, mkdirSync, openSync, renameSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { rng } from './rng.mjs';

const SYL = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'qua', 'bri', 'dor', 'fen', 'gil', 'hap', 'jin', 'kel', 'mor', 'nus', 'pex', 'rin', 'sol', 'tur', 'vex', 'wyn', 'xor', 'yal', 'zen', 'ax', 'eb', 'il', 'ok', 'um', 'str', 'pl', 'ch', 'th'];
const DATA_SOURCES = ['gsm8k', 'math500', 'swe-bench-lite', 'tau-retail', 'tau-airline', 'hotpotqa', 'webarena', 'alfworld', 'humaneval', 'mbpp', 'aime24', 'livecodebench'];
const MODELS = ['qwen2.5-7b-instruct', 'qwen2.5-32b-instruct', 'llama-3.1-8b-instruct', 'gpt-4o-mini', 'deepseek-v3', 'mistral-small-24b'];
const AGENTS = ['react', 'codeact', 'toolformer', 'plan-exec', 'reflexion'];
const TOOLS = [
  { name: 'search', params: { query: 'string', top_k: 'integer' } },
  { name: 'python', params: { code: 'string' } },
  { name: 'read_file', params: { path: 'string', start: 'integer', end: 'integer' } },
  { name: 'write_file', params: { path: 'string', content: 'string' } },
  { name: 'bash', params: { command: 'string', timeout: 'integer' } },
  { name: 'get_order', params: { order_id: 'string' } },
  { name: 'calculator', params: { expression: 'string' } },
];

export function makeGenerator(seed = 7, { single = false } = {}) {
  const r = rng(seed);
  const int = (n) => Math.floor(r() * n);
  const pick = (xs) => xs[int(xs.length)];
  // 40k pseudo-words drawn with a Zipf-like skew: realistic entropy, so zstd does not flatter anyone.
  const vocab = [];
  for (let i = 0; i < 40_000; i++) {
    let w = '';
    const n = 1 + int(4);
    for (let j = 0; j < n; j++) w += pick(SYL);
    vocab.push(w);
  }
  const word = () => vocab[Math.floor(vocab.length * r() ** 3)];
  const hex = (n) => {
    let s = '';
    for (let i = 0; i < n; i++) s += '0123456789abcdef'[int(16)];
    return s;
  };
  const sentence = () => {
    const n = 5 + int(14);
    const ws = [];
    for (let i = 0; i < n; i++) ws.push(r() < 0.06 ? String(int(100_000)) : word());
    ws[0] = ws[0][0].toUpperCase() + ws[0].slice(1);
    return `${ws.join(' ')}${pick(['.', '.', '.', '?', '!', ':'])}`;
  };
  const text = (sentences) => {
    const out = [];
    for (let i = 0; i < sentences; i++) out.push(sentence());
    return out.join(r() < 0.2 ? '\n' : ' ');
  };
  const code = () => {
    const lines = [];
    const n = 2 + int(8);
    for (let i = 0; i < n; i++) lines.push(`${'  '.repeat(int(3))}${word()}_${word()} = ${word()}(${int(1000)}, "${word()}")`);
    return lines.join('\n');
  };
  const argsFor = (t) => {
    const a = {};
    for (const [k, ty] of Object.entries(t.params)) a[k] = ty === 'integer' ? int(500) : k === 'code' || k === 'content' ? code() : k === 'path' ? `src/${word()}/${word()}.py` : `${word()} ${word()} ${word()}`;
    return JSON.stringify(a);
  };
  const toolDefs = (names) =>
    names.map((t) => ({
      type: 'function',
      function: { name: t.name, description: sentence(), parameters: { type: 'object', properties: Object.fromEntries(Object.entries(t.params).map(([k, ty]) => [k, { type: ty }])), required: Object.keys(t.params) } },
    }));

  const prompts = [];
  let line = 0;
  /** One JSON line: an agent conversation that ends with an assistant turn. */
  return function next() {
    line++;
    // GRPO groups: 8 rollouts share a prompt (same system + first user turn, same uid)
    if (!prompts.length || r() < 1 / 8) {
      const ds = pick(DATA_SOURCES);
      prompts.push({ uid: `${ds}-${hex(10)}`, ds, system: `You are ${word()} ${word()}, a careful agent. ${text(1 + int(3))}`, user: text(1 + int(4)) });
      if (prompts.length > 64) prompts.shift();
    }
    const p = prompts[prompts.length - 1 - int(Math.min(prompts.length, 4))];
    const tools = r() < 0.7 ? TOOLS.filter(() => r() < 0.4) : [];
    const messages = [
      { role: 'system', content: p.system },
      { role: 'user', content: p.user },
    ];
    // 70% one LLM call per line (the request context + its response); 30% a multi-turn trajectory
    const multi = r() >= 0.7;
    const turns = single || !multi ? 1 : 2 + int(3);
    for (let t = 0; t < turns; t++) {
      const last = t === turns - 1;
      if (!last && tools.length) {
        const calls = [];
        const k = 1 + (r() < 0.2 ? 1 : 0);
        for (let c = 0; c < k; c++) {
          const tool = pick(tools);
          calls.push({ id: `call_${hex(24)}`, type: 'function', function: { name: tool.name, arguments: argsFor(tool) } });
        }
        messages.push({ role: 'assistant', content: r() < 0.5 ? text(1) : null, tool_calls: calls });
        for (const c of calls) messages.push({ role: 'tool', tool_call_id: c.id, content: r() < 0.3 ? code() : text(1 + int(4)) });
      } else if (!last) {
        messages.push({ role: 'assistant', content: text(1 + int(3)) });
        messages.push({ role: 'user', content: text(1 + int(2)) });
      } else {
        messages.push({ role: 'assistant', content: r() < 0.25 ? `${text(1 + int(2))}\n\`\`\`python\n${code()}\n\`\`\`` : text(1 + int(5)) });
      }
    }
    const rec = {
      id: `traj-${hex(16)}`,
      uid: p.uid,
      data_source: p.ds,
      model: pick(MODELS),
      messages,
      reward: r() < 0.05 ? null : Math.round((r() < 0.5 ? r() : r() < 0.6 ? 1 : 0) * 1000) / 1000,
      agent: pick(AGENTS),
      latency_ms: Math.round(200 + 4000 * r() ** 2 + (r() < 0.02 ? 30_000 * r() : 0)),
      policy_version: int(20),
      split: r() < 0.9 ? 'train' : 'val',
      created_at: new Date(Date.UTC(2025, 0, 1) + line * 1731).toISOString(),
      extra_info: { index: line, difficulty: pick(['easy', 'medium', 'hard']), tags: [word(), word()] },
    };
    if (tools.length) rec.tools = toolDefs(tools);
    return JSON.stringify(rec);
  };
}

/** Write `mb` MB (10^6 bytes) of JSONL to `path` unless it already exists with that seed. */
export function generate(path, mb, seed = 7, { single = false } = {}) {
  const target = mb * 1e6;
  if (existsSync(path) && statSync(path).size >= target) return { path, bytes: statSync(path).size, cached: true };
  const next = makeGenerator(seed, { single });
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w');
  let bytes = 0;
  let lines = 0;
  let buf = [];
  let bufLen = 0;
  while (bytes < target) {
    const l = `${next()}\n`;
    buf.push(l);
    bufLen += l.length;
    bytes += Buffer.byteLength(l);
    lines++;
    if (bufLen > 1 << 22) {
      writeSync(fd, buf.join(''));
      buf = [];
      bufLen = 0;
    }
  }
  if (buf.length) writeSync(fd, buf.join(''));
  closeSync(fd);
  renameSync(tmp, path);
  return { path, bytes, lines, cached: false };
}

/** `single`: every line is one LLM call (the issue's 1 GB case) instead of 30 % multi-turn trajectories. */
export function dataPath(dir, mb, seed = 7, { single = false } = {}) {
  return join(dir, `chat-steps-${mb}mb-s${seed}${single ? '-single' : ''}.jsonl`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (k, d) => {
    const i = process.argv.indexOf(`--${k}`);
    return i >= 0 ? process.argv[i + 1] : d;
  };
  const out = arg('out', 'bench/data');
  const seed = Number(arg('seed', 7));
  const single = process.argv.includes('--single-step');
  mkdirSync(out, { recursive: true });
  for (const mb of arg('sizes', '10,100').split(',').map(Number)) {
    const t0 = performance.now();
    const r = generate(dataPath(out, mb, seed, { single }), mb, seed, { single });
    console.log(`${r.path}: ${(r.bytes / 1e6).toFixed(1)} MB${r.lines ? `, ${r.lines} lines` : ''}${r.cached ? ' (cached)' : ''} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
}
