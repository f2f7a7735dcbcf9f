/** Which rollout of a prompt group the compare view sets beside another. */
import type { Rollout } from './queries';

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
