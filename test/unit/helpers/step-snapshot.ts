/**
 * A fixture's import as a golden snapshot: the import report's counts, rejects and warnings, every candidate's
 * detection score, and each step record as it left the pipeline (decoded from its Arrow batch), written so a
 * diff reads: nulls left out, keys of metadata sorted, times as ISO text, the file's hash replaced by
 * `<source>`, `raw` as its length and hash, and a prompt that repeats an earlier step's messages written
 * as a reference to that step plus what is new.
 */
import { hash64 } from '../../../src/util/hash';
import type { ImportReport } from '../../../src/contract/reports';
import type { IngestedRow } from './ingest-files';

export interface Snapshot {
  report: Record<string, unknown>;
  /** Detection scores above 0 over the file's first 20 records, by normalizer id. */
  detect: Record<string, number>;
  steps: Record<string, unknown>[];
}

const round = (n: number) => Math.round(n * 1e4) / 1e4;

/** A decoded Arrow value as plain JSON (StructRow, Vector, Map → objects and arrays). */
function plain(v: unknown): unknown {
  return v == null ? null : JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? Number(x) : x)));
}

/** Drop null / undefined members (recursively), so a snapshot lists only what a step has. */
function compact(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(compact);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== null && x !== undefined) out[k] = compact(x);
    return out;
  }
  return v;
}

const iso = (ms: unknown) => (typeof ms === 'number' ? new Date(ms).toISOString() : ms);
const DROPPED = new Set(['source', 'source_id', 'import_id', 'raw']);

export function snapshotOf(report: ImportReport, rows: readonly IngestedRow[], detect: Record<string, number>, sourceId: string): Snapshot {
  const src = sourceId.slice(0, 12);
  const hide = (s: string) => (src ? s.split(sourceId).join('<source>').split(src).join('<source>') : s);
  const seen = new Map<string, { id: string; messages: string[] }>();
  const steps = rows.map((row) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(row)) {
      if (DROPPED.has(k) || v === null || v === undefined) continue;
      if (k === 'started_at' || k === 'ended_at') out[k] = iso(v);
      else if (k === 'metadata') out[k] = Object.fromEntries(Object.entries(v as Record<string, string>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      else out[k] = compact(plain(v));
    }
    if (typeof row.raw === 'string') out.raw = `${row.raw.length} chars, ${hash64(row.raw)}`;
    const messages = (out.messages as unknown[]) ?? [];
    const texts = messages.map((m) => JSON.stringify(m));
    const traj = String(row.trajectory_uid);
    const before = seen.get(traj);
    if (before?.messages.length && before.messages.length <= texts.length && before.messages.every((t, i) => t === texts[i])) {
      out.messages = [`… the ${before.messages.length} message(s) of ${hide(before.id)}`, ...messages.slice(before.messages.length)];
    }
    seen.set(traj, { id: String(row.step_id), messages: texts });
    return JSON.parse(hide(JSON.stringify(out))) as Record<string, unknown>;
  });
  const r = report;
  return {
    report: compact({
      format: r.format,
      confidence: round(r.confidence),
      status: r.status,
      records: r.records,
      rows: r.rows,
      rejected: r.rejected.length ? r.rejected : null,
      warnings: r.warnings.length ? r.warnings.map(hide) : null,
      message: r.message ? hide(r.message) : null,
      readWith: r.readWith ?? null,
    }) as Record<string, unknown>,
    detect: Object.fromEntries(Object.entries(detect).filter(([, s]) => s > 0).map(([k, s]) => [k, round(s)])),
    steps,
  };
}
