// tableToRows (by column) against the value-by-value decoder it replaced, on the steps the pipeline builds from a bench
// file (the Arrow batches the pool is given; the tokenizer and the page decode query results the same way). CPU time,
// median of 3, same rows checked. `node --import tsx bench/rows-decode.ts [bench/data/chat-steps-10mb-s7.jsonl]`
import assert from 'node:assert/strict';
import { openAsBlob } from 'node:fs';
import { basename } from 'node:path';
import { type Table, tableFromIPC } from 'apache-arrow';
import { ingestFile } from '../src/ingest/pipeline';
import { tableToRows, tableToRowsByValue } from '../src/pool/rows';

const path = process.argv[2] ?? 'bench/data/chat-steps-10mb-s7.jsonl';
const tables: Table[] = [];
await ingestFile(new File([await openAsBlob(path)], basename(path)), {
  beginImport: async () => 1,
  setImportSource: async () => {},
  appendBatch: async (_id, b) => {
    // what the tokenizer worker selects: SELECT step_id, trajectory_uid, messages, response, tools
    tables.push(tableFromIPC(b.slice()).select(['step_id', 'trajectory_uid', 'messages', 'response', 'tools']));
  },
  commitImport: async () => ({ rowsAdded: 0 }),
  abortImport: async () => {},
});
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const time = (f: (t: Table) => unknown) => {
  const c0 = cpu();
  for (const t of tables) f(t);
  return cpu() - c0;
};
for (const t of tables.slice(0, 3)) assert.deepEqual(tableToRows(t), tableToRowsByValue(t));
const runs: Record<string, number[]> = { byValue: [], byColumn: [] };
for (let i = 0; i < 3; i++) {
  runs.byValue?.push(time(tableToRowsByValue));
  runs.byColumn?.push(time(tableToRows));
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[1] as number;
const rows = tables.reduce((a, t) => a + t.numRows, 0);
console.log(JSON.stringify({ file: path, rows, cpuMs: { byValue: Math.round(med(runs.byValue ?? [])), byColumn: Math.round(med(runs.byColumn ?? [])) }, speedup: +(med(runs.byValue ?? []) / med(runs.byColumn ?? [])).toFixed(2) }));
