/**
 * The import commit's dedupe (docs/decisions/011): which of an import's rows are already in the
 * pool, which reuse a stored step's id with other content, and what becomes of them. Runs on the
 * import's own connection inside its transaction, before is_last and the stats are derived.
 */
import type { IdCollision } from '../contract/reports';
import { refreshStatsSql, trajectoryStatsSql } from './schema';
import { sqlString } from './sql';

export interface CommitDedupe {
  /** Rows of this import that were already in the pool with the same content (re-imports). */
  alreadyInPool: number;
  collisions: IdCollision[];
  /** Rows that repeat a step id of an earlier line of the same file with other content (the first is kept). */
  repeats: { line: number; reason: string }[];
  /** Rows that repeat a step of an earlier line of the same file with the same content: duplicates, stored once. */
  duplicates?: number;
}

/**
 * What makes two steps "the same step": everything the source said about the call, not where it was
 * read from (source, source_line, source_id, import_id, raw) nor what is derived from the whole trajectory (is_last, and
 * prompt_uid, hashed from its first step: a later part of a trace exported on its own gets another).
 */
const CONTENT = [
  'channel', 'policy_version', 'agent', 'data_source', 'model', 'provider', 'messages', 'tools', 'response', 'response_text',
  'finish_reason', 'prompt_tokens', 'completion_tokens', 'prompt_ids', 'response_ids', 'reward', 'started_at', 'ended_at', 'status', 'error', 'metadata',
];
const content = (alias: string) => `hash(${CONTENT.map((k) => `${alias}.${k}`).join(', ')})`;

const str = sqlString;
const inList = (ts: readonly string[]) => ts.map(str).join(', ');
const MAX_REPEATS = 10_000;

/**
 * Apply the rule of decision 011 to the rows of import `id` (in `steps`, not yet committed):
 * 1. a step id repeated within the file: the first line is kept; a repeat with other content is reported as a rejected line,
 *    one with the same content is a duplicate (counted, not a conflict);
 * 2. a trajectory with a step whose id is stored with other content: kept apart under `{own id}@{file hash[:12]}`
 *    (`source_trajectory_id` keeps the own id) — or, for formats whose ids are trace ids (`joinFormats`), its new
 *    spans are appended to the stored trace;
 * 3. then every row whose step id is stored (now always with the same content) is dropped: a re-import adds nothing.
 */
export function dedupeImport(q: (sql: string) => { toArray(): unknown[] }, id: number, joinFormats: readonly string[] = []): CommitDedupe {
  const mine = `import_id = ${id}`;
  const others = `import_id IS DISTINCT FROM ${id}`;
  const rows = (sql: string) => q(sql).toArray() as Record<string, unknown>[];
  const num = (sql: string) => Number(rows(sql)[0]?.n ?? 0);

  // 1. repeats within the file
  const repeats: CommitDedupe['repeats'] = [];
  let duplicates = 0;
  if (num(`SELECT count(*) - count(DISTINCT step_id) AS n FROM steps WHERE ${mine}`) > 0) {
    const w = `WINDOW w AS (PARTITION BY step_id ORDER BY source_line, rowid)`;
    const dups = `SELECT rowid AS rid, step_id, source_line, row_number() OVER w AS rn, first_value(source_line) OVER w AS first_line,
        ${content('s')} = first_value(${content('s')}) OVER w AS same FROM steps s WHERE ${mine} ${w}`;
    for (const r of rows(`SELECT step_id, source_line, first_line FROM (${dups}) WHERE rn > 1 AND NOT same ORDER BY source_line LIMIT ${MAX_REPEATS}`)) {
      repeats.push({
        line: Number(r.source_line ?? 0),
        reason: `step ${String(r.step_id)} was already made by line ${Number(r.first_line ?? 0)} of this file with other content; the first was kept`,
      });
    }
    duplicates = num(`SELECT count(*) AS n FROM (${dups}) WHERE rn > 1 AND same`);
    q(`DELETE FROM steps WHERE rowid IN (SELECT rid FROM (${dups}) WHERE rn > 1)`);
  }

  // new data (the common case) shares no step id with the pool: one join, and nothing more to do
  const stored = `FROM steps n JOIN steps o ON o.step_id = n.step_id AND o.${others} WHERE n.${mine}`;
  if (num(`SELECT count(*) AS n ${stored}`) === 0) return { alreadyInPool: 0, collisions: [], repeats, duplicates };

  // 2. trajectories with a step stored under the same id with other content
  const joins = joinFormats.map(str).join(', ') || 'NULL';
  const clashing = (among?: string[]) =>
    rows(`SELECT n.trajectory_uid AS t, bool_and(coalesce(n.source_format IN (${joins}), false)) AS joins
      FROM steps n JOIN steps o ON o.step_id = n.step_id AND o.${others}
      WHERE n.${mine}${among ? ` AND n.trajectory_uid IN (${inList(among)})` : ''} AND ${content('n')} <> ${content('o')}
      GROUP BY n.trajectory_uid ORDER BY t`);
  const first = clashing();
  const joined = first.filter((r) => r.joins).map((r) => String(r.t));
  let apart = first.filter((r) => !r.joins).map((r) => String(r.t));
  if (apart.length) {
    const src = String(rows(`SELECT any_value(left(source_id, 12)) AS s FROM steps WHERE ${mine}`)[0]?.s ?? id);
    // kept apart under {own id}@{file hash}; should that clash too (a normalizer changed since), under {…}.{import id}
    for (const suffix of [`@${src}`, `.${id}`]) {
      const todo = suffix.startsWith('@') ? apart : clashing(apart).map((r) => String(r.t));
      if (!todo.length) break;
      q(`UPDATE steps SET
           source_trajectory_id = coalesce(source_trajectory_id, trajectory_uid),
           step_id = CASE WHEN starts_with(step_id, trajectory_uid || ':') THEN trajectory_uid || ${str(suffix)} || substr(step_id, length(trajectory_uid) + 1)
                          ELSE step_id || ${str(suffix)} END,
           trajectory_uid = trajectory_uid || ${str(suffix)}
         WHERE ${mine} AND trajectory_uid IN (${inList(todo)})`);
      apart = apart.map((t) => (todo.includes(t) ? t + suffix : t));
    }
  }
  let spansStored = 0;
  if (joined.length) {
    // spans already stored (the two exports overlap) are dropped; the others follow the stored ones
    const same = `SELECT DISTINCT n.rowid AS rid FROM steps n JOIN steps o ON o.trajectory_uid = n.trajectory_uid AND o.${others}
         WHERE n.${mine} AND n.trajectory_uid IN (${inList(joined)}) AND ${content('n')} = ${content('o')}`;
    spansStored = num(`SELECT count(*) AS n FROM (${same})`);
    if (spansStored) q(`DELETE FROM steps WHERE rowid IN (SELECT rid FROM (${same}))`);
    // the trace's prompt is the stored part's (this part's first step is not the trace's first)
    q(`UPDATE steps SET step_index = r.k, step_id = steps.trajectory_uid || ':' || r.k, prompt_uid = r.prompt_uid,
         source_trajectory_id = coalesce(steps.source_trajectory_id, steps.trajectory_uid)
       FROM (SELECT n.rowid AS rid, m.base + row_number() OVER (PARTITION BY n.trajectory_uid ORDER BY n.step_index, n.rowid) AS k, m.prompt_uid
             FROM steps n JOIN (SELECT trajectory_uid, max(step_index) AS base, arg_min(prompt_uid, step_index) AS prompt_uid FROM steps
                                WHERE ${others} AND trajectory_uid IN (${inList(joined)}) GROUP BY ALL) m
               ON m.trajectory_uid = n.trajectory_uid
             WHERE n.${mine}) r
       WHERE steps.rowid = r.rid`);
  }

  // 3. what is left with a stored id is the same step: already in the pool
  const left = rows(`SELECT count(*) AS n, count(*) FILTER (WHERE ${content('n')} <> ${content('o')}) AS d ${stored}`)[0] ?? {};
  if (Number(left.d)) {
    // not expected after step 2; said rather than dropped silently
    for (const r of rows(`SELECT n.step_id, n.source_line ${stored} AND ${content('n')} <> ${content('o')} ORDER BY n.source_line LIMIT ${MAX_REPEATS}`)) {
      repeats.push({ line: Number(r.source_line ?? 0), reason: `step ${String(r.step_id)} is already in the pool with other content and could not be kept apart` });
    }
  }
  const sameIds = Number(left.n ?? 0);
  const alreadyInPool = sameIds + spansStored;
  if (sameIds) q(`DELETE FROM steps WHERE rowid IN (SELECT n.rowid ${stored})`);

  // a stored trajectory that this import continues: its old last step is no longer the last
  if (alreadyInPool || joined.length) q(`UPDATE steps SET is_last = false FROM (SELECT trajectory_uid, min(step_index) AS first_new FROM steps WHERE ${mine} GROUP BY ALL) n
     WHERE steps.${others} AND steps.is_last AND steps.trajectory_uid = n.trajectory_uid AND steps.step_index < n.first_new`);

  const collisions: IdCollision[] = [];
  for (const [list, how] of [[apart, 'apart'], [joined, 'joined']] as const) {
    if (!list.length) continue;
    for (const r of rows(`SELECT trajectory_uid AS uid, any_value(source_trajectory_id) AS t, count(*) AS n FROM steps WHERE ${mine} AND trajectory_uid IN (${inList(list)}) GROUP BY ALL ORDER BY uid`)) {
      collisions.push({ trajectory: String(r.t ?? r.uid), keptAs: String(r.uid), steps: Number(r.n), how });
    }
  }
  return { alreadyInPool, collisions, repeats, duplicates };
}

/** The report's sentence for steps an import held twice with the same content. */
export const duplicateSteps = (n: number) => `${n} step(s) repeat a step of an earlier line of this file with the same content: duplicates, stored once`;

/** The dedupe's outcome in words, for the import report and `imports.message` (the first says so when nothing was added); empty when there is nothing to say. */
export function describeDedupe(d: CommitDedupe, added: number): string[] {
  const out: string[] = [];
  if (!added) out.push(`Already imported — 0 new steps: all ${d.alreadyInPool} step(s) of this file are in the pool.`);
  else if (d.alreadyInPool) out.push(`${d.alreadyInPool} step(s) were already in the pool and were not added again`);
  const apart = d.collisions.filter((c) => c.how === 'apart');
  const joined = d.collisions.filter((c) => c.how === 'joined');
  const list = (cs: IdCollision[]) => cs.slice(0, 5).map((c) => (c.how === 'apart' ? `${c.trajectory} → ${c.keptAs}` : c.trajectory)).join(', ') + (cs.length > 5 ? `, … (${cs.length} in all)` : '');
  if (apart.length) {
    out.push(`${apart.length} trajectory id(s) of this file were already in the pool with other content; kept as separate trajectories (own id in source_trajectory_id): ${list(apart)}`);
  }
  if (joined.length) out.push(`${joined.length} trace(s) continue traces already in the pool (spans of the same trace from another export) and were joined to them: ${list(joined)}`);
  if (d.repeats.length) out.push(`${d.repeats.length} step(s) repeat a step id of an earlier line with other content (see rejected lines)`);
  if (d.duplicates) out.push(duplicateSteps(d.duplicates));
  return out;
}

/** What an import's commit is told about the file (ImportCommit in pool-core). */
export interface CommitInfo {
  format: string;
  confidence: number;
  records: number;
  rowsMade: number;
  errors: { line: number; reason: string }[];
  message?: string | null;
  joinFormats?: string[];
}

const sqlText = (s: string | null) => (s === null ? 'NULL' : str(s));

/** The `imports` row of a new import (status running; the file hash is set once computed). */
export function beginImportSql(id: number, meta: { file: string; sourceId: string; bytes: number }): string {
  return `INSERT INTO imports (import_id, file, source_id, bytes, status, started_at)
         VALUES (${id}, ${str(meta.file)}, ${str(meta.sourceId)}, ${Math.round(meta.bytes)}, 'running', now())`;
}

export function setImportSourceSql(id: number, sourceId: string): string {
  return `UPDATE imports SET source_id = ${str(sourceId)} WHERE import_id = ${id | 0}`;
}

/** An abandoned import: nothing of it is kept, the reason is recorded. */
export function abortImportSql(id: number, reason: string, rejected: number): string {
  return `UPDATE imports SET status = 'failed', message = ${str(reason)}, rejected = ${rejected}, finished_at = now() WHERE import_id = ${id}`;
}

/**
 * trajectory_stats of an import's trajectories (docs/decisions/005, 022): aggregated from the import's own rows when
 * none of its trajectories is stored yet (the common case: no scan of the rest of steps), else refreshed whole.
 * `passes` > 1: the aggregate runs as that many INSERTs, each over the trajectories of one hash bucket. The stats'
 * `list()` aggregates keep their state in memory DuckDB cannot spill, so one INSERT over ~500 k trajectories fails
 * under a 256MB memory_limit; the CLI splits it (decision 048). The rows are the same whatever the passes.
 */
export function importStatsSql(id: number, overlap: boolean, passes = 1): string[] {
  const mine = `SELECT DISTINCT trajectory_uid FROM steps WHERE import_id = ${id | 0}`;
  const n = Math.max(1, Math.floor(passes));
  if (n === 1) return overlap ? refreshStatsSql(mine) : [`INSERT INTO trajectory_stats ${trajectoryStatsSql(null, `s.import_id = ${id | 0}`)}`];
  const where = overlap ? `s.trajectory_uid IN (${mine})` : `s.import_id = ${id | 0}`;
  const parts = Array.from({ length: n }, (_, k) => `INSERT INTO trajectory_stats ${trajectoryStatsSql(null, `${where} AND hash(s.trajectory_uid) % ${n} = ${k}`)}`);
  return overlap ? [refreshStatsSql(mine)[0], ...parts] : parts;
}

/** What the commit may be told beyond the file (the CLI's native pool, decision 048). */
export interface CommitOptions {
  /** How many passes the trajectory stats take for an import of this many trajectories and steps (default 1). */
  statsPasses?: (trajectories: number, steps: number) => number;
}

/**
 * The commit's stopwatch: `mark(stage)` records the ms since the previous mark (or the start) under `stage`; `lap`
 * marks, then awaits `pause` (the browser's worker answers queued queries there) and restarts the clock, so a pause is
 * never counted in a stage. The import report's `timings.commit`, browser and CLI alike. `now` is for tests.
 */
export function stageClock(pause?: () => Promise<void>, now = () => performance.now()) {
  const stages: Record<string, number> = {};
  let t0 = now();
  const mark = (stage: string) => {
    stages[stage] = Math.round(now() - t0);
    t0 = now();
  };
  const lap = async (stage: string) => {
    mark(stage);
    if (pause) await pause();
    t0 = now();
  };
  return { stages, mark, lap };
}

/**
 * The body of an import's commit, on the import's connection inside its transaction (the caller commits): the dedupe of
 * decision 011, is_last, the trajectory stats, the rejected lines (`insertErrors`) and the `imports` row. Shared by the
 * browser's pool worker and the CLI's native pool, so both commit by the same SQL. `lap` is awaited after each stage
 * (the browser's worker answers queued queries there and times the stages, decision 022).
 */
export async function commitImportRows(
  q: (sql: string) => { toArray(): unknown[] },
  id: number,
  info: CommitInfo,
  insertErrors: (errors: { line: number; reason: string }[]) => void,
  lap: (stage: 'dedupe' | 'isLast' | 'stats' | 'meta') => unknown = () => undefined,
  opts: CommitOptions = {},
): Promise<CommitDedupe & { rowsAdded: number }> {
  const n = (sql: string) => Number((q(sql).toArray()[0] as { n?: unknown } | undefined)?.n ?? 0);
  const d = dedupeImport(q, id, info.joinFormats);
  await lap('dedupe');
  q(`UPDATE steps SET is_last = (steps.step_index = l.last_index)
         FROM (SELECT trajectory_uid, max(step_index) AS last_index FROM steps WHERE import_id = ${id} GROUP BY ALL) l
         WHERE steps.import_id = ${id} AND steps.is_last IS NULL AND steps.trajectory_uid = l.trajectory_uid`);
  await lap('isLast');
  const overlap = n(`SELECT count(*) AS n FROM trajectory_stats WHERE trajectory_uid IN (SELECT DISTINCT trajectory_uid FROM steps WHERE import_id = ${id})`) > 0;
  let passes = 1;
  if (opts.statsPasses) {
    const r = q(`SELECT approx_count_distinct(trajectory_uid) AS t, count(*) AS n FROM steps WHERE import_id = ${id}`).toArray()[0] as { t?: unknown; n?: unknown } | undefined;
    passes = opts.statsPasses(Number(r?.t ?? 0), Number(r?.n ?? 0));
  }
  for (const sql of importStatsSql(id, overlap, passes)) q(sql);
  await lap('stats');
  const added = n(`SELECT count(*) AS n FROM steps WHERE import_id = ${id}`);
  const errors = [...info.errors, ...d.repeats];
  insertErrors(errors);
  const message = [info.message, ...describeDedupe(d, added)].filter(Boolean).join('; ') || null;
  q(`UPDATE imports SET status = '${added ? 'done' : 'unchanged'}', format = ${str(info.format)}, confidence = ${Number(info.confidence) || 0},
           records = ${info.records | 0}, rows_made = ${info.rowsMade | 0}, rows_added = ${added}, rejected = ${errors.length},
           message = ${sqlText(message)}, finished_at = now() WHERE import_id = ${id}`);
  await lap('meta');
  return { rowsAdded: added, ...d };
}
