/**
 * The curation store: labels as SQL upserts on the `curation` table (keyed by step_id; steps are
 * never rewritten). Every write snapshots the rows it touches into a temp table first, so it can
 * be undone exactly, however many steps a bulk label covered.
 */
import type { PoolClient } from '../pool/client';
import { filteredSteps } from '../pool/queries/steps';
import { sqlString, sqlStringList, valuesChunks } from '../pool/sql';

export interface CurationPatch {
  /** 'good' | 'bad' | 'unreviewed' | a custom label. */
  quality?: string;
  /** null resets to the default (trainable when status = 'ok'). */
  trainable?: boolean | null;
  /** Replace the tag list. */
  tags?: string[];
  addTags?: string[];
  removeTags?: string[];
  note?: string | null;
  split?: string | null;
}

/** What a write selects: explicit step ids, whole trajectories, or every step a predicate matches. */
export type CurationTarget = { stepIds: readonly string[] } | { trajectoryUids: readonly string[] } | { where: string };

export interface CurationResult {
  steps: number;
}

interface UndoEntry {
  table: string;
  steps: number;
  label: string;
}

export class CurationError extends Error {
  constructor(
    message: string,
    readonly sql: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'CurationError';
  }
}

let seq = 1;
const UNDO_DEPTH = 100;

export class CurationStore {
  private undoStack: UndoEntry[] = [];
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly pool: PoolClient) {}

  get canUndo(): boolean {
    return this.undoStack.length > 0;
  }

  get undoLabel(): string | null {
    return this.undoStack.at(-1)?.label ?? null;
  }

  /** Label the target's steps; returns how many steps the write covered. */
  apply(target: CurationTarget, patch: CurationPatch, label = describe(patch)): Promise<CurationResult> {
    return this.serial(async () => {
      const ids = await this.targetSql(target);
      const undo = `_curation_undo_${seq++}`;
      const sql = `BEGIN TRANSACTION;
        CREATE OR REPLACE TEMP TABLE ${undo} AS
          SELECT t.step_id, c.step_id IS NOT NULL AS had, c.quality, c.trainable, c.tags, c.note, c.split, c.reviewed_at
          FROM (SELECT DISTINCT step_id FROM (${ids.sql}) WHERE step_id IS NOT NULL) t LEFT JOIN curation c USING (step_id);
        INSERT INTO curation (step_id, quality, trainable, tags, note, split, reviewed_at)
          SELECT u.step_id, ${assignments(patch)} FROM ${undo} u
          ON CONFLICT (step_id) DO UPDATE SET quality = excluded.quality, trainable = excluded.trainable, tags = excluded.tags,
            note = excluded.note, split = excluded.split, reviewed_at = excluded.reviewed_at;
        COMMIT`;
      try {
        await this.exec(sql);
      } finally {
        if (ids.temp) await this.pool.exec(`DROP TABLE IF EXISTS ${ids.temp}`).catch(() => {});
      }
      const [r] = await this.pool.rows(`SELECT count(*)::INTEGER AS n FROM ${undo}`);
      const steps = Number(r.n);
      this.undoStack.push({ table: undo, steps, label });
      while (this.undoStack.length > UNDO_DEPTH) {
        const old = this.undoStack.shift()!;
        await this.pool.exec(`DROP TABLE IF EXISTS ${old.table}`);
      }
      await this.persisted();
      return { steps };
    });
  }

  /** Restore the rows the last write touched; null when there is nothing to undo. */
  undo(): Promise<CurationResult & { label: string } | null> {
    return this.serial(async () => {
      const e = this.undoStack.pop();
      if (!e) return null;
      await this.exec(`BEGIN TRANSACTION;
        DELETE FROM curation WHERE step_id IN (SELECT step_id FROM ${e.table});
        INSERT INTO curation (step_id, quality, trainable, tags, note, split, reviewed_at)
          SELECT step_id, quality, trainable, tags, note, split, reviewed_at FROM ${e.table} WHERE had;
        DROP TABLE ${e.table};
        COMMIT`);
      await this.persisted();
      return { steps: e.steps, label: e.label };
    });
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => {});
    return run;
  }

  private async exec(sql: string): Promise<void> {
    try {
      await this.pool.exec(sql);
    } catch (e) {
      await this.pool.exec('ROLLBACK').catch(() => {});
      throw new CurationError(`Saving the labels failed and nothing was changed: ${e instanceof Error ? e.message : String(e)}`, sql, { cause: e });
    }
  }

  private async persisted(): Promise<void> {
    await this.pool.checkpoint();
  }

  private async targetSql(t: CurationTarget): Promise<{ sql: string; temp: string | null }> {
    if ('where' in t) return { sql: filteredSteps(t.where, 's.step_id'), temp: null };
    const byTrajectory = 'trajectoryUids' in t;
    const values = byTrajectory ? t.trajectoryUids : t.stepIds;
    const temp = `_curation_ids_${seq++}`;
    await this.pool.exec(`CREATE OR REPLACE TEMP TABLE ${temp} (v VARCHAR)`);
    for (const chunk of valuesChunks(values)) await this.pool.exec(`INSERT INTO ${temp} VALUES ${chunk}`);
    const sql = byTrajectory
      ? `SELECT s.step_id FROM steps s WHERE s.trajectory_uid IN (SELECT v FROM ${temp})`
      : `SELECT v AS step_id FROM ${temp}`;
    return { sql, temp };
  }
}

function assignments(p: CurationPatch): string {
  const reviewed = p.quality !== undefined || p.trainable !== undefined || p.tags !== undefined || p.addTags !== undefined || p.removeTags !== undefined || p.note !== undefined;
  let tags = 'u.tags';
  if (p.tags !== undefined) tags = sqlStringList(p.tags);
  if (p.addTags?.length) {
    const add = sqlStringList([...new Set(p.addTags)]);
    tags = `list_concat(coalesce(${tags}, []::VARCHAR[]), list_filter(${add}, x -> NOT list_contains(coalesce(${tags}, []::VARCHAR[]), x)))`;
  }
  if (p.removeTags?.length) tags = `list_filter(${tags}, x -> NOT list_contains(${sqlStringList(p.removeTags)}, x))`;
  const opt = (v: string | null | undefined, keep: string) => (v === undefined ? keep : v === null ? 'NULL' : sqlString(v));
  return [
    p.quality !== undefined ? sqlString(p.quality) : `coalesce(u.quality, 'unreviewed')`,
    p.trainable === undefined ? 'u.trainable' : p.trainable === null ? 'NULL::BOOLEAN' : String(p.trainable),
    tags,
    opt(p.note, 'u.note'),
    opt(p.split, 'u.split'),
    reviewed ? 'now()' : 'u.reviewed_at',
  ].join(', ');
}

export function describe(p: CurationPatch): string {
  const parts: string[] = [];
  if (p.quality !== undefined) parts.push(`quality ${p.quality}`);
  if (p.trainable !== undefined) parts.push(p.trainable === null ? 'trainable reset' : p.trainable ? 'trainable' : 'not trainable');
  if (p.tags !== undefined) parts.push(`tags ${p.tags.join(', ') || '(none)'}`);
  if (p.addTags?.length) parts.push(`+${p.addTags.join(', +')}`);
  if (p.removeTags?.length) parts.push(`-${p.removeTags.join(', -')}`);
  if (p.note !== undefined) parts.push('note');
  if (p.split !== undefined) parts.push(`split ${p.split ?? 'reset'}`);
  return parts.join(' · ') || 'no change';
}

const stores = new WeakMap<PoolClient, CurationStore>();

/** One store per pool, so window.workbench, the review queue and the inspector share one undo stack. */
export function curationStore(pool: PoolClient): CurationStore {
  let s = stores.get(pool);
  if (!s) stores.set(pool, (s = new CurationStore(pool)));
  return s;
}
