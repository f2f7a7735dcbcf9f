// The ingest reader stage by stage, in Node, one thread, no pool (issue 34 item 2):
//   node --import tsx bench/reader-stages.ts [file] [--reps 3]
// Each pass runs the stages up to one more than the pass before, over the whole file held in memory, and its CPU time
// (process.cpuUsage: the main thread plus V8's GC helpers) is taken; a stage's cost is the difference between two
// passes. Passes alternate within each repetition, so load on the machine spreads over all of them. The last line is
// the ratio the target reads: the reader (through Arrow IPC) over the JSON.parse floor of the same bytes.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename } from 'node:path';
import { createFinalizeState, finalize } from '../src/ingest/finalize';
import type { NormalizeContext, SourceRecord } from '../src/ingest/normalizer';
import { openaiChat } from '../src/ingest/normalizers/openai-chat';
import { readRecords } from '../src/ingest/reader';
import { StepBatch } from '../src/record/step-arrow';

const argv = process.argv.slice(2);
const path = argv.find((a, i) => !a.startsWith('--') && !argv[i - 1]?.startsWith('--')) ?? 'bench/data/chat-steps-100mb-s7.jsonl';
const reps = Number(argv[argv.indexOf('--reps') + 1]) || 3;
const bytes = new Uint8Array(readFileSync(path));
const ctx: NormalizeContext = { sourceId: 'f'.repeat(64), file: basename(path) };
const CHUNK = 1 << 16; // what File.stream() hands a reader in Chromium and Node

function* chunks(): Generator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += CHUNK) yield bytes.subarray(i, Math.min(bytes.length, i + CHUNK));
}

function stream(): ReadableStream<Uint8Array> {
  const it = chunks();
  return new ReadableStream({
    pull(c) {
      const r = it.next();
      if (r.done) c.close();
      else c.enqueue(r.value);
    },
  });
}

/** decode + split (+ JSON.parse): the floor the bench's page measures, same loop. */
function floor(parse: boolean): number {
  const dec = new TextDecoder();
  let carry = '';
  let n = 0;
  for (const c of chunks()) {
    const s = carry + dec.decode(c, { stream: true });
    let i = 0;
    for (;;) {
      const j = s.indexOf('\n', i);
      if (j < 0) break;
      const line = s.slice(i, j);
      if (parse) JSON.parse(line);
      n++;
      i = j + 1;
    }
    carry = s.slice(i);
  }
  if (carry.trim() && parse) JSON.parse(carry);
  return n;
}

type Upto = 'read' | 'normalize' | 'finalize' | 'arrow';

/** The real reader (readRecords: sniff, decode, split, parseOne), then the stages after it up to `upto`. */
async function pipeline(upto: Upto): Promise<number> {
  const st = openaiChat.createState?.(ctx);
  const fin = createFinalizeState();
  const batch = new StepBatch();
  let out = 0;
  for await (const ev of readRecords(stream())) {
    if (ev.kind !== 'record') continue;
    out++;
    if (upto === 'read') continue;
    const rec: SourceRecord = ev.record;
    const drafts = openaiChat.normalize(rec, ctx, st);
    if (upto === 'normalize') continue;
    const rows = finalize(drafts, rec, ctx, fin, { format: openaiChat.id, importId: 1 });
    if (upto === 'finalize') continue;
    for (const r of rows) batch.add(r);
    if (batch.rows >= 4000) out += batch.flush().byteLength & 0;
  }
  if (batch.rows) batch.flush();
  return out;
}

const passes: [string, () => unknown][] = [
  ['decode+split', () => floor(false)],
  ['+JSON.parse (floor)', () => floor(true)],
  ['reader: readRecords', () => pipeline('read')],
  ['+normalize', () => pipeline('normalize')],
  ['+finalize', () => pipeline('finalize')],
  ['+Arrow IPC', () => pipeline('arrow')],
];
const cpu: number[][] = passes.map(() => []);
const wall: number[][] = passes.map(() => []);
const load0 = loadavg()[0];
for (let r = 0; r < reps; r++) {
  const order = r % 2 ? [...passes.keys()].reverse() : [...passes.keys()];
  for (const i of order) {
    (globalThis as { gc?: () => void }).gc?.();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await passes[i][1]();
    const c = process.cpuUsage(c0);
    wall[i].push(performance.now() - t0);
    cpu[i].push((c.user + c.system) / 1000);
  }
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`${path}, ${(bytes.length / 1e6).toFixed(0)} MB, ${reps} reps, load ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)}`);
console.log('pass                     CPU ms (median, min–max)      stage CPU ms   wall ms');
let prev = 0;
for (const [i, [name]] of passes.entries()) {
  const m = med(cpu[i]);
  const stage = i === 2 ? m - med(cpu[0]) : m - prev;
  console.log(`${name.padEnd(24)} ${m.toFixed(0).padStart(6)} (${Math.min(...cpu[i]).toFixed(0)}–${Math.max(...cpu[i]).toFixed(0)})`.padEnd(55) + `${(i === 0 ? m : stage).toFixed(0).padStart(8)}   ${med(wall[i]).toFixed(0).padStart(7)}`);
  prev = m;
}
console.log(`reader (through Arrow IPC) / JSON.parse floor, CPU: ${(med(cpu[5]) / med(cpu[1])).toFixed(2)}×`);
