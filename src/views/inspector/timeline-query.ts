/** The timeline's rows: each step's times and span ids (the SQL is pool/queries/inspector's stepTimings). */
import type { PoolClient } from '../../pool/client';
import { stepTimings } from '../../pool/queries/inspector';
import type { StepTiming } from './timeline';

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
