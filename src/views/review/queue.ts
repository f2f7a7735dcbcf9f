/** Review-queue ordering: unreviewed trajectories first, then by the rule the user picked. */
import type { PoolClient } from '../../pool/client';

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

export function reviewQueueSql(where: string, rule: ReviewRule): string {
  const matching = where ? `SELECT DISTINCT s.trajectory_uid FROM steps s LEFT JOIN curation c USING (step_id) WHERE ${where}` : 'SELECT trajectory_uid FROM steps';
  return `SELECT trajectory_uid, unreviewed_steps > 0 AS unreviewed FROM trajectories
    WHERE trajectory_uid IN (${matching})
    ORDER BY unreviewed_steps > 0 DESC, ${ORDER[rule] ?? ORDER['low-reward']}, trajectory_uid`;
}

export async function reviewQueue(pool: PoolClient, where: string, rule: ReviewRule): Promise<{ uids: string[]; unreviewed: number }> {
  const rows = await pool.rows(reviewQueueSql(where, rule));
  return { uids: rows.map((r) => String(r.trajectory_uid)), unreviewed: rows.filter((r) => r.unreviewed).length };
}
