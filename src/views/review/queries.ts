/** The review queue's reads: unreviewed trajectories first, then by the rule the user picked; the count still to review. */
import type { PoolClient } from '../../pool/client';
import { matchingTrajectories } from '../../pool/queries/steps';

export const REVIEW_RULES = {
  'low-reward': 'Low reward first',
  errors: 'Errors first',
  longest: 'Longest first',
  newest: 'Newest first',
} as const;
export type ReviewRule = keyof typeof REVIEW_RULES;

const ORDER: Record<ReviewRule, string> = {
  'low-reward': 'reward_sum ASC NULLS LAST',
  errors: 'error_steps DESC, reward_sum ASC NULLS LAST',
  longest: 'step_count DESC, coalesce(completion_tokens, 0) + coalesce(prompt_tokens, 0) DESC',
  newest: 'started_at DESC NULLS LAST',
};

/** `trajectory_uid`, `unreviewed`: the queue in review order. */
export function reviewQueueSql(where: string, rule: ReviewRule): string {
  return `SELECT trajectory_uid, unreviewed_steps > 0 AS unreviewed FROM trajectories
    WHERE trajectory_uid IN (${matchingTrajectories(where)})
    ORDER BY unreviewed_steps > 0 DESC, ${ORDER[rule] ?? ORDER['low-reward']}, trajectory_uid`;
}

/** `n`: the queue's trajectories that still have unreviewed steps. */
export function unreviewedCountSql(where: string): string {
  return `SELECT count(*)::INTEGER AS n FROM trajectories WHERE unreviewed_steps > 0 AND trajectory_uid IN (${matchingTrajectories(where)})`;
}

export async function reviewQueue(pool: PoolClient, where: string, rule: ReviewRule): Promise<{ uids: string[]; unreviewed: number }> {
  const rows = await pool.rows(reviewQueueSql(where, rule));
  return { uids: rows.map((r) => String(r.trajectory_uid)), unreviewed: rows.filter((r) => r.unreviewed).length };
}

/** How many trajectories of the queue still have unreviewed steps (recounted after every label, without re-ranking). */
export async function unreviewedCount(pool: PoolClient, where: string): Promise<number> {
  const rows = await pool.rows(unreviewedCountSql(where));
  return Number(rows[0]?.n ?? 0);
}
