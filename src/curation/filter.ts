/**
 * The dashboard filter: every condition composes into one SQL predicate over `steps s LEFT JOIN
 * curation c` — the same predicate the dashboard counts, the review queue ranks and the export
 * selects (ExportDatasetOptions.where), so their numbers agree.
 */
import { TRAINABLE_SQL } from '../pool/schema';
import { sqlNumber, sqlString, sqlStringList } from '../pool/sql';

export const TrajectoryStatus = { any: 'any', complete: 'complete', open: 'open', error: 'error', ok: 'ok' } as const;
export type TrajectoryStatus = (typeof TrajectoryStatus)[keyof typeof TrajectoryStatus];

export interface CurationFilter {
  agents?: string[];
  models?: string[];
  dataSources?: string[];
  channels?: string[];
  /** Bounds on the trajectory's reward (sum of its step rewards); trajectories without reward never match a bound. */
  rewardMin?: number | null;
  rewardMax?: number | null;
  /** complete / open: the trajectory has (not) reached its last step; error / ok: it has (no) failed steps. */
  status?: TrajectoryStatus;
  /** Step quality labels: unreviewed, good, bad or custom. */
  quality?: string[];
  /** Steps carrying any of these tags. */
  tags?: string[];
  /** Case-insensitive substring of any message, reasoning or the response of any step of the trajectory. */
  text?: string;
  trainable?: 'any' | 'yes' | 'no';
}

/** A usable bound: a finite number (null, undefined, NaN and ±Infinity are no bound). */
const finite = (n: number | null | undefined): n is number => Number.isFinite(n);

function inList(col: string, xs: string[] | undefined): string | null {
  const vals = (xs ?? []).filter((x) => x !== '');
  return vals.length ? `${col} IN (${vals.map(sqlString).join(', ')})` : null;
}

/** `''` when the filter selects everything. */
export function filterWhere(f: CurationFilter): string {
  const conds: (string | null)[] = [
    inList('s.agent', f.agents),
    inList('s.model', f.models),
    inList('s.data_source', f.dataSources),
    inList('s.channel', f.channels),
  ];
  const traj: string[] = [];
  if (finite(f.rewardMin)) traj.push(`reward_sum >= ${sqlNumber(f.rewardMin)}`);
  if (finite(f.rewardMax)) traj.push(`reward_sum <= ${sqlNumber(f.rewardMax)}`);
  if (f.status === 'complete') traj.push('complete');
  if (f.status === 'open') traj.push('NOT complete');
  if (f.status === 'error') traj.push('error_steps > 0');
  if (f.status === 'ok') traj.push('error_steps = 0');
  if (traj.length) conds.push(`s.trajectory_uid IN (SELECT trajectory_uid FROM trajectories WHERE ${traj.join(' AND ')})`);
  const quality = (f.quality ?? []).filter(Boolean);
  if (quality.length) conds.push(`coalesce(c.quality, 'unreviewed') IN (${quality.map(sqlString).join(', ')})`);
  const tags = (f.tags ?? []).filter(Boolean);
  if (tags.length) conds.push(`list_has_any(coalesce(c.tags, []::VARCHAR[]), ${sqlStringList(tags)})`);
  if (f.trainable === 'yes') conds.push(TRAINABLE_SQL);
  if (f.trainable === 'no') conds.push(`NOT ${TRAINABLE_SQL}`);
  const text = f.text?.trim();
  if (text) {
    const needle = sqlString(text.toLowerCase());
    conds.push(`s.trajectory_uid IN (SELECT trajectory_uid FROM steps WHERE contains(lower(coalesce(response_text, '')), ${needle})
      OR contains(lower(conversation_plain(messages, response)), ${needle}))`);
  }
  return conds.filter((c): c is string => c !== null).join(' AND ');
}

/** A human-readable summary of the active conditions (for the manifest and the UI). */
export function filterSummary(f: CurationFilter): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(f)) {
    if (v === undefined || v === null || v === '' || v === 'any') continue;
    if (Array.isArray(v) && !v.length) continue;
    out[k] = v;
  }
  return out;
}

