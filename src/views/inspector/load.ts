/** The inspector's query: one trajectory's steps with their curation, in order. */
import type { PoolClient } from '../../pool/client';
import { trajectorySteps } from '../../pool/queries/inspector';
import type { InspectorStep } from './turns';

export async function loadTrajectory(pool: PoolClient, trajectoryUid: string): Promise<InspectorStep[]> {
  return (await pool.rows(trajectorySteps(trajectoryUid))) as unknown as InspectorStep[];
}
