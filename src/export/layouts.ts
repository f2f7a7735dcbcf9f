/**
 * Training layouts (DESIGN.md "Export formats") as SQL over `steps s LEFT JOIN curation c`.
 * Every layout keeps step_id / trajectory_uid for lineage.
 */
import type { DatasetLayout, ExportDatasetOptions } from '../app/services';

export const LAYOUTS: Record<DatasetLayout, string> = {
  steps: 'Step records as they are, plus curation columns',
  sft: 'One row per trajectory (TRL conversational messages + tools), or per step (prompt + completion: loss on the assistant turn only)',
  rl_steps: 'One row per step for step-level RL (prompt, response, reward, GRPO prompt_uid, token ids)',
  verl_prompts: 'veRL RLHF prompt rows: data_source, prompt, ability, reward_model, extra_info',
  dpo: 'Preference pairs (prompt, chosen, rejected) from one prompt group with different rewards',
};

export type SelectionOptions = Pick<ExportDatasetOptions, 'where' | 'trainableOnly' | 'redact' | 'split' | 'splitColumn'>;

const q = (v: string) => `'${v.replaceAll("'", "''")}'`;

/**
 * The selected steps: trainable ones (by default) that match the user's predicate and split, redacted on request.
 * quality / trainable are the effective values (defaults filled in), which also keeps the steps layout from having an
 * all-NULL BOOLEAN column that parquet-wasm cannot write.
 */
export function selection(opts: SelectionOptions): string {
  const conds: string[] = [];
  if (opts.trainableOnly !== false) conds.push(`coalesce(c.trainable, s.status = 'ok')`);
  if (opts.where?.trim()) conds.push(`(${opts.where})`);
  if (opts.split) conds.push(`${opts.splitColumn === 'channel' ? 's.channel' : 'coalesce(c.split, s.channel)'} = ${q(opts.split)}`);
  const cols = opts.redact
    ? `s.* REPLACE (redact_messages(s.messages) AS messages, redact_message(s.response) AS response,
        redact_pii(s.response_text) AS response_text, redact_pii(s.error) AS error, redact_pii(s.raw) AS raw)`
    : 's.*';
  return `SELECT ${cols}, coalesce(c.quality, 'unreviewed') AS quality, coalesce(c.trainable, s.status = 'ok') AS trainable, c.tags, c.note, c.split
    FROM steps s LEFT JOIN curation c USING (step_id)
    ${conds.length ? `WHERE ${conds.join(' AND ')}` : ''}`;
}

const FULL_CONVERSATION = `CASE WHEN response IS NULL THEN messages ELSE list_concat(messages, [response]) END`;

export function datasetSql(opts: Omit<ExportDatasetOptions, 'format'>): string {
  const sel = `WITH sel AS (${selection(opts)})`;
  const min = opts.dpoMinMargin;
  // A margin ≤ 0 is already implied by a.reward > b.reward and Number.isFinite rejects null / undefined, so forcing
  // these guards true or widening `> 0` only changes the SQL text, never the pairs.
  // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: equivalent, see above
  const margin = min !== undefined && min !== null && Number.isFinite(min) && min > 0 ? ` AND a.reward - b.reward >= ${Number(min)}` : '';
  switch (opts.layout) {
    case 'steps':
      return `${sel} SELECT * FROM sel ORDER BY trajectory_uid, step_index`;
    case 'sft':
      if (opts.sftPer === 'step') {
        return `${sel} SELECT trajectory_uid, step_id, prompt_uid, step_index, is_last, data_source, agent, model, channel, split,
            messages AS prompt, CASE WHEN response IS NULL THEN [] ELSE [response] END AS completion,
            ${FULL_CONVERSATION} AS messages, tools, reward
          FROM sel WHERE response IS NOT NULL ORDER BY trajectory_uid, step_index`;
      }
      return `${sel}, last AS (
          SELECT * FROM sel QUALIFY row_number() OVER (PARTITION BY trajectory_uid ORDER BY step_index DESC) = 1)
        SELECT trajectory_uid, step_id, prompt_uid, data_source, agent, model, channel, split,
          ${FULL_CONVERSATION} AS messages, tools, reward
        FROM last ORDER BY trajectory_uid`;
    case 'rl_steps':
      return `${sel} SELECT step_id, trajectory_uid, prompt_uid, step_index, is_last, data_source, agent, model, policy_version,
          messages AS prompt, response, response_text, reward, finish_reason, prompt_ids, response_ids, rollout_log_probs,
          prompt_tokens, completion_tokens, channel, split
        FROM sel ORDER BY prompt_uid, trajectory_uid, step_index`;
    case 'verl_prompts':
      return `${sel}, first AS (
          SELECT * FROM sel QUALIFY row_number() OVER (PARTITION BY prompt_uid ORDER BY trajectory_uid, step_index) = 1)
        SELECT coalesce(data_source, 'unknown') AS data_source,
          [m FOR m IN messages IF m.role IN ('system', 'user')] AS prompt,
          coalesce(metadata['ability'], 'agent') AS ability,
          {'style': coalesce(metadata['reward_style'], 'rule'),
           'ground_truth': coalesce(metadata['ground_truth'], metadata['answer'], '')} AS reward_model,
          {'index': prompt_uid, 'split': coalesce(split, channel), 'trajectory_uid': trajectory_uid, 'step_id': step_id} AS extra_info,
          prompt_uid, trajectory_uid, step_id
        FROM first ORDER BY prompt_uid`;
    case 'dpo':
      return `${sel}, traj AS (
          SELECT trajectory_uid, any_value(prompt_uid) AS prompt_uid, sum(reward) AS reward,
            arg_max(step_id, step_index) AS step_id, arg_min(messages, step_index) AS first_messages,
            arg_max(${FULL_CONVERSATION}, step_index) AS conversation
          FROM sel GROUP BY trajectory_uid HAVING count(reward) > 0),
        pairs AS (
          SELECT a.prompt_uid, a.trajectory_uid AS chosen_trajectory_uid, b.trajectory_uid AS rejected_trajectory_uid,
            a.step_id AS chosen_step_id, b.step_id AS rejected_step_id, a.reward AS chosen_reward, b.reward AS rejected_reward,
            a.reward - b.reward AS margin, a.first_messages AS prompt,
            a.conversation[len(a.first_messages) + 1:] AS chosen, b.conversation[len(b.first_messages) + 1:] AS rejected
          FROM traj a JOIN traj b ON a.prompt_uid = b.prompt_uid AND a.reward > b.reward${margin})
        SELECT * FROM pairs QUALIFY row_number() OVER (PARTITION BY prompt_uid ORDER BY margin DESC, chosen_trajectory_uid, rejected_trajectory_uid) = 1
        ORDER BY prompt_uid`;
  }
}
