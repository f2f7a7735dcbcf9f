/**
 * trajectory_stats, kept by every write of steps (docs/decisions/005): refreshed for the trajectories a
 * write touched, rebuilt after SQL that wrote steps directly, checked at open.
 */
import type { DuckDBConnection } from '@duckdb/duckdb-wasm/blocking';
import { statementEffect } from './changes';
import { refreshStatsSql } from './schema';

/** Runs one statement (on the given connection, or the pool's own). */
export type RunSql = (sql: string, on?: DuckDBConnection) => { getChild(name: string): { get(i: number): unknown } | null };


export class TrajectoryStats {
  constructor(private readonly run: RunSql) {}

  /**
   * Recompute trajectory_stats for the trajectories `uids` (a subquery over steps) selects, or all of
   * them, in the caller's transaction.
   */
  refresh(uids: string | null, on?: DuckDBConnection): void {
    for (const sql of refreshStatsSql(uids)) this.run(sql, on);
  }

  /**
   * Stats of an import's rows when none of its trajectories is stored yet (the common case): aggregated
   * from the import's own rows, with no scan of the rest of steps for them. Falls back to `refresh` otherwise.
   */

  /** After SQL that wrote steps directly (the contract says steps are immutable, but SQL can), rebuild the stats. */
  afterUserSql(sql: string): void {
    if (statementEffect(sql).tables.includes('steps')) this.rebuild();
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
