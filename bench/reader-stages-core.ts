// The ingest reader's stages over bytes held in memory, as passes that each run one stage more than the one before
// (bench/reader-stages.ts runs them in Node, bench/reader-browser.mjs in a browser worker). A stage's cost is the
// difference between two passes; the passes alternate in order each repetition, so load on the machine spreads.
import { createFinalizeState, finalize } from '../src/ingest/finalize';
import type { NormalizeContext, SourceRecord } from '../src/ingest/normalizer';
import { openaiChat } from '../src/ingest/normalizers/openai-chat';
import { readRecords } from '../src/ingest/reader';
import * as stepArrow from '../src/record/step-arrow';
import type { StepRecord } from '../src/contract/step';

const CHUNK = 1 << 16; // what File.stream() hands a reader in Chromium and Node

export const PASSES = ['decode+split', '+JSON.parse (floor)', 'reader: readRecords', '+normalize', '+finalize', '+Arrow IPC'] as const;

export function stagePasses(bytes: Uint8Array, file: string): (() => Promise<unknown>)[] {
  const ctx: NormalizeContext = { sourceId: 'f'.repeat(64), file };
  function* chunks(): Generator<Uint8Array> {
    for (let i = 0; i < bytes.length; i += CHUNK) yield bytes.subarray(i, Math.min(bytes.length, i + CHUNK));
  }
  const stream = (): ReadableStream<Uint8Array> => {
    const it = chunks();
    return new ReadableStream({
      pull(c) {
        const r = it.next();
        if (r.done) c.close();
        else c.enqueue(r.value);
      },
    });
  };
  /** decode + split (+ JSON.parse): the floor the bench's page measures, same loop. */
  const floor = async (parse: boolean) => {
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
  };
  /** The real reader (readRecords: sniff, decode, split, parseOne), then the stages after it up to `upto`. */
  const pipeline = async (upto: 'read' | 'normalize' | 'finalize' | 'arrow') => {
    const st = openaiChat.createState?.(ctx);
    const fin = createFinalizeState();
    // (a tree from before StepBatch: the batch's steps held, then stepsToIPC)
    const held: StepRecord[] = [];
    const batch =
      'StepBatch' in stepArrow
        ? new stepArrow.StepBatch()
        : { add: (r: StepRecord) => void held.push(r), get rows() { return held.length; }, flush: () => (stepArrow as { stepsToIPC(r: StepRecord[]): Uint8Array }).stepsToIPC(held.splice(0)) };
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
  };
  return [() => floor(false), () => floor(true), () => pipeline('read'), () => pipeline('normalize'), () => pipeline('finalize'), () => pipeline('arrow')];
}

/** Run every pass `reps` times (order alternating), timing each with `clock` (ms); the medians per pass. */
export async function runPasses(passes: (() => Promise<unknown>)[], reps: number, clock: () => number, gc?: () => void): Promise<{ median: number[]; all: number[][] }> {
  const all: number[][] = passes.map(() => []);
  for (let r = 0; r < reps; r++) {
    const order = r % 2 ? [...passes.keys()].reverse() : [...passes.keys()];
    for (const i of order) {
      gc?.();
      const t0 = clock();
      await passes[i]();
      all[i].push(clock() - t0);
    }
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return { median: all.map(med), all };
}

/** The table both runners print: each pass's median, the stage it adds, and the reader over its JSON.parse floor. */
export function stageTable(median: number[], all: number[][], unit: string): string {
  const lines = [`pass                      ${unit} (median, min–max)      stage ${unit}`];
  for (const [i, name] of PASSES.entries()) {
    const stage = i === 0 ? median[0] : i === 2 ? median[2] - median[0] : median[i] - median[i - 1];
    lines.push(`${`${name.padEnd(25)} ${median[i].toFixed(0).padStart(6)} (${Math.min(...all[i]).toFixed(0)}–${Math.max(...all[i]).toFixed(0)})`.padEnd(56)}${stage.toFixed(0).padStart(8)}`);
  }
  lines.push(`reader (through Arrow IPC) / JSON.parse floor: ${(median[5] / median[1]).toFixed(2)}×`);
  return lines.join('\n');
}
