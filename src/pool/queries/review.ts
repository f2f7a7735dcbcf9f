/** The review queue's SQL: unreviewed trajectories first, then by the rule the user picked. */
import { matchingTrajectories } from './steps';

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
