// CPU profile of the ingest pipeline in Node (no pool): where the time goes before DuckDB.
//   node --import tsx bench/profile-node.ts bench/data/chat-steps-100mb-s7.jsonl
import { openAsBlob } from 'node:fs';
import { basename } from 'node:path';
import { ingestFile } from '../src/ingest/pipeline';

const path = process.argv[2] ?? 'bench/data/chat-steps-10mb-s7.jsonl';
const blob = await openAsBlob(path);
const file = new File([blob], basename(path));
let batches = 0;
let bytes = 0;
const phases: Record<string, number> = {};
let last = performance.now();
let phase = 'start';
const t0 = performance.now();
const report = await ingestFile(file, {
  beginImport: async () => 1,
  setImportSource: async () => {},
  appendBatch: async (_id, b) => {
    batches++;
    bytes += b.byteLength;
  },
  commitImport: async (_id, info) => ({ rowsAdded: info.rowsMade }),
  abortImport: async () => {},
}, {
  onProgress: (p) => {
    if (p.phase !== phase) {
      const now = performance.now();
      phases[phase] = (phases[phase] ?? 0) + now - last;
      last = now;
      phase = p.phase;
    }
  },
});
phases[phase] = (phases[phase] ?? 0) + performance.now() - last;
const ms = performance.now() - t0;
console.log(JSON.stringify({ file: path, ms: Math.round(ms), mbps: +(file.size / 1e6 / (ms / 1000)).toFixed(1), status: report.status, format: report.format, records: report.records, rows: report.rows, batches, ipcMB: +(bytes / 1e6).toFixed(1), phases: Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, Math.round(v)])), message: report.message }));
