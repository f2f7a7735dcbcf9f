/**
 * trajectory_stats, kept by every write of steps (docs/decisions/005): refreshed for the trajectories a
 * write touched, rebuilt after SQL that wrote steps directly, checked at open.
 */
import type { DuckDBConnection } from '@duckdb/duckdb-wasm/blocking';
import { trajectoryStatsSql } from './schema';

/** Runs one statement (on the given connection, or the pool's own). */
export type RunSql = (sql: string, on?: DuckDBConnection) => { getChild(name: string): { get(i: number): unknown } | null };

/** SQL (from a notebook or the API) that may change rows of steps. */
export const WRITES_STEPS = /\b(?:insert\s+(?:or\s+\w+\s+)?into|update|delete\s+from|truncate(?:\s+table)?|alter\s+table|drop\s+table(?:\s+if\s+exists)?|copy)\s+(?:(?:main|memory)\.)?"?steps"?(?![\w"])/i;

export class TrajectoryStats {
  constructor(private readonly run: RunSql) {}

  /**
   * Recompute trajectory_stats for the trajectories `uids` (a subquery over steps) selects, or all of
   * them, in the caller's transaction.
   */
  refresh(uids: string | null, on?: DuckDBConnection): void {
    this.run(uids ? `DELETE FROM trajectory_stats WHERE trajectory_uid IN (${uids})` : 'DELETE FROM trajectory_stats', on);
    this.run(`INSERT INTO trajectory_stats ${trajectoryStatsSql(uids)}`, on);
  }

  /**
   * Stats of an import's rows when none of its trajectories is stored yet (the common case): aggregated
   * from the import's own rows, with no scan of the rest of steps for them. Falls back to `refresh` otherwise.
   */
  addImport(importId: number, on: DuckDBConnection): void {
    const mine = `SELECT DISTINCT trajectory_uid FROM steps WHERE import_id = ${importId | 0}`;
    const overlap = Number(this.run(`SELECT count(*) AS n FROM trajectory_stats WHERE trajectory_uid IN (${mine})`, on).getChild('n')?.get(0));
    if (overlap) this.refresh(mine, on);
    else this.run(`INSERT INTO trajectory_stats ${trajectoryStatsSql(null, `s.import_id = ${importId | 0}`)}`, on);
  }

  /** After SQL that wrote steps directly (the contract says steps are immutable, but SQL can), rebuild the stats. */
  afterUserSql(sql: string): void {
    if (WRITES_STEPS.test(sql)) this.rebuild();
  }

  /** All of trajectory_stats from steps, in a transaction of its own unless one is open. */
  rebuild(): void {
    try {
      this.run('BEGIN TRANSACTION');
    } catch {
      this.refresh(null); // the user's SQL left a transaction open: the stats join it
      return;
    }
    try {
      this.refresh(null);
      this.run('COMMIT');
    } catch (e) {
      this.run('ROLLBACK');
      throw e;
    }
  }

  /** True when the stats did not add up (a pool from before trajectory_stats existed) and were rebuilt. */
  check(): boolean {
    const t = this.run('SELECT (SELECT count(*) FROM steps) AS n, (SELECT coalesce(sum(step_count), 0) FROM trajectory_stats) AS m');
    if (Number(t.getChild('n')?.get(0)) === Number(t.getChild('m')?.get(0))) return false;
    this.rebuild();
    return true;
  }
}
