/** The inspector's query: one trajectory's steps with their curation, in order. */
import { TRAINABLE_SQL } from '../schema';
import { sqlString } from '../sql';

export function trajectorySteps(trajectoryUid: string): string {
  return `SELECT s.step_id, s.trajectory_uid, s.prompt_uid, s.step_index, s.is_last, s.messages, s.response, s.reward,
      s.prompt_tokens, s.completion_tokens, s.latency_ms, s.finish_reason, s.status, s.error, s.model, s.agent, s.raw,
      coalesce(c.quality, 'unreviewed') AS quality, ${TRAINABLE_SQL} AS trainable, c.tags, c.note
    FROM steps s LEFT JOIN curation c USING (step_id)
    WHERE s.trajectory_uid = ${sqlString(trajectoryUid)} ORDER BY s.step_index`;
}
