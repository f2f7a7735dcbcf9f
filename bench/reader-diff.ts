// Differential check of the ingest reader: this checkout's pipeline against another tree's, on the same file, must
// hand the pool the same Arrow IPC bytes, batch for batch, and the same report (issue 34: a cheaper reader, the same
// output). Also prints each side's CPU time (process.cpuUsage), the two alternating.
//   git archive main src | (mkdir -p bench/data/ref && tar -x -C bench/data/ref)     # the tree to compare against
//   node --import tsx bench/reader-diff.ts [file] [--ref bench/data/ref/src] [--runs 2]
import { createHash } from 'node:crypto';
import { openAsBlob } from 'node:fs';
import { loadavg } from 'node:os';
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const argv = process.argv.slice(2);
const opt = (k: string, d: string) => (argv.includes(`--${k}`) ? argv[argv.indexOf(`--${k}`) + 1] : d);
const path = argv.find((a, i) => !a.startsWith('--') && !argv[i - 1]?.startsWith('--')) ?? 'bench/data/chat-steps-100mb-s7.jsonl';
const ref = resolve(opt('ref', 'bench/data/ref/src'));
const runs = Number(opt('runs', '2'));

type Ingest = typeof import('../src/ingest/pipeline').ingestFile;
const sides: [string, Ingest][] = [
  ['reference', (await import(pathToFileURL(`${ref}/ingest/pipeline.ts`).href)).ingestFile],
  ['this checkout', (await import('../src/ingest/pipeline')).ingestFile],
];
const file = new File([await openAsBlob(path)], basename(path));

async function once(ingest: Ingest) {
  const h = createHash('sha256');
  const sizes: number[] = [];
  const c0 = process.cpuUsage();
  const report = await ingest(file, {
    beginImport: async () => 1,
    setImportSource: async () => {},
    appendBatch: async (_id, b) => {
      sizes.push(b.byteLength);
      h.update(b);
    },
    commitImport: async (_id, info) => ({ rowsAdded: info.rowsMade }),
    abortImport: async () => {},
  });
  const c = process.cpuUsage(c0);
  const { ms: _ms, timings: _t, ...rest } = report;
  return { cpuMs: (c.user + c.system) / 1000, digest: h.digest('hex'), sizes, report: JSON.stringify(rest) };
}

const load0 = loadavg()[0];
const cpu: number[][] = [[], []];
let first: Awaited<ReturnType<typeof once>>[] = [];
for (let r = 0; r < runs; r++) {
  for (const i of r % 2 ? [1, 0] : [0, 1]) {
    (globalThis as { gc?: () => void }).gc?.();
    const got = await once(sides[i][1]);
    cpu[i].push(got.cpuMs);
    if (r === 0) first[i] = got;
  }
}
first = first.filter(Boolean);
const [a, b] = first;
const same = a.digest === b.digest && a.report === b.report;
console.log(`${path}: ${a.sizes.length} batches, ${(a.sizes.reduce((x, y) => x + y, 0) / 1e6).toFixed(1)} MB of IPC; load ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)}`);
for (const [i, [name]] of sides.entries()) console.log(`${name.padEnd(14)} CPU ms ${cpu[i].map((x) => x.toFixed(0)).join(' / ')}`);
if (!same) {
  console.log(`DIFFERENT: digests ${a.digest.slice(0, 12)} vs ${b.digest.slice(0, 12)}; first batch sizes that differ: ${a.sizes.findIndex((s, i) => s !== b.sizes[i])}`);
  if (a.report !== b.report) console.log(`reports:\n${a.report}\n${b.report}`);
  process.exit(1);
}
console.log(`same IPC bytes (sha256 ${a.digest.slice(0, 16)}) and the same report`);
