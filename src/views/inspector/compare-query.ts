/** The rollouts of one prompt group (a GRPO group), with their rewards, for the compare view. */
import type { PoolClient } from '../../pool/client';
import { promptRollouts } from '../../pool/queries/inspector';

export interface Rollout {
  trajectory_uid: string;
  reward: number | null;
  steps: number;
}

/** At most this many rollouts are offered (a group of thousands is sampled by its reward order). */
export const ROLLOUT_LIMIT = 500;

export async function loadRollouts(pool: PoolClient, promptUid: string): Promise<Rollout[]> {
  const rows = await pool.rows(promptRollouts(promptUid, ROLLOUT_LIMIT));
  return rows.map((r) => ({ trajectory_uid: String(r.trajectory_uid), reward: r.reward === null ? null : Number(r.reward), steps: Number(r.steps) }));
}

/**
 * The rollout to compare `uid` with, as a DPO pair would: the one whose reward is farthest from its own
 * (the best when it is the worst, the worst otherwise); unrewarded rollouts only when nothing else is left.
 */
export function pairFor(uid: string, rollouts: readonly Rollout[]): string | null {
  const others = rollouts.filter((r) => r.trajectory_uid !== uid);
  if (!others.length) return null;
  const mine = rollouts.find((r) => r.trajectory_uid === uid)?.reward ?? null;
  const rewarded = others.filter((r) => r.reward !== null);
  if (!rewarded.length) return others[0].trajectory_uid;
  if (mine === null) return rewarded[0].trajectory_uid;
  let best = rewarded[0];
  for (const r of rewarded) if (Math.abs((r.reward as number) - mine) > Math.abs((best.reward as number) - mine)) best = r;
  return best.trajectory_uid;
}
