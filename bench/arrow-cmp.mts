// stepsToIPC alone over the steps of a generated file: node --import tsx bench/arrow-cmp.mts [file]
import { readFileSync } from 'node:fs';
import { createFinalizeState, finalize } from '../src/ingest/finalize';
import { openaiChat } from '../src/ingest/normalizers/openai-chat';
import type { StepRecord } from '../src/contract/step';
import { stepsToIPC } from '../src/record/step-arrow';

const file = process.argv[2] ?? 'bench/data/chat-steps-10mb-s7.jsonl';
const ctx = { sourceId: 'a'.repeat(64), file: 'x.jsonl' };
const fin = createFinalizeState();
const steps: StepRecord[] = [];
readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
  if (!line) return;
  const rec = { value: JSON.parse(line), line: i + 1, index: i };
  steps.push(...finalize(openaiChat.normalize(rec, ctx, undefined as never), rec, ctx, fin, { format: 'openai-chat', importId: 1 }));
});
const batch = Number(process.argv[3] ?? 4000);
for (let round = 0; round < 4; round++) {
  const t0 = performance.now();
  let bytes = 0;
  for (let i = 0; i < steps.length; i += batch) bytes += stepsToIPC(steps.slice(i, i + batch)).byteLength;
  console.log(`round ${round}: ${steps.length} steps → ${(bytes / 1e6).toFixed(1)} MB IPC in ${(performance.now() - t0).toFixed(0)} ms`);
}
