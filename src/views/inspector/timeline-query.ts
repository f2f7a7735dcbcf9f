/** The timeline's query: each step's times and the span ids the source recorded (kept in metadata by the normalizers). */
import { sqlString } from '../../pool/sql';
import type { PoolClient } from '../../pool/client';
import type { StepTiming } from './timeline';

/** Metadata keys holding a step's own span id and its parent's, per source: OTel, Phoenix, Langfuse (API and blob export). */
export const SPAN_KEYS = ['span_id', 'observation_id'] as const;
export const PARENT_KEYS = ['parent_span_id', 'parent_id', 'parent_observation_id', 'parentObservationId'] as const;

const first = (keys: readonly string[]) => `coalesce(${keys.map((k) => `metadata[${sqlString(k)}]`).join(', ')})`;

export async function loadTimings(pool: PoolClient, trajectoryUid: string): Promise<StepTiming[]> {
  const rows = await pool.rows(`SELECT step_index, epoch_ms(started_at)::DOUBLE AS started_ms, epoch_ms(ended_at)::DOUBLE AS ended_ms, latency_ms,
      ${first(SPAN_KEYS)} AS span_id, ${first(PARENT_KEYS)} AS parent_id, metadata['span_name'] AS span_name
    FROM steps WHERE trajectory_uid = ${sqlString(trajectoryUid)} ORDER BY step_index`);
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
