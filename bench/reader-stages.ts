// The ingest reader stage by stage, in Node, one thread, no pool (issue 34 item 2):
//   node --expose-gc --import tsx bench/reader-stages.ts [file] [--reps 3]
// CPU time of each pass (process.cpuUsage: the main thread plus V8's GC helpers) over the whole file held in memory;
// see reader-stages-core.ts. bench/reader-browser.mjs runs the same passes in a browser worker.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename } from 'node:path';
import { runPasses, stagePasses, stageTable } from './reader-stages-core';

const argv = process.argv.slice(2);
const path = argv.find((a, i) => !a.startsWith('--') && !argv[i - 1]?.startsWith('--')) ?? 'bench/data/chat-steps-100mb-s7.jsonl';
const reps = Number(argv[argv.indexOf('--reps') + 1]) || 3;
const bytes = new Uint8Array(readFileSync(path));
const cpu = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const load0 = loadavg()[0];
const { median, all } = await runPasses(stagePasses(bytes, basename(path)), reps, cpu, (globalThis as { gc?: () => void }).gc);
console.log(`${path}, ${(bytes.length / 1e6).toFixed(0)} MB, ${reps} reps, load ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)}`);
console.log(stageTable(median, all, 'CPU ms'));
