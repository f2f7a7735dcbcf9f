/**
 * The inspector's reads: one trajectory's steps with their curation, its step times and span ids (the timeline), and
 * a prompt group's rollouts (the compare view) — each SQL text and the typed rows it gives.
 */
import type { PoolClient } from '../../pool/client';
import { TRAINABLE_SQL } from '../../pool/schema';
import { sqlString } from '../../pool/sql';
import type { StepTiming } from './timeline';
import type { InspectorStep } from './turns';

export function trajectorySteps(trajectoryUid: string): string {
  return `SELECT s.step_id, s.trajectory_uid, s.prompt_uid, s.step_index, s.is_last, s.messages, s.response, s.reward,
      s.prompt_tokens, s.completion_tokens, s.latency_ms, s.finish_reason, s.status, s.error, s.model, s.agent, s.raw,
      coalesce(c.quality, 'unreviewed') AS quality, ${TRAINABLE_SQL} AS trainable, c.tags, c.note
    FROM steps s LEFT JOIN curation c USING (step_id)
    WHERE s.trajectory_uid = ${sqlString(trajectoryUid)} ORDER BY s.step_index`;
}

export async function loadTrajectory(pool: PoolClient, trajectoryUid: string): Promise<InspectorStep[]> {
  return (await pool.rows(trajectorySteps(trajectoryUid))) as unknown as InspectorStep[];
}

/** Metadata keys holding a step's own span id and its parent's, per source: OTel, Phoenix, Langfuse (API and blob export). */
export const SPAN_KEYS = ['span_id', 'observation_id'] as const;
export const PARENT_KEYS = ['parent_span_id', 'parent_id', 'parent_observation_id', 'parentObservationId'] as const;

const first = (keys: readonly string[]) => `coalesce(${keys.map((k) => `metadata[${sqlString(k)}]`).join(', ')})`;

/** The timeline's rows: each step's times and the span ids the source recorded (kept in metadata by the normalizers). */
export function stepTimings(trajectoryUid: string): string {
  return `SELECT step_index, epoch_ms(started_at)::DOUBLE AS started_ms, epoch_ms(ended_at)::DOUBLE AS ended_ms, latency_ms,
      ${first(SPAN_KEYS)} AS span_id, ${first(PARENT_KEYS)} AS parent_id, metadata['span_name'] AS span_name
    FROM steps WHERE trajectory_uid = ${sqlString(trajectoryUid)} ORDER BY step_index`;
}

export async function loadTimings(pool: PoolClient, trajectoryUid: string): Promise<StepTiming[]> {
  const rows = await pool.rows(stepTimings(trajectoryUid));
  return rows.map((r) => ({
    step_index: Number(r.step_index),
    started_ms: r.started_ms === null ? null : Number(r.started_ms),
    ended_ms: r.ended_ms === null ? null : Number(r.ended_ms),
    latency_ms: r.latency_ms === null ? null : Number(r.latency_ms),
    span_id: (r.span_id as string | null) ?? null,
    parent_id: (r.parent_id as string | null) ?? null,
    span_name: (r.span_name as string | null) ?? null,
  }));
}

export interface Rollout {
  trajectory_uid: string;
  reward: number | null;
  steps: number;
}

/** At most this many rollouts are offered (a group of thousands is sampled by its reward order). */
export const ROLLOUT_LIMIT = 500;

/** `trajectory_uid`, `reward`, `steps`: the rollouts of one prompt group, best reward first, at most `limit`. */
export function promptRollouts(promptUid: string, limit: number): string {
  return `SELECT trajectory_uid, reward_sum AS reward, step_count AS steps FROM trajectories
    WHERE prompt_uid = ${sqlString(promptUid)} ORDER BY reward_sum DESC NULLS LAST, trajectory_uid LIMIT ${Math.max(0, Math.floor(limit))}`;
}

export async function loadRollouts(pool: PoolClient, promptUid: string): Promise<Rollout[]> {
  const rows = await pool.rows(promptRollouts(promptUid, ROLLOUT_LIMIT));
  return rows.map((r) => ({ trajectory_uid: String(r.trajectory_uid), reward: r.reward === null ? null : Number(r.reward), steps: Number(r.steps) }));
}
