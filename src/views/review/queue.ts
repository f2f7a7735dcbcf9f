/** Review-queue ordering: unreviewed trajectories first, then by the rule the user picked (SQL in pool/queries/review). */
import type { PoolClient } from '../../pool/client';
import { type ReviewRule, reviewQueueSql, unreviewedCountSql } from '../../pool/queries/review';

export async function reviewQueue(pool: PoolClient, where: string, rule: ReviewRule): Promise<{ uids: string[]; unreviewed: number }> {
  const rows = await pool.rows(reviewQueueSql(where, rule));
  return { uids: rows.map((r) => String(r.trajectory_uid)), unreviewed: rows.filter((r) => r.unreviewed).length };
}

/** How many trajectories of the queue still have unreviewed steps (recounted after every label, without re-ranking). */
export async function unreviewedCount(pool: PoolClient, where: string): Promise<number> {
  const rows = await pool.rows(unreviewedCountSql(where));
  return Number(rows[0]?.n ?? 0);
}
