/**
 * One stream of records → batches of step records: detect the format from the first records (or take
 * the one given), normalize, finalize, and hand Arrow batches on. The whole file's read and each
 * parallel shard's (shards.ts) run through it.
 */
import type { RejectedLine } from '../contract/reports';
import type { StepRecord } from '../contract/step';
import { detectFormat } from './detect';
import { createFinalizeState, finalize, type FinalizeState } from './finalize';
import { folderOf, type NormalizeContext, type Normalizer, type SourceRecord } from './normalizer';
import { generic } from './normalizers/generic';
import { isParquet, type ReadEvent, ReadError, readRecords } from './reader';
import { StepBatch } from '../record/step-arrow';

/** Records detection looks at. */
export const SAMPLE = 20;
export const MAX_REJECTS = 10_000;


export class CancelledError extends Error {
  constructor() {
    super('The import was cancelled; nothing of it was kept.');
    this.name = 'CancelledError';
  }
}

/** What reading one stream of records made (the whole file, or one shard of it). */
export interface RecordRun {
  records: number;
  rowsMade: number;
  rejected: RejectedLine[];
  moreRejects: number;
  warnings: string[];
  skipped: number[];
  formatsUsed: [string, number][];
  format: string;
  confidence: number;
  sample: SourceRecord[];
  /** Trajectory ids the source gave (a trajectory split across shards would be numbered wrong). */
  ownUids: string[];
  /** A draft asked for history linking (which needs every earlier record). */
  linked: boolean;
  /** Trajectories with a blank prompt (each got a `p-empty-` prompt_uid of its own). */
  emptyPrompts: number;
  /** Steps whose timestamps had no zone in the source. */
  naiveTimes: number;
  /** For a shard: the lines and records counted before it, as it numbered its own. */
  offset?: { lines: number; records: number };
  /** Detection found no format (it fell to `generic`) and none was asked for: nothing was normalized or kept. */
  notUnderstood: boolean;
  /** Lines whose steps had no response and were not kept (not an error step, not a prompt row of a prompt-set format). */
  noResponse: number[];
  /** Another file of the same import reads this file's records (`Normalizer.readWith`): its name. */
  readWith: string | null;
  /** Records that repeat the record that made their trajectory, byte for byte: [line, line it repeats] (read once). */
  duplicates: [number, number][];
}

function approxSize(s: StepRecord): number {
  let n = 200 + (s.raw?.length ?? 0) + (s.response_text?.length ?? 0) * 2;
  for (const m of s.messages) n += 40 + (m.content?.length ?? 0);
  return n;
}


export interface RunEnv {
  ctx: NormalizeContext;
  all: Normalizer<unknown>[];
  importId: number;
  /** Skip detection: this normalizer reads every record. */
  fixed?: { normalizer: Normalizer<unknown>; confidence: number };
  forcedFormat?: string;
  emitBatch: (bytes: Uint8Array) => Promise<void>;
  isCancelled?: () => boolean;
  /** Called after every record (callers throttle by bytes read). */
  onCount?: (records: number, rows: number) => void;
  batchRows?: number;
  batchBytes?: number;
  /** Where rejects, warnings and the chosen format go as they happen, so a run that fails still reports them. */
  log?: RunLog;
  siblings?: readonly File[];
}

/** What a run has found so far. */
export interface RunLog {
  rejected: RejectedLine[];
  warnings: string[];
  format: string;
  confidence: number;
}

export const newLog = (): RunLog => ({ rejected: [], warnings: [], format: 'unknown', confidence: 0 });

/** Detect (from the first records), normalize, finalize and batch one stream of records. */
export async function runRecords(source: AsyncIterable<ReadEvent>, env: RunEnv): Promise<RecordRun> {
  const { ctx, all } = env;
  const log = env.log ?? newLog();
  const { rejected, warnings } = log;
  let moreRejects = 0;
  const reject = (line: number, reason: string) => {
    if (rejected.length < MAX_REJECTS) rejected.push({ line, reason });
    else moreRejects++;
  };
  let records = 0;
  let rowsMade = 0;
  const states = new Map<Normalizer<unknown>, unknown>();
  const stateOf = (n: Normalizer<unknown>) => {
    if (!states.has(n)) states.set(n, n.createState ? n.createState(ctx) : undefined);
    return states.get(n);
  };
  const fin: FinalizeState = createFinalizeState();
  let names: string[] | null = null;
  const siblingNames = () => (names ??= (env.siblings ?? []).map((f) => f.name));
  let chosen: Normalizer<unknown> | null = env.fixed?.normalizer ?? null;
  if (env.fixed) {
    log.format = env.fixed.normalizer.id;
    log.confidence = env.fixed.confidence;
  }
  const sample: SourceRecord[] = [];
  const batch = new StepBatch();
  let batchSize = 0;
  const batchRows = env.batchRows ?? 4000;
  const batchBytes = env.batchBytes ?? 16 << 20;
  const formatsUsed = new Map<string, number>();
  const skipped: number[] = [];
  const noResponse: number[] = [];
  let notUnderstood = false;
  // `generic` keeps records as they are only when the user asked for it (a low-confidence guess pools nothing)
  const asked = env.forcedFormat === generic.id;

  const flushBatch = async () => {
    if (!batch.rows) return;
    const bytes = batch.flush();
    batchSize = 0;
    await env.emitBatch(bytes);
  };

  const emit = async (rows: StepRecord[]) => {
    for (const r of rows) {
      batch.add(r);
      batchSize += approxSize(r);
    }
    rowsMade += rows.length;
    if (batch.rows >= batchRows || batchSize >= batchBytes) await flushBatch();
  };

  /** A row is an LLM call's: it has a response, or it is the error step of a call that failed, or a prompt row of a prompt set. */
  const keep = (n: Normalizer<unknown>, rows: StepRecord[]): StepRecord[] => {
    if (asked) return rows;
    const kept = rows.filter((r) => r.response !== null || r.status === 'error' || (n.promptRows === true && r.messages.length > 0));
    for (const r of rows) if (!kept.includes(r)) noResponse.push(r.source_line ?? 0);
    return kept;
  };

  const normalizeWith = (n: Normalizer<unknown>, rec: SourceRecord): StepRecord[] => {
    const drafts = n.normalize(rec, ctx, stateOf(n));
    if (!drafts.length) return [];
    formatsUsed.set(n.id, (formatsUsed.get(n.id) ?? 0) + 1);
    return keep(n, finalize(drafts, rec, ctx, fin, { format: n.id, importId: env.importId }));
  };

  const handle = async (rec: SourceRecord) => {
    records++;
    if (notUnderstood) return;
    const n = chosen!;
    let rows: StepRecord[] | null = null;
    let why: string | null = null;
    try {
      rows = normalizeWith(n, rec);
      // a stateful normalizer buffers records and emits at flush; others found no LLM call here (or a duplicate line)
      if (rows.length === 0 && !n.flush && n.id !== generic.id && fin.duplicates.at(-1)?.[0] !== rec.line) rows = null;
    } catch (e) {
      why = e instanceof Error ? e.message : String(e);
    }
    if (rows === null) {
      // mixed files: another format may claim this record
      const other = detectFormat([rec.value], all);
      if (other.normalizer !== n && other.normalizer.id !== generic.id && other.confidence >= 0.5) {
        try {
          rows = normalizeWith(other.normalizer, rec);
          why = null;
        } catch (e) {
          why = e instanceof Error ? e.message : String(e);
        }
      }
    }
    if (why) {
      reject(rec.line, `${n.label}: ${why}`);
      return;
    }
    if (rows === null || rows.length === 0) {
      // a duplicate of an earlier line is reported as that, not as a record without a call
      if (!n.flush && (rows === null || fin.duplicates.at(-1)?.[0] !== rec.line)) skipped.push(rec.line);
      return;
    }
    await emit(rows);
  };

  const choose = async () => {
    const d = env.forcedFormat ? forced(env.forcedFormat, all) : detectFormat(sample.map((s) => s.value), all);
    chosen = d.normalizer;
    log.format = chosen.id;
    log.confidence = d.confidence;
    notUnderstood = chosen.id === generic.id && !asked;
    if (chosen.companions && env.siblings?.length) {
      const own = folderOf(ctx.file);
      const { pick, sameFolder } = chosen.companions;
      const picked = pick ? new Set(pick(ctx.file, sample.map((s) => s.value), siblingNames)) : null;
      const candidates = picked ? env.siblings.filter((f) => picked.has(f.name)) : sameFolder ? env.siblings.filter((f) => folderOf(f.name) === own) : env.siblings;
      ctx.companions = await readCompanions(chosen, candidates, env.isCancelled);
    }
    for (const s of sample) await handle(s);
  };

  for await (const ev of source) {
    if (env.isCancelled?.()) throw new CancelledError();
    if (ev.kind === 'reject') reject(ev.line, ev.reason);
    else if (ev.kind === 'warning') warnings.push(ev.message);
    else if (!chosen) {
      sample.push(ev.record);
      if (sample.length >= SAMPLE) await choose();
    } else {
      if (sample.length < SAMPLE) sample.push(ev.record);
      await handle(ev.record);
    }
    env.onCount?.(records, rowsMade);
  }
  if (!chosen && sample.length) await choose();
  for (const [n, st] of states) {
    if (n.flush) {
      const drafts = n.flush(ctx, st);
      if (drafts.length) await emit(keep(n, finalize(drafts, { value: null, line: 0, index: records }, ctx, fin, { format: n.id, importId: env.importId, keepRaw: false })));
    }
  }
  // before the notes: a format words them by whether the file it belongs with came too
  const readWith = chosen?.readWith && !rowsMade ? chosen.readWith(stateOf(chosen), siblingNames, ctx) : null;
  for (const [n, st] of states) if (n.notes) warnings.push(...n.notes(st));
  if (env.isCancelled?.()) throw new CancelledError();
  await flushBatch();
  env.onCount?.(records, rowsMade);
  return {
    records, rowsMade, rejected, moreRejects, warnings, skipped, formatsUsed: [...formatsUsed], format: log.format, confidence: log.confidence, sample,
    ownUids: [...fin.own], linked: fin.linked, emptyPrompts: fin.emptyPrompts, naiveTimes: fin.naiveTimes, notUnderstood, noResponse, readWith,
    duplicates: fin.duplicates,
  };
}

/** The sibling files a joining format claims (by their first records), each read whole. Parquet and unreadable files are passed over. */
async function readCompanions(n: Normalizer<unknown>, siblings: readonly File[], isCancelled?: () => boolean): Promise<{ file: string; records: unknown[] }[]> {
  const out: { file: string; records: unknown[] }[] = [];
  for (const file of siblings) {
    if (isParquet(new Uint8Array(await file.slice(0, 4).arrayBuffer()))) continue;
    const records: unknown[] = [];
    let accepted = false;
    try {
      for await (const ev of readRecords(file.stream())) {
        if (isCancelled?.()) throw new CancelledError();
        if (ev.kind !== 'record') continue;
        records.push(ev.record.value);
        if (!accepted && records.length >= SAMPLE) {
          if (!n.companions!.accepts(records)) break;
          accepted = true;
        }
      }
    } catch (e) {
      if (e instanceof CancelledError) throw e;
      continue; // the sibling's own import reports what is wrong with it
    }
    if (accepted || (records.length < SAMPLE && records.length && n.companions!.accepts(records))) out.push({ file: file.name, records });
  }
  return out;
}

export function forced(id: string, all: Normalizer<unknown>[]): { normalizer: Normalizer<unknown>; confidence: number } {
  const n = all.find((x) => x.id === id) ?? (id === generic.id ? (generic as Normalizer<unknown>) : null);
  if (!n) throw new ReadError(`unknown format "${id}"`);
  return { normalizer: n, confidence: 1 };
}

