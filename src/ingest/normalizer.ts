import type { TrajectoryDraft } from '../contract/step';

/** One parsed record of a source file (a JSONL line, a JSON array element, a whole JSON document). */
export interface SourceRecord {
  value: unknown;
  /** 1-based line of the record's first byte in the (decompressed) file. */
  line: number;
  /** 0-based record index in the file. */
  index: number;
  /** The record's JSON text as the file has it (JSONL line, array element, SSE data), when it came from text: kept as `raw` when it holds nothing secret-like. */
  text?: string;
  /**
   * `text` as UTF-8 bytes, when the reader has them without encoding it again: a JSON Lines line that lies in an ASCII
   * stretch of the file, as read. The `raw` column copies them instead of encoding the text.
   */
  bytes?: Uint8Array;
}

/** What a reader yields: a record, a rejected line with its reason, or a warning about the whole file. */
export type ReadEvent =
  | { kind: 'record'; record: SourceRecord }
  | { kind: 'reject'; line: number; reason: string }
  | { kind: 'warning'; message: string };

export interface NormalizeContext {
  /** SHA-256 hex of the file's (decompressed) bytes, or `capture`. */
  sourceId: string;
  /** File name as the user gave it. */
  file: string;
  /**
   * Records of the other files of the same import that this format's `companions.accepts` claimed
   * (e.g. an OpenAI Batch output's input file), read before the first record is normalized.
   */
  companions?: { file: string; records: unknown[] }[];
}

/** Thrown by a normalizer for a record it recognises but cannot use; the record is reported, not dropped silently. */
export class RecordError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RecordError';
  }
}

/**
 * One source format. `detect` scores a sample of the file's first records (0 = not this format,
 * 1 = certainly this format); the registry picks the best score. `normalize` turns one record into
 * zero or more trajectories; state across records (e.g. an SSE stream spread over lines) lives in
 * the object `createState` returns.
 */
export interface Normalizer<S = unknown> {
  id: string;
  label: string;
  detect(sample: readonly unknown[]): number;
  createState?(ctx: NormalizeContext): S;
  normalize(record: SourceRecord, ctx: NormalizeContext, state: S): TrajectoryDraft[];
  /** Called at end of file: emit whatever the state still holds. */
  flush?(ctx: NormalizeContext, state: S): TrajectoryDraft[];
  /**
   * Each record is normalized on its own (no state, no history linking), so a large JSON Lines file
   * of this format may be read in parallel shards (pipeline.ts checks the numbering after).
   */
  parallel?: boolean;
  /**
   * This format joins records across the files of one import (a Batch API output with its input):
   * a sibling file whose first records `accepts` is read whole into `ctx.companions` before normalizing.
   */
  companions?: {
    accepts(sample: readonly unknown[]): boolean;
    /**
     * Only files of the same folder can be companions (a Cline task's two files): a folder import names each file by
     * its path in the folder, and a drop of a thousand sessions need not read every other file's head for each.
     */
    sameFolder?: boolean;
    /**
     * The siblings worth reading, chosen by their names (paths in a dropped folder) and this file's first records: an
     * OpenCode session file picks `message/<session>/…` and the `part/<message>/…` of those messages out of a storage
     * folder of thousands. Used instead of `sameFolder`; `accepts` still has the last word on each. `siblings()` lists
     * the names only when called: a file that needs none does not pay for listing thousands.
     */
    pick?(own: string, sample: readonly unknown[], siblings: () => readonly string[]): string[];
  };
  /**
   * This file's records are read by another file of the same import (a Cline task's UI log by its conversation, an
   * OpenCode message or part by its session file): that file's name among `siblings`, or null when it is not in this
   * import. A file read with another reports so and keeps nothing of its own; it is not a failure.
   */
  readWith?(state: S, siblings: () => readonly string[], ctx: NormalizeContext): string | null;
  /** Notes for the import report at end of file (what was joined, what is missing). */
  notes?(state: S): string[];
  /**
   * This format's files may be prompt sets: a row with a prompt and no answer yet (veRL prompts, a Batch input on its
   * own, a conversation that ends before the model's turn) is kept as a prompt row. Any other format's row without a
   * response is kept only as an error step (a call that failed); the rest is not pooled and the report counts it.
   */
  promptRows?: boolean;
}

/** The folder part of a file name (a folder import names its files by their path in it): `''` for a bare name. */
export const folderOf = (name: string): string => name.replace(/[^/\\]*$/, '');

export function defineNormalizer<S>(n: Normalizer<S>): Normalizer<S> {
  return n;
}
