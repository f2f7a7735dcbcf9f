/**
 * Schema versions of a saved pool (docs/decisions/023). `pool_meta.schema_version` says which schema a
 * pool file has; a pool without it was saved before versions were recorded (version 1, or 0 before
 * decision 011's `source_trajectory_id`). Opening a pool migrates it, step by step, in one transaction;
 * a pool that cannot be migrated (or was saved by a newer build) is left untouched, its data stays
 * readable, imports are refused, and the message says to export and rebuild.
 */
import { MESSAGE_TYPE, SCHEMA_VERSION } from './schema';

type Run = (sql: string) => { toArray(): unknown[] };

export interface Migration {
  /** The version this step produces (from `to - 1`). */
  to: number;
  what: string;
  sql: readonly string[];
}

/** Every schema change since versions exist, in order. A new one appends here and bumps SCHEMA_VERSION. */
export const MIGRATIONS: readonly Migration[] = [
  { to: 1, what: "the source's own trajectory id (decision 011)", sql: ['ALTER TABLE steps ADD COLUMN IF NOT EXISTS source_trajectory_id VARCHAR'] },
  // 2: versions recorded in pool_meta; the tables are those of version 1
  { to: 2, what: 'schema version recorded in pool_meta', sql: [] },
  {
    to: 3,
    what: 'token_counts rows kept per tokenizer profile and step content (issue 19)',
    // a pool from before token_counts gets the whole table from the DDL that follows the migration
    sql: ['ALTER TABLE IF EXISTS token_counts ADD COLUMN IF NOT EXISTS profile_key VARCHAR', 'ALTER TABLE IF EXISTS token_counts ADD COLUMN IF NOT EXISTS content_hash UBIGINT'],
  },
  {
    to: 4,
    what: "a tool result's error flag in its own field; log-probs as DOUBLE (issue 32)",
    // adding a struct field and widening FLOAT keep every value (a FLOAT log-prob keeps its float32 precision)
    sql: [`ALTER TABLE steps ALTER messages TYPE ${MESSAGE_TYPE}[]`, `ALTER TABLE steps ALTER response TYPE ${MESSAGE_TYPE}`, 'ALTER TABLE steps ALTER rollout_log_probs TYPE DOUBLE[]'],
  },
];

export interface MigrationOutcome {
  /** The pool's version when opened (null: a new, empty pool). */
  from: number | null;
  to: number;
  /** What was migrated, for the log. */
  applied: string[];
  /** Set when the pool cannot be used for writing by this build: the sentence shown to the user. */
  refused: string | null;
}

function tableExists(run: Run, name: string): boolean {
  return run(`SELECT 1 FROM information_schema.tables WHERE table_schema = 'main' AND table_name = '${name}'`).toArray().length > 0;
}

/** The schema version of the open database (null: nothing of the pool is there yet). */
export function detectVersion(run: Run): number | null {
  if (tableExists(run, 'pool_meta')) {
    const r = run(`SELECT value FROM pool_meta WHERE key = 'schema_version'`).toArray()[0] as { value?: unknown } | undefined;
    if (r?.value != null) {
      const v = Number(r.value);
      if (!Number.isInteger(v) || v < 0) throw new Error(`pool_meta.schema_version is '${String(r.value)}', not a version number`);
      return v;
    }
  }
  if (!tableExists(run, 'steps')) return null;
  const hasOwnId = run(`SELECT 1 FROM information_schema.columns WHERE table_name = 'steps' AND column_name = 'source_trajectory_id'`).toArray().length > 0;
  return hasOwnId ? 1 : 0;
}

const REBUILD = 'Your data is untouched and can still be queried and exported, but this version will not write to it: export it (Export panel, layout "steps"), then import the export into a new pool (another browser profile, or after removing this site\'s data).';

/**
 * Bring the open database to SCHEMA_VERSION before the DDL runs. Returns what happened; throws nothing
 * for a pool it cannot migrate (that is `refused`).
 */
export function migrate(run: Run, migrations: readonly Migration[] = MIGRATIONS, current = SCHEMA_VERSION): MigrationOutcome {
  let from: number | null;
  try {
    from = detectVersion(run);
  } catch (e) {
    return { from: null, to: current, applied: [], refused: `The pool's schema version cannot be read (${(e as Error).message}). ${REBUILD}` };
  }
  if (from === null || from === current) return { from, to: current, applied: [], refused: null };
  if (from > current) {
    return { from, to: current, applied: [], refused: `This pool was saved by a newer version of the workbench (schema ${from}; this one knows up to ${current}). Nothing was changed; open it with the newer version. ${REBUILD}` };
  }
  const steps = migrations.filter((m) => m.to > from && m.to <= current);
  const applied: string[] = [];
  run('BEGIN TRANSACTION');
  try {
    for (const m of steps) {
      for (const s of m.sql) run(s);
      applied.push(`${m.to - 1} → ${m.to}: ${m.what}`);
    }
    run(`CREATE TABLE IF NOT EXISTS pool_meta (key VARCHAR PRIMARY KEY, value VARCHAR)`);
    run(`INSERT OR REPLACE INTO pool_meta VALUES ('schema_version', '${current}')`);
    run('COMMIT');
  } catch (e) {
    try {
      run('ROLLBACK');
    } catch {
      /* the failed statement ended the transaction */
    }
    return { from, to: current, applied: [], refused: `This pool (schema ${from}) could not be migrated to schema ${current}: ${(e as Error).message}. Nothing was changed. ${REBUILD}` };
  }
  return { from, to: current, applied, refused: null };
}

/** A new pool: record the version its freshly made tables have. */
export function recordVersion(run: Run, current = SCHEMA_VERSION): void {
  run(`INSERT OR REPLACE INTO pool_meta VALUES ('schema_version', '${current}')`);
}
